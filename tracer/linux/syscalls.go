package linux

// This file is the table of the system calls fsmove traces: one row per
// call, with its x86_64 number and what each argument is, in the style of
// gVisor's pkg/sentry/strace tables. The tracers derive what they stop and
// how they decode from it (ptrace's decoding, the eBPF program's plans,
// strace's -e trace= list); the lowering (fstrace) derives where each
// argument it reads is. Adding a call is adding a row here, and the
// lowering's row for what it means.

// The fcntl commands that change a process's fds, the only ones the
// lowering reads (fstrace's formFcntl: F_DUPFD and F_DUPFD_CLOEXEC make an
// fd, F_SETFD may mark one close-on-exec): a tracer that filters calls by
// their arguments (fsmove trace's seccomp filter) stops fcntl for these
// only. The others (F_GETFL, F_SETFL, F_GETFD: three fcntl calls in four
// of a Puppet apply) do nothing in the model.
const (
	FDupfd        = 0
	FSetfd        = 2
	FDupfdCloexec = 1030
)

// FcntlCommands lists them.
var FcntlCommands = []uint64{FDupfd, FSetfd, FDupfdCloexec}

// ArgKind is what one argument of a call is. Each kind is read one way
// (see Value); kinds that read alike differ by the role the lowering gives
// them (a dirfd names a directory for the path after it, an fd is acted on).
type ArgKind uint8

const (
	Int         ArgKind = iota // an int with no role (uid, domain, access mode, size)
	Uint                       // an unsigned int with no role (statx's mask)
	Long                       // a long or size_t with no role (a length, fcntl's argument)
	Ptr                        // an address the lowering never follows (a stat buffer, argv)
	FD                         // an fd the call acts on (close, dup, write, fchmod)
	UintFD                     // an fd as an unsigned int (close_range's bounds: ~0U stays 4294967295)
	DirFD                      // the directory fd of the Path after it (AT_FDCWD is -100)
	Path                       // a path name
	ExecPath                   // exec's program path: a successful exec replaces the memory it is in (ptrace reads it at the entry, eBPF takes the kernel's copy)
	Name                       // a string that is not a path (an xattr name, memfd's name)
	OutPath                    // a buffer the call fills with a path of Ret bytes (getcwd)
	Mode                       // file mode bits (unsigned)
	Flags                      // the call's flags (O_*, AT_*, SOCK_* in socket's type…), an int
	UintFlags                  // the call's flags, an unsigned int
	LongFlags                  // the call's flags, a long (clone's, perf_event_open's)
	StructFlags                // a struct whose first member is the call's u64 flags (open_how, clone_args)
	Cmd                        // fcntl's command
	OutFDs                     // an int[2] the call fills with new fds (pipe, socketpair)
	WriteData                  // bytes written; the length is the next argument
	WriteIovec                 // an iovec array written; the count is the next argument
)

// Value is how an argument is read from its register and the tracee's
// memory.
type Value uint8

const (
	ValInt32      Value = iota // the low 32 bits, sign-extended
	ValUint32                  // the low 32 bits
	ValInt64                   // all 64 bits
	ValPointer                 // an address, not followed
	ValString                  // a NUL-terminated string at the address (up to PATH_MAX)
	ValOutString               // a string the call wrote at the address, of Ret bytes
	ValStructU64               // the first u64 of the struct at the address
	ValOutIntPair              // the two ints the call wrote at the address
	ValWriteData               // the bytes at the address; their count is the next argument
	ValWriteIovec              // the data of the iovecs at the address; their count is the next argument
)

// Value returns how an argument of kind k is read.
func (k ArgKind) Value() Value {
	switch k {
	case Int, FD, DirFD, Flags, Cmd:
		return ValInt32
	case Uint, UintFD, Mode, UintFlags:
		return ValUint32
	case Long, LongFlags:
		return ValInt64
	case Path, ExecPath, Name:
		return ValString
	case OutPath:
		return ValOutString
	case StructFlags:
		return ValStructU64
	case OutFDs:
		return ValOutIntPair
	case WriteData:
		return ValWriteData
	case WriteIovec:
		return ValWriteIovec
	}
	return ValPointer
}

