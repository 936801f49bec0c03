package ebpf

import (
	"golang.org/x/sys/unix"
)

// This file is the eBPF tracer's syscall table: one row per x86_64 system
// call that fstrace's lowering table lowers, saying what each argument is,
// so that the BPF program knows what to read and Next builds the same
// arguments the strace reader gives for the same call (fstrace reads them by
// position and kind). A row is turned into a BPF plan (planFor) and into
// tracer.Args (decode.go).
//
// Argument letters, one per argument, in the call's order:
//
//	i  an int (fd, dirfd, flags, mode): ArgInt, sign-extended from 32 bits (AT_FDCWD is -100)
//	u  an unsigned int: ArgInt, zero-extended (close_range's ~0U is 4294967295, as strace -X raw prints)
//	l  a long or size: ArgInt, all 64 bits
//	s  a string read from user memory at sys_exit (a path, an xattr name, getcwd's result): ArgStr, NULL → ArgNull
//	x  execve's program path, read at sys_enter (the old memory is gone at exit): ArgStr
//	p  a pointer the lowering never looks at: ArgPtr (ArgNull when 0)
//	S  a struct whose first member is a u64 flags= (open_how, clone_args): ArgStruct with Int = flags
//	P  an int[2] filled by the call (pipe's fds): ArgArray with Ints
//	d  a write buffer (its length is the next argument): ArgStr of the first bytes (DATA_MAX)
//	v  an iovec array (its count is the next argument): ArgArray with Str = the iov_base data
//	F  clone's flags: ArgInt named "flags", as strace prints flags=
//
// At most two s/x strings per call (rename's two paths).
type syscallRow struct {
	name string
	nr   int
	args string
}

