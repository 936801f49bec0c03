// Package ebpf is fsmove's eBPF capture backend: BPF programs at the exit of
// every system call (a BTF raw tracepoint), running on the host and filtered
// to one cgroup (a container), deliver the completed calls that fstrace's
// lowering needs as tracer.Events, through one ring buffer. A call's
// arguments are read at its exit from the user registers it was made with;
// a successful exec, which replaces them, is rebuilt from the kernel's copy
// of its program path, kept at the exec (execArgs).
//
// Use:
//
//	cg, err := ebpf.DockerCgroup(containerID) // or a TempCgroup for a command
//	ns, err := ebpf.PidNamespace(initPid)    // the container's init, from docker inspect
//	t, err := ebpf.Start(ebpf.Options{CgroupPath: cg, PidNS: ns})
//	defer t.Close()
//	// run the workload; meanwhile a goroutine reads t.Next() until io.EOF
//	// (for example analyze.Interpret(ctx, t, &counts, nil, nil), or
//	// strace.NewWriter(f).Write(ev) for --save-trace)
//	err = t.Stop() // after the workload ended: Next drains what is left, then io.EOF
//
// A lost event makes the capture incomplete: the program counts every
// event the ring buffer could not take, Next returns an *ErrDropped instead
// of io.EOF at the end, and Stop returns it too.
//
// Events have strace's argument lists (strace.Normalize), so that
// strace.Writer prints them in strace's form and the strace reader reads
// that text back to the same events.
//
// What differs from strace's capture (none of it changes the analysis):
// failed calls are dropped in the kernel but for failed lookups
// (Options.Failed, tracer.FailedLookups); writes
// are kept for fds 1 and 2 (the block markers) and, to other fds, only when
// they are short (at most 32 bytes: a pid written to cgroup.procs); pids are
// the thread ids of Options.PidNS (the container's, as clone returns them
// there), or the host's when it is not set; exits carry the task's wait
// status (its exit_code at sched_process_exit, as strace's "+++ exited
// with N +++" shows it); a call in progress when Stop is called is not seen (stop after
// the workload has ended), and an exec in progress when Start attaches has
// no program path; 32-bit (compat) system calls of a 32-bit program would be
// misnamed, since their numbers differ.
//
// Ordering. Events are written to one ring buffer shared by all CPUs, at
// the exit of each call, so the stream is in order of completion; calls of
// one thread are in program order. Between threads on different CPUs, two
// calls that complete at nearly the same time may appear in either order,
// and a call appears at its end, not its start (like strace's
// "<unfinished ...>" calls, which strace prints at their start). This
// matters to the model only where two threads race on the same path or fd
// table, which the model cannot order anyway; the one ordering the model
// relies on across processes, a parent's clone before its child's calls,
// is often inverted (the child runs before clone returns in the parent),
// and the interpreter already accepts a child seen before its parent's
// clone (strace shows the same).
package ebpf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	cebpf "github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
	"github.com/fsmove/fsmove/tracer/strace"
)

// Options say what to trace.
type Options struct {
	// CgroupPath is a cgroup v2 directory (e.g. Docker's
	// /sys/fs/cgroup/unified/docker/<id> on this host, or
	// /sys/fs/cgroup/system.slice/docker-<id>.scope with systemd): the
	// tasks in it and in every cgroup below it are traced.
	CgroupPath string
	// CgroupID is a cgroup v2 id (the inode number of its directory), used
	// when CgroupPath is empty: only the tasks directly in it are traced.
	CgroupID uint64
	// RingBytes is the ring buffer size, a power of two multiple of the page
	// size; 0 means 64 MiB.
	RingBytes uint32
	// Failed says which failed calls are sent (tracer.Failed): by default
	// the program drops all but the failed lookups in the kernel; with
	// tracer.FailedAll it sends every one, with its strings.
	Failed tracer.Failed
	// PidNS is the pid namespace whose thread ids events carry: the
	// container's (PidNamespace of its init), so that the pids clone returns
	// inside the container are the pids of the children's events. A traced
	// task outside it (or in a pid namespace nested in it) cannot be named:
	// its calls are dropped and counted as lost. The zero PidNS means host
	// thread ids.
	PidNS PidNS
}

