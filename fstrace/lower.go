package fstrace

// Lowering: tracer events → FStrace statements.
//
// The table in syscalls.go says, for each system call, which arguments are
// the dirfd, the path, the flags …, and which form of statements it lowers
// to. The forms are below (type form). Every statement carries the pid, the
// syscall name and the event's source line as evidence.
//
// Contract between the lowering and the interpreter (fstrace/interp). For
// each Op: which fields the lowering fills, and which effects the
// interpreter records. "Records E on p" means the access (E, current block)
// is added to the absolute path p. Dir/Dir2 are dirfds (AtFdcwd: the cwd);
// a Path "" means the fd Dir itself (AT_EMPTY_PATH, fchmod, getdents64).
//
//   - OpHpath, OpHpathSym (Dir, Path, Effect, Flags MakeDir): record Effect
//     on the resolved path. Hpath follows a final symlink, HpathSym does
//     not. Expunged also removes the name from the model. When the statement
//     creates an entry (Produced on a name that did not exist, or MakeDir),
//     the interpreter also records Consumed on the parent directory, and
//     with MakeDir it marks the path a directory.
//     With Effect Missing (a failed lookup, see lowerMissing) the interpreter
//     changes nothing in the model: it records Missing on the path the
//     lookup named, for the current block, and only inside a block.
//     For open the lowering emits the Hpath first, then the NewFd, so that
//     the Hpath creates the inode that the NewFd then points to.
//   - OpNewFd (Dir, Path, Fd, Flags FdCloexec|FdAnon): records nothing
//     itself; Fd now refers to the inode at Dir/Path, following a final
//     symlink (a successful O_NOFOLLOW open met no symlink, except with
//     O_PATH, which opens the link itself: that rare case is not modelled).
//     With FdAnon, Fd refers to an object with no path (pipe, socket,
//     O_TMPFILE): Dir and Path are unused. An existing Fd is replaced.
//   - OpDelFd (Fd, Fd2, Flags FdCloexec): closes every fd in Fd..Fd2
//     (Fd2 == Fd for close); with FdCloexec marks them close-on-exec
//     instead. Records nothing.
//   - OpDupFd (Fd, Fd2, Flags FdCloexec): Fd2 refers to what Fd refers to
//     (an open Fd2 is closed first). Records nothing.
//   - OpLink (Dir, Path, Dir2, Path2): hard link; the interpreter records
//     Consumed on the old path and Produced on the new one (and Consumed on
//     the new one's parent). The old path is not followed (link(2)).
//   - OpSymlink (Path = target text, Dir2, Path2): creates the symlink
//     Dir2/Path2; the interpreter records Produced on it (and Consumed on its
//     parent). Dir is unused (zero); the target is not resolved here.
//   - OpBind (Dir, Path, Dir2, Path2): a bind mount of Path at Path2.
//     The interpreter follows a bind of the root only (a chroot into
//     Path2 then keeps the root); it records no access.
//   - OpRename (Dir, Path, Dir2, Path2, Flags RenameExchange): the lowering
//     emits Rename only. The interpreter records Expunged on the old path and
//     Produced on the new one (and Consumed on the new one's parent), and
//     moves the inode (a directory keeps its children). With RenameExchange
//     both names stay and swap inodes: Produced on both.
//   - OpNewProc (Child, Flags ShareFiles|ShareFS|ShareThread): Pid creates
//     Child; fd table and cwd are shared when the flag says so, else copied.
//     Records nothing.
//   - OpSetCwd (Dir, Path): the cwd of Pid becomes Dir/Path (chdir), or the
//     fd Dir (fchdir: Path "."), or the absolute Path learned from getcwd.
//     Records nothing.
//   - OpExec: Pid runs a new program: its FdCloexec fds close. The lowering
//     emits a Hpath(program, Consumed) just before it. Records nothing.
//   - OpExit: Pid is gone (its pid may be reused). Records nothing.
//   - OpBegin, OpEnd (Block): the block named Block starts or ends; Pid
//     wrote the marker. Records nothing.
//   - OpFail (Block, Path = the message): the program reported the block
//     named Block as failed, whether or not it is open (Puppet logs some
//     failures after the resource's End). The interpreter keeps the first
//     message of each block (Result.Failures).
//   - OpWritePid (Fd, Child): Pid wrote the decimal number Child (0: the
//     writer) to Fd. When Fd is a cgroup's cgroup.procs or tasks file of a
//     systemd unit, process Child now runs in that unit (interp attributes
//     it by unit). Records nothing.
//   - OpNop: nothing (never emitted by the lowering).
//
// Fields an Op does not use are left zero (Effect is set on Hpath and
// HpathSym only), so that the textual syntax (syntax.go) round-trips every
// lowered statement.
//
// Failed calls lower to nothing (the paper's rule), with one exception: a
// call of a lookup row (syscalls.go) that failed with ENOENT or ENOTDIR
// lowers to a Missing statement (lowerMissing), unless the same lookup was
// lowered since the last statement that could change what it records.
// linux.LooksUp, linux.LookupErrno and Lowerer.NeedsFailedArgs tell readers which failed calls
// those are, so that they decode no other failed call's arguments.

import (
	"math"
	"strings"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
)

// form is a shape of lowering shared by several rows of the table.
type form uint8

