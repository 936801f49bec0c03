package strace

import (
	"bufio"
	"io"
	"strconv"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
)

// Writer prints events in the text form of `strace -f -o FILE`, so that a
// capture made by another backend (the native ptrace and eBPF tracers) can
// be saved, read by a person as an strace log, and read again by Reader to
// equal events.
//
// The form, one line per event:
//
//	PID name(arg, arg, …) = RET
//	PID name(arg, …) = -1 ENAME (strerror text)
//	PID name(arg, …) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)
//	PID name(arg, …) = ?                      (Errno "?": the call never returned)
//	PID +++ exited with N +++                 (KindExit, Ret ≥ 0)
//	PID +++ killed by SIGNAME +++             (KindExit, Ret < 0)
//	PID --- SIGNAME {si_signo=SIGNAME} ---    (KindSignal)
//
// Every argument the event has is printed, in its order: the event decides
// the argument list (Normalize gives a native tracer's event strace's). By
// kind, and what Reader decodes them back to:
//   - ArgInt: as strace prints the argument at that position of that call
//     (argFormats): AT_FDCWD, open flags (O_WRONLY|O_CREAT|O_TRUNC), modes
//     in octal (0644), AT_ flags, clone flags (CLONE_VM|…|SIGCHLD), fcntl
//     commands (F_DUPFD), access modes (R_OK), … with the names and values
//     of the reader's own table (constantValues); bits no name covers as a
//     hex term (O_RDONLY|0x40000000). Other integers in decimal. Decimal
//     and hex of at most 8 digits never read back as a pointer.
//   - ArgPtr: hex with at least 9 digits ("0x0000001f0"): Reader takes a hex
//     number of more than 8 digits for a pointer.
//   - ArgNull: NULL.
//   - ArgStr: a C string literal as strace prints it ("\n", "\"", octal
//     escapes for other bytes: \0, \33), followed by ... when Truncated.
//   - ArgStruct: {flags=FLAGS} (formatted as the call's flags: open_how,
//     clone_args) and, when Str is set, a data="…" member.
//   - ArgArray: [INT, INT, …] and Str as one iovec, {iov_base="STR",
//     iov_len=N} (iov_base="STR"... without its length when Truncated).
//   - ArgOther: its raw text when that is one line, else ?.
//
// Arg.Name, when set, is printed as name=value (clone's flags=). Line is
// not printed: the reader numbers lines itself.
type Writer struct {
	w   *bufio.Writer
	buf []byte // the line being built
	// The formats of the last call printed: calls come in runs.
	lastName string
	lastFmts []argFormat
}

// NewWriter returns a Writer printing to w. Call Flush (or Close) at the end.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10)}
}