// PidNS names a pid namespace as stat(2) of /proc/<pid>/ns/pid does: the
// device (st_dev, as user space encodes it) and inode numbers of that file.
type PidNS struct {
	Dev uint64
	Ino uint64
}

// IsZero says whether ns is the zero PidNS (host ids).
func (ns PidNS) IsZero() bool { return ns.Ino == 0 }

// kernelDev is ns.Dev as the kernel's dev_t (MKDEV: major<<20 | minor),
// which bpf_get_ns_current_pid_tgid compares with the nsfs device.
func (ns PidNS) kernelDev() uint64 {
	return uint64(unix.Major(ns.Dev))<<20 | uint64(unix.Minor(ns.Dev))
}

// PidNamespace returns the pid namespace of the process hostPid (a pid of
// this process's namespace, e.g. a container's init pid as docker inspect
// gives it, State.Pid), for Options.PidNS.
func PidNamespace(hostPid int) (PidNS, error) {
	var st unix.Stat_t
	if err := unix.Stat(fmt.Sprintf("/proc/%d/ns/pid", hostPid), &st); err != nil {
		return PidNS{}, fmt.Errorf("ebpf: the pid namespace of process %d: %w", hostPid, err)
	}
	return PidNS{Dev: st.Dev, Ino: st.Ino}, nil
}

// pollInterval is how often Next looks at the ring buffer when the program
// has not woken it: the program wakes the reader only when WAKEUP_BYTES are
// waiting, since a wake-up per event costs a context switch per call.
const pollInterval = 10 * time.Millisecond

// ErrDropped says the capture is incomplete: Count events were lost (the
// ring buffer was full, or the per-task maps were, or a traced task was
// outside Options.PidNS).
type ErrDropped struct{ Count uint64 }

func (e *ErrDropped) Error() string {
	return fmt.Sprintf("ebpf: %d events were dropped: the capture is incomplete", e.Count)
}

// Tracer is a running capture. Next is for one reading goroutine; Stop and
// Dropped may be called from another.
type Tracer struct {
	objs  fsmoveObjects
	links []link.Link
	rd    *ringbuf.Reader

	stopOnce sync.Once
	stopErr  error

	// Reading state, owned by the goroutine calling Next.
	rec  ringbuf.Record
	ev   tracer.Event
	args [6]tracer.Arg
	seq  int64
	done bool
}

// Event kinds, as enum event_kind in fsmove.bpf.c.
const (
	evSyscall = 1
	evExit    = 2
)

// Event flags, as F_* in fsmove.bpf.c.
const (
	fStr0Fault  = 1
	fStr1Fault  = 2
	fDataFault  = 4
	fExtraFault = 8
	fArgsLost   = 16
)

// headerSize is offsetof(struct event, buf); dataMax is DATA_MAX.
const (
	headerSize = 92
	dataMax    = 512
)