const (
	formNone form = iota
	// formPath: Hpath (HpathSym when the row never follows or the
	// noFollowBit is set) of dir/path with the row's effect and stmtFlags.
	// Without a path argument it is the fd dir itself (fchmod, getdents64).
	formPath
	// formOpen: Hpath/HpathSym(dir, path, openEffect(flags)), a second
	// one produced with Keeps when it opens for writing a file it
	// consumes (an in-place change), then
	// NewFd(dir, path, ret). O_NOFOLLOW and O_CREAT|O_EXCL do not follow a
	// final symlink; O_CLOEXEC sets FdCloexec. O_TMPFILE consumes the
	// directory and makes an anonymous fd (the file has no name yet).
	formOpen
	// formExec: Hpath(dir, path, Consumed) of the program, then Exec.
	formExec
	// formRename: Rename(dir, path, dir2, path2) with the row's flagBits.
	formRename
	// formLink: Link(dir, path, dir2, path2).
	formLink
	// formSymlink: Symlink(target = path, dir2, path2).
	formSymlink
	// formNewProc: NewProc(child = ret) with the flagBits of the flags.
	formNewProc
	// formDup: DupFd(fd, ret) with the flagBits of the flags.
	formDup
	// formFcntl: F_DUPFD and F_DUPFD_CLOEXEC → DupFd(fd, ret); F_SETFD with
	// FD_CLOEXEC → DelFd(fd) with FdCloexec; other commands nothing.
	formFcntl
	// formClose: DelFd(fd, fd).
	formClose
	// formCloseRange: DelFd(fd, fd2) with the flagBits of the flags.
	formCloseRange
	// formAnonFd: NewFd(ret) with FdAnon. When the row has an fd argument
	// (signalfd) and it is not -1, the call updated that fd: nothing.
	formAnonFd
	// formAnonFdPair: NewFd with FdAnon for each fd of the fds array.
	formAnonFdPair
	// formSetCwd: SetCwd(dir, path); without a path (fchdir) SetCwd(fd, ".").
	formSetCwd
	// formBind: Bind(dir, path, dir2, path2) when the flags hold MS_BIND
	// and not MS_REMOUNT (a new bind mount); any other mount nothing.
	formBind
	// formGetcwd: SetCwd(AtFdcwd, returned absolute path). A result that is
	// not absolute ("(unreachable)/…") teaches nothing.
	formGetcwd
	// formForeignFd: DelFd(ret, ret). The new fd is another process's
	// (pidfd_getfd), which the model cannot name: it stays unknown, so that
	// a change through it is unplaced (the analysis incomplete), as through
	// an fd received over a socket.
	formForeignFd
	// formMarker: a write. Data that is a decimal pid → WritePid (any fd);
	// on fd 1 or 2, data the BlockMarker recognises → Begin, End or Fail;
	// anything else → nothing.
	formMarker

	formCount // number of forms, for the table test
)

// Stats counts what the lowering saw.
type Stats struct {
	Events        int64 // events lowered (system calls, exits, signals)
	Exits         int64 // process exits
	Failed        int64 // failed calls (Errno set): they lower to nothing, except failed lookups
	FailedLookups int64 // failed calls that lowered to a Missing statement (lowerMissing)
	// IgnoredLookups counts the failed lookups of paths IgnoreMissing
	// names, left out.
	IgnoredLookups int64
	// RepeatedLookups counts the failed lookups left out because the same
	// one was lowered since the last statement that could change what it
	// records (lowerMissing): Ruby probes the same missing paths again and
	// again.
	RepeatedLookups int64
	Unknown         int64 // system calls with no row in the table
	Statements      int64 // statements appended
	// BadArgs counts calls whose arguments did not have the expected kind
	// (a path that is a pointer or was truncated by the tracer, a missing
	// fd). Their path statements are left out; a new fd is still recorded,
	// as anonymous, so that fd numbers stay right.
	BadArgs int64
	// UnknownBySyscall counts the calls with no row, by name.
	UnknownBySyscall map[string]int64
	// CutMarks counts writes to fd 1 or 2 that the tracer cut (strace -s N
	// too small) where the Marker says a block marker may have been
	// (CutMarker); MarkerCutMarks those of them by a process that had
	// written a marker (Puppet): only there a block may be lost.
	CutMarks       int64
	MarkerCutMarks int64
	// ForeignMarks counts the markers (Begin, End or Fail) written by a
	// process other than the marking one (Lowerer.markerGroup), ignored:
	// a resource's command that prints a fake end of its own block and a
	// fake start of another's must not move its work to that other block.
	// ForeignMarkLine is the source position of the first.
	ForeignMarks    int64
	ForeignMarkLine int64
}