// Write prints one event as one line.
func (w *Writer) Write(ev *tracer.Event) error {
	b := w.buf[:0]
	b = strconv.AppendInt(b, int64(ev.Pid), 10)
	b = append(b, ' ')
	switch ev.Kind {
	case tracer.KindExit:
		if ev.Ret >= 0 {
			b = append(b, "+++ exited with "...)
			b = strconv.AppendInt(b, ev.Ret, 10)
			b = append(b, " +++"...)
		} else {
			b = append(b, "+++ killed by "...)
			b = append(b, signalName(ev, -ev.Ret)...)
			b = append(b, " +++"...)
		}
	case tracer.KindSignal:
		var sig int64
		if len(ev.Args) > 0 {
			sig = ev.Args[0].Int
		}
		name := signalName(ev, sig)
		b = append(b, "--- "...)
		b = append(b, name...)
		b = append(b, " {si_signo="...)
		b = append(b, name...)
		b = append(b, "} ---"...)
	default:
		b = append(b, ev.Syscall...)
		b = append(b, '(')
		fmts := w.formats(ev.Syscall)
		for i := range ev.Args {
			if i > 0 {
				b = append(b, ", "...)
			}
			f := fmtPlain
			if i < len(fmts) {
				f = fmts[i]
			}
			if ev.Args[i].Name != "" {
				f = namedFormat(ev.Syscall, ev.Args[i].Name)
			}
			b = appendArg(b, ev, &ev.Args[i], f)
		}
		b = append(b, ") = "...)
		switch {
		case ev.Errno == "?":
			b = append(b, '?')
		case linux.IsRestart(ev.Errno):
			// The kernel restarts the call (strace's "= ?"): Ret says nothing.
			b = append(b, "? "...)
			b = append(b, ev.Errno...)
			b = appendErrnoText(b, ev.Errno)
		case ev.Errno != "":
			b = strconv.AppendInt(b, ev.Ret, 10)
			b = append(b, ' ')
			b = append(b, ev.Errno...)
			b = appendErrnoText(b, ev.Errno)
		default:
			b = appendRet(b, ev)
		}
	}
	b = append(b, '\n')
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// formats returns the argument formats of a call (nil: all plain).
func (w *Writer) formats(name string) []argFormat {
	if name != w.lastName {
		w.lastName, w.lastFmts = name, argFormats[name]
	}
	return w.lastFmts
}

// Flush writes any buffered lines to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }

// signalName names a signal for an exit or signal notice: the event's own
// name if it has one (Args[0].Str), else the table's, else SIG<number>,
// which Reader decodes as an unknown name (0).
func signalName(ev *tracer.Event, sig int64) string {
	if len(ev.Args) > 0 && ev.Args[0].Str != "" && isSignalName(ev.Args[0].Str) {
		return ev.Args[0].Str
	}
	if sig > 0 && sig < int64(len(signalNames)) && signalNames[sig] != "" {
		return signalNames[sig]
	}
	return "SIG" + strconv.FormatInt(sig, 10)
}

func isSignalName(s string) bool {
	if len(s) < 4 || s[:3] != "SIG" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// signalNames names the standard signals by number (x86_64).
var signalNames = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
	7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2",
	13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGSTKFLT", 17: "SIGCHLD",
	18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGURG",
	24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH",
	29: "SIGIO", 30: "SIGPWR", 31: "SIGSYS",
}

// SignalName returns the name of a standard signal ("SIGKILL"), or "" when
// sig is not one.
func SignalName(sig int) string {
	if sig > 0 && sig < len(signalNames) {
		return signalNames[sig]
	}
	return ""
}

func appendArg(b []byte, ev *tracer.Event, a *tracer.Arg, f argFormat) []byte {
	if a.Name != "" {
		b = append(b, a.Name...)
		b = append(b, '=')
	}
	switch a.Kind {
	case tracer.ArgInt:
		b = appendInt(b, ev, a.Int, f)
	case tracer.ArgPtr:
		b = appendPointer(b, uint64(a.Int))
	case tracer.ArgNull:
		b = append(b, "NULL"...)
	case tracer.ArgStr:
		b = appendQuoted(b, a.Str)
		if a.Truncated {
			b = append(b, "..."...)
		}
	case tracer.ArgStruct:
		b = append(b, "{flags="...)
		b = appendInt(b, ev, a.Int, f)
		if a.Str != "" || a.Truncated {
			b = append(b, ", data="...)
			b = appendQuoted(b, a.Str)
			if a.Truncated {
				b = append(b, "..."...)
			}
		}
		b = append(b, '}')
	case tracer.ArgArray:
		b = append(b, '[')
		for i, n := range a.Ints {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, n, 10)
		}
		if a.Str != "" || a.Truncated {
			if len(a.Ints) > 0 {
				b = append(b, ", "...)
			}
			b = append(b, "{iov_base="...)
			b = appendQuoted(b, a.Str)
			if a.Truncated {
				b = append(b, "..."...)
			} else {
				b = append(b, ", iov_len="...)
				b = strconv.AppendInt(b, int64(len(a.Str)), 10)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	default:
		if a.Str == "" || !isOneLine(a.Str) {
			b = append(b, '?')
		} else {
			b = append(b, a.Str...)
		}
	}
	return b
}

// appendPointer prints p in hex with at least 9 digits, so that Reader
// reads it back as a pointer and not as a flag value.
func appendPointer(b []byte, p uint64) []byte {
	b = append(b, "0x"...)
	var digits [16]byte
	n := 0
	for p != 0 || n < 9 {
		digits[len(digits)-1-n] = "0123456789abcdef"[p&0xf]
		p >>= 4
		n++
	}
	return append(b, digits[len(digits)-n:]...)
}

func isOneLine(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' || s[i] == '\r' {
			return false
		}
	}
	return true
}

