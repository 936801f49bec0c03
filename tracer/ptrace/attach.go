package ptrace

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/fsmove/fsmove/tracer/linux"
)

// Attached processes (Options.Attach). In a container booted with systemd,
// services are started by PID 1, not by the traced command, so PID 1 and
// everything it creates while the command runs must be followed too.
//
// Such a process has no filter of ours (a filter can only be loaded by the
// process itself), so it is driven the way strace drives any process
// without --seccomp-bpf: seized (PTRACE_SEIZE, no PTRACE_O_EXITKILL: it
// must outlive the tracer), then resumed with PTRACE_SYSCALL, so that every
// call stops at its entry and at its exit. At the entry the same calls are
// picked as the filter would have stopped (loop.callEntry), and they are
// decoded as for the command's processes. A child of an attached thread is
// attached too (PTRACE_O_TRACE{FORK,VFORK,CLONE} hand it over seized); a
// child of the command keeps the filter and the seccomp stops. A group-stop
// (the process is stopped by SIGSTOP, SIGTSTP…) is honoured: the thread is
// left stopped with PTRACE_LISTEN until SIGCONT.
//
// When the root exits, an attached thread is stopped with PTRACE_INTERRUPT
// (not SIGSTOP: nothing is queued that could stop it later) and detached at
// the next stop it reports, whatever it is: the interrupt's
// PTRACE_EVENT_STOP, or a syscall-entry or -exit stop, an event stop or a
// signal-delivery stop (whose signal is then passed on) that came first.
// The kernel clears the pending interrupt and the syscall tracing at
// PTRACE_DETACH, and a call detached at its entry stop runs as if never
// traced.

// ErrAttach is returned when a process of Options.Attach could not be
// attached (gone, or not permitted).
var ErrAttach = errors.New("ptrace: cannot attach")

// attachOptions are the options given at PTRACE_SEIZE.
const attachOptions = unix.PTRACE_O_TRACESYSGOOD | unix.PTRACE_O_TRACESECCOMP | unix.PTRACE_O_TRACEEXEC |
	unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK | unix.PTRACE_O_TRACECLONE

// attachAll seizes every thread of the given processes, and waits until
// each has stopped once and been resumed with PTRACE_SYSCALL: when it
// returns nil, every call they make stops. On an error some may be
// attached; the caller releases them.
func (l *loop) attachAll(pids []int) error {
	for _, pid := range pids {
		if err := l.attachProcess(pid); err != nil {
			return err
		}
	}
	for l.attachPending() {
		var ws syscall.WaitStatus
		tid, err := syscall.Wait4(-1, &ws, unix.WALL|unix.WNOTHREAD, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			if err == syscall.ECHILD {
				return nil // all gone
			}
			return fmt.Errorf("%w: wait4: %v", ErrAttach, err)
		}
		l.stats.Stops++
		l.stop(tid, ws)
	}
	return nil
}

// attachPending reports whether an attached thread has not stopped yet.
func (l *loop) attachPending() bool {
	for _, tk := range l.tasks {
		if tk.attaching {
			return true
		}
	}
	return false
}

// attachProcess seizes every thread of process pid and interrupts it. The
// thread list is read again until it holds no new thread: a thread created
// by one not yet seized is not handed over by PTRACE_O_TRACECLONE.
func (l *loop) attachProcess(pid int) error {
	if pid <= 0 {
		return fmt.Errorf("%w to pid %d: not a process id", ErrAttach, pid)
	}
	seen := map[int]bool{}
	for round := 0; ; round++ {
		tids, err := threadsOf(pid)
		if err != nil {
			if round == 0 {
				if errors.Is(err, os.ErrNotExist) {
					err = syscall.ESRCH
				}
				return fmt.Errorf("%w to pid %d: %v", ErrAttach, pid, err)
			}
			return nil // it ended meanwhile: its seized threads report their exits
		}
		added := false
		for _, tid := range tids {
			if seen[tid] {
				continue
			}
			seen[tid] = true
			if l.tasks[tid] != nil {
				continue // given twice, or a clone handed over already
			}
			if err := seize(tid); err != nil {
				switch {
				case err == syscall.ESRCH && tid != pid:
					continue // the thread ended
				case err == syscall.EPERM && tracerOf(tid) == unix.Gettid():
					continue // a clone of a seized thread, handed over already
				case tid == pid:
					return fmt.Errorf("%w to pid %d: %v", ErrAttach, pid, err)
				default:
					return fmt.Errorf("%w to pid %d (its thread %d): %v", ErrAttach, pid, tid, err)
				}
			}
			l.tasks[tid] = &task{tid: tid, attached: true, attaching: true}
			if err := unix.PtraceInterrupt(tid); err != nil {
				delete(l.tasks, tid) // it ended at once
			}
			added = true
		}
		if !added {
			return nil
		}
	}
}