// Lowerer turns events into statements. It is not safe for concurrent use.
type Lowerer struct {
	// Marker recognises block markers in writes to fds 1 and 2; nil means
	// no blocks.
	Marker BlockMarker
	Stats  Stats
	// KeepRepeatedLookups lowers every failed lookup, also those that
	// would record nothing new (see lowerMissing): for tests.
	KeepRepeatedLookups bool
	// IgnoreMissing, when set, names absolute paths whose failed lookups are
	// left out: the caller ignores those paths anyway (the detector's
	// filters: Ruby's gem and load path probes, which every block makes),
	// and recording them would cost an access per block and path.
	IgnoreMissing func(path string) bool

	// What the lowering knows of the interpreter's state from the
	// statements it produced so far (see follow): the attribution of
	// processes to blocks, driven as the interpreter drives it, with the
	// lowering's own numbers of the blocks begun and the Acting of each
	// process created or that wrote a Begin (any other acts for the open
	// block); and two counters of the statements that may change what a
	// failed lookup records (epoch: blocks, processes, the model; fdEpoch:
	// also fds and cwds), with the failed lookups lowered since.
	attr      Attribution
	blockNums map[string]Block
	acting    map[int32]*Acting
	epoch     uint64
	fdEpoch   uint64
	lookups   map[lookupKey]lookupSeen

	// markerPids are the processes that wrote a block marker and have not
	// exited: Puppet, until the end of a complete trace.
	markerPids map[int32]bool

	// markerGroup is the one process whose writes may be markers, by the
	// pid of its thread group's leader (a Ruby program may write from any
	// of its threads): the first process that execs the program a
	// ProgramMarker names, or, when none did before the first marker (a
	// trace that begins after the exec, a Marker that names no program),
	// the first process that writes one. The exec comes first because
	// nothing of the traced input can run before the marking program
	// starts, while a program it runs before its first marker (Puppet's
	// external facts) could write a fake one first. 0: not known yet;
	// markerGone: its leader has exited.
	markerGroup int32
	// threadLeader maps each thread created with ShareThread to its group's
	// leader; a pid not in it leads its own group.
	threadLeader map[int32]int32
}

// markerGone is Lowerer.markerGroup once the marking process has exited:
// a later process with its pid (reused) is another.
const markerGone = -1

// lookupKey is a failed lookup as the interpreter sees it.
type lookupKey struct {
	pid  int32
	dir  int32
	op   Op
	path string
}

// lookupSeen is when a failed lookup was last lowered.
type lookupSeen struct{ epoch, fdEpoch uint64 }

// maxLookups bounds Lowerer.lookups; it is emptied when full.
const maxLookups = 1 << 14

// NewLowerer returns a Lowerer that asks m about writes to fds 1 and 2.
func NewLowerer(m BlockMarker) *Lowerer {
	return &Lowerer{Marker: m}
}

// rowIndex finds a row by name without hashing: the rows with a given name
// length and first letter form a short list (at most a few names), compared
// byte by byte. Measured, this halves the dispatch cost of a Go map.
type rowIndex struct {
	byLenFirst [maxNameLen + 1][26][]*syscallRow
}

// maxNameLen bounds the names the index holds; the table's longest name is
// shorter (TestTableWellFormed checks).
const maxNameLen = 24

var rows = buildRowIndex(syscallTable)

func buildRowIndex(table []syscallRow) *rowIndex {
	ix := new(rowIndex)
	for i := range table {
		name := table[i].name
		if len(name) == 0 || len(name) > maxNameLen || name[0] < 'a' || name[0] > 'z' {
			continue // never matches; the table test reports it
		}
		list := &ix.byLenFirst[len(name)][name[0]-'a']
		*list = append(*list, &table[i])
	}
	return ix
}

// lookup returns the row named name, or nil.
func (ix *rowIndex) lookup(name string) *syscallRow {
	if len(name) == 0 || len(name) > maxNameLen || name[0] < 'a' || name[0] > 'z' {
		return nil
	}
	for _, row := range ix.byLenFirst[len(name)][name[0]-'a'] {
		if row.name == name {
			return row
		}
	}
	return nil
}

// Wanted reports whether the table lowers the system call named syscall.
// Readers use it to skip decoding the arguments of every other call.
func Wanted(syscall string) bool {
	return rows.lookup(syscall) != nil
}

// ArgsUsed returns the argument positions (bit i for argument i) that the
// lowering of syscall reads, or 0 when it may read any (a named flags=
// argument, whose position varies). Readers skip decoding the rest: a stat
// buffer or an argv array is never looked at.
func ArgsUsed(syscall string) uint64 {
	row := rows.lookup(syscall)
	if row == nil || row.flagsName != "" {
		return 0
	}
	var mask uint64
	for _, p := range []argPos{row.dir, row.path, row.dir2, row.path2, row.fd, row.fd2, row.fds, row.data, row.flags, row.mode} {
		if p != noArg {
			mask |= 1 << p.index()
		}
	}
	if row.form == formFcntl {
		mask |= 1 << A2.index() // F_SETFD's FD_CLOEXEC argument
	}
	if mask == 0 {
		return 1 << A0.index() // calls without arguments (fork) decode nothing anyway
	}
	return mask
}

// NeedsFailedArgs reports whether the failed call ev (Pid, Syscall and
// Errno set; its arguments not decoded yet) needs its arguments: it is a
// failed lookup (linux.LooksUp, linux.LookupErrno) and its process acts for a block. The
// interpreter records a failed lookup only for the block the process acts
// for, and the lowering follows the same Attribution with the statements
// Lower has produced so far, so a reader that decodes the events Lower is
// fed one by one (the analysis) may ask it: start-up's failed lookups (Ruby
// probing its load path), most of a trace's, are not decoded.
//
// What the lowering cannot see makes it say yes where the interpreter may
// record nothing: init (pid 1) acts for no block in the interpreter, for the
// open one here. What it does not follow, a process's move to a systemd
// unit's cgroup (Attribution.Join: the lowering does not know which file an
// fd is), can make it say no to a lookup the interpreter would give the
// unit: a service that systemd started outside every block.
func (l *Lowerer) NeedsFailedArgs(ev *tracer.Event) bool {
	// Cheapest first: most failed calls are readlinks failing with EINVAL,
	// and most failed lookups happen at start-up, outside blocks.
	if !linux.LookupErrno(ev.Errno) || l.actsFor(int32(ev.Pid)) == NoBlock {
		return false
	}
	row := rows.lookup(ev.Syscall)
	return row != nil && row.lookup
}