// appendQuoted prints s as a C string literal, as strace does: the usual
// backslash escapes, printable ASCII as is, every other byte as an octal
// escape of as few digits as it needs (\0, \33), or three when an octal
// digit follows (so that it is not taken into the escape).
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		case '\v':
			b = append(b, '\\', 'v')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			switch {
			case c >= 0x20 && c < 0x7f:
				b = append(b, c)
			case i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7', c >= 0100:
				b = append(b, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
			case c >= 010:
				b = append(b, '\\', '0'+(c>>3)&7, '0'+c&7)
			default:
				b = append(b, '\\', '0'+c)
			}
		}
	}
	return append(b, '"')
}

// argFormat says how an integer argument is printed: as strace prints the
// argument at that position of that call.
type argFormat uint8

const (
	fmtPlain      argFormat = iota // decimal
	fmtDirfd                       // AT_FDCWD or the fd
	fmtOpenFlags                   // the access mode, then O_ flags: O_WRONLY|O_CREAT|O_TRUNC
	fmtOFlags                      // O_ flags without an access mode (dup3, pipe2): O_CLOEXEC, or 0
	fmtMode                        // permission bits in octal: 0644
	fmtFileMode                    // mknod: the file type and the permission bits: S_IFIFO|0644
	fmtHex                         // a mask in hex (statx's STATX_ mask)
	fmtFcntlCmd                    // F_DUPFD, F_SETFD, …
	fmtFcntlArg                    // by command: FD_CLOEXEC (F_SETFD), open flags (F_SETFL), else decimal
	fmtCloneFlags                  // clone: CLONE_ flags, then the exit signal: CLONE_VM|SIGCHLD
	fmtAccess                      // access modes: F_OK, R_OK|W_OK
	// Flag sets: flagSets[f].
	fmtAtFlags
	fmtUnlinkFlags
	fmtAccessAtFlags
	fmtRenameFlags
	fmtClone3Flags
	fmtSockFlags
	fmtEfdFlags
	fmtInFlags
	fmtTfdFlags
	fmtSfdFlags
	fmtMfdFlags
	fmtEpollFlags
	fmtCloseRangeFlags
	fmtXattrFlags
	fmtSockDomain // AF_UNIX
	fmtSockType   // SOCK_STREAM|SOCK_CLOEXEC
)