// IsFlags reports whether k is the call's flags argument.
func (k ArgKind) IsFlags() bool {
	return k == Flags || k == UintFlags || k == LongFlags || k == StructFlags
}

// Reason is why a call is traced.
type Reason uint8

const (
	Lowered     Reason = iota // the lowering turns it into statements
	Ends                      // it ends the thread or process and never returns (exit, exit_group)
	ChangesView               // it may make a process see other files at the same path (unshare, setns, pivot_root); ptrace stops its predictions after it
)

// Syscall is one row of the table.
type Syscall struct {
	Name string
	Nr   int // the x86_64 number (asm/unistd_64.h)
	Args []ArgKind
	// Names, when set, are the names strace prints before the arguments
	// (clone's flags=, child_stack=…), one per argument.
	Names []string
	Why   Reason
	// Lookup marks the calls that look their path up to read, stat or
	// execute it (or make it the cwd): when one fails with ENOENT or
	// ENOTDIR (LookupErrnos) the path, or a directory of it, is not there,
	// which the lowering records (a Missing statement). The tracers keep
	// these failed calls with their paths (LooksUp, LookupErrno); they drop
	// or skip the decoding of every other failed call. An open is one
	// whatever its flags (the lowering decides whether it would have read).
	Lookup bool
	// Forks marks the calls that make a process or thread and return twice:
	// in the caller with the child's id, and in the child with 0. The
	// child's return is not a call of its own (the eBPF tracer, which sees
	// every return, drops it).
	Forks bool
}

// Shorthands for the rows.
type a = []ArgKind

