package fstrace

// This file is the lowering table: one row per system call, saying which
// form of statements the call lowers to (see the forms in lower.go) and
// what it means. It is written in the style of gVisor's pkg/sentry/strace
// tables: adding a call is adding a row, not a case. Which argument plays
// which role follows from the call's row in linux.Syscalls (layoutOf): the
// argument layout is kept once, for the tracers and the lowering.
//
// Argument positions are those of the x86_64 system call as strace prints
// it. Flag values are Linux's (x86_64, same on every architecture for the
// bits used here).

import "github.com/fsmove/fsmove/tracer/linux"

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

	fDupfd        = linux.FDupfd
	fSetfd        = linux.FSetfd
	fDupfdCloexec = linux.FDupfdCloexec
	fdCloexecBit  = 1 // FD_CLOEXEC, the argument of F_SETFD

	closeRangeCloexec = 0x4

	msRemount = 0x20   // mount: change the flags of an existing mount
	msBind    = 0x1000 // mount: a bind mount (MS_REC with it binds the submounts too)

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

	// Argument roles, placed by withLayout from the call's argument kinds
	// in linux.Syscalls (see layoutOf); rows do not write them. A missing
	// dir means the cwd (AT_FDCWD); a missing path with a dir means the fd
	// itself (Path "").
	dir, path   argPos
	dir2, path2 argPos // the second name of link, rename, symlink
	mode        argPos // the new mode of a mode change (chmod): NoExec when it has no execute bit
	fd, fd2     argPos // fds the call acts on (close, dup, write, close_range)
	fds         argPos // an array of new fds (pipe, socketpair)
	data        argPos // the bytes written (block markers)
	flags       argPos // the flags argument (open flags, at-flags, clone flags…)
	// flagsName is the name of the flags argument when the tracer prints it
	// as name=value (clone's flags=); it is tried before flags.
	flagsName string
	// updatesFd marks signalfd: its fd argument, unless -1, is an fd the
	// call updates rather than a new one.
	updatesFd bool

	// Meaning.
	effect      Effect
	noFollow    bool      // never follows a final symlink (lstat, lchown)
	noFollowBit int64     // a bit of flags that stops following (AT_SYMLINK_NOFOLLOW)
	openFlags   int64     // creat: the open flags it implies (it has no flags argument)
	stmtFlags   uint32    // statement flags always set (MakeDir; Keeps|Meta for metadata changes, Probe for looks at metadata)
	flagBits    []flagBit // bits of flags that set statement flags (O_CLOEXEC → FdCloexec)
	// lookup is the row's linux.Syscall.Lookup, placed by withLayout: when
	// the call fails with ENOENT or ENOTDIR it lowers to a Hpath with
	// Effect Missing (see lowerMissing in lower.go). An open only when it
	// would consume.
	lookup bool
	note   string // why the row is as it is, when that is not obvious
}