// argFormats gives, per call, the format of each argument in the order
// strace prints them (that of the x86_64 system call but for clone, whose
// arguments are formatted by name: namedFormat). Pointers and strings
// print by their kind whatever the format; calls not listed print every
// integer in decimal.
var argFormats = map[string][]argFormat{
	"open":       {fmtPlain, fmtOpenFlags, fmtMode},
	"openat":     {fmtDirfd, fmtPlain, fmtOpenFlags, fmtMode},
	"openat2":    {fmtDirfd, fmtPlain, fmtOpenFlags, fmtPlain},
	"creat":      {fmtPlain, fmtMode},
	"newfstatat": {fmtDirfd, fmtPlain, fmtPlain, fmtAtFlags},
	"statx":      {fmtDirfd, fmtPlain, fmtAtFlags, fmtHex, fmtPlain},
	"access":     {fmtPlain, fmtAccess},
	"faccessat":  {fmtDirfd, fmtPlain, fmtAccess},
	"faccessat2": {fmtDirfd, fmtPlain, fmtAccess, fmtAccessAtFlags},
	"readlinkat": {fmtDirfd},
	"execveat":   {fmtDirfd, fmtPlain, fmtPlain, fmtPlain, fmtAtFlags},
	"mkdir":      {fmtPlain, fmtMode},
	"mkdirat":    {fmtDirfd, fmtPlain, fmtMode},
	"mknod":      {fmtPlain, fmtFileMode},
	"mknodat":    {fmtDirfd, fmtPlain, fmtFileMode},
	"unlinkat":   {fmtDirfd, fmtPlain, fmtUnlinkFlags},
	"renameat":   {fmtDirfd, fmtPlain, fmtDirfd},
	"renameat2":  {fmtDirfd, fmtPlain, fmtDirfd, fmtPlain, fmtRenameFlags},
	"linkat":     {fmtDirfd, fmtPlain, fmtDirfd, fmtPlain, fmtAtFlags},
	"symlinkat":  {fmtPlain, fmtDirfd},
	"chmod":      {fmtPlain, fmtMode},
	"fchmod":     {fmtPlain, fmtMode},
	"fchmodat":   {fmtDirfd, fmtPlain, fmtMode},
	"fchmodat2":  {fmtDirfd, fmtPlain, fmtMode, fmtAtFlags},
	"fchownat":   {fmtDirfd, fmtPlain, fmtPlain, fmtPlain, fmtAtFlags},
	"futimesat":  {fmtDirfd},
	"utimensat":  {fmtDirfd, fmtPlain, fmtPlain, fmtAtFlags},

	"setxattr":      {fmtPlain, fmtPlain, fmtPlain, fmtPlain, fmtXattrFlags},
	"lsetxattr":     {fmtPlain, fmtPlain, fmtPlain, fmtPlain, fmtXattrFlags},
	"fsetxattr":     {fmtPlain, fmtPlain, fmtPlain, fmtPlain, fmtXattrFlags},
	"getxattrat":    {fmtDirfd, fmtPlain, fmtAtFlags},
	"listxattrat":   {fmtDirfd, fmtPlain, fmtAtFlags},
	"setxattrat":    {fmtDirfd, fmtPlain, fmtAtFlags},
	"removexattrat": {fmtDirfd, fmtPlain, fmtAtFlags},

	"clone3":         {fmtClone3Flags},
	"dup3":           {fmtPlain, fmtPlain, fmtOFlags},
	"fcntl":          {fmtPlain, fmtFcntlCmd, fmtFcntlArg},
	"close_range":    {fmtPlain, fmtPlain, fmtCloseRangeFlags},
	"pipe2":          {fmtPlain, fmtOFlags},
	"socket":         {fmtSockDomain, fmtSockType},
	"socketpair":     {fmtSockDomain, fmtSockType},
	"accept4":        {fmtPlain, fmtPlain, fmtPlain, fmtSockFlags},
	"eventfd2":       {fmtPlain, fmtEfdFlags},
	"memfd_create":   {fmtPlain, fmtMfdFlags},
	"epoll_create1":  {fmtEpollFlags},
	"inotify_init1":  {fmtInFlags},
	"timerfd_create": {fmtPlain, fmtTfdFlags},
	"signalfd4":      {fmtPlain, fmtPlain, fmtPlain, fmtSfdFlags},
}

// namedFormat is the format of an argument printed as name=value.
func namedFormat(syscall, name string) argFormat {
	if syscall == "clone" && name == "flags" {
		return fmtCloneFlags
	}
	return fmtPlain
}

// flagName is one name of a flag set, with its value from constantValues.
type flagName struct {
	name  string
	value int64
}

// flagSet names bits in the order strace prints them; a name whose value
// spans several bits (O_SYNC, O_TMPFILE) comes before the names of its
// parts, which it then takes.
type flagSet []flagName

// flags builds a flag set from names of constantValues, the reader's table.
func flags(names ...string) flagSet {
	s := make(flagSet, len(names))
	for i, n := range names {
		v, ok := constantValues[n]
		if !ok {
			panic("strace: no value for " + n)
		}
		s[i] = flagName{n, v}
	}
	return s
}