// Start loads the BPF programs, filtered to the cgroup of opts, and attaches
// them. Events are captured from then on until Stop.
func Start(opts Options) (*Tracer, error) {
	if !privileged() {
		return nil, errors.New("ebpf: tracing needs root (or CAP_BPF and CAP_PERFMON): run fsmove as root, or use --tracer strace --trusted for a module you trust")
	}
	id, level, err := target(opts)
	if err != nil {
		return nil, err
	}
	if err := ensureTracefs(); err != nil {
		return nil, err
	}
	// Kernels that charge BPF memory to the memory cgroup (5.11+) need no
	// memlock raise; RemoveMemlock does nothing there. On older kernels a
	// failure shows again, more clearly, as a load error.
	_ = rlimit.RemoveMemlock()

	spec, err := loadFsmove()
	if err != nil {
		return nil, fmt.Errorf("ebpf: reading the embedded BPF object: %w", err)
	}
	if err := spec.Variables["target_cgroup"].Set(id); err != nil {
		return nil, fmt.Errorf("ebpf: %w", err)
	}
	if err := spec.Variables["target_level"].Set(level); err != nil {
		return nil, fmt.Errorf("ebpf: %w", err)
	}
	if !opts.PidNS.IsZero() {
		if err := spec.Variables["pidns_dev"].Set(opts.PidNS.kernelDev()); err != nil {
			return nil, fmt.Errorf("ebpf: %w", err)
		}
		if err := spec.Variables["pidns_ino"].Set(opts.PidNS.Ino); err != nil {
			return nil, fmt.Errorf("ebpf: %w", err)
		}
	}
	if opts.Failed == tracer.FailedAll {
		if err := spec.Variables["keep_failed"].Set(uint8(1)); err != nil {
			return nil, fmt.Errorf("ebpf: %w", err)
		}
	}
	if opts.RingBytes != 0 {
		spec.Maps["events"].MaxEntries = opts.RingBytes
	}
	t := &Tracer{}
	if err := spec.LoadAndAssign(&t.objs, nil); err != nil {
		var ve *cebpf.VerifierError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("ebpf: the kernel refused the programs: %+v", ve)
		}
		return nil, fmt.Errorf("ebpf: loading the programs (is eBPF allowed here? kernel.unprivileged_bpf_disabled, lockdown, seccomp of a container): %w", err)
	}
	for _, row := range syscallTable {
		if err := t.objs.Plans.Put(uint32(row.Nr), planFor(row)); err != nil {
			t.objs.Close()
			return nil, fmt.Errorf("ebpf: filling the plans map: %w", err)
		}
	}
	// The system-call exit is a BTF raw tracepoint: it has no perf glue,
	// and it gives the call's user registers.
	l, err := link.AttachTracing(link.TracingOptions{Program: t.objs.SysExit})
	if err != nil {
		t.closeAll()
		return nil, fmt.Errorf("ebpf: attaching to the system-call exit (tp_btf/sys_exit): %w", err)
	}
	t.links = append(t.links, l)
	for _, a := range []struct {
		group, name string
		prog        *cebpf.Program
	}{
		{"sched", "sched_process_exit", t.objs.SchedProcessExit},
		{"sched", "sched_process_exec", t.objs.SchedProcessExec},
	} {
		l, err := link.Tracepoint(a.group, a.name, a.prog, nil)
		if err != nil {
			t.closeAll()
			return nil, fmt.Errorf("ebpf: attaching to tracepoint %s/%s: %w", a.group, a.name, err)
		}
		t.links = append(t.links, l)
	}
	t.rd, err = ringbuf.NewReader(t.objs.Events)
	if err != nil {
		t.closeAll()
		return nil, fmt.Errorf("ebpf: opening the ring buffer: %w", err)
	}
	t.rd.SetDeadline(time.Now().Add(pollInterval))
	return t, nil
}

// target finds the cgroup id to filter on, and the level of its directory
// below the cgroup v2 root (0: compare the task's own cgroup exactly).
func target(opts Options) (id uint64, level uint32, err error) {
	if opts.CgroupPath == "" {
		if opts.CgroupID == 0 {
			return 0, 0, errors.New("ebpf: no cgroup to trace (Options.CgroupPath or CgroupID)")
		}
		return opts.CgroupID, 0, nil
	}
	var st unix.Stat_t
	if err := unix.Stat(opts.CgroupPath, &st); err != nil {
		return 0, 0, fmt.Errorf("ebpf: cgroup: %w", err)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(opts.CgroupPath, &fs); err != nil {
		return 0, 0, fmt.Errorf("ebpf: cgroup: %w", err)
	}
	if fs.Type != unix.CGROUP2_SUPER_MAGIC {
		return 0, 0, fmt.Errorf("ebpf: %s is not in a cgroup v2 hierarchy (the BPF cgroup id is the v2 one; Docker's v1 containers also have a directory under the cgroup2 mount, e.g. /sys/fs/cgroup/unified/docker/<id>)", opts.CgroupPath)
	}
	root, err := cgroup2Root(opts.CgroupPath)
	if err != nil {
		return 0, 0, err
	}
	rel, err := filepath.Rel(root, filepath.Clean(opts.CgroupPath))
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return 0, 0, fmt.Errorf("ebpf: %s is the cgroup v2 root: that would trace the whole machine", opts.CgroupPath)
	}
	return st.Ino, uint32(strings.Count(rel, "/") + 1), nil
}