// Syscalls is the table. Rows are grouped as in docs/DESIGN.md, "Effects
// of system calls" (and fstrace/syscalls.go); numbers are x86_64's.
var Syscalls = []Syscall{
	// Opening files.
	{Name: "open", Nr: 2, Args: a{Path, Flags, Mode}, Lookup: true},
	{Name: "openat", Nr: 257, Args: a{DirFD, Path, Flags, Mode}, Lookup: true},
	{Name: "openat2", Nr: 437, Args: a{DirFD, Path, StructFlags, Long}, Lookup: true},
	{Name: "creat", Nr: 85, Args: a{Path, Mode}},

	// Looking at a path.
	{Name: "stat", Nr: 4, Args: a{Path, Ptr}, Lookup: true},
	{Name: "lstat", Nr: 6, Args: a{Path, Ptr}, Lookup: true},
	{Name: "newfstatat", Nr: 262, Args: a{DirFD, Path, Ptr, Flags}, Lookup: true},
	{Name: "statx", Nr: 332, Args: a{DirFD, Path, Flags, Uint, Ptr}, Lookup: true},
	{Name: "statfs", Nr: 137, Args: a{Path, Ptr}, Lookup: true},
	{Name: "access", Nr: 21, Args: a{Path, Int}, Lookup: true},
	{Name: "faccessat", Nr: 269, Args: a{DirFD, Path, Int}, Lookup: true},
	{Name: "faccessat2", Nr: 439, Args: a{DirFD, Path, Int, Flags}, Lookup: true},
	{Name: "readlink", Nr: 89, Args: a{Path, Ptr, Long}, Lookup: true},
	{Name: "readlinkat", Nr: 267, Args: a{DirFD, Path, Ptr, Long}, Lookup: true},
	{Name: "getdents", Nr: 78, Args: a{FD, Ptr, Uint}},
	{Name: "getdents64", Nr: 217, Args: a{FD, Ptr, Uint}},
	{Name: "chroot", Nr: 161, Args: a{Path}, Lookup: true},
	// mount(source, target, fstype, flags, data): a bind mount
	// (MS_BIND) makes source's tree seen at target, as systemd does with
	// "/" before it chroots a sandboxed unit into it. fstype and data are
	// not read (Ptr): the lowering looks at bind mounts only.
	{Name: "mount", Nr: 165, Args: a{Path, Path, Ptr, LongFlags, Ptr}},

	// Running a program.
	{Name: "execve", Nr: 59, Args: a{ExecPath, Ptr, Ptr}, Lookup: true},
	{Name: "execveat", Nr: 322, Args: a{DirFD, ExecPath, Ptr, Ptr, Flags}, Lookup: true},

	// Creating and removing names.
	{Name: "mkdir", Nr: 83, Args: a{Path, Mode}},
	{Name: "mkdirat", Nr: 258, Args: a{DirFD, Path, Mode}},
	{Name: "mknod", Nr: 133, Args: a{Path, Mode, Long}},
	{Name: "mknodat", Nr: 259, Args: a{DirFD, Path, Mode, Long}},
	{Name: "unlink", Nr: 87, Args: a{Path}},
	{Name: "unlinkat", Nr: 263, Args: a{DirFD, Path, Flags}},
	{Name: "rmdir", Nr: 84, Args: a{Path}},
	{Name: "rename", Nr: 82, Args: a{Path, Path}},
	{Name: "renameat", Nr: 264, Args: a{DirFD, Path, DirFD, Path}},
	{Name: "renameat2", Nr: 316, Args: a{DirFD, Path, DirFD, Path, UintFlags}},
	{Name: "link", Nr: 86, Args: a{Path, Path}},
	{Name: "linkat", Nr: 265, Args: a{DirFD, Path, DirFD, Path, Flags}},
	{Name: "symlink", Nr: 88, Args: a{Path, Path}},
	{Name: "symlinkat", Nr: 266, Args: a{Path, DirFD, Path}},

	// Changing contents or metadata.
	{Name: "truncate", Nr: 76, Args: a{Path, Long}},
	{Name: "ftruncate", Nr: 77, Args: a{FD, Long}},
	{Name: "chmod", Nr: 90, Args: a{Path, Mode}},
	{Name: "fchmod", Nr: 91, Args: a{FD, Mode}},
	{Name: "fchmodat", Nr: 268, Args: a{DirFD, Path, Mode}},
	{Name: "fchmodat2", Nr: 452, Args: a{DirFD, Path, Mode, UintFlags}},
	{Name: "chown", Nr: 92, Args: a{Path, Int, Int}},
	{Name: "lchown", Nr: 94, Args: a{Path, Int, Int}},
	{Name: "fchown", Nr: 93, Args: a{FD, Int, Int}},
	{Name: "fchownat", Nr: 260, Args: a{DirFD, Path, Int, Int, Flags}},
	{Name: "utime", Nr: 132, Args: a{Path, Ptr}},
	{Name: "utimes", Nr: 235, Args: a{Path, Ptr}},
	{Name: "futimesat", Nr: 261, Args: a{DirFD, Path, Ptr}},
	{Name: "utimensat", Nr: 280, Args: a{DirFD, Path, Ptr, Flags}},

	// Extended attributes.
	{Name: "getxattr", Nr: 191, Args: a{Path, Name, Ptr, Long}, Lookup: true},
	{Name: "lgetxattr", Nr: 192, Args: a{Path, Name, Ptr, Long}, Lookup: true},
	{Name: "fgetxattr", Nr: 193, Args: a{FD, Name, Ptr, Long}},
	{Name: "getxattrat", Nr: 464, Args: a{DirFD, Path, UintFlags, Name, Ptr, Long}, Lookup: true},
	{Name: "listxattr", Nr: 194, Args: a{Path, Ptr, Long}, Lookup: true},
	{Name: "llistxattr", Nr: 195, Args: a{Path, Ptr, Long}, Lookup: true},
	{Name: "flistxattr", Nr: 196, Args: a{FD, Ptr, Long}},
	{Name: "listxattrat", Nr: 465, Args: a{DirFD, Path, UintFlags, Ptr, Long}, Lookup: true},
	{Name: "setxattr", Nr: 188, Args: a{Path, Name, Ptr, Long, Flags}},
	{Name: "lsetxattr", Nr: 189, Args: a{Path, Name, Ptr, Long, Flags}},
	{Name: "fsetxattr", Nr: 190, Args: a{FD, Name, Ptr, Long, Flags}},
	{Name: "setxattrat", Nr: 463, Args: a{DirFD, Path, UintFlags, Name, Ptr, Long}},
	{Name: "removexattr", Nr: 197, Args: a{Path, Name}},
	{Name: "lremovexattr", Nr: 198, Args: a{Path, Name}},
	{Name: "fremovexattr", Nr: 199, Args: a{FD, Name}},
	{Name: "removexattrat", Nr: 466, Args: a{DirFD, Path, UintFlags, Name}},

	// Working directory.
	{Name: "chdir", Nr: 80, Args: a{Path}, Lookup: true},
	{Name: "fchdir", Nr: 81, Args: a{FD}},
	{Name: "getcwd", Nr: 79, Args: a{OutPath, Long}},

	// Processes. x86_64's clone is clone(flags, stack, parent_tid, child_tid, tls).
	{Name: "clone", Nr: 56, Args: a{LongFlags, Ptr, Ptr, Ptr, Ptr},
		Names: []string{"flags", "child_stack", "parent_tid", "child_tidptr", "tls"}, Forks: true},
	{Name: "clone3", Nr: 435, Args: a{StructFlags, Long}, Forks: true},
	{Name: "fork", Nr: 57, Forks: true},
	{Name: "vfork", Nr: 58, Forks: true},
	{Name: "exit", Nr: 60, Args: a{Int}, Why: Ends},
	{Name: "exit_group", Nr: 231, Args: a{Int}, Why: Ends},
	{Name: "unshare", Nr: 272, Args: a{LongFlags}, Why: ChangesView},
	{Name: "setns", Nr: 308, Args: a{FD, Int}, Why: ChangesView},
	{Name: "pivot_root", Nr: 155, Args: a{Path, Path}, Why: ChangesView},

	// Fd tables.
	{Name: "dup", Nr: 32, Args: a{FD}},
	{Name: "dup2", Nr: 33, Args: a{FD, FD}},
	{Name: "dup3", Nr: 292, Args: a{FD, FD, Flags}},
	{Name: "fcntl", Nr: 72, Args: a{FD, Cmd, Long}},
	{Name: "close", Nr: 3, Args: a{FD}},
	{Name: "close_range", Nr: 436, Args: a{UintFD, UintFD, UintFlags}},

	// Fds that are not files. socket's type carries SOCK_CLOEXEC.
	{Name: "pipe", Nr: 22, Args: a{OutFDs}},
	{Name: "pipe2", Nr: 293, Args: a{OutFDs, Flags}},
	{Name: "socket", Nr: 41, Args: a{Int, Flags, Int}},
	{Name: "socketpair", Nr: 53, Args: a{Int, Flags, Int, OutFDs}},
	{Name: "accept", Nr: 43, Args: a{FD, Ptr, Ptr}},
	{Name: "accept4", Nr: 288, Args: a{FD, Ptr, Ptr, Flags}},
	{Name: "eventfd", Nr: 284, Args: a{Uint}},
	{Name: "eventfd2", Nr: 290, Args: a{Uint, Flags}},
	{Name: "memfd_create", Nr: 319, Args: a{Name, UintFlags}},
	{Name: "epoll_create", Nr: 213, Args: a{Int}},
	{Name: "epoll_create1", Nr: 291, Args: a{Flags}},
	{Name: "inotify_init", Nr: 253},
	{Name: "inotify_init1", Nr: 294, Args: a{Flags}},
	{Name: "timerfd_create", Nr: 283, Args: a{Int, Flags}},
	{Name: "signalfd", Nr: 282, Args: a{FD, Ptr, Long}},
	{Name: "signalfd4", Nr: 289, Args: a{FD, Ptr, Long, Flags}},
	{Name: "pidfd_open", Nr: 434, Args: a{Int, UintFlags}},
	{Name: "pidfd_getfd", Nr: 438, Args: a{FD, FD, UintFlags}},
	{Name: "userfaultfd", Nr: 323, Args: a{Flags}},
	{Name: "fanotify_init", Nr: 300, Args: a{UintFlags, Uint}},
	{Name: "perf_event_open", Nr: 298, Args: a{Ptr, Int, Int, FD, LongFlags}},
	{Name: "io_uring_setup", Nr: 425, Args: a{Uint, Ptr}},

	// Writes: Puppet's block markers (fd 1 and 2) and short writes.
	{Name: "write", Nr: 1, Args: a{FD, WriteData, Long}},
	{Name: "writev", Nr: 20, Args: a{FD, WriteIovec, Int}},
	{Name: "pwrite64", Nr: 18, Args: a{FD, WriteData, Long, Long}},
}