// Lower appends the statements of ev to out and returns the extended slice.
// It allocates nothing besides the growth of out. Strings in the statements
// are the event's own strings (never reused by the tracers) or the table's.
func (l *Lowerer) Lower(ev *tracer.Event, out []Statement) []Statement {
	l.Stats.Events++
	n := len(out)
	switch ev.Kind {
	case tracer.KindExit:
		l.Stats.Exits++
		out = append(out, Statement{Op: OpExit, Pid: int32(ev.Pid), Line: ev.Line})
	case tracer.KindSyscall:
		row := rows.lookup(ev.Syscall)
		switch {
		case row == nil:
			l.countUnknown(ev.Syscall)
		case ev.Failed():
			l.Stats.Failed++
			if row.lookup && len(ev.Args) > 0 && linux.LookupErrno(ev.Errno) {
				out = l.lowerMissing(row, ev, out)
			}
		default:
			out = l.lowerRow(row, ev, out)
		}
	}
	if len(out) > n {
		l.follow(out[n:])
		l.Stats.Statements += int64(len(out) - n)
	}
	return out
}

// actsFor returns the block process pid acts for, as the lowering follows
// it. The lowering pins a process only to a block that was open (it drives
// no Join and does not single out init), so while a block is open every
// process acts for one: no map lookup then.
func (l *Lowerer) actsFor(pid int32) Block {
	if open := l.attr.Open(); open != NoBlock {
		return open
	}
	if a, ok := l.acting[pid]; ok {
		return l.attr.For(a)
	}
	return NoBlock
}

// actingOf returns the Acting of process pid, making it dynamic on first
// sight as the interpreter does.
func (l *Lowerer) actingOf(pid int32) *Acting {
	a, ok := l.acting[pid]
	if !ok {
		if l.acting == nil {
			l.acting = make(map[int32]*Acting)
		}
		a = Dynamic()
		l.acting[pid] = a
	}
	return a
}

// blockNum returns the lowering's number of block name, numbering it on
// first sight.
func (l *Lowerer) blockNum(name string) Block {
	n, ok := l.blockNums[name]
	if !ok {
		if l.blockNums == nil {
			l.blockNums = make(map[string]Block)
		}
		n = Block(len(l.blockNums))
		l.blockNums[name] = n
	}
	return n
}

// follow updates what the lowering knows of the interpreter's state (see
// the Lowerer's fields) from the statements it just produced: it drives the
// Attribution with Begin, End, NewProc and Exit as the interpreter does.
// A Consumed or Missing path statement changes nothing a failed lookup
// records (a consumed path missing from the model is added as a plain name,
// which leaves the lexical path of a lookup through it as it was); every
// other statement that touches the model, a block or a process moves the
// epoch, and one that touches fds or a cwd moves fdEpoch.
func (l *Lowerer) follow(stmts []Statement) {
	for i := range stmts {
		s := &stmts[i]
		switch s.Op {
		case OpHpath, OpHpathSym:
			if s.Effect == Consumed || s.Effect == Missing {
				continue
			}
		case OpNewFd, OpDelFd, OpDupFd, OpSetCwd, OpExec:
			l.fdEpoch++
			continue
		case OpFail:
			l.noteMarkerPid(s.Pid)
			continue
		case OpNop:
			continue
		case OpBegin:
			l.noteMarkerPid(s.Pid)
			l.attr.Begin(l.actingOf(s.Pid), l.blockNum(s.Block))
		case OpEnd:
			l.noteMarkerPid(s.Pid)
			if n, ok := l.blockNums[s.Block]; ok {
				l.attr.End(n)
			}
		case OpNewProc:
			if s.Child != s.Pid { // a corrupt trace's self-clone changes nothing (interp)
				parent := l.actingOf(s.Pid)
				l.acting[s.Child] = l.attr.NewProc(parent, s.Flags) // a reused pid's old Acting goes
				l.noteThread(s)
			}
		case OpExit:
			delete(l.acting, s.Pid)
			delete(l.markerPids, s.Pid)
			delete(l.threadLeader, s.Pid)
			if s.Pid == l.markerGroup {
				l.markerGroup = markerGone
			}
		}
		l.epoch++
		l.fdEpoch++
	}
}

func (l *Lowerer) countUnknown(name string) {
	l.Stats.Unknown++
	if l.Stats.UnknownBySyscall == nil {
		l.Stats.UnknownBySyscall = make(map[string]int64)
	}
	if _, ok := l.Stats.UnknownBySyscall[name]; !ok {
		// The name becomes a map key for good: copy it, in case a
		// tracer built it over a buffer it reuses.
		name = strings.Clone(name)
	}
	l.Stats.UnknownBySyscall[name]++
}

// lowering holds what one event's arguments say, decoded by the row.
type lowering struct {
	l   *Lowerer
	row *syscallRow
	ev  *tracer.Event
	bad bool // some argument had the wrong kind
}

// stmt starts a statement of op with the event's evidence.
func (c *lowering) stmt(op Op) Statement {
	return Statement{Op: op, Pid: int32(c.ev.Pid), Syscall: c.row.name, Line: c.ev.Line}
}

// arg returns the argument at p, or nil when the row has no such argument
// or the event printed too few. It points into the event: Args are large
// enough that copying them shows in the profile.
func (c *lowering) arg(p argPos) *tracer.Arg {
	if p == noArg || p.index() >= len(c.ev.Args) {
		return nil
	}
	return &c.ev.Args[p.index()]
}

