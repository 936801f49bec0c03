package ptrace

import (
	"github.com/fsmove/fsmove/tracer/linux"
)

// callRow is one row of the decoding table: a call of linux.Syscalls (its
// arguments in register order, decoded by their kinds into the positions
// and kinds the strace reader gives for strace's text, so fstrace's
// lowering reads both alike), and what the tracer does with it.
type callRow struct {
	name string
	nr   int
	args []linux.ArgKind
	// names, when set, are printed as name=value (clone, like strace's
	// child_stack=, flags=); fstrace finds clone's flags by that name.
	names []string
	// atEntry decodes the arguments at the seccomp stop rather than at
	// the syscall exit: exec replaces the memory the path is in. Every other
	// call is decoded at its exit, and only when it succeeded or is a
	// failed lookup (unless Options.Failed is tracer.FailedAll): four calls
	// in five in a Puppet run fail, and nearly all are never looked at.
	atEntry bool
	// newProc marks the calls that create a process or thread: their event
	// is emitted at the PTRACE_EVENT_{FORK,VFORK,CLONE} stop, with the new
	// pid, before the child can run (see tracer.go).
	newProc bool
	// noReturn marks exit and exit_group: they are emitted at once with Errno "?".
	noReturn bool
	// predict marks readlink: see loop.predictFailure.
	predict bool
	// stat marks newfstatat: see predict.go.
	stat bool
	// open marks open and openat: see predict.go ("Predicted opens").
	open bool
	// close marks close: see predict.go ("Predicted closes").
	close bool
	// changesView marks the calls after which a tracee may see other files
	// at the same absolute path than the tracer (chroot, a mount, a new
	// mount namespace): once one succeeds, predictions stop (for the rest of the
	// trace, for every process: simple and safe).
	changesView bool
	// notLowered: stopped for the tracer's own sake, never emitted.
	notLowered bool
	// lookup is the row's linux.Syscall.Lookup: its ENOENT and ENOTDIR
	// failures are decoded (and predicted ones emitted), with their path.
	lookup bool
	// marker marks write, writev and pwrite64: stopped (and decoded with
	// their data) only on fds 1 and 2 (Puppet's block markers) or when they
	// write at most linux.ShortWrite bytes (see loop.markerWanted).
	marker bool
}

// Calls whose rows the tracer treats specially, beyond what their
// arguments say.
var (
	// newProcCalls create a process or thread: ptrace reports their child
	// at a PTRACE_EVENT stop.
	newProcCalls = map[string]bool{"clone": true, "clone3": true, "fork": true, "vfork": true}
	// predictCalls are the calls whose failure the tracer may predict.
	predictCalls = map[string]bool{"readlink": true}
)

// callTable lists every call the seccomp filter stops: every row of
// linux.Syscalls, the tracer's annotations derived from the row.
var callTable = func() []callRow {
	t := make([]callRow, len(linux.Syscalls))
	for i := range linux.Syscalls {
		s := &linux.Syscalls[i]
		t[i] = callRow{
			name:        s.Name,
			nr:          s.Nr,
			args:        s.Args,
			names:       s.Names,
			atEntry:     s.ExecsAtEntry(),
			newProc:     newProcCalls[s.Name],
			noReturn:    s.Why == linux.Ends,
			predict:     predictCalls[s.Name],
			stat:        s.Name == "newfstatat",
			open:        s.Name == "open" || s.Name == "openat",
			close:       s.Name == "close",
			changesView: s.Why == linux.ChangesView || s.Name == "chroot" || s.Name == "mount",
			notLowered:  s.Why == linux.ChangesView,
			lookup:      s.Lookup,
			marker:      s.Writes(),
		}
	}
	return t
}()

// callsByNumber indexes callTable by x86_64 system call number.
var callsByNumber = func() *[linux.MaxNr]*callRow {
	var t [linux.MaxNr]*callRow
	for i := range callTable {
		t[callTable[i].nr] = &callTable[i]
	}
	return &t
}()

// lookupCall returns the row of system call nr, or nil.
func lookupCall(nr uint64) *callRow {
	if nr >= linux.MaxNr {
		return nil
	}
	return callsByNumber[nr]
}
