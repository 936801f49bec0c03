package fstrace

// This file is the lowering table: one row per system call, saying which
// argument plays which role and which form of statements the call lowers to
// (see the forms in lower.go). It is written in the style of gVisor's
// pkg/sentry/strace tables: adding a call is adding a row, not a case.
//
// Argument positions are those of the x86_64 system call as strace prints
// it. Flag values are Linux's (x86_64, same on every architecture for the
// bits used here).

// Open flags (fcntl.h).
const (
	oAccMode   = 0x3
	oRdonly    = 0x0
	oWronly    = 0x1
	oRdwr      = 0x2
	oCreat     = 0x40
	oExcl      = 0x80
	oTrunc     = 0x200
	oAppend    = 0x400
	oDirectory = 0x10000
	oNofollow  = 0x20000
	oCloexec   = 0x80000
	oPath      = 0x200000
	oTmpfile   = 0x400000 // without O_DIRECTORY, which O_TMPFILE includes
)

// *at flags (fcntl.h).
const (
	atSymlinkNofollow = 0x100
	atRemovedir       = 0x200
	atSymlinkFollow   = 0x400
	atEmptyPath       = 0x1000
)

// Other flags the table reads.
const (
	renameNoreplace = 0x1 // lowered like a plain rename: it only adds a check
	renameExchange  = 0x2
	renameWhiteout  = 0x4 // overlayfs: the old name becomes a whiteout, i.e. is gone

	cloneFS     = 0x200
	cloneFiles  = 0x400
	cloneThread = 0x10000

	fDupfd        = 0
	fSetfd        = 2
	fDupfdCloexec = 1030
	fdCloexecBit  = 1 // FD_CLOEXEC, the argument of F_SETFD

	closeRangeCloexec = 0x4

	// SOCK_CLOEXEC, EFD_CLOEXEC, EPOLL_CLOEXEC, IN_CLOEXEC, TFD_CLOEXEC,
	// SFD_CLOEXEC and userfaultfd's flag all equal O_CLOEXEC.
	mfdCloexec        = 0x1 // memfd_create
	fanCloexec        = 0x1 // fanotify_init
	perfFlagFdCloexec = 0x8 // perf_event_open
)

// argPos is the position of an argument in a row. The zero value means "the
// call has no such argument", so positions are written A0 … A5.
type argPos uint8

const (
	noArg argPos = iota
	A0
	A1
	A2
	A3
	A4
	A5
)

// index returns the 0-based index of the argument.
func (p argPos) index() int { return int(p) - 1 }

// flagBit maps one bit of a call's flags argument to a statement flag.
type flagBit struct {
	bit int64
	set uint32
}

var (
	cloexecOnOpenFlags = []flagBit{{oCloexec, FdCloexec}}
	cloneSharing       = []flagBit{{cloneFiles, ShareFiles}, {cloneFS, ShareFS}, {cloneThread, ShareThread}}
	renameFlags        = []flagBit{{renameExchange, RenameExchange}}
	closeRangeFlags    = []flagBit{{closeRangeCloexec, FdCloexec}}
)

// syscallRow is one row of the lowering table.
type syscallRow struct {
	name string
	form form

	// Argument roles. A missing dir means the cwd (AT_FDCWD); a missing
	// path with a dir means the fd itself (Path "").
	dir, path   argPos
	dir2, path2 argPos // the second name of link, rename, symlink
	fd, fd2     argPos // fds the call acts on (close, dup, write, close_range)
	fds         argPos // an array of new fds (pipe, socketpair)
	data        argPos // the bytes written (block markers)
	flags       argPos // the flags argument (open flags, at-flags, clone flags…)
	// flagsName is the name of the flags argument when the tracer prints it
	// as name=value (clone's flags=); it is tried before flags.
	flagsName string

	// Meaning.
	effect      Effect
	noFollow    bool      // never follows a final symlink (lstat, lchown)
	noFollowBit int64     // a bit of flags that stops following (AT_SYMLINK_NOFOLLOW)
	openFlags   int64     // creat: the open flags it implies (it has no flags argument)
	stmtFlags   uint32    // statement flags always set (MakeDir; Keeps for metadata changes)
	flagBits    []flagBit // bits of flags that set statement flags (O_CLOEXEC → FdCloexec)
	// lookup marks the calls that look their path up to read or execute it
	// (their success consumes the path, or changes the cwd to it): when one
	// fails with ENOENT or ENOTDIR it lowers to a Hpath with Effect Missing
	// (see lowerMissing in lower.go). An open only when it would consume.
	lookup bool
	note   string // why the row is as it is, when that is not obvious
}