// fdArg returns an fd or dirfd argument; def when the row has none.
func (c *lowering) fdArg(p argPos, def int32) int32 {
	if p == noArg {
		return def
	}
	a := c.arg(p)
	if a == nil || a.Kind != tracer.ArgInt {
		c.bad = true
		return def
	}
	return clampInt32(a.Int)
}

// intArg returns an integer argument (a mode); ok is false when the row
// has none or the event did not print it as a number.
func (c *lowering) intArg(p argPos) (int64, bool) {
	a := c.arg(p)
	if a == nil || a.Kind != tracer.ArgInt {
		return 0, false
	}
	return a.Int, true
}

// pathArg returns a path argument. A row without the argument yields ""
// (the fd itself), and so does NULL (utimensat). ok is false when the path
// cannot be used: a pointer, a truncated string, a missing argument.
func (c *lowering) pathArg(p argPos) (string, bool) {
	if p == noArg {
		return "", true
	}
	a := c.arg(p)
	switch {
	case a == nil:
	case a.Kind == tracer.ArgStr && !a.Truncated:
		return a.Str, true
	case a.Kind == tracer.ArgNull:
		return "", true
	}
	c.bad = true
	return "", false
}

// flagsArg returns the flags of the call: the named argument if the row has
// one and the event printed it, else the positional one, else the row's
// implied flags. Struct arguments (openat2, clone3) carry their flags= member
// in Int too.
func (c *lowering) flagsArg() int64 {
	if c.row.flagsName != "" {
		for i := range c.ev.Args {
			if c.ev.Args[i].Name == c.row.flagsName {
				return c.ev.Args[i].Int
			}
		}
	}
	if a := c.arg(c.row.flags); a != nil && (a.Kind == tracer.ArgInt || a.Kind == tracer.ArgStruct) {
		return a.Int
	}
	return c.row.openFlags
}

// stmtFlags returns the row's statement flags plus those set by bits of the
// call's flags.
func (c *lowering) stmtFlags(flags int64) uint32 {
	set := c.row.stmtFlags
	for _, fb := range c.row.flagBits {
		if flags&fb.bit != 0 {
			set |= fb.set
		}
	}
	return set
}

// pathOp is Hpath, or HpathSym when the row or the flags say not to follow.
func (c *lowering) pathOp(flags int64) Op {
	if c.row.noFollow || (c.row.noFollowBit != 0 && flags&c.row.noFollowBit != 0) {
		return OpHpathSym
	}
	return OpHpath
}

func clampInt32(v int64) int32 {
	switch {
	case v > math.MaxInt32:
		return math.MaxInt32
	case v < math.MinInt32:
		return math.MinInt32
	}
	return int32(v)
}

// retFd returns the call's result as an fd; ok is false when it is not one.
func (c *lowering) retFd() (int32, bool) {
	if c.ev.Ret < 0 || c.ev.Ret > math.MaxInt32 {
		c.bad = true
		return 0, false
	}
	return int32(c.ev.Ret), true
}

// lowerRow runs the lowering of the row's form. A switch rather than a
// table of functions: through a function value the lowering state would
// escape to the heap, one allocation per event (TestLowerDoesNotAllocate).
func (l *Lowerer) lowerRow(row *syscallRow, ev *tracer.Event, out []Statement) []Statement {
	c := lowering{l: l, row: row, ev: ev}
	switch row.form {
	case formPath:
		out = c.lowerPath(out)
	case formOpen:
		out = c.lowerOpen(out)
	case formExec:
		out = c.lowerExec(out)
	case formRename:
		out = c.lowerTwoNames(out, OpRename)
	case formLink:
		out = c.lowerTwoNames(out, OpLink)
	case formSymlink:
		out = c.lowerSymlink(out)
	case formNewProc:
		out = c.lowerNewProc(out)
	case formDup:
		out = c.lowerDup(out)
	case formFcntl:
		out = c.lowerFcntl(out)
	case formClose:
		out = c.lowerClose(out)
	case formCloseRange:
		out = c.lowerCloseRange(out)
	case formAnonFd:
		out = c.lowerAnonFd(out)
	case formAnonFdPair:
		out = c.lowerAnonFdPair(out)
	case formSetCwd:
		out = c.lowerSetCwd(out)
	case formBind:
		if f := c.flagsArg(); f&msBind != 0 && f&msRemount == 0 {
			out = c.lowerTwoNames(out, OpBind)
		}
	case formGetcwd:
		out = c.lowerGetcwd(out)
	case formMarker:
		out = c.lowerMarker(out)
	case formForeignFd:
		out = c.lowerForeignFd(out)
	}
	if c.bad {
		l.Stats.BadArgs++
	}
	return out
}