// syscallTable is the lowering table. Rows are grouped as in
// docs/DESIGN.md, "Effects of system calls"; lower.go documents each form. Every row is a
// call of linux.Syscalls (its Why is linux.Lowered), which says where its
// arguments are.
var syscallTable = withLayout([]syscallRow{
	// Opening files: the effect comes from the open flags (see openEffect).
	{name: "open", form: formOpen},
	{name: "openat", form: formOpen},
	{name: "openat2", form: formOpen, note: "flags are the flags= member of struct open_how; resolve= is not modelled"},
	{name: "creat", form: formOpen, openFlags: oCreat | oWronly | oTrunc},

	// Looking at a path: consumed.
	{name: "stat", form: formPath, effect: Consumed, stmtFlags: Probe},
	{name: "lstat", form: formPath, effect: Consumed, stmtFlags: Probe, noFollow: true},
	{name: "newfstatat", form: formPath, effect: Consumed, stmtFlags: Probe, noFollowBit: atSymlinkNofollow},
	{name: "statx", form: formPath, effect: Consumed, stmtFlags: Probe, noFollowBit: atSymlinkNofollow},
	{name: "statfs", form: formPath, effect: Consumed, stmtFlags: Probe},
	{name: "access", form: formPath, effect: Consumed, stmtFlags: Probe},
	{name: "faccessat", form: formPath, effect: Consumed, stmtFlags: Probe},
	{name: "faccessat2", form: formPath, effect: Consumed, stmtFlags: Probe, noFollowBit: atSymlinkNofollow},
	{name: "readlink", form: formPath, effect: Consumed, noFollow: true},
	{name: "readlinkat", form: formPath, effect: Consumed, noFollow: true},
	{name: "getdents", form: formPath, effect: Consumed, stmtFlags: Lists, note: "listing the directory open on the fd"},
	{name: "getdents64", form: formPath, effect: Consumed, stmtFlags: Lists, note: "listing the directory open on the fd"},
	{name: "chroot", form: formPath, effect: Consumed, stmtFlags: Roots, note: "Roots: the interpreter resolves no name of the process after a root change (other than to / or a bind of /)"},
	{name: "mount", form: formBind, note: "only a bind mount (MS_BIND, not MS_REMOUNT) lowers; other mounts, and MS_MOVE, change no path the model follows"},

	// Running a program: the program file is consumed, then cloexec fds close.
	{name: "execve", form: formExec},
	{name: "execveat", form: formExec, noFollowBit: atSymlinkNofollow},

	// Creating and removing names.
	{name: "mkdir", form: formPath, effect: Produced, noFollow: true, stmtFlags: MakeDir},
	{name: "mkdirat", form: formPath, effect: Produced, noFollow: true, stmtFlags: MakeDir},
	{name: "mknod", form: formPath, effect: Produced, noFollow: true},
	{name: "mknodat", form: formPath, effect: Produced, noFollow: true},
	{name: "unlink", form: formPath, effect: Expunged, noFollow: true},
	{name: "unlinkat", form: formPath, effect: Expunged, noFollow: true, note: "AT_REMOVEDIR (rmdir) has the same effect"},
	{name: "rmdir", form: formPath, effect: Expunged, noFollow: true},
	{name: "rename", form: formRename},
	{name: "renameat", form: formRename},
	{name: "renameat2", form: formRename, flagBits: renameFlags, note: "RENAME_NOREPLACE and RENAME_WHITEOUT lower as a plain rename"},
	{name: "link", form: formLink},
	{name: "linkat", form: formLink, note: "AT_SYMLINK_FOLLOW cannot be expressed: Link never follows (missing flag in stmt.go)"},
	{name: "symlink", form: formSymlink},
	{name: "symlinkat", form: formSymlink},

	// Changing contents or metadata: produced.
	{name: "truncate", form: formPath, effect: Produced},
	{name: "ftruncate", form: formPath, effect: Produced},
	{name: "chmod", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "fchmod", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "fchmodat", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "fchmodat2", form: formPath, effect: Produced, stmtFlags: Keeps | Meta, noFollowBit: atSymlinkNofollow},
	{name: "chown", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "lchown", form: formPath, effect: Produced, stmtFlags: Keeps | Meta, noFollow: true},
	{name: "fchown", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "fchownat", form: formPath, effect: Produced, stmtFlags: Keeps | Meta, noFollowBit: atSymlinkNofollow},
	{name: "utime", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "utimes", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "futimesat", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "utimensat", form: formPath, effect: Produced, stmtFlags: Keeps | Meta, noFollowBit: atSymlinkNofollow, note: "a NULL path means the fd itself"},

	// Extended attributes: get/list consume, set/remove produce.
	{name: "getxattr", form: formPath, effect: Consumed, stmtFlags: Probe},
	{name: "lgetxattr", form: formPath, effect: Consumed, stmtFlags: Probe, noFollow: true},
	{name: "fgetxattr", form: formPath, effect: Consumed, stmtFlags: Probe},
	{name: "getxattrat", form: formPath, effect: Consumed, stmtFlags: Probe, noFollowBit: atSymlinkNofollow},
	{name: "listxattr", form: formPath, effect: Consumed, stmtFlags: Probe},
	{name: "llistxattr", form: formPath, effect: Consumed, stmtFlags: Probe, noFollow: true},
	{name: "flistxattr", form: formPath, effect: Consumed, stmtFlags: Probe},
	{name: "listxattrat", form: formPath, effect: Consumed, stmtFlags: Probe, noFollowBit: atSymlinkNofollow},
	{name: "setxattr", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "lsetxattr", form: formPath, effect: Produced, stmtFlags: Keeps | Meta, noFollow: true},
	{name: "fsetxattr", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "setxattrat", form: formPath, effect: Produced, stmtFlags: Keeps | Meta, noFollowBit: atSymlinkNofollow},
	{name: "removexattr", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "lremovexattr", form: formPath, effect: Produced, stmtFlags: Keeps | Meta, noFollow: true},
	{name: "fremovexattr", form: formPath, effect: Produced, stmtFlags: Keeps | Meta},
	{name: "removexattrat", form: formPath, effect: Produced, stmtFlags: Keeps | Meta, noFollowBit: atSymlinkNofollow},

	// Working directory.
	{name: "chdir", form: formSetCwd},
	{name: "fchdir", form: formSetCwd},
	{name: "getcwd", form: formGetcwd, note: "the returned string teaches the cwd"},

	// Processes. The child is the return value.
	{name: "clone", form: formNewProc, flagBits: cloneSharing},
	{name: "clone3", form: formNewProc, flagBits: cloneSharing, note: "flags are the flags= member of struct clone_args"},
	{name: "fork", form: formNewProc},
	{name: "vfork", form: formNewProc, note: "the child gets copies: CLONE_VM shares memory, not the fd table or cwd"},

	// Fd tables.
	{name: "dup", form: formDup},
	{name: "dup2", form: formDup},
	{name: "dup3", form: formDup, flagBits: cloexecOnOpenFlags},
	{name: "fcntl", form: formFcntl, note: "F_DUPFD, F_DUPFD_CLOEXEC, F_SETFD with FD_CLOEXEC; other commands do nothing"},
	{name: "close", form: formClose},
	{name: "close_range", form: formCloseRange, flagBits: closeRangeFlags, note: "CLOSE_RANGE_UNSHARE is not modelled"},

	// Fds that are not files: kept in the fd tables so that numbers stay right.
	{name: "pipe", form: formAnonFdPair},
	{name: "pipe2", form: formAnonFdPair, flagBits: cloexecOnOpenFlags},
	{name: "socket", form: formAnonFd, flagBits: cloexecOnOpenFlags},
	{name: "socketpair", form: formAnonFdPair, flagBits: cloexecOnOpenFlags},
	{name: "accept", form: formAnonFd},
	{name: "accept4", form: formAnonFd, flagBits: cloexecOnOpenFlags},
	{name: "eventfd", form: formAnonFd},
	{name: "eventfd2", form: formAnonFd, flagBits: cloexecOnOpenFlags},
	{name: "memfd_create", form: formAnonFd, flagBits: []flagBit{{mfdCloexec, FdCloexec}}},
	{name: "epoll_create", form: formAnonFd},
	{name: "epoll_create1", form: formAnonFd, flagBits: cloexecOnOpenFlags},
	{name: "inotify_init", form: formAnonFd},
	{name: "inotify_init1", form: formAnonFd, flagBits: cloexecOnOpenFlags},
	{name: "timerfd_create", form: formAnonFd, flagBits: cloexecOnOpenFlags},
	{name: "signalfd", form: formAnonFd, updatesFd: true, note: "with fd -1 it creates an fd; otherwise it updates fd"},
	{name: "signalfd4", form: formAnonFd, updatesFd: true, flagBits: cloexecOnOpenFlags},
	{name: "pidfd_open", form: formAnonFd, stmtFlags: FdCloexec, note: "pidfds are always close-on-exec"},
	{name: "pidfd_getfd", form: formForeignFd, note: "another process's file: unknown to the model, so a change through it is unplaced"},
	{name: "userfaultfd", form: formAnonFd, flagBits: cloexecOnOpenFlags},
	{name: "fanotify_init", form: formAnonFd, flagBits: []flagBit{{fanCloexec, FdCloexec}}},
	{name: "perf_event_open", form: formAnonFd, flagBits: []flagBit{{perfFlagFdCloexec, FdCloexec}}},
	{name: "io_uring_setup", form: formAnonFd, stmtFlags: FdCloexec, note: "io_uring fds are always close-on-exec"},

	// Block markers: writes to stdout and stderr.
	{name: "write", form: formMarker},
	{name: "writev", form: formMarker, note: "data is the concatenation of the iov_base strings"},
	{name: "pwrite64", form: formMarker},
})