// syscallTable is the lowering table. Rows are grouped as in SPEC
// "Effects of system calls"; lower.go documents each form.
var syscallTable = []syscallRow{
	// Opening files: the effect comes from the open flags (see openEffect).
	{name: "open", form: formOpen, path: A0, flags: A1, lookup: true},
	{name: "openat", form: formOpen, dir: A0, path: A1, flags: A2, lookup: true},
	{name: "openat2", form: formOpen, dir: A0, path: A1, flags: A2, lookup: true, note: "flags are the flags= member of struct open_how; resolve= is not modelled"},
	{name: "creat", form: formOpen, path: A0, openFlags: oCreat | oWronly | oTrunc},

	// Looking at a path: consumed.
	{name: "stat", form: formPath, path: A0, effect: Consumed, lookup: true},
	{name: "lstat", form: formPath, path: A0, effect: Consumed, noFollow: true, lookup: true},
	{name: "newfstatat", form: formPath, dir: A0, path: A1, flags: A3, effect: Consumed, noFollowBit: atSymlinkNofollow, lookup: true},
	{name: "statx", form: formPath, dir: A0, path: A1, flags: A2, effect: Consumed, noFollowBit: atSymlinkNofollow, lookup: true},
	{name: "statfs", form: formPath, path: A0, effect: Consumed, lookup: true},
	{name: "access", form: formPath, path: A0, effect: Consumed, lookup: true},
	{name: "faccessat", form: formPath, dir: A0, path: A1, effect: Consumed, lookup: true},
	{name: "faccessat2", form: formPath, dir: A0, path: A1, flags: A3, effect: Consumed, noFollowBit: atSymlinkNofollow, lookup: true},
	{name: "readlink", form: formPath, path: A0, effect: Consumed, noFollow: true, lookup: true},
	{name: "readlinkat", form: formPath, dir: A0, path: A1, effect: Consumed, noFollow: true, lookup: true},
	{name: "getdents", form: formPath, dir: A0, effect: Consumed, note: "listing the directory open on the fd"},
	{name: "getdents64", form: formPath, dir: A0, effect: Consumed, note: "listing the directory open on the fd"},
	{name: "chroot", form: formPath, path: A0, effect: Consumed, lookup: true, note: "the root change itself is not modelled: later absolute paths still resolve from /"},

	// Running a program: the program file is consumed, then cloexec fds close.
	{name: "execve", form: formExec, path: A0, lookup: true},
	{name: "execveat", form: formExec, dir: A0, path: A1, flags: A4, noFollowBit: atSymlinkNofollow, lookup: true},

	// Creating and removing names.
	{name: "mkdir", form: formPath, path: A0, effect: Produced, noFollow: true, stmtFlags: MakeDir},
	{name: "mkdirat", form: formPath, dir: A0, path: A1, effect: Produced, noFollow: true, stmtFlags: MakeDir},
	{name: "mknod", form: formPath, path: A0, effect: Produced, noFollow: true},
	{name: "mknodat", form: formPath, dir: A0, path: A1, effect: Produced, noFollow: true},
	{name: "unlink", form: formPath, path: A0, effect: Expunged, noFollow: true},
	{name: "unlinkat", form: formPath, dir: A0, path: A1, effect: Expunged, noFollow: true, note: "AT_REMOVEDIR (rmdir) has the same effect"},
	{name: "rmdir", form: formPath, path: A0, effect: Expunged, noFollow: true},
	{name: "rename", form: formRename, path: A0, path2: A1},
	{name: "renameat", form: formRename, dir: A0, path: A1, dir2: A2, path2: A3},
	{name: "renameat2", form: formRename, dir: A0, path: A1, dir2: A2, path2: A3, flags: A4, flagBits: renameFlags, note: "RENAME_NOREPLACE and RENAME_WHITEOUT lower as a plain rename"},
	{name: "link", form: formLink, path: A0, path2: A1},
	{name: "linkat", form: formLink, dir: A0, path: A1, dir2: A2, path2: A3, flags: A4, note: "AT_SYMLINK_FOLLOW cannot be expressed: Link never follows (missing flag in stmt.go)"},
	{name: "symlink", form: formSymlink, path: A0, path2: A1},
	{name: "symlinkat", form: formSymlink, path: A0, dir2: A1, path2: A2},

	// Changing contents or metadata: produced.
	{name: "truncate", form: formPath, path: A0, effect: Produced},
	{name: "ftruncate", form: formPath, dir: A0, effect: Produced},
	{name: "chmod", form: formPath, path: A0, effect: Produced, stmtFlags: Keeps},
	{name: "fchmod", form: formPath, dir: A0, effect: Produced, stmtFlags: Keeps},
	{name: "fchmodat", form: formPath, dir: A0, path: A1, effect: Produced, stmtFlags: Keeps},
	{name: "fchmodat2", form: formPath, dir: A0, path: A1, flags: A3, effect: Produced, stmtFlags: Keeps, noFollowBit: atSymlinkNofollow},
	{name: "chown", form: formPath, path: A0, effect: Produced, stmtFlags: Keeps},
	{name: "lchown", form: formPath, path: A0, effect: Produced, stmtFlags: Keeps, noFollow: true},
	{name: "fchown", form: formPath, dir: A0, effect: Produced, stmtFlags: Keeps},
	{name: "fchownat", form: formPath, dir: A0, path: A1, flags: A4, effect: Produced, stmtFlags: Keeps, noFollowBit: atSymlinkNofollow},
	{name: "utime", form: formPath, path: A0, effect: Produced, stmtFlags: Keeps},
	{name: "utimes", form: formPath, path: A0, effect: Produced, stmtFlags: Keeps},
	{name: "futimesat", form: formPath, dir: A0, path: A1, effect: Produced, stmtFlags: Keeps},
	{name: "utimensat", form: formPath, dir: A0, path: A1, flags: A3, effect: Produced, stmtFlags: Keeps, noFollowBit: atSymlinkNofollow, note: "a NULL path means the fd itself"},

	// Extended attributes: get/list consume, set/remove produce.
	{name: "getxattr", form: formPath, path: A0, effect: Consumed, lookup: true},
	{name: "lgetxattr", form: formPath, path: A0, effect: Consumed, noFollow: true, lookup: true},
	{name: "fgetxattr", form: formPath, dir: A0, effect: Consumed},
	{name: "getxattrat", form: formPath, dir: A0, path: A1, flags: A2, effect: Consumed, noFollowBit: atSymlinkNofollow, lookup: true},
	{name: "listxattr", form: formPath, path: A0, effect: Consumed, lookup: true},
	{name: "llistxattr", form: formPath, path: A0, effect: Consumed, noFollow: true, lookup: true},
	{name: "flistxattr", form: formPath, dir: A0, effect: Consumed},
	{name: "listxattrat", form: formPath, dir: A0, path: A1, flags: A2, effect: Consumed, noFollowBit: atSymlinkNofollow, lookup: true},
	{name: "setxattr", form: formPath, path: A0, effect: Produced, stmtFlags: Keeps},
	{name: "lsetxattr", form: formPath, path: A0, effect: Produced, stmtFlags: Keeps, noFollow: true},
	{name: "fsetxattr", form: formPath, dir: A0, effect: Produced, stmtFlags: Keeps},
	{name: "setxattrat", form: formPath, dir: A0, path: A1, flags: A2, effect: Produced, stmtFlags: Keeps, noFollowBit: atSymlinkNofollow},
	{name: "removexattr", form: formPath, path: A0, effect: Produced, stmtFlags: Keeps},
	{name: "lremovexattr", form: formPath, path: A0, effect: Produced, stmtFlags: Keeps, noFollow: true},
	{name: "fremovexattr", form: formPath, dir: A0, effect: Produced, stmtFlags: Keeps},
	{name: "removexattrat", form: formPath, dir: A0, path: A1, flags: A2, effect: Produced, stmtFlags: Keeps, noFollowBit: atSymlinkNofollow},

	// Working directory.
	{name: "chdir", form: formSetCwd, path: A0, lookup: true},
	{name: "fchdir", form: formSetCwd, dir: A0},
	{name: "getcwd", form: formGetcwd, path: A0, note: "the returned string teaches the cwd"},

	// Processes. The child is the return value.
	{name: "clone", form: formNewProc, flags: A0, flagsName: "flags", flagBits: cloneSharing},
	{name: "clone3", form: formNewProc, flags: A0, flagBits: cloneSharing, note: "flags are the flags= member of struct clone_args"},
	{name: "fork", form: formNewProc},
	{name: "vfork", form: formNewProc, note: "the child gets copies: CLONE_VM shares memory, not the fd table or cwd"},

	// Fd tables.
	{name: "dup", form: formDup, fd: A0},
	{name: "dup2", form: formDup, fd: A0},
	{name: "dup3", form: formDup, fd: A0, flags: A2, flagBits: cloexecOnOpenFlags},
	{name: "fcntl", form: formFcntl, fd: A0, flags: A1, note: "F_DUPFD, F_DUPFD_CLOEXEC, F_SETFD with FD_CLOEXEC; other commands do nothing"},
	{name: "close", form: formClose, fd: A0},
	{name: "close_range", form: formCloseRange, fd: A0, fd2: A1, flags: A2, flagBits: closeRangeFlags, note: "CLOSE_RANGE_UNSHARE is not modelled"},

	// Fds that are not files: kept in the fd tables so that numbers stay right.
	{name: "pipe", form: formAnonFdPair, fds: A0},
	{name: "pipe2", form: formAnonFdPair, fds: A0, flags: A1, flagBits: cloexecOnOpenFlags},
	{name: "socket", form: formAnonFd, flags: A1, flagBits: cloexecOnOpenFlags},
	{name: "socketpair", form: formAnonFdPair, fds: A3, flags: A1, flagBits: cloexecOnOpenFlags},
	{name: "accept", form: formAnonFd},
	{name: "accept4", form: formAnonFd, flags: A3, flagBits: cloexecOnOpenFlags},
	{name: "eventfd", form: formAnonFd},
	{name: "eventfd2", form: formAnonFd, flags: A1, flagBits: cloexecOnOpenFlags},
	{name: "memfd_create", form: formAnonFd, flags: A1, flagBits: []flagBit{{mfdCloexec, FdCloexec}}},
	{name: "epoll_create", form: formAnonFd},
	{name: "epoll_create1", form: formAnonFd, flags: A0, flagBits: cloexecOnOpenFlags},
	{name: "inotify_init", form: formAnonFd},
	{name: "inotify_init1", form: formAnonFd, flags: A0, flagBits: cloexecOnOpenFlags},
	{name: "timerfd_create", form: formAnonFd, flags: A1, flagBits: cloexecOnOpenFlags},
	{name: "signalfd", form: formAnonFd, fd: A0, note: "with fd -1 it creates an fd; otherwise it updates fd"},
	{name: "signalfd4", form: formAnonFd, fd: A0, flags: A3, flagBits: cloexecOnOpenFlags},
	{name: "pidfd_open", form: formAnonFd, stmtFlags: FdCloexec, note: "pidfds are always close-on-exec"},
	{name: "pidfd_getfd", form: formAnonFd, stmtFlags: FdCloexec, note: "the new fd is always close-on-exec"},
	{name: "userfaultfd", form: formAnonFd, flags: A0, flagBits: cloexecOnOpenFlags},
	{name: "fanotify_init", form: formAnonFd, flags: A0, flagBits: []flagBit{{fanCloexec, FdCloexec}}},
	{name: "perf_event_open", form: formAnonFd, flags: A4, flagBits: []flagBit{{perfFlagFdCloexec, FdCloexec}}},
	{name: "io_uring_setup", form: formAnonFd, stmtFlags: FdCloexec, note: "io_uring fds are always close-on-exec"},

	// Block markers: writes to stdout and stderr.
	{name: "write", form: formMarker, fd: A0, data: A1},
	{name: "writev", form: formMarker, fd: A0, data: A1, note: "data is the concatenation of the iov_base strings"},
	{name: "pwrite64", form: formMarker, fd: A0, data: A1},
}
