package ptrace

import (
	"github.com/elastic/go-seccomp-bpf/arch"

	"github.com/fsmove/fsmove/fstrace"
)

// argKind says how to decode one system-call argument from its register.
// The register of every kind from kPtr on holds an address.
type argKind uint8

const (
	kInt       argKind = iota // an int (fd, flags, mode): the low 32 bits, sign-extended (AT_FDCWD is -100)
	kUint                     // an unsigned int: the low 32 bits (close_range's ~0U stays 4294967295)
	kLong                     // a long or size_t: all 64 bits
	kPtr                      // an opaque pointer (a stat buffer, argv)
	kPath                     // a NUL-terminated string (path, xattr name), read up to PATH_MAX
	kBuf                      // bytes written (write, pwrite64): the first Options.DataBytes (all of a short write); the length is the next argument
	kIovec                    // an iovec array written (writev): the first Options.DataBytes of its data (all of a short write); the count is the next argument
	kOutPath                  // a buffer the call fills with a string of Ret bytes (getcwd)
	kOutFds                   // an int[2] the call fills (pipe, pipe2, socketpair)
	kOpenHow                  // struct open_how: its flags member (openat2)
	kCloneArgs                // struct clone_args: its flags member (clone3)
)

// callRow is one row of the decoding table: the arguments of a traced call
// in register order, decoded into the same positions and kinds as the
// strace reader gives for strace's text, so fstrace's lowering needs no
// change.
type callRow struct {
	name string
	args []argKind
	// names, when set, are printed as name=value (clone, like strace's
	// child_stack=, flags=); fstrace finds clone's flags by that name.
	names []string
	// atEntry decodes the arguments at the seccomp stop rather than at
	// the syscall exit: exec replaces the memory the path is in. Every other
	// call is decoded at its exit, and only when it succeeded (unless
	// Options.FailedArgs): four calls in five in a Puppet run are failed
	// lookups, and their paths are never looked at.
	atEntry bool
	// newProc marks the calls that create a process or thread: their event
	// is emitted at the PTRACE_EVENT_{FORK,VFORK,CLONE} stop, with the new
	// pid, before the child can run (see tracer.go).
	newProc bool
	// noReturn marks exit_group: it is emitted at once with Errno "?".
	noReturn bool
	// predict marks readlink: see loop.predictFailure.
	predict bool
	// changesView marks the calls after which a tracee may see other files
	// at the same absolute path than the tracer (chroot, a new mount
	// namespace): once one succeeds, predictions stop (for the rest of the
	// trace, for every process: simple and safe).
	changesView bool
	// notLowered: stopped for the tracer's own sake, never emitted.
	notLowered bool
	// marker marks write, writev and pwrite64: stopped (and decoded with
	// their data) only on fds 1 and 2 (Puppet's block markers) or when they
	// write at most shortWrite bytes (see loop.markerWanted).
	marker bool
}

