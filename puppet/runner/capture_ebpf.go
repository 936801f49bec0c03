package runner

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/ebpf"
	"github.com/fsmove/fsmove/tracer/strace"
)

// ebpfCapture traces the container from the host with eBPF, filtered to
// its cgroup: the container needs nothing, and the apply runs untraced in
// it.
type ebpfCapture struct{}

func (ebpfCapture) Name() string      { return "ebpf" }
func (ebpfCapture) Check() error      { return ebpf.Check() }
func (ebpfCapture) NeedsPtrace() bool { return false }

func (ebpfCapture) Files(Options) ([]ContainerFile, error) { return nil, nil }
func (ebpfCapture) Filter() string                         { return "" }
func (ebpfCapture) Trace() TraceSite                       { return OnHost }

func (ebpfCapture) Command(o Options, args []string) []string {
	return plainApply(nil, args)
}

// StartHost starts tracing the container's cgroup. Events carry the pids
// of the container's namespace (that of its PID 1), as clone returns them
// inside the container.
func (ebpfCapture) StartHost(ctx context.Context, c *container.Container, outDir string, maxBytes int64) (HostTrace, error) {
	initPid, err := c.HostPid(ctx)
	if err != nil {
		return nil, err
	}
	cg := c.TraceCgroup()
	if cg == "" {
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
	h := &ebpfTrace{t: t, f: f, done: make(chan error, 1), out: &capWriter{w: f, left: maxBytes}}
	go func() { h.done <- h.drain() }()
	return h, nil
}

// ebpfTrace is an eBPF capture running on the host while the apply runs in
// the container: its events are written to trace.log as they come, so the
// ring buffer never fills and nothing is held in memory.
type ebpfTrace struct {
	t    *ebpf.Tracer
	f    *os.File
	done chan error
	// out caps trace.log: once it is full (out.cut), what comes after is
	// read and thrown away (the ring buffer must not fill).
	out *capWriter
}

// drain writes events until the tracer is stopped and empty.
func (h *ebpfTrace) drain() error {
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

// Stop ends the capture once the apply has returned.
func (h *ebpfTrace) Stop() (HostStopped, error) {
	stopErr := h.t.Stop()
	drainErr := <-h.done
	st := HostStopped{Dropped: h.t.Dropped(), Outside: h.t.Outside(), Cut: h.out.cut}
	h.t.Close()
	closeErr := h.f.Close()
	var de *ebpf.ErrDropped
	if stopErr != nil && !errors.As(stopErr, &de) {
		return st, stopErr
	}
	if drainErr != nil {
		return st, drainErr
	}
	return st, closeErr
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