// cgroup2Root returns the mount point of the cgroup2 hierarchy holding path.
func cgroup2Root(path string) (string, error) {
	mounts, err := linux.Mounts()
	if err != nil {
		return "", fmt.Errorf("ebpf: %w", err)
	}
	path = filepath.Clean(path)
	best := ""
	for _, m := range mounts {
		if m.FSType == "cgroup2" && (path == m.Dir || strings.HasPrefix(path, m.Dir+"/")) && len(m.Dir) > len(best) {
			best = m.Dir
		}
	}
	if best == "" {
		return "", fmt.Errorf("ebpf: no cgroup2 mount holds %s", path)
	}
	return best, nil
}

// ensureTracefs mounts tracefs when it is not mounted: attaching to a
// tracepoint reads its id there.
func ensureTracefs() error {
	for _, dir := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		if _, err := os.Stat(filepath.Join(dir, "events")); err == nil {
			return nil
		}
	}
	if err := unix.Mount("nodev", "/sys/kernel/tracing", "tracefs", 0, ""); err != nil {
		return fmt.Errorf("ebpf: tracefs is not mounted and mounting it failed (mount -t tracefs nodev /sys/kernel/tracing): %w", err)
	}
	return nil
}

func (t *Tracer) closeAll() {
	t.closeLinks()
	t.objs.Close()
}

// Dropped returns the number of events lost so far (ring buffer full,
// per-task maps full, or tasks outside Options.PidNS).
func (t *Tracer) Dropped() uint64 {
	return t.count(0) + t.count(1)
}

// Outside returns the number of calls made by tasks of Options.PidNS that
// were not in the traced cgroup: a process of the container that left the
// cgroup it was put in. They are traced all the same (their ids in the
// namespace are known), but a process that could leave it could as well
// have gone where it is not seen (a pid namespace of its own outside the
// cgroup): the capture cannot be trusted to be complete.
func (t *Tracer) Outside() uint64 {
	return t.count(2)
}

// count sums one counter of the drops map over the CPUs.
func (t *Tracer) count(key uint32) uint64 {
	var perCPU []uint64
	if err := t.objs.Drops.Lookup(key, &perCPU); err != nil {
		return 0
	}
	var total uint64
	for _, n := range perCPU {
		total += n
	}
	return total
}

// Stop detaches the programs: no event is captured after it. Next then
// returns the events still in the ring buffer, and io.EOF (or *ErrDropped).
// Stop returns *ErrDropped too when events were lost.
func (t *Tracer) Stop() error {
	t.stopOnce.Do(func() {
		var errs []error
		// The programs see the flag at once and return; detaching them
		// waits for RCU grace periods (a quarter of a second), which
		// Close does off the traced step.
		if err := t.objs.Stopped.Set(uint32(1)); err != nil {
			errs = append(errs, fmt.Errorf("ebpf: stopping the capture: %w", err))
			t.closeLinks()
		}
		if err := t.rd.Flush(); err != nil {
			errs = append(errs, err)
		}
		if n := t.Dropped(); n > 0 {
			errs = append(errs, &ErrDropped{Count: n})
		}
		t.stopErr = errors.Join(errs...)
	})
	return t.stopErr
}

// Close stops the capture if needed and frees the programs and maps. Next
// must not be running.
func (t *Tracer) Close() error {
	err := t.Stop()
	t.rd.Close()
	// Detaching waits for RCU grace periods; nothing is traced any more
	// (Stop), so it need not hold up the caller.
	links, objs := t.links, t.objs
	t.links = nil
	go func() {
		for _, l := range links {
			l.Close()
		}
		objs.Close()
	}()
	return err
}

// closeLinks detaches the programs now.
func (t *Tracer) closeLinks() {
	for _, l := range t.links {
		l.Close()
	}
	t.links = nil
}