// lowerMissing lowers a failed lookup: a call of a lookup row that failed
// with ENOENT or ENOTDIR, whatever the row's form. Hpath (HpathSym when the
// row or its flags do not follow a final symlink, as on success) of
// dir/path with Effect Missing; an open only when openEffect says it would
// consume (a failed create says nothing about a lookup); no NewFd, no Exec,
// no SetCwd. A failed call whose path the tracer did not deliver (an eBPF
// or ptrace capture that skipped it), or whose path is NULL or empty,
// lowers to nothing and is not counted as a bad argument: failed calls
// have no arguments by default.
func (l *Lowerer) lowerMissing(row *syscallRow, ev *tracer.Event, out []Statement) []Statement {
	c := lowering{l: l, row: row, ev: ev}
	dir := c.fdArg(c.row.dir, AtFdcwd)
	path, ok := c.pathArg(c.row.path)
	if !ok || c.bad || path == "" {
		return out
	}
	if path[0] == '/' && l.IgnoreMissing != nil && l.IgnoreMissing(path) {
		l.Stats.IgnoredLookups++
		return out
	}
	flags := c.flagsArg()
	op := c.pathOp(flags)
	if row.form == formOpen {
		if openEffect(flags) != Consumed {
			return out
		}
		if flags&oNofollow != 0 || (flags&(oCreat|oExcl)) == (oCreat|oExcl) {
			op = OpHpathSym
		}
	}
	// The same lookup lowered since the last statement that could change
	// what it records (see follow) would record nothing new: leave it out.
	// An absolute path does not depend on fds or the cwd.
	seen := lookupSeen{epoch: l.epoch, fdEpoch: l.fdEpoch}
	if path[0] == '/' {
		seen.fdEpoch = 0
	}
	key := lookupKey{pid: int32(ev.Pid), dir: dir, op: op, path: path}
	if last, ok := l.lookups[key]; ok && last == seen && !l.KeepRepeatedLookups {
		l.Stats.RepeatedLookups++
		return out
	}
	if l.lookups == nil || len(l.lookups) >= maxLookups {
		l.lookups = make(map[lookupKey]lookupSeen)
	}
	l.lookups[key] = seen
	s := c.stmt(op)
	s.Dir, s.Path, s.Effect = dir, path, Missing
	l.Stats.FailedLookups++
	return append(out, s)
}

func (c *lowering) lowerPath(out []Statement) []Statement {
	dir := c.fdArg(c.row.dir, AtFdcwd)
	path, ok := c.pathArg(c.row.path)
	if !ok || c.bad {
		return out
	}
	flags := c.flagsArg()
	s := c.stmt(c.pathOp(flags))
	s.Dir, s.Path, s.Effect, s.Flags = dir, path, c.row.effect, c.row.stmtFlags
	if c.row.mode != noArg {
		if mode, ok := c.intArg(c.row.mode); ok && mode&0o111 == 0 {
			s.Flags |= NoExec
		}
	}
	return append(out, s)
}

// openEffect decides what an open does to its path (docs/DESIGN.md,
// "Effects of system calls"):
// O_WRONLY or O_RDWR with O_CREAT or O_TRUNC produce; everything else
// consumes. An open for writing without O_CREAT or O_TRUNC (a daemon
// appending to its log with O_WRONLY|O_APPEND) needs the file to exist
// already: it consumes whatever made it, which is how a log recreated under
// a running service becomes a missing notifier; lowerOpen adds that it may
// change the file in place (produced, keeping what was there). A read-only
// open with O_CREAT consumes too: the trace cannot tell whether it created
// the file, and it wrote nothing. O_PATH only looks the path up.
func openEffect(flags int64) Effect {
	if flags&oPath != 0 {
		return Consumed
	}
	if flags&oAccMode != oRdonly && flags&(oCreat|oTrunc) != 0 {
		return Produced
	}
	return Consumed
}

func (c *lowering) lowerOpen(out []Statement) []Statement {
	flags := c.flagsArg()
	fd, fdOK := c.retFd()
	dir := c.fdArg(c.row.dir, AtFdcwd)
	path, pathOK := c.pathArg(c.row.path)
	newFd := c.stmt(OpNewFd)
	newFd.Fd = fd
	newFd.Flags = c.stmtFlags(flags)
	if flags&oCloexec != 0 {
		newFd.Flags |= FdCloexec
	}
	if !pathOK || c.bad || flags&oTmpfile != 0 {
		// No usable name: the fd still exists, as an anonymous one.
		if pathOK && !c.bad {
			// O_TMPFILE: an unnamed file inside the directory.
			h := c.stmt(OpHpath)
			h.Dir, h.Path, h.Effect = dir, path, Consumed
			out = append(out, h)
		}
		if fdOK {
			newFd.Flags |= FdAnon
			out = append(out, newFd)
		}
		return out
	}
	op := OpHpath
	if flags&oNofollow != 0 || (flags&(oCreat|oExcl)) == (oCreat|oExcl) {
		// O_CREAT|O_EXCL fails on an existing symlink, so a successful one
		// did not follow one either.
		op = OpHpathSym
	}
	h := c.stmt(op)
	h.Dir, h.Path, h.Effect = dir, path, openEffect(flags)
	if h.Effect == Produced && flags&oAppend != 0 && flags&oTrunc == 0 {
		h.Flags |= Keeps // appending keeps what was there (a log)
	}
	if flags&oPath != 0 {
		h.Flags |= Probe // O_PATH only looks the path up
	}
	out = append(out, h)
	if h.Effect == Consumed && flags&oAccMode != oRdonly && flags&oPath == 0 {
		// Opened for writing without O_CREAT or O_TRUNC: it needs the
		// file (consumed, above), and may change it in place, by write(2)
		// or through a shared mapping, neither of which the model follows
		// (produced, keeping what was there).
		m := c.stmt(op)
		m.Dir, m.Path, m.Effect, m.Flags = dir, path, Produced, Keeps
		out = append(out, m)
	}
	if fdOK {
		newFd.Dir, newFd.Path = dir, path
		out = append(out, newFd)
	}
	return out
}

