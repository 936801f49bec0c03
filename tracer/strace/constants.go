package strace

import "github.com/fsmove/fsmove/tracer/linux"

// syscallNames lists every x86_64 system call name, so that the scanner can
// intern the name of each traced call without allocating.
var syscallNames = func() []string {
	names := make([]string, len(linux.KernelSyscalls))
	for i, s := range linux.KernelSyscalls {
		names[i] = s.Name
	}
	return names
}()

// errnoNames lists the Linux errno names (plus the kernel-internal restart
// codes strace prints for interrupted calls).
var errnoNames = func() []string {
	names := make([]string, len(linux.Errnos))
	for i, e := range linux.Errnos {
		names[i] = e.Name
	}
	return names
}()

// constantValues maps the symbolic names strace prints for flags and special
// values to their Linux x86_64 values. One row per name; a flag set such as
// O_WRONLY|O_CREAT|O_TRUNC is decoded by or-ing the rows of its names.
//
// Names missing from this table are ignored: they add nothing to the value and
// are not counted as a problem, because strace knows thousands of constants
// (ioctl requests, socket options…) that no lowering rule looks at.
var constantValues = map[string]int64{
	// open(2) flags (octal, as in asm-generic/fcntl.h).
	"O_RDONLY": 0, "O_WRONLY": 01, "O_RDWR": 02, "O_ACCMODE": 03,
	"O_CREAT": 0100, "O_EXCL": 0200, "O_NOCTTY": 0400, "O_TRUNC": 01000,
	"O_APPEND": 02000, "O_NONBLOCK": 04000, "O_NDELAY": 04000, "O_DSYNC": 010000,
	"O_ASYNC": 020000, "FASYNC": 020000, "O_DIRECT": 040000, "O_LARGEFILE": 0100000,
	"O_DIRECTORY": 0200000, "O_NOFOLLOW": 0400000, "O_NOATIME": 01000000,
	"O_CLOEXEC": 02000000, "__O_SYNC": 04000000, "O_SYNC": 04010000, "O_RSYNC": 04010000,
	"O_PATH": 010000000, "__O_TMPFILE": 020000000, "O_TMPFILE": 020200000,

	// *at(2) flags and the special directory fd.
	"AT_FDCWD": -100, "AT_SYMLINK_NOFOLLOW": 0x100, "AT_EACCESS": 0x200,
	"AT_REMOVEDIR": 0x200, "AT_SYMLINK_FOLLOW": 0x400, "AT_NO_AUTOMOUNT": 0x800,
	"AT_EMPTY_PATH": 0x1000, "AT_STATX_SYNC_AS_STAT": 0, "AT_STATX_FORCE_SYNC": 0x2000,
	"AT_STATX_DONT_SYNC": 0x4000, "AT_RECURSIVE": 0x8000,

	// openat2(2) resolve flags.
	"RESOLVE_NO_XDEV": 0x01, "RESOLVE_NO_MAGICLINKS": 0x02, "RESOLVE_NO_SYMLINKS": 0x04,
	"RESOLVE_BENEATH": 0x08, "RESOLVE_IN_ROOT": 0x10, "RESOLVE_CACHED": 0x20,

	// mount(2) flags (linux/mount.h). MS_MGC_VAL, the old magic in the
	// high bits, is left out: the kernel ignores it.
	"MS_RDONLY": 0x1, "MS_NOSUID": 0x2, "MS_NODEV": 0x4, "MS_NOEXEC": 0x8,
	"MS_SYNCHRONOUS": 0x10, "MS_REMOUNT": 0x20, "MS_MANDLOCK": 0x40, "MS_DIRSYNC": 0x80,
	"MS_NOSYMFOLLOW": 0x100, "MS_NOATIME": 0x400, "MS_NODIRATIME": 0x800, "MS_BIND": 0x1000,
	"MS_MOVE": 0x2000, "MS_REC": 0x4000, "MS_SILENT": 0x8000, "MS_POSIXACL": 0x10000,
	"MS_UNBINDABLE": 0x20000, "MS_PRIVATE": 0x40000, "MS_SLAVE": 0x80000, "MS_SHARED": 0x100000,
	"MS_RELATIME": 0x200000, "MS_KERNMOUNT": 0x400000, "MS_I_VERSION": 0x800000,
	"MS_STRICTATIME": 0x1000000, "MS_LAZYTIME": 0x2000000,

	// clone(2)/clone3(2) flags.
	"CLONE_NEWTIME": 0x80, "CLONE_VM": 0x100, "CLONE_FS": 0x200, "CLONE_FILES": 0x400,
	"CLONE_SIGHAND": 0x800, "CLONE_PIDFD": 0x1000, "CLONE_PTRACE": 0x2000,
	"CLONE_VFORK": 0x4000, "CLONE_PARENT": 0x8000, "CLONE_THREAD": 0x10000,
	"CLONE_NEWNS": 0x20000, "CLONE_SYSVSEM": 0x40000, "CLONE_SETTLS": 0x80000,
	"CLONE_PARENT_SETTID": 0x100000, "CLONE_CHILD_CLEARTID": 0x200000,
	"CLONE_DETACHED": 0x400000, "CLONE_UNTRACED": 0x800000, "CLONE_CHILD_SETTID": 0x1000000,
	"CLONE_NEWCGROUP": 0x2000000, "CLONE_NEWUTS": 0x4000000, "CLONE_NEWIPC": 0x8000000,
	"CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000, "CLONE_NEWNET": 0x40000000,
	"CLONE_IO": 0x80000000, "CLONE_CLEAR_SIGHAND": 0x100000000, "CLONE_INTO_CGROUP": 0x200000000,

	// Signals (clone's exit signal is or-ed into flags: …|SIGCHLD).
	"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6,
	"SIGIOT": 6, "SIGBUS": 7, "SIGFPE": 8, "SIGKILL": 9, "SIGUSR1": 10, "SIGSEGV": 11,
	"SIGUSR2": 12, "SIGPIPE": 13, "SIGALRM": 14, "SIGTERM": 15, "SIGSTKFLT": 16,
	"SIGCHLD": 17, "SIGCONT": 18, "SIGSTOP": 19, "SIGTSTP": 20, "SIGTTIN": 21,
	"SIGTTOU": 22, "SIGURG": 23, "SIGXCPU": 24, "SIGXFSZ": 25, "SIGVTALRM": 26,
	"SIGPROF": 27, "SIGWINCH": 28, "SIGIO": 29, "SIGPOLL": 29, "SIGPWR": 30, "SIGSYS": 31,
	"SIGRTMIN": 32,

	// fcntl(2) commands and fd flags.
	"F_DUPFD": 0, "F_GETFD": 1, "F_SETFD": 2, "F_GETFL": 3, "F_SETFL": 4, "F_GETLK": 5,
	"F_SETLK": 6, "F_SETLKW": 7, "F_SETOWN": 8, "F_GETOWN": 9, "F_SETSIG": 10,
	"F_GETSIG": 11, "F_SETOWN_EX": 15, "F_GETOWN_EX": 16, "F_OFD_GETLK": 36,
	"F_OFD_SETLK": 37, "F_OFD_SETLKW": 38, "F_SETLEASE": 1024, "F_GETLEASE": 1025,
	"F_NOTIFY": 1026, "F_DUPFD_CLOEXEC": 1030, "F_SETPIPE_SZ": 1031, "F_GETPIPE_SZ": 1032,
	"F_ADD_SEALS": 1033, "F_GET_SEALS": 1034, "FD_CLOEXEC": 1,
	"F_RDLCK": 0, "F_WRLCK": 1, "F_UNLCK": 2,

	// renameat2(2) and close_range(2) flags.
	"RENAME_NOREPLACE": 1, "RENAME_EXCHANGE": 2, "RENAME_WHITEOUT": 4,
	"CLOSE_RANGE_UNSHARE": 2, "CLOSE_RANGE_CLOEXEC": 4,

	// File types and mode bits (mknod, stat's st_mode).
	"S_IFMT": 0170000, "S_IFSOCK": 0140000, "S_IFLNK": 0120000, "S_IFREG": 0100000,
	"S_IFBLK": 060000, "S_IFDIR": 040000, "S_IFCHR": 020000, "S_IFIFO": 010000,
	"S_ISUID": 04000, "S_ISGID": 02000, "S_ISVTX": 01000,
	"S_IRWXU": 0700, "S_IRUSR": 0400, "S_IWUSR": 0200, "S_IXUSR": 0100,
	"S_IRWXG": 070, "S_IRGRP": 040, "S_IWGRP": 020, "S_IXGRP": 010,
	"S_IRWXO": 07, "S_IROTH": 04, "S_IWOTH": 02, "S_IXOTH": 01,

	// access(2) modes.
	"F_OK": 0, "X_OK": 1, "W_OK": 2, "R_OK": 4,

	// fd-creating calls that are not files.
	"SOCK_STREAM": 1, "SOCK_DGRAM": 2, "SOCK_RAW": 3, "SOCK_RDM": 4, "SOCK_SEQPACKET": 5,
	"SOCK_NONBLOCK": 04000, "SOCK_CLOEXEC": 02000000,
	"AF_UNSPEC": 0, "AF_UNIX": 1, "AF_LOCAL": 1, "AF_INET": 2, "AF_INET6": 10,
	"AF_NETLINK": 16, "AF_PACKET": 17,
	"EFD_SEMAPHORE": 1, "EFD_NONBLOCK": 04000, "EFD_CLOEXEC": 02000000,
	"MFD_CLOEXEC": 1, "MFD_ALLOW_SEALING": 2, "MFD_HUGETLB": 4,
	"EPOLL_CLOEXEC": 02000000, "IN_NONBLOCK": 04000, "IN_CLOEXEC": 02000000,
	"TFD_NONBLOCK": 04000, "TFD_CLOEXEC": 02000000, "SFD_NONBLOCK": 04000, "SFD_CLOEXEC": 02000000,

	// wait4/waitid options and id types.
	"WNOHANG": 1, "WUNTRACED": 2, "WSTOPPED": 2, "WEXITED": 4, "WCONTINUED": 8,
	"WNOWAIT": 0x1000000, "__WNOTHREAD": 0x20000000, "__WALL": 0x40000000, "__WCLONE": 0x80000000,
	"P_ALL": 0, "P_PID": 1, "P_PGID": 2, "P_PIDFD": 3,

	// xattr and utimensat.
	"XATTR_CREATE": 1, "XATTR_REPLACE": 2,
	"UTIME_NOW": (1 << 30) - 1, "UTIME_OMIT": (1 << 30) - 2,

	// lseek whence.
	"SEEK_SET": 0, "SEEK_CUR": 1, "SEEK_END": 2, "SEEK_DATA": 3, "SEEK_HOLE": 4,
}

// internTable maps every name the scanner may keep in an Event (syscall
// names, errno names, signal and constant names) to one shared string, so that
// looking a name up by its bytes (m[string(b)] does not allocate) gives a
// string without allocating.
var internTable = func() map[string]string {
	m := make(map[string]string, len(syscallNames)+len(errnoNames)+len(constantValues))
	for _, n := range syscallNames {
		m[n] = n
	}
	for _, n := range errnoNames {
		m[n] = n
	}
	for n := range constantValues {
		m[n] = n
	}
	return m
}()
