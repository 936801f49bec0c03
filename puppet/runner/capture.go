package runner

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/ebpf"
	"github.com/fsmove/fsmove/tracer/strace"
)

// capture is one tracer backend of fsmove run: what the container needs,
// what is exec'd in it, and whether a tracer runs on the host around it.
// Every backend leaves the same artifacts: trace.log in strace's text form,
// puppet.log, puppet.exit.
type capture struct {
	name string
	// ptrace: the tracer runs in the container and needs CAP_SYS_PTRACE
	// (never --privileged).
	ptrace bool
	// binary: fsmove itself is copied into the container (its native
	// tracer is "fsmove trace").
	binary bool
	// host: the tracer runs on the host, outside the container, filtered
	// to the container's cgroup; the container needs nothing.
	host bool
	// untraced: no tracer at all; the run leaves no trace.log (the
	// untraced apply that "fsmove bench --untraced" times).
	untraced bool
	// command is what is exec'd in the container to run puppet apply
	// with args (PuppetApplyArgs, SecondApplyArgs).
	command func(o Options, args []string) []string
}

// untracedCapture is Options.Untraced: the same apply, with no tracer.
var untracedCapture = capture{name: "no tracer", untraced: true, command: func(o Options, args []string) []string {
	return plainApply(nil, args)
}}

// captures lists the backends; --tracer picks one by name.
var captures = []capture{
	{name: "strace", ptrace: true, command: func(o Options, args []string) []string {
		return ApplyCommand(o.SeccompBPF, o.Init == container.InitSystemd, args)
	}},
	{name: "ptrace", ptrace: true, binary: true, command: func(o Options, args []string) []string {
		tracer := []string{fsmoveInContainer, "trace", "--out", tracePath}
		if o.Init == container.InitSystemd {
			tracer = append(tracer, "--attach", "1") // services are systemd's children
		}
		return plainApply(append(tracer, "--"), args)
	}},
	{name: "ebpf", host: true, command: func(o Options, args []string) []string {
		return plainApply(nil, args)
	}},
}

// Tracers names the backends fsmove run knows, for --help and errors.
func Tracers() []string {
	var names []string
	for _, c := range captures {
		names = append(names, c.name)
	}
	return names
}

// DefaultTracer picks the tracer when none is given: eBPF, which costs
// least and sees the whole container from the host, where this host allows
// it; otherwise strace, with a note that says why.
func DefaultTracer() (name, note string) {
	if err := ebpf.Check(); err != nil {
		return "strace", fmt.Sprintf("tracing with strace: eBPF is not available here (%v)", err)
	}
	return "ebpf", ""
}

func captureFor(name string) (capture, error) {
	for _, c := range captures {
		if c.name == name {
			return c, nil
		}
	}
	return capture{}, fmt.Errorf("unknown tracer %q (want one of %s)", name, strings.Join(Tracers(), ", "))
}

// fsmoveInContainer is where the fsmove binary goes for the ptrace backend.
const fsmoveInContainer = workDir + "/fsmove"

// plainApply runs puppet apply with args under prefix (a tracer that ends
// with its command and exits with its status, or nothing), recording the
// files apply.sh records for strace: puppet.pid, puppet.log and puppet.exit.
func plainApply(prefix []string, args []string) []string {
	script := `cd ` + workDir + ` && rm -f puppet.pid puppet.exit
"$@" /bin/sh -c 'echo $$ > puppet.pid && exec puppet apply "$@"' puppet-apply ` + shellWords(args) + ` >puppet.log 2>&1 </dev/null
st=$?
echo $st >puppet.exit
[ $st != 125 ] # 125: the tracer could not start Puppet (fsmove trace's status)`
	return append([]string{"/bin/sh", "-c", script, "fsmove-apply"}, prefix...)
}

// shellWords quotes words for /bin/sh.
func shellWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// hostTrace is an eBPF capture running on the host while the apply runs in
// the container: its events are written to trace.log as they come, so the
// ring buffer never fills and nothing is held in memory.
type hostTrace struct {
	t    *ebpf.Tracer
	f    *os.File
	done chan error
	// out caps trace.log: once it is full (out.cut), what comes after is
	// read and thrown away (the ring buffer must not fill).
	out *capWriter
}

// startHostTrace starts tracing the container's cgroup. Events carry the
// pids of the container's namespace (that of initPid, the host's pid of the
// container's PID 1), as clone returns them inside the container.
func startHostTrace(c *container.Container, initPid int, outDir string, maxBytes int64) (*hostTrace, error) {
	cg := c.TraceCgroup()
	if cg == "" {
		var err error
		if cg, err = ebpf.DockerCgroup(c.ID); err != nil {
			return nil, err
		}
	}
	ns, err := ebpf.PidNamespace(initPid)
	if err != nil {
		return nil, err
	}
	t, err := ebpf.Start(ebpf.Options{CgroupPath: cg, PidNS: ns})
	if err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(outDir, TraceFile))
	if err != nil {
		t.Close()
		return nil, err
	}
	h := &hostTrace{t: t, f: f, done: make(chan error, 1), out: &capWriter{w: f, left: maxBytes}}
	go func() { h.done <- h.drain() }()
	return h, nil
}

// drain writes events until the tracer is stopped and empty.
func (h *hostTrace) drain() error {
	bw := bufio.NewWriterSize(h.out, 1<<20)
	_, err := tracer.Drain(h.t, strace.NewWriter(bw))
	var dropped *ebpf.ErrDropped
	if errors.As(err, &dropped) {
		err = nil // Stop reports the count
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// capWriter writes at most left bytes to w and drops the rest, saying so
// in cut: for what the module decides the size of.
type capWriter struct {
	w    io.Writer
	left int64
	cut  bool
}

func (c *capWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= c.left {
		n, err := c.w.Write(p)
		c.left -= int64(n)
		return n, err
	}
	c.cut = true
	if c.left > 0 {
		if _, err := c.w.Write(p[:c.left]); err != nil {
			return 0, err
		}
		c.left = 0
	}
	return len(p), nil
}

// stop ends the capture once the apply has returned, and reports how many
// events were lost and how many calls came from processes of the container
// outside its cgroup (either makes the run incomplete).
func (h *hostTrace) stop() (dropped, outside uint64, err error) {
	stopErr := h.t.Stop()
	drainErr := <-h.done
	dropped, outside = h.t.Dropped(), h.t.Outside()
	h.t.Close()
	closeErr := h.f.Close()
	var de *ebpf.ErrDropped
	if stopErr != nil && !errors.As(stopErr, &de) {
		return dropped, outside, stopErr
	}
	if drainErr != nil {
		return dropped, outside, drainErr
	}
	return dropped, outside, closeErr
}

// readBinary reads the fsmove binary that the ptrace backend puts in the
// container.
func readBinary(path string) ([]byte, error) {
	if path == "" {
		return nil, errors.New("the ptrace tracer needs the fsmove binary (Options.TracerBinary)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the ptrace tracer copies fsmove into the container: %w", err)
	}
	return data, nil
}