var (
	openAccess = flags("O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE") // by value
	openFlags  = flags("O_CREAT", "O_EXCL", "O_NOCTTY", "O_TRUNC", "O_APPEND", "O_NONBLOCK",
		"O_SYNC", "O_DSYNC", "O_ASYNC", "O_DIRECT", "O_LARGEFILE", "O_NOFOLLOW", "O_NOATIME",
		"O_CLOEXEC", "O_PATH", "O_TMPFILE", "O_DIRECTORY")
	cloneFlags = flags("CLONE_VM", "CLONE_FS", "CLONE_FILES", "CLONE_SIGHAND", "CLONE_PIDFD",
		"CLONE_PTRACE", "CLONE_VFORK", "CLONE_PARENT", "CLONE_THREAD", "CLONE_NEWNS",
		"CLONE_SYSVSEM", "CLONE_SETTLS", "CLONE_PARENT_SETTID", "CLONE_CHILD_CLEARTID",
		"CLONE_DETACHED", "CLONE_UNTRACED", "CLONE_CHILD_SETTID", "CLONE_NEWCGROUP",
		"CLONE_NEWUTS", "CLONE_NEWIPC", "CLONE_NEWUSER", "CLONE_NEWPID", "CLONE_NEWNET", "CLONE_IO")
	fileTypes = flags("S_IFSOCK", "S_IFLNK", "S_IFREG", "S_IFBLK", "S_IFDIR", "S_IFCHR", "S_IFIFO") // by value
	fcntlCmds = flags("F_DUPFD", "F_GETFD", "F_SETFD", "F_GETFL", "F_SETFL", "F_GETLK", "F_SETLK",
		"F_SETLKW", "F_SETOWN", "F_GETOWN", "F_SETSIG", "F_GETSIG", "F_SETOWN_EX", "F_GETOWN_EX",
		"F_OFD_GETLK", "F_OFD_SETLK", "F_OFD_SETLKW", "F_SETLEASE", "F_GETLEASE", "F_NOTIFY",
		"F_DUPFD_CLOEXEC", "F_SETPIPE_SZ", "F_GETPIPE_SZ", "F_ADD_SEALS", "F_GET_SEALS") // by value
	fdFlags     = flags("FD_CLOEXEC")
	accessModes = flags("R_OK", "W_OK", "X_OK")
	sockDomains = flags("AF_UNSPEC", "AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK", "AF_PACKET") // by value
	sockTypes   = flags("SOCK_STREAM", "SOCK_DGRAM", "SOCK_RAW", "SOCK_RDM", "SOCK_SEQPACKET")    // by value

	// flagSets are the sets of the formats that are one flag set.
	flagSets = map[argFormat]flagSet{
		fmtAtFlags: flags("AT_SYMLINK_NOFOLLOW", "AT_SYMLINK_FOLLOW", "AT_NO_AUTOMOUNT",
			"AT_EMPTY_PATH", "AT_STATX_FORCE_SYNC", "AT_STATX_DONT_SYNC", "AT_RECURSIVE"),
		fmtUnlinkFlags:     flags("AT_REMOVEDIR"),
		fmtAccessAtFlags:   flags("AT_SYMLINK_NOFOLLOW", "AT_EACCESS", "AT_EMPTY_PATH"),
		fmtRenameFlags:     flags("RENAME_NOREPLACE", "RENAME_EXCHANGE", "RENAME_WHITEOUT"),
		fmtClone3Flags:     append(flags("CLONE_NEWTIME"), append(cloneFlags, flags("CLONE_CLEAR_SIGHAND", "CLONE_INTO_CGROUP")...)...),
		fmtSockFlags:       flags("SOCK_CLOEXEC", "SOCK_NONBLOCK"),
		fmtEfdFlags:        flags("EFD_CLOEXEC", "EFD_NONBLOCK", "EFD_SEMAPHORE"),
		fmtInFlags:         flags("IN_CLOEXEC", "IN_NONBLOCK"),
		fmtTfdFlags:        flags("TFD_CLOEXEC", "TFD_NONBLOCK"),
		fmtSfdFlags:        flags("SFD_CLOEXEC", "SFD_NONBLOCK"),
		fmtMfdFlags:        flags("MFD_CLOEXEC", "MFD_ALLOW_SEALING", "MFD_HUGETLB"),
		fmtEpollFlags:      flags("EPOLL_CLOEXEC"),
		fmtCloseRangeFlags: flags("CLOSE_RANGE_UNSHARE", "CLOSE_RANGE_CLOEXEC"),
		fmtXattrFlags:      flags("XATTR_CREATE", "XATTR_REPLACE"),
	}
)