// callTable lists every call the seccomp filter stops: those fstrace lowers
// (fstrace.Wanted; TestTableMatchesLowering checks both ways), plus
// exit_group and the calls that end predictions (changesView). Rows follow the groups of fstrace/syscalls.go.
var callTable = []callRow{
	{name: "open", args: []argKind{kPath, kInt, kInt}},
	{name: "openat", args: []argKind{kInt, kPath, kInt, kInt}},
	{name: "openat2", args: []argKind{kInt, kPath, kOpenHow, kLong}},
	{name: "creat", args: []argKind{kPath, kInt}},

	{name: "stat", args: []argKind{kPath, kPtr}},
	{name: "lstat", args: []argKind{kPath, kPtr}},
	{name: "newfstatat", args: []argKind{kInt, kPath, kPtr, kInt}},
	{name: "statx", args: []argKind{kInt, kPath, kInt, kUint, kPtr}},
	{name: "statfs", args: []argKind{kPath, kPtr}},
	{name: "access", args: []argKind{kPath, kInt}},
	{name: "faccessat", args: []argKind{kInt, kPath, kInt}},
	{name: "faccessat2", args: []argKind{kInt, kPath, kInt, kInt}},
	{name: "readlink", args: []argKind{kPath, kPtr, kLong}, predict: true},
	{name: "readlinkat", args: []argKind{kInt, kPath, kPtr, kLong}},
	{name: "getdents", args: []argKind{kInt, kPtr, kUint}},
	{name: "getdents64", args: []argKind{kInt, kPtr, kUint}},
	{name: "chroot", args: []argKind{kPath}, changesView: true},

	{name: "execve", args: []argKind{kPath, kPtr, kPtr}, atEntry: true},
	{name: "execveat", args: []argKind{kInt, kPath, kPtr, kPtr, kInt}, atEntry: true},

	{name: "mkdir", args: []argKind{kPath, kInt}},
	{name: "mkdirat", args: []argKind{kInt, kPath, kInt}},
	{name: "mknod", args: []argKind{kPath, kInt, kLong}},
	{name: "mknodat", args: []argKind{kInt, kPath, kInt, kLong}},
	{name: "unlink", args: []argKind{kPath}},
	{name: "unlinkat", args: []argKind{kInt, kPath, kInt}},
	{name: "rmdir", args: []argKind{kPath}},
	{name: "rename", args: []argKind{kPath, kPath}},
	{name: "renameat", args: []argKind{kInt, kPath, kInt, kPath}},
	{name: "renameat2", args: []argKind{kInt, kPath, kInt, kPath, kUint}},
	{name: "link", args: []argKind{kPath, kPath}},
	{name: "linkat", args: []argKind{kInt, kPath, kInt, kPath, kInt}},
	{name: "symlink", args: []argKind{kPath, kPath}},
	{name: "symlinkat", args: []argKind{kPath, kInt, kPath}},

	{name: "truncate", args: []argKind{kPath, kLong}},
	{name: "ftruncate", args: []argKind{kInt, kLong}},
	{name: "chmod", args: []argKind{kPath, kUint}},
	{name: "fchmod", args: []argKind{kInt, kUint}},
	{name: "fchmodat", args: []argKind{kInt, kPath, kUint}},
	{name: "fchmodat2", args: []argKind{kInt, kPath, kUint, kUint}},
	{name: "chown", args: []argKind{kPath, kInt, kInt}},
	{name: "lchown", args: []argKind{kPath, kInt, kInt}},
	{name: "fchown", args: []argKind{kInt, kInt, kInt}},
	{name: "fchownat", args: []argKind{kInt, kPath, kInt, kInt, kInt}},
	{name: "utime", args: []argKind{kPath, kPtr}},
	{name: "utimes", args: []argKind{kPath, kPtr}},
	{name: "futimesat", args: []argKind{kInt, kPath, kPtr}},
	{name: "utimensat", args: []argKind{kInt, kPath, kPtr, kInt}},

	{name: "getxattr", args: []argKind{kPath, kPath, kPtr, kLong}},
	{name: "lgetxattr", args: []argKind{kPath, kPath, kPtr, kLong}},
	{name: "fgetxattr", args: []argKind{kInt, kPath, kPtr, kLong}},
	{name: "getxattrat", args: []argKind{kInt, kPath, kUint, kPath, kPtr, kLong}},
	{name: "listxattr", args: []argKind{kPath, kPtr, kLong}},
	{name: "llistxattr", args: []argKind{kPath, kPtr, kLong}},
	{name: "flistxattr", args: []argKind{kInt, kPtr, kLong}},
	{name: "listxattrat", args: []argKind{kInt, kPath, kUint, kPtr, kLong}},
	{name: "setxattr", args: []argKind{kPath, kPath, kPtr, kLong, kInt}},
	{name: "lsetxattr", args: []argKind{kPath, kPath, kPtr, kLong, kInt}},
	{name: "fsetxattr", args: []argKind{kInt, kPath, kPtr, kLong, kInt}},
	{name: "setxattrat", args: []argKind{kInt, kPath, kUint, kPath, kPtr, kLong}},
	{name: "removexattr", args: []argKind{kPath, kPath}},
	{name: "lremovexattr", args: []argKind{kPath, kPath}},
	{name: "fremovexattr", args: []argKind{kInt, kPath}},
	{name: "removexattrat", args: []argKind{kInt, kPath, kUint, kPath}},

	{name: "chdir", args: []argKind{kPath}},
	{name: "fchdir", args: []argKind{kInt}},
	{name: "getcwd", args: []argKind{kOutPath, kLong}},

	// x86_64 clone(flags, stack, parent_tid, child_tid, tls).
	{name: "clone", args: []argKind{kLong, kPtr, kPtr, kPtr, kPtr},
		names: []string{"flags", "child_stack", "parent_tid", "child_tidptr", "tls"}, newProc: true},
	{name: "clone3", args: []argKind{kCloneArgs, kLong}, newProc: true},
	{name: "fork", newProc: true},
	{name: "vfork", newProc: true},

	{name: "dup", args: []argKind{kInt}},
	{name: "dup2", args: []argKind{kInt, kInt}},
	{name: "dup3", args: []argKind{kInt, kInt, kInt}},
	{name: "fcntl", args: []argKind{kInt, kInt, kLong}},
	{name: "close", args: []argKind{kInt}},
	{name: "close_range", args: []argKind{kUint, kUint, kUint}},

	{name: "pipe", args: []argKind{kOutFds}},
	{name: "pipe2", args: []argKind{kOutFds, kInt}},
	{name: "socket", args: []argKind{kInt, kInt, kInt}},
	{name: "socketpair", args: []argKind{kInt, kInt, kInt, kOutFds}},
	{name: "accept", args: []argKind{kInt, kPtr, kPtr}},
	{name: "accept4", args: []argKind{kInt, kPtr, kPtr, kInt}},
	{name: "eventfd", args: []argKind{kUint}},
	{name: "eventfd2", args: []argKind{kUint, kInt}},
	{name: "memfd_create", args: []argKind{kPath, kUint}},
	{name: "epoll_create", args: []argKind{kInt}},
	{name: "epoll_create1", args: []argKind{kInt}},
	{name: "inotify_init"},
	{name: "inotify_init1", args: []argKind{kInt}},
	{name: "timerfd_create", args: []argKind{kInt, kInt}},
	{name: "signalfd", args: []argKind{kInt, kPtr, kLong}},
	{name: "signalfd4", args: []argKind{kInt, kPtr, kLong, kInt}},
	{name: "pidfd_open", args: []argKind{kInt, kUint}},
	{name: "pidfd_getfd", args: []argKind{kInt, kInt, kUint}},
	{name: "userfaultfd", args: []argKind{kInt}},
	{name: "fanotify_init", args: []argKind{kUint, kUint}},
	{name: "perf_event_open", args: []argKind{kPtr, kInt, kInt, kInt, kLong}},
	{name: "io_uring_setup", args: []argKind{kUint, kPtr}},

	// Block markers and short writes: the filter stops these only for fds
	// 1 and 2, or when their third argument (the length; writev's iovec
	// count) is at most shortWrite.
	{name: "write", args: []argKind{kInt, kBuf, kLong}, marker: true},
	{name: "writev", args: []argKind{kInt, kIovec, kInt}, marker: true},
	{name: "pwrite64", args: []argKind{kInt, kBuf, kLong, kLong}, marker: true},

	{name: "exit_group", args: []argKind{kInt}, noReturn: true},

	// Not lowered: stopped only so that predictions stop after them.
	{name: "unshare", args: []argKind{kLong}, changesView: true, notLowered: true},
	{name: "setns", args: []argKind{kInt, kInt}, changesView: true, notLowered: true},
	{name: "pivot_root", args: []argKind{kPath, kPath}, changesView: true, notLowered: true},
}