var syscallTable = []syscallRow{
	// Opening files.
	{"open", unix.SYS_OPEN, "sii"},
	{"openat", unix.SYS_OPENAT, "isii"},
	{"openat2", unix.SYS_OPENAT2, "isSl"},
	{"creat", unix.SYS_CREAT, "si"},

	// Looking at a path.
	{"stat", unix.SYS_STAT, "sp"},
	{"lstat", unix.SYS_LSTAT, "sp"},
	{"newfstatat", unix.SYS_NEWFSTATAT, "ispi"},
	{"statx", unix.SYS_STATX, "isiup"},
	{"statfs", unix.SYS_STATFS, "sp"},
	{"access", unix.SYS_ACCESS, "si"},
	{"faccessat", unix.SYS_FACCESSAT, "isi"},
	{"faccessat2", unix.SYS_FACCESSAT2, "isii"},
	{"readlink", unix.SYS_READLINK, "spl"},
	{"readlinkat", unix.SYS_READLINKAT, "ispl"},
	{"getdents", unix.SYS_GETDENTS, "ipu"},
	{"getdents64", unix.SYS_GETDENTS64, "ipu"},
	{"chroot", unix.SYS_CHROOT, "s"},

	// Running a program.
	{"execve", unix.SYS_EXECVE, "xpp"},
	{"execveat", unix.SYS_EXECVEAT, "ixppi"},

	// Creating and removing names.
	{"mkdir", unix.SYS_MKDIR, "si"},
	{"mkdirat", unix.SYS_MKDIRAT, "isi"},
	{"mknod", unix.SYS_MKNOD, "siu"},
	{"mknodat", unix.SYS_MKNODAT, "isiu"},
	{"unlink", unix.SYS_UNLINK, "s"},
	{"unlinkat", unix.SYS_UNLINKAT, "isi"},
	{"rmdir", unix.SYS_RMDIR, "s"},
	{"rename", unix.SYS_RENAME, "ss"},
	{"renameat", unix.SYS_RENAMEAT, "isis"},
	{"renameat2", unix.SYS_RENAMEAT2, "isisu"},
	{"link", unix.SYS_LINK, "ss"},
	{"linkat", unix.SYS_LINKAT, "isisi"},
	{"symlink", unix.SYS_SYMLINK, "ss"},
	{"symlinkat", unix.SYS_SYMLINKAT, "sis"},

	// Changing contents or metadata.
	{"truncate", unix.SYS_TRUNCATE, "sl"},
	{"ftruncate", unix.SYS_FTRUNCATE, "il"},
	{"chmod", unix.SYS_CHMOD, "si"},
	{"fchmod", unix.SYS_FCHMOD, "ii"},
	{"fchmodat", unix.SYS_FCHMODAT, "isi"},
	{"fchmodat2", unix.SYS_FCHMODAT2, "isii"},
	{"chown", unix.SYS_CHOWN, "sii"},
	{"lchown", unix.SYS_LCHOWN, "sii"},
	{"fchown", unix.SYS_FCHOWN, "iii"},
	{"fchownat", unix.SYS_FCHOWNAT, "isiii"},
	{"utime", unix.SYS_UTIME, "sp"},
	{"utimes", unix.SYS_UTIMES, "sp"},
	{"futimesat", unix.SYS_FUTIMESAT, "isp"},
	{"utimensat", unix.SYS_UTIMENSAT, "ispi"},

	// Extended attributes.
	{"getxattr", unix.SYS_GETXATTR, "sspl"},
	{"lgetxattr", unix.SYS_LGETXATTR, "sspl"},
	{"fgetxattr", unix.SYS_FGETXATTR, "ispl"},
	{"getxattrat", unix.SYS_GETXATTRAT, "isuspl"},
	{"listxattr", unix.SYS_LISTXATTR, "spl"},
	{"llistxattr", unix.SYS_LLISTXATTR, "spl"},
	{"flistxattr", unix.SYS_FLISTXATTR, "ipl"},
	{"listxattrat", unix.SYS_LISTXATTRAT, "isupl"},
	{"setxattr", unix.SYS_SETXATTR, "sspli"},
	{"lsetxattr", unix.SYS_LSETXATTR, "sspli"},
	{"fsetxattr", unix.SYS_FSETXATTR, "ispli"},
	{"setxattrat", unix.SYS_SETXATTRAT, "isuspl"},
	{"removexattr", unix.SYS_REMOVEXATTR, "ss"},
	{"lremovexattr", unix.SYS_LREMOVEXATTR, "ss"},
	{"fremovexattr", unix.SYS_FREMOVEXATTR, "is"},
	{"removexattrat", unix.SYS_REMOVEXATTRAT, "isus"},

	// Working directory.
	{"chdir", unix.SYS_CHDIR, "s"},
	{"fchdir", unix.SYS_FCHDIR, "i"},
	{"getcwd", unix.SYS_GETCWD, "sl"},

	// Processes.
	{"clone", unix.SYS_CLONE, "Fpppl"},
	{"clone3", unix.SYS_CLONE3, "Sl"},
	{"fork", unix.SYS_FORK, ""},
	{"vfork", unix.SYS_VFORK, ""},

	// Fd tables.
	{"dup", unix.SYS_DUP, "i"},
	{"dup2", unix.SYS_DUP2, "ii"},
	{"dup3", unix.SYS_DUP3, "iii"},
	{"fcntl", unix.SYS_FCNTL, "iil"},
	{"close", unix.SYS_CLOSE, "i"},
	{"close_range", unix.SYS_CLOSE_RANGE, "uuu"},

	// Fds that are not files.
	{"pipe", unix.SYS_PIPE, "P"},
	{"pipe2", unix.SYS_PIPE2, "Pi"},
	{"socket", unix.SYS_SOCKET, "iii"},
	{"socketpair", unix.SYS_SOCKETPAIR, "iiiP"},
	{"accept", unix.SYS_ACCEPT, "ipp"},
	{"accept4", unix.SYS_ACCEPT4, "ippi"},
	{"eventfd", unix.SYS_EVENTFD, "u"},
	{"eventfd2", unix.SYS_EVENTFD2, "ui"},
	{"memfd_create", unix.SYS_MEMFD_CREATE, "su"},
	{"epoll_create", unix.SYS_EPOLL_CREATE, "i"},
	{"epoll_create1", unix.SYS_EPOLL_CREATE1, "i"},
	{"inotify_init", unix.SYS_INOTIFY_INIT, ""},
	{"inotify_init1", unix.SYS_INOTIFY_INIT1, "i"},
	{"timerfd_create", unix.SYS_TIMERFD_CREATE, "ii"},
	{"signalfd", unix.SYS_SIGNALFD, "ipl"},
	{"signalfd4", unix.SYS_SIGNALFD4, "ipli"},
	{"pidfd_open", unix.SYS_PIDFD_OPEN, "iu"},
	{"pidfd_getfd", unix.SYS_PIDFD_GETFD, "iiu"},
	{"userfaultfd", unix.SYS_USERFAULTFD, "i"},
	{"fanotify_init", unix.SYS_FANOTIFY_INIT, "uu"},
	{"perf_event_open", unix.SYS_PERF_EVENT_OPEN, "piiil"},
	{"io_uring_setup", unix.SYS_IO_URING_SETUP, "up"},

	// Block markers: writes to stdout and stderr; to other fds the program
	// keeps only short writes (≤ 32 bytes, SHORT_WRITE: a pid written to a
	// cgroup's cgroup.procs), with all their data.
	{"write", unix.SYS_WRITE, "idl"},
	{"writev", unix.SYS_WRITEV, "ivi"},
	{"pwrite64", unix.SYS_PWRITE64, "idll"},
}

// maxNr bounds the syscall numbers the BPF plans map holds (MAX_NR in the C source).
const maxNr = 512

// Special readings, as enum special in fsmove.bpf.c.
const (
	spNone      = 0
	spWrite     = 1
	spWritev    = 2
	spStructU64 = 3
	spIntPair   = 4
)

// planFor turns a row into the BPF program's plan for the call; lookup
// sends its ENOENT and ENOTDIR failures with their strings (Options.Lookups).
func planFor(row syscallRow, lookup bool) fsmovePlan {
	p := fsmovePlan{Wanted: 1}
	if lookup {
		p.Lookup = 1
	}
	for i := 0; i < len(row.args); i++ {
		switch row.args[i] {
		case 's', 'x':
			switch {
			case p.Str0 == 0:
				p.Str0 = uint8(i + 1)
				if row.args[i] == 'x' {
					p.Str0AtEnter = 1
				}
			case p.Str1 == 0:
				p.Str1 = uint8(i + 1)
			}
		case 'd':
			p.Special = spWrite
		case 'v':
			p.Special = spWritev
		case 'S':
			p.Special, p.SpecialArg = spStructU64, uint8(i)
		case 'P':
			p.Special, p.SpecialArg = spIntPair, uint8(i)
		}
	}
	return p
}

// byNr indexes the table by syscall number.
var byNr = func() [maxNr]*syscallRow {
	var ix [maxNr]*syscallRow
	for i := range syscallTable {
		if nr := syscallTable[i].nr; nr >= 0 && nr < maxNr {
			ix[nr] = &syscallTable[i]
		}
	}
	return ix
}()