// Values the printing looks at, from the table.
var (
	atFdcwd = constantValues["AT_FDCWD"]
	fGetfd  = constantValues["F_GETFD"]
	fSetfd  = constantValues["F_SETFD"]
	fGetfl  = constantValues["F_GETFL"]
	fSetfl  = constantValues["F_SETFL"]
)

// appendInt prints v, argument of ev, in format f.
func appendInt(b []byte, ev *tracer.Event, v int64, f argFormat) []byte {
	switch f {
	case fmtPlain:
		return strconv.AppendInt(b, v, 10)
	case fmtDirfd:
		if v == atFdcwd {
			return append(b, "AT_FDCWD"...)
		}
		return strconv.AppendInt(b, v, 10)
	case fmtOpenFlags:
		return appendOpenFlags(b, v, true)
	case fmtOFlags:
		return appendOpenFlags(b, v, false)
	case fmtMode:
		return appendMode(b, v)
	case fmtFileMode:
		const typeMask = 0170000
		if name := nameOf(fileTypes, v&typeMask); name != "" && v >= 0 {
			b = append(b, name...)
			b = append(b, '|')
			return appendMode(b, v&^typeMask)
		}
		return appendMode(b, v)
	case fmtHex:
		return appendBare(b, v)
	case fmtFcntlCmd:
		return appendEnum(b, fcntlCmds, v)
	case fmtFcntlArg:
		if len(ev.Args) > 1 && ev.Args[1].Kind == tracer.ArgInt {
			switch ev.Args[1].Int {
			case fSetfd:
				return appendFlags(b, fdFlags, v, "0")
			case fSetfl:
				return appendOpenFlags(b, v, true)
			}
		}
		return strconv.AppendInt(b, v, 10)
	case fmtCloneFlags:
		// The low byte is the exit signal, printed last by name.
		const csignal = 0xff
		if v < 0 {
			return strconv.AppendInt(b, v, 10)
		}
		sig := v & csignal
		if v&^csignal != 0 || sig == 0 {
			b = appendFlags(b, cloneFlags, v&^csignal, "0")
			if sig == 0 {
				return b
			}
			b = append(b, '|')
		}
		if name := SignalName(int(sig)); name != "" {
			return append(b, name...)
		}
		return strconv.AppendInt(b, sig, 10)
	case fmtAccess:
		return appendFlags(b, accessModes, v, "F_OK")
	case fmtSockDomain:
		return appendEnum(b, sockDomains, v)
	case fmtSockType:
		const typeMask = 0xf
		if v < 0 {
			return strconv.AppendInt(b, v, 10)
		}
		b = appendEnum(b, sockTypes, v&typeMask)
		if v&^typeMask != 0 {
			b = append(b, '|')
			b = appendFlags(b, flagSets[fmtSockFlags], v&^typeMask, "0")
		}
		return b
	}
	if s, ok := flagSets[f]; ok {
		return appendFlags(b, s, v, "0")
	}
	return strconv.AppendInt(b, v, 10)
}