// MaxNr bounds the numbers of the table's calls (and of the index by
// number).
const MaxNr = 512

var byName = func() map[string]*Syscall {
	m := make(map[string]*Syscall, len(Syscalls))
	for i := range Syscalls {
		m[Syscalls[i].Name] = &Syscalls[i]
	}
	return m
}()

// Lookup returns the row of the call named name, or nil.
func Lookup(name string) *Syscall { return byName[name] }

// LooksUp reports whether the call named name is a lookup (its row's
// Lookup): a reader that drops failed calls asks which ones it keeps.
func LooksUp(name string) bool {
	s := byName[name]
	return s != nil && s.Lookup
}

// LookupErrnos are the errnos of a failed lookup: the path, or one of its
// directories, is not there. A failed call is a failed lookup, which every
// tracer delivers with its path, when LooksUp(name) and LookupErrno(errno).
// Readers test the errno first: it is cheap and rules out most failed calls
// (Ruby's readlink of paths that are not links fails with EINVAL); the
// strace reader tests the errnos before it even parses the call (with
// strace.Options.FailedLookups).
var LookupErrnos = []string{"ENOENT", "ENOTDIR"}

// LookupErrno reports whether errno is one of LookupErrnos.
func LookupErrno(errno string) bool {
	return errno == "ENOENT" || errno == "ENOTDIR"
}