func (c *lowering) lowerExec(out []Statement) []Statement {
	dir := c.fdArg(c.row.dir, AtFdcwd)
	path, ok := c.pathArg(c.row.path)
	if ok && !c.bad {
		h := c.stmt(c.pathOp(c.flagsArg()))
		h.Dir, h.Path, h.Effect, h.Flags = dir, path, Consumed, Runs
		out = append(out, h)
		c.noteMarkerExec(path)
	}
	// The exec happened even if its path was unreadable: cloexec fds close.
	return append(out, c.stmt(OpExec))
}

// noteMarkerExec makes the process the marking one (Lowerer.markerGroup)
// when it is the first to exec the program the ProgramMarker names.
func (c *lowering) noteMarkerExec(path string) {
	if c.l.markerGroup != 0 {
		return
	}
	if pm, ok := c.l.Marker.(ProgramMarker); ok && pm.MarkerProgram(path) {
		c.l.markerGroup = c.l.groupOf(int32(c.ev.Pid))
	}
}

func (c *lowering) lowerTwoNames(out []Statement, op Op) []Statement {
	dir := c.fdArg(c.row.dir, AtFdcwd)
	dir2 := c.fdArg(c.row.dir2, AtFdcwd)
	path, ok := c.pathArg(c.row.path)
	path2, ok2 := c.pathArg(c.row.path2)
	if !ok || !ok2 || c.bad {
		return out
	}
	s := c.stmt(op)
	s.Dir, s.Path, s.Dir2, s.Path2 = dir, path, dir2, path2
	s.Flags = c.stmtFlags(c.flagsArg())
	return append(out, s)
}

func (c *lowering) lowerSymlink(out []Statement) []Statement {
	target, ok := c.pathArg(c.row.path)
	dir2 := c.fdArg(c.row.dir2, AtFdcwd)
	path2, ok2 := c.pathArg(c.row.path2)
	if !ok || !ok2 || c.bad {
		return out
	}
	s := c.stmt(OpSymlink)
	s.Path, s.Dir2, s.Path2 = target, dir2, path2
	return append(out, s)
}

func (c *lowering) lowerNewProc(out []Statement) []Statement {
	// The parent sees the child's pid; the child's own return (0) and an
	// unknown result ("?") teach nothing.
	if c.ev.Ret <= 0 || c.ev.Ret > math.MaxInt32 {
		return out
	}
	s := c.stmt(OpNewProc)
	s.Child = int32(c.ev.Ret)
	s.Flags = c.stmtFlags(c.flagsArg())
	return append(out, s)
}

func (c *lowering) lowerDup(out []Statement) []Statement {
	old := c.fdArg(c.row.fd, 0)
	fd2, ok := c.retFd()
	if !ok || c.bad {
		return out
	}
	s := c.stmt(OpDupFd)
	s.Fd, s.Fd2 = old, fd2
	s.Flags = c.stmtFlags(c.flagsArg())
	return append(out, s)
}

func (c *lowering) lowerFcntl(out []Statement) []Statement {
	fd := c.fdArg(c.row.fd, 0)
	if c.bad {
		return out
	}
	switch c.flagsArg() {
	case fDupfd, fDupfdCloexec:
		fd2, ok := c.retFd()
		if !ok {
			return out
		}
		s := c.stmt(OpDupFd)
		s.Fd, s.Fd2 = fd, fd2
		if c.flagsArg() == fDupfdCloexec {
			s.Flags = FdCloexec
		}
		return append(out, s)
	case fSetfd:
		// F_SETFD's argument is the third one. Clearing FD_CLOEXEC cannot
		// be expressed (no statement for it) and is rare: nothing.
		if a := c.arg(A2); a != nil && a.Int&fdCloexecBit != 0 {
			s := c.stmt(OpDelFd)
			s.Fd, s.Fd2, s.Flags = fd, fd, FdCloexec
			return append(out, s)
		}
	}
	return out
}

func (c *lowering) lowerClose(out []Statement) []Statement {
	fd := c.fdArg(c.row.fd, 0)
	if c.bad {
		return out
	}
	s := c.stmt(OpDelFd)
	s.Fd, s.Fd2 = fd, fd
	return append(out, s)
}

func (c *lowering) lowerCloseRange(out []Statement) []Statement {
	first := c.fdArg(c.row.fd, 0)
	// "every fd up" is printed ~0U (an expression the reader keeps as
	// text) or 4294967295 (clamped): both become MaxInt32.
	last := int32(math.MaxInt32)
	if a := c.arg(c.row.fd2); a == nil || a.Kind != tracer.ArgOther || a.Str != "~0U" {
		last = c.fdArg(c.row.fd2, math.MaxInt32)
	}
	if c.bad || last < first {
		return out
	}
	s := c.stmt(OpDelFd)
	s.Fd, s.Fd2 = first, last
	s.Flags = c.stmtFlags(c.flagsArg())
	return append(out, s)
}

func (c *lowering) lowerAnonFd(out []Statement) []Statement {
	if c.row.fd != noArg {
		if a := c.arg(c.row.fd); a != nil && a.Int != -1 {
			return out // signalfd on an existing fd: it only changed the mask
		}
	}
	fd, ok := c.retFd()
	if !ok {
		return out
	}
	s := c.stmt(OpNewFd)
	s.Fd = fd
	s.Flags = c.stmtFlags(c.flagsArg()) | FdAnon
	return append(out, s)
}