// appendOpenFlags prints open flags as strace does: the access mode
// (O_RDONLY is 0), then the flags; without the access mode (dup3, pipe2)
// no flags print as 0.
func appendOpenFlags(b []byte, v int64, access bool) []byte {
	if v < 0 {
		return strconv.AppendInt(b, v, 10)
	}
	if !access {
		return appendFlags(b, openFlags, v, "0")
	}
	const accMode = 3
	b = append(b, nameOf(openAccess, v&accMode)...)
	if v&^accMode != 0 {
		b = append(b, '|')
		b = appendFlags(b, openFlags, v&^accMode, "0")
	}
	return b
}

// appendFlags prints v as the names of s joined by '|', the bits no name
// covers as one hex term after them; zero when v is 0. A value no name
// covers at all prints as a number.
func appendFlags(b []byte, s flagSet, v int64, zero string) []byte {
	if v == 0 {
		return append(b, zero...)
	}
	if v < 0 {
		return strconv.AppendInt(b, v, 10)
	}
	start, rest := len(b), v
	for _, f := range s {
		if f.value != 0 && rest&f.value == f.value {
			if len(b) > start {
				b = append(b, '|')
			}
			b = append(b, f.name...)
			rest &^= f.value
		}
	}
	switch {
	case len(b) == start:
		return appendBare(b, v)
	case rest != 0:
		b = append(b, "|0x"...)
		b = strconv.AppendInt(b, rest, 16)
	}
	return b
}

// appendBare prints a value no name covers: in hex as strace does, unless
// the hex would be long enough to read back as a pointer.
func appendBare(b []byte, v int64) []byte {
	if v <= 0 || v >= 1<<32 {
		return strconv.AppendInt(b, v, 10)
	}
	b = append(b, "0x"...)
	return strconv.AppendInt(b, v, 16)
}

// appendEnum prints the name of the value v in s, or v in decimal.
func appendEnum(b []byte, s flagSet, v int64) []byte {
	if name := nameOf(s, v); name != "" {
		return append(b, name...)
	}
	return strconv.AppendInt(b, v, 10)
}

func nameOf(s flagSet, v int64) string {
	for _, f := range s {
		if f.value == v {
			return f.name
		}
	}
	return ""
}

// appendMode prints permission bits in octal with a leading 0, at least
// three digits, as strace does (0644, 000, 01755).
func appendMode(b []byte, v int64) []byte {
	if v < 0 {
		return strconv.AppendInt(b, v, 10)
	}
	b = append(b, '0')
	if v < 010 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, v, 8)
}

// appendRet prints a successful call's return value; fcntl's F_GETFD and
// F_GETFL results with their flags, as strace does.
func appendRet(b []byte, ev *tracer.Event) []byte {
	if ev.Syscall == "fcntl" && ev.Ret > 0 && ev.Ret < 1<<32 && len(ev.Args) > 1 && ev.Args[1].Kind == tracer.ArgInt {
		switch ev.Args[1].Int {
		case fGetfd:
			b = appendBare(b, ev.Ret)
			b = append(b, " (flags "...)
			b = appendFlags(b, fdFlags, ev.Ret, "0")
			return append(b, ')')
		case fGetfl:
			b = appendBare(b, ev.Ret)
			b = append(b, " (flags "...)
			b = appendOpenFlags(b, ev.Ret, true)
			return append(b, ')')
		}
	}
	return strconv.AppendInt(b, ev.Ret, 10)
}

// appendErrnoText appends " (text)", strace's strerror text for errno,
// when there is one.
func appendErrnoText(b []byte, errno string) []byte {
	text, ok := linux.ErrnoMessage(errno)
	if !ok {
		return b
	}
	b = append(b, " ("...)
	b = append(b, text...)
	return append(b, ')')
}