// Next returns the next event. The Event and its Args are reused by the
// next call; strings are not.
func (t *Tracer) Next() (*tracer.Event, error) {
	for {
		if t.done {
			return nil, t.endErr()
		}
		if err := t.rd.ReadInto(&t.rec); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				// Nothing is waiting: look again in a while.
				t.rd.SetDeadline(time.Now().Add(pollInterval))
				continue
			}
			if errors.Is(err, ringbuf.ErrFlushed) || errors.Is(err, os.ErrClosed) || errors.Is(err, ringbuf.ErrClosed) {
				t.done = true
				continue
			}
			return nil, fmt.Errorf("ebpf: reading the ring buffer: %w", err)
		}
		ok, err := t.decode(t.rec.RawSample)
		if err != nil {
			return nil, err
		}
		if ok {
			return &t.ev, nil
		}
	}
}

func (t *Tracer) endErr() error {
	if n := t.Dropped(); n > 0 {
		return &ErrDropped{Count: n}
	}
	return io.EOF
}

// decode fills t.ev from one ring buffer record; ok is false for a call the
// table does not know (cannot happen unless the plans map and the table
// disagree).
func (t *Tracer) decode(raw []byte) (ok bool, err error) {
	if len(raw) < headerSize {
		return false, fmt.Errorf("ebpf: short record (%d bytes)", len(raw))
	}
	le := binary.LittleEndian
	kind := le.Uint32(raw[0:])
	tid := le.Uint32(raw[4:])
	nr := int64(le.Uint64(raw[8:]))
	ret := int64(le.Uint64(raw[16:]))
	var regs [6]uint64
	for i := range regs {
		regs[i] = le.Uint64(raw[24+8*i:])
	}
	extra := le.Uint64(raw[72:])
	len0, len1 := int(le.Uint16(raw[80:])), int(le.Uint16(raw[82:]))
	dataLen := int(le.Uint16(raw[84:]))
	flags := le.Uint16(raw[86:])
	buf := raw[headerSize:]

	t.seq++
	t.ev = tracer.Event{Pid: int(tid), Line: t.seq, Args: t.ev.Args[:0]}
	if kind == evExit {
		t.ev.Kind = tracer.KindExit
		// ret is the task's wait status (exit_code): as the ptrace
		// tracer reports a waitpid's, an exit status, or the signal
		// that killed it as a negative number.
		if sig := ret & 0x7f; sig != 0 {
			t.ev.Ret = -sig
			t.ev.Args = append(t.ev.Args, tracer.Arg{Kind: tracer.ArgInt, Int: sig, Str: strace.SignalName(int(sig))})
		} else {
			t.ev.Ret = (ret >> 8) & 0xff
		}
		return true, nil
	}
	if kind != evSyscall {
		return false, fmt.Errorf("ebpf: record of unknown kind %d", kind)
	}
	if nr < 0 || nr >= maxNr || byNr[nr] == nil {
		return false, nil
	}
	row := byNr[nr]
	// Strings lie one after the other in buf: str0 then str1.
	if len0+len1 > len(buf) || dataLen > len(buf) {
		return false, fmt.Errorf("ebpf: record of %s shorter than its strings", row.Name)
	}
	strs := [2][]byte{buf[:len0], buf[len0 : len0+len1]}
	faults := [2]bool{flags&fStr0Fault != 0, flags&fStr1Fault != 0}
	argsLost := flags&fArgsLost != 0
	if argsLost && !faults[0] {
		row, regs, strs[0] = execArgs(strs[0])
	}
	t.ev.Kind = tracer.KindSyscall
	t.ev.Syscall = row.Name
	if ret < 0 && ret > -4096 {
		t.ev.Ret = -1
		t.ev.Errno = linux.ErrnoName(int(-ret))
	} else {
		t.ev.Ret = ret
	}
	failed := t.ev.Errno != ""
	nstr := 0
	for i, kind := range row.Args {
		v := regs[i]
		a := tracer.Arg{Kind: tracer.ArgInt}
		if row.Names != nil {
			a.Name = row.Names[i]
		}
		switch kind.Value() {
		case linux.ValInt32:
			a.Int = int64(int32(v))
		case linux.ValUint32:
			a.Int = int64(uint32(v))
		case linux.ValInt64:
			a.Int = int64(v)
		case linux.ValString, linux.ValOutString:
			k := nstr
			nstr++
			switch {
			case v == 0 && !(argsLost && kind == linux.ExecPath):
				a.Kind = tracer.ArgNull
			case faults[k] || len(strs[k]) == 0:
				// Not read (a failed call other than a lookup) or
				// unreadable: the lowering counts it as a bad argument.
				a = tracer.Arg{Kind: tracer.ArgPtr, Int: int64(v), Name: a.Name}
			default:
				a.Kind = tracer.ArgStr
				a.Str = string(trimNUL(strs[k]))
			}
		case linux.ValPointer:
			a = pointerArg(a.Name, v)
		case linux.ValStructU64:
			if failed || flags&fExtraFault != 0 {
				a = pointerArg(a.Name, v)
			} else {
				a.Kind, a.Int = tracer.ArgStruct, int64(extra)
			}
		case linux.ValOutIntPair:
			if failed || flags&fExtraFault != 0 {
				a = pointerArg(a.Name, v)
			} else {
				a.Kind, a.Ints = tracer.ArgArray, []int64{int64(int32(extra)), int64(int32(extra >> 32))}
			}
		case linux.ValWriteData, linux.ValWriteIovec:
			if failed || flags&fDataFault != 0 {
				a = pointerArg(a.Name, v)
				break
			}
			a.Kind = tracer.ArgStr
			if kind == linux.WriteIovec {
				a.Kind = tracer.ArgArray
			}
			a.Str = string(buf[:dataLen])
			// The next argument is the length (write) or iovec count
			// (writev): strace marks a cut string with "..." the same way.
			a.Truncated = kind == linux.WriteData && i+1 < len(regs) && regs[i+1] > uint64(dataLen)
		}
		t.ev.Args = append(t.ev.Args, a)
	}
	strace.Normalize(&t.ev) // strace's argument list: trace.log reads back to this event
	return true, nil
}