// seize attaches to thread tid with PTRACE_SEIZE and attachOptions; it
// does not stop it.
func seize(tid int) error {
	_, _, e := syscall.Syscall6(syscall.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(tid), 0, attachOptions, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// threadsOf lists the thread ids of process pid (/proc/PID/task), sorted.
func threadsOf(pid int) ([]int, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(names))
	for _, n := range names {
		if tid, err := strconv.Atoi(n); err == nil {
			tids = append(tids, tid)
		}
	}
	if len(tids) == 0 {
		return nil, syscall.ESRCH
	}
	sort.Ints(tids)
	return tids, nil
}

// tracerOf returns the TracerPid of thread tid (the tracing thread's id;
// 0 when untraced or unknown).
func tracerOf(tid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return 0
	}
	const key = "\nTracerPid:"
	for i := 0; i+len(key) <= len(b); i++ {
		if string(b[i:i+len(key)]) != key {
			continue
		}
		n := 0
		for j := i + len(key); j < len(b) && b[j] != '\n'; j++ {
			if b[j] >= '0' && b[j] <= '9' {
				n = n*10 + int(b[j]-'0')
			}
		}
		return n
	}
	return 0
}

// syscallInfo is struct ptrace_syscall_info (PTRACE_GET_SYSCALL_INFO,
// Linux 5.3): for an entry, Nr and Args; for an exit, Nr is the return
// value (and Args[0]'s low byte is_error).
type syscallInfo struct {
	Op      uint8
	_       [3]uint8
	Arch    uint32
	IP      uint64
	SP      uint64
	Nr      uint64
	Args    [6]uint64
	RetData uint32
	_       uint32
}

const (
	syscallInfoEntry = 1 // PTRACE_SYSCALL_INFO_ENTRY
	syscallInfoExit  = 2 // PTRACE_SYSCALL_INFO_EXIT
	auditArchX86_64  = 0xc000003e
)

// getSyscallInfo reads the syscall stop of thread tid.
func getSyscallInfo(tid int, info *syscallInfo) bool {
	_, _, e := syscall.Syscall6(syscall.SYS_PTRACE, unix.PTRACE_GET_SYSCALL_INFO, uintptr(tid),
		unsafe.Sizeof(*info), uintptr(unsafe.Pointer(info)), 0, 0)
	return e == 0
}

// syscallStop is a syscall-entry or -exit stop of an attached thread.
// Only the x86_64 calls are decoded (as the filter stops only those).
func (l *loop) syscallStop(tk *task) {
	var info syscallInfo
	if !getSyscallInfo(tk.tid, &info) {
		l.resume(tk, 0)
		return
	}
	switch info.Op {
	case syscallInfoEntry:
		// An entry while a call is open means its exit was not seen (the
		// thread was seized inside it): that call is dropped.
		tk.inCall = false
		if l.ending || info.Arch != auditArchX86_64 {
			l.resume(tk, 0)
			return
		}
		a := &info.Args
		tk.regs = unix.PtraceRegs{Orig_rax: info.Nr, Rdi: a[0], Rsi: a[1], Rdx: a[2], R10: a[3], R8: a[4], R9: a[5]}
		l.callEntry(tk, false)
	case syscallInfoExit:
		l.syscallExit(tk)
	default:
		l.resume(tk, 0)
	}
}

// markerWanted tells whether a write, writev or pwrite64 whose registers
// are in tk.regs is decoded: on fd 1 or 2 always (block markers), on
// another fd when it writes at most linux.ShortWrite bytes in all. The filter
// stops writev by its iovec count only; the total is read here.
func (l *loop) markerWanted(tk *task, row *callRow) bool {
	if fd := int32(uint32(tk.regs.Rdi)); fd == 1 || fd == 2 {
		return true
	}
	n := tk.regs.Rdx // the length, or writev's iovec count
	if n > linux.ShortWrite {
		return false
	}
	if row.args[1] == linux.WriteIovec {
		total, ok := l.mem.iovecTotal(tk.tid, tk.regs.Rsi, int(n))
		return ok && total <= linux.ShortWrite
	}
	return true
}

// detachAt detaches an attached thread at the stop it reported (it is
// detaching: PTRACE_INTERRUPT was sent). A signal about to be delivered is
// passed on; any other stop (the interrupt's, a syscall stop, an event
// stop) is left without a signal.
func (l *loop) detachAt(tk *task, sig syscall.Signal, event int) {
	data := 0
	if event == 0 && sig != syscall.SIGTRAP|0x80 {
		data = int(sig)
	}
	syscall.Syscall6(syscall.SYS_PTRACE, unix.PTRACE_DETACH, uintptr(tk.tid), 0, uintptr(data), 0, 0)
	delete(l.tasks, tk.tid)
}