// Normalize gives an event whose arguments were decoded from the call's
// registers, one per register in the kernel's order (the native tracers),
// the argument list strace prints for the call, so that Writer prints
// strace's form and Reader reads the line back to an equal event, the same
// event it gives for strace's own line. What changes, none of which the
// lowering looks at:
//   - open, openat: no mode unless the flags create (O_CREAT, O_TMPFILE);
//   - mknod, mknodat: no device unless a character or block device;
//   - fcntl: no third argument for the commands without one (F_GETFD,
//     F_GETFL, …); the struct pointer of the lock and owner commands as a
//     pointer;
//   - clone: child_stack=, flags=, then parent_tid=, child_tidptr= and
//     tls= only when the flags use them, every pointer named and a pointer;
//   - a restart errno (ERESTARTSYS…): Ret 0, as Reader gives for "= ?".
//
// Events in strace's form already are left as they are.
func Normalize(ev *tracer.Event) {
	if ev.Kind != tracer.KindSyscall {
		return
	}
	if linux.IsRestart(ev.Errno) {
		ev.Ret = 0
	}
	a := ev.Args
	switch ev.Syscall {
	case "open":
		ev.Args = withoutUnless(a, 1, 2, constantValues["O_CREAT"]|constantValues["__O_TMPFILE"])
	case "openat":
		ev.Args = withoutUnless(a, 2, 3, constantValues["O_CREAT"]|constantValues["__O_TMPFILE"])
	case "mknod":
		ev.Args = withoutUnless(a, 1, 2, 0170000, constantValues["S_IFCHR"], constantValues["S_IFBLK"])
	case "mknodat":
		ev.Args = withoutUnless(a, 2, 3, 0170000, constantValues["S_IFCHR"], constantValues["S_IFBLK"])
	case "fcntl":
		if len(a) != 3 || a[1].Kind != tracer.ArgInt {
			break
		}
		switch nameOf(fcntlCmds, a[1].Int) {
		case "F_GETFD", "F_GETFL", "F_GETOWN", "F_GETSIG", "F_GETLEASE", "F_GETPIPE_SZ", "F_GET_SEALS":
			ev.Args = a[:2]
		case "F_GETLK", "F_SETLK", "F_SETLKW", "F_OFD_GETLK", "F_OFD_SETLK", "F_OFD_SETLKW", "F_GETOWN_EX", "F_SETOWN_EX":
			a[2] = asPointer(a[2])
		}
	case "clone":
		// Raw: flags, stack, parent_tid, child_tid, tls (x86_64).
		if len(a) != 5 || a[0].Name != "flags" || a[0].Kind != tracer.ArgInt {
			break
		}
		fl, stack, ptid, ctid, tls := a[0], asPointer(a[1]), asPointer(a[2]), asPointer(a[3]), asPointer(a[4])
		stack.Name, ptid.Name, ctid.Name, tls.Name = "child_stack", "parent_tid", "child_tidptr", "tls"
		out := append(a[:0], stack, fl)
		if fl.Int&(constantValues["CLONE_PARENT_SETTID"]|constantValues["CLONE_PIDFD"]) != 0 {
			out = append(out, ptid)
		}
		if fl.Int&(constantValues["CLONE_CHILD_SETTID"]|constantValues["CLONE_CHILD_CLEARTID"]) != 0 {
			out = append(out, ctid)
		}
		if fl.Int&constantValues["CLONE_SETTLS"] != 0 {
			out = append(out, tls)
		}
		ev.Args = out
	}
}

// withoutUnless drops the argument at drop, the last of a, unless the
// integer argument at by has, under mask, a value in keep (or, with no
// keep, any bit of mask).
func withoutUnless(a []tracer.Arg, by, drop int, mask int64, keep ...int64) []tracer.Arg {
	if len(a) != drop+1 || a[by].Kind != tracer.ArgInt {
		return a
	}
	v := a[by].Int & mask
	if len(keep) == 0 && v != 0 {
		return a
	}
	for _, k := range keep {
		if v == k {
			return a
		}
	}
	return a[:drop]
}

// asPointer turns an integer argument that is an address into a pointer.
func asPointer(a tracer.Arg) tracer.Arg {
	if a.Kind != tracer.ArgInt {
		return a
	}
	if a.Int == 0 {
		return tracer.Arg{Kind: tracer.ArgNull, Name: a.Name}
	}
	return tracer.Arg{Kind: tracer.ArgPtr, Int: a.Int, Name: a.Name}
}