func (c *lowering) lowerForeignFd(out []Statement) []Statement {
	fd, ok := c.retFd()
	if !ok {
		return out
	}
	s := c.stmt(OpDelFd)
	s.Fd, s.Fd2 = fd, fd
	return append(out, s)
}

func (c *lowering) lowerAnonFdPair(out []Statement) []Statement {
	a := c.arg(c.row.fds)
	if a == nil || a.Kind != tracer.ArgArray || len(a.Ints) == 0 {
		c.bad = true
		return out
	}
	flags := c.stmtFlags(c.flagsArg()) | FdAnon
	for _, fd := range a.Ints {
		s := c.stmt(OpNewFd)
		s.Fd = clampInt32(fd)
		s.Flags = flags
		out = append(out, s)
	}
	return out
}

func (c *lowering) lowerSetCwd(out []Statement) []Statement {
	dir := c.fdArg(c.row.dir, AtFdcwd)
	path, ok := c.pathArg(c.row.path)
	if !ok || c.bad {
		return out
	}
	if c.row.path == noArg {
		path = "." // fchdir: the directory open on the fd
	}
	s := c.stmt(OpSetCwd)
	s.Dir, s.Path = dir, path
	return append(out, s)
}

func (c *lowering) lowerGetcwd(out []Statement) []Statement {
	path, ok := c.pathArg(c.row.path)
	if !ok || !strings.HasPrefix(path, "/") {
		return out
	}
	s := c.stmt(OpSetCwd)
	s.Dir, s.Path = AtFdcwd, path
	return append(out, s)
}

func (c *lowering) lowerMarker(out []Statement) []Statement {
	fd := c.arg(c.row.fd)
	data := c.arg(c.row.data)
	if fd == nil || data == nil || data.Str == "" {
		return out
	}
	if pid, ok := writtenPid(data.Str); ok {
		s := c.stmt(OpWritePid)
		s.Fd, s.Child = clampInt32(fd.Int), pid
		return append(out, s)
	}
	if c.l.Marker == nil || (fd.Int != 1 && fd.Int != 2) {
		return out
	}
	if data.Truncated {
		if cm, ok := c.l.Marker.(CutMarker); ok && cm.CutMark(data.Str) {
			c.l.Stats.CutMarks++
			// Only a process that writes markers can have lost one: Puppet,
			// once it wrote its first. The commands a resource runs write
			// to fds 1 and 2 too (lscpu's table, tar's archive); a marker
			// cut before Puppet's first, like any lost begin or end, leaves
			// the markers unpaired, which makes the analysis incomplete.
			if c.l.markerPids[int32(c.ev.Pid)] {
				c.l.Stats.MarkerCutMarks++
			}
		}
	}
	for rest := data.Str; rest != ""; {
		var op Op
		var name, msg string
		op, name, msg, rest = c.l.Marker.NextMark(rest)
		if op != OpBegin && op != OpEnd && op != OpFail {
			break
		}
		if !c.l.marksFrom(int32(c.ev.Pid), c.ev.Line) {
			continue
		}
		s := c.stmt(op)
		s.Block = name
		if op == OpFail {
			s.Path = msg
		}
		out = append(out, s)
	}
	return out
}

// noteMarkerPid notes a process that wrote a block marker, until it exits.
func (l *Lowerer) noteMarkerPid(pid int32) {
	if l.markerPids == nil {
		l.markerPids = make(map[int32]bool)
	}
	l.markerPids[pid] = true
}

// noteThread records the thread group of the child of a NewProc: its
// parent's when it is a thread (ShareThread), else its own.
func (l *Lowerer) noteThread(s *Statement) {
	if s.Flags&ShareThread != 0 {
		if l.threadLeader == nil {
			l.threadLeader = make(map[int32]int32)
		}
		l.threadLeader[s.Child] = l.groupOf(s.Pid)
		return
	}
	// A reused pid leads its own group. (That the child has the marking
	// process's pid does not say the marking process is gone: an eBPF
	// trace may show a vfork's return after the child's exec.)
	delete(l.threadLeader, s.Child)
}

// groupOf returns the pid of the leader of process pid's thread group.
func (l *Lowerer) groupOf(pid int32) int32 {
	if leader, ok := l.threadLeader[pid]; ok {
		return leader
	}
	return pid
}

// marksFrom reports whether the markers process pid writes count, choosing
// the marking process on the first marker when no exec chose it
// (markerGroup); a marker from any other process is counted as foreign.
func (l *Lowerer) marksFrom(pid int32, line int64) bool {
	g := l.groupOf(pid)
	if l.markerGroup == 0 {
		l.markerGroup = g
	}
	if g == l.markerGroup {
		return true
	}
	if l.Stats.ForeignMarks == 0 {
		l.Stats.ForeignMarkLine = line
	}
	l.Stats.ForeignMarks++
	return false
}

// RunningMarkerWriters is the number of processes that wrote a block marker
// and had not exited when the input ended. In a complete trace Puppet has
// exited; a trace cut off while Puppet ran leaves it running.
func (l *Lowerer) RunningMarkerWriters() int { return len(l.markerPids) }

// writtenPid reads data as the kernel reads a write to cgroup.procs: a
// decimal pid, optionally followed by a newline. Anything else (a log line,
// "-1", a pid file's longer content) is not a pid.
func writtenPid(data string) (int32, bool) {
	data = strings.TrimSuffix(data, "\n")
	if data == "" || len(data) > 10 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(data); i++ {
		ch := data[i]
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int64(ch-'0')
	}
	if n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}