// markerCalls are the calls stopped only when their first argument (the
// fd) is 1 or 2, or their third is at most shortWrite: the rows marked
// marker.
var markerCalls = []string{"write", "writev", "pwrite64"}

// shortWrite bounds the writes to fds other than 1 and 2 that are decoded
// with their data: at most this many bytes in all (strace's default string
// limit, -s 32, so such a write prints as strace prints it). A pid written
// to a cgroup.procs file ("57\n") is one.
const shortWrite = 32

// maxSyscall bounds the x86_64 system call numbers the index holds.
const maxSyscall = 1024

// callsByNumber indexes callTable by x86_64 system call number.
var callsByNumber = func() *[maxSyscall]*callRow {
	var t [maxSyscall]*callRow
	for i := range callTable {
		if nr, ok := arch.X86_64.SyscallNames[callTable[i].name]; ok && nr >= 0 && nr < maxSyscall {
			t[nr] = &callTable[i]
		}
	}
	return &t
}()

// lookupCall returns the row of system call nr, or nil.
func lookupCall(nr uint64) *callRow {
	if nr >= maxSyscall {
		return nil
	}
	return callsByNumber[nr]
}

// wantedByLowering reports whether fstrace lowers the call; the filter
// stops exactly the rows for which this holds, plus exit_group.
func wantedByLowering(name string) bool { return fstrace.Wanted(name) }