// ExecsAtEntry reports whether the call's arguments must be read at its
// entry: exec replaces the memory they are in.
func (s *Syscall) ExecsAtEntry() bool {
	for _, k := range s.Args {
		if k == ExecPath {
			return true
		}
	}
	return false
}

// Writes reports whether the call writes data (write, writev, pwrite64):
// Puppet's block markers are among them. Its fd is argument 0, its data
// argument 1.
func (s *Syscall) Writes() bool {
	return len(s.Args) > 1 && (s.Args[1] == WriteData || s.Args[1] == WriteIovec)
}

// ShortWrite bounds the writes to fds other than 1 and 2 whose data the
// tracers deliver: at most this many bytes in all (strace's default string
// limit, -s 32, so such a write prints as strace prints it). A pid written
// to a cgroup.procs file ("57\n") is one. The eBPF program's SHORT_WRITE
// is the same bound.
const ShortWrite = 32

// WriteDataRead reports whether the tracers deliver the data of a write of
// n bytes in all to fd: on fds 1 and 2 always (Puppet's block markers),
// elsewhere only a short write. Reading every write's data would cost a
// trace its downloads and compressed archives, which nothing reads.
func WriteDataRead(fd int64, n int) bool {
	return fd == 1 || fd == 2 || n <= ShortWrite
}