// argLayout is where a row's arguments are: the roles of syscallRow that
// follow from the call's argument kinds in linux.Syscalls.
type argLayout struct {
	dir, path, dir2, path2, fd, fd2, fds, data, flags, mode argPos
	flagsName                                               string
}

// layoutOf places the roles of a row of form f (updatesFd: its fd argument
// is one the call acts on, not one it creates next to) from the kinds of
// the call's arguments:
//   - path and path2 are its first and second paths (a program, a path
//     the call fills in), dir and dir2 the dirfds just before them;
//   - a call that names no path acts on its fd (fchmod, getdents64):
//     that fd is dir for the path forms;
//   - fd and fd2 are its fds for the forms that change fd tables or write
//     markers, and for a call that updates an fd (signalfd);
//   - fds the fds it fills in, data the bytes it writes;
//   - flags its flags (fcntl's command for formFcntl), named as strace
//     names it when it does (clone's flags=).
func layoutOf(call *linux.Syscall, f form, updatesFd bool) argLayout {
	var l argLayout
	var fdPos []argPos
	pendingDir := noArg
	for i, k := range call.Args {
		p := argPos(i + 1)
		switch k {
		case linux.DirFD:
			pendingDir = p
		case linux.Path, linux.ExecPath, linux.OutPath:
			if l.path == noArg {
				l.path, l.dir = p, pendingDir
			} else if l.path2 == noArg {
				l.path2, l.dir2 = p, pendingDir
			}
			pendingDir = noArg
		case linux.FD, linux.UintFD:
			fdPos = append(fdPos, p)
		case linux.OutFDs:
			l.fds = p
		case linux.Mode:
			l.mode = p
		case linux.WriteData, linux.WriteIovec:
			l.data = p
		case linux.Cmd:
			if f == formFcntl {
				l.flags = p
			}
		}
		if k.IsFlags() && l.flags == noArg {
			l.flags = p
		}
	}
	switch {
	case f == formPath || f == formSetCwd:
		if l.path == noArg && l.dir == noArg && len(fdPos) > 0 {
			l.dir = fdPos[0]
		}
	case f == formDup || f == formFcntl || f == formClose || f == formCloseRange || f == formMarker || updatesFd:
		if len(fdPos) > 0 {
			l.fd = fdPos[0]
		}
		if len(fdPos) > 1 {
			l.fd2 = fdPos[1]
		}
	}
	if call.Names != nil && l.flags != noArg {
		l.flagsName = call.Names[l.flags.index()]
	}
	return l
}

// withLayout places the argument roles of every row, and whether it is a
// lookup, from linux.Syscalls. A
// row whose call linux does not know keeps no roles (and lowers to
// nothing useful); TestTableMatchesLinux reports it.
func withLayout(rows []syscallRow) []syscallRow {
	for i := range rows {
		r := &rows[i]
		call := linux.Lookup(r.name)
		if call == nil {
			continue
		}
		l := layoutOf(call, r.form, r.updatesFd)
		r.dir, r.path, r.dir2, r.path2 = l.dir, l.path, l.dir2, l.path2
		r.fd, r.fd2, r.fds, r.data, r.flags, r.flagsName = l.fd, l.fd2, l.fds, l.data, l.flags, l.flagsName
		r.lookup = call.Lookup
		if r.stmtFlags&Meta != 0 {
			r.mode = l.mode // only a mode change's mode says anything
		}
	}
	return rows
}