// execArgs gives the call and register arguments of a successful exec,
// whose registers the exec replaced before its exit (the number too: on
// x86_64 a successful execveat returns as execve), from its path as the
// kernel kept it (the program sends it; fsmove.bpf.c, sched_process_exec):
// /dev/fd/N/PATH is execveat(N, PATH), /dev/fd/N execveat(N, "",
// AT_EMPTY_PATH), any other path execve(path). The model reads each the
// same as the call that was made (an execveat from AT_FDCWD is an execve;
// an execve of /dev/fd/N runs the file open at fd N). The pointers (argv,
// envp) are unknown: NULL. path holds the path's bytes, NUL included.
func execArgs(path []byte) (row *linux.Syscall, regs [6]uint64, str []byte) {
	row, str = execveRow, path
	rest, ok := strings.CutPrefix(string(trimNUL(path)), "/dev/fd/")
	if !ok {
		return row, regs, str
	}
	num, name, hasName := strings.Cut(rest, "/")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n > math.MaxInt32 {
		return row, regs, str
	}
	var atFlags uint64
	if !hasName {
		atFlags = unix.AT_EMPTY_PATH
	}
	row, str = execveatRow, append([]byte(name), 0)
	for i, kind := range row.Args {
		switch kind {
		case linux.DirFD:
			regs[i] = uint64(n)
		case linux.Flags:
			regs[i] = atFlags
		}
	}
	return row, regs, str
}

// The rows execArgs chooses from.
var execveRow, execveatRow = linux.Lookup("execve"), linux.Lookup("execveat")

// pointerArg is an opaque pointer argument named name (or not): NULL or
// its value.
func pointerArg(name string, v uint64) tracer.Arg {
	if v == 0 {
		return tracer.Arg{Kind: tracer.ArgNull, Name: name}
	}
	return tracer.Arg{Kind: tracer.ArgPtr, Int: int64(v), Name: name}
}

func trimNUL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == 0 {
		return b[:n-1]
	}
	return b
}

// Compile-time check that a Tracer is a tracer.Source.
var _ tracer.Source = (*Tracer)(nil)
