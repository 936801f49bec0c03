package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/fsmove/fsmove/puppet/container"
)

// Capture is one tracer backend of fsmove run: whether this host can use
// it, what the container needs for it, what is exec'd in the container, and
// the tracer it runs on the host around the apply, if any. Every backend
// leaves the same artifacts: trace.log in strace's text form (but the
// untraced one), puppet.log, puppet.exit. A backend is one file
// (capture_*.go) and its line in captures; nothing else names it.
type Capture interface {
	// Name is the backend's --tracer value, recorded in run.json.
	Name() string
	// Check says whether this host can trace with the backend: nil when it
	// can, else what is missing, in one line.
	Check() error
	// NeedsPtrace says whether the container needs CAP_SYS_PTRACE (never
	// --privileged): the tracer runs in it.
	NeedsPtrace() bool
	// Files are what the backend copies into the container besides the
	// module (the tracer's own binary).
	Files(o Options) ([]ContainerFile, error)
	// Command is what is exec'd in the container to run puppet apply with
	// args (PuppetApplyArgs, SecondApplyArgs).
	Command(o Options, args []string) []string
	// Filter is the list of calls the command asks the tracer for, as
	// strace's -e trace= takes it, recorded in run.json; "" when the
	// tracer's list is its own.
	Filter() string
	// Trace is where trace.log is written.
	Trace() TraceSite
	// StartHost starts the backend's host-side tracer (Trace OnHost) on the
	// running container c before an apply, writing trace.log in outDir,
	// at most maxBytes of it. Backends whose tracer runs in the container
	// return nil, nil.
	StartHost(ctx context.Context, c *container.Container, outDir string, maxBytes int64) (HostTrace, error)
}

// TraceSite is where a backend writes trace.log.
type TraceSite int

const (
	// InContainer: the tracer runs in the container and writes trace.log
	// there (tracePath); it is copied out after the apply.
	InContainer TraceSite = iota
	// OnHost: the tracer runs on the host (Capture.StartHost) and writes
	// trace.log in the output directory as events come.
	OnHost
	// NoTrace: there is no tracer and no trace.log.
	NoTrace
)

// ContainerFile is a file a backend puts into the container.
type ContainerFile struct {
	Path string
	Data []byte
	Mode fs.FileMode
}

// HostTrace is a host-side tracer running around one apply.
type HostTrace interface {
	// Stop ends the capture once the apply has returned and trace.log is
	// complete.
	Stop() (HostStopped, error)
}

// HostStopped is what a host-side capture reports when it stops: events
// it lost and calls it saw from processes of the container outside its
// cgroup (either makes the run incomplete), and whether trace.log reached
// its cap and was cut.
type HostStopped struct {
	Dropped, Outside uint64
	Cut              bool
}

// captures lists the backends --tracer picks from, in the order the
// default is chosen in: the first whose Check passes.
var captures = []Capture{
	ebpfCapture{},
	straceCapture{},
	ptraceCapture{},
}

// untraced is Options.Untraced: the same apply, with no tracer (the
// untraced apply that "fsmove bench --untraced" and confirmations run).
var untraced Capture = untracedCapture{}

// Tracers names the backends fsmove run knows, for --help and errors.
func Tracers() []string {
	var names []string
	for _, c := range captures {
		names = append(names, c.Name())
	}
	return names
}

// TracerPinsCPU reports whether the tracer named name keeps the traced
// command on one CPU (the ptrace tracers: docs/DESIGN.md, "The ptrace
// tracers on one CPU"), so that two runs at once are best on two CPUs.
// "" (the default, eBPF where the host allows it) does not.
func TracerPinsCPU(name string) bool {
	for _, c := range captures {
		if c.Name() == name {
			return c.NeedsPtrace()
		}
	}
	return false
}

// ChooseTracer returns the backend named name once its Check passes on
// this host, or, for name "", the default: the first backend of captures
// whose Check passes (eBPF, which costs least and sees the whole container
// from the host, where the host allows it; else strace), with a note that
// says why when it is not the first. It is the one place a --tracer value
// is defaulted and validated.
//
// A backend whose tracer runs in the container (strace, ptrace: Trace
// InContainer) is chosen only for a trusted module: there the module runs
// as root beside the tracer, can ptrace it (same user; this kernel has no
// Yama) and change the trace before it leaves the container, so its
// verdict would be the module's to forge (docs/DESIGN.md, "The trace
// cannot be evaded").
func ChooseTracer(name string, trusted bool) (c Capture, note string, err error) {
	if name == "" {
		var skipped []string
		for _, c := range captures {
			err := c.Check()
			if err == nil && (trusted || c.Trace() != InContainer) {
				if len(skipped) > 0 {
					note = fmt.Sprintf("tracing with %s: %s", c.Name(), strings.Join(skipped, "; "))
				}
				return c, note, nil
			}
			if err == nil {
				err = errors.New(untrustedIn(c.Name()))
			}
			skipped = append(skipped, fmt.Sprintf("%s is not available here (%v)", c.Name(), err))
		}
		msg := "no tracer works on this host: " + strings.Join(skipped, "; ")
		if trusted {
			return nil, "", errors.New(msg)
		}
		return nil, "", &NotTrustedError{msg}
	}
	for _, c := range captures {
		if c.Name() != name {
			continue
		}
		if err := c.Check(); err != nil {
			return nil, "", fmt.Errorf("--tracer %s cannot trace on this host: %v (--tracer strace --trusted works everywhere, for a module you trust)", name, err)
		}
		if !trusted && c.Trace() == InContainer {
			return nil, "", &NotTrustedError{"--tracer " + name + ": " + untrustedIn(name)}
		}
		return c, "", nil
	}
	return nil, "", fmt.Errorf("unknown tracer %q (want one of %s)", name, strings.Join(Tracers(), ", "))
}

// NotTrustedError is ChooseTracer's refusal of a tracer inside the
// container for a module not said to be trusted: a usage error, which
// --trusted mends.
type NotTrustedError struct{ msg string }

func (e *NotTrustedError) Error() string { return e.msg }

// untrustedIn says why a tracer in the container needs --trusted.
func untrustedIn(name string) string {
	return name + " traces inside the container, where the module runs as root and could change the trace: " +
		"give --trusted for a module you trust, or trace with ebpf (as root, or with CAP_BPF and CAP_PERFMON)"
}

// Untraced is the tracer run.json records for an untraced run
// (Options.Untraced): there is no trace.log.
const Untraced = "none"

// untracedCapture applies with no tracer at all.
type untracedCapture struct{}

func (untracedCapture) Name() string                              { return Untraced }
func (untracedCapture) Check() error                              { return nil }
func (untracedCapture) NeedsPtrace() bool                         { return false }
func (untracedCapture) Files(Options) ([]ContainerFile, error)    { return nil, nil }
func (untracedCapture) Command(o Options, args []string) []string { return plainApply(nil, args) }
func (untracedCapture) Filter() string                            { return "" }
func (untracedCapture) Trace() TraceSite                          { return NoTrace }
func (untracedCapture) StartHost(context.Context, *container.Container, string, int64) (HostTrace, error) {
	return nil, nil
}

// plainApply runs puppet apply with args under prefix (a tracer that ends
// with its command and exits with its status, or nothing), recording the
// files apply.sh records for strace: puppet.pid, puppet.log and puppet.exit.
func plainApply(prefix []string, args []string) []string {
	script := `cd ` + applyDir + ` || exit 125 # as apply.sh: nothing is written anywhere else
rm -f puppet.pid puppet.exit
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
