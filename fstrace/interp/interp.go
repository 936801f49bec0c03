package interp

// How the interpreter is laid out:
//
//	interp.go     statements: model changes, accesses, blocks; Result
//	procs.go      processes: fd tables and cwds shared or copied, attribution to blocks
//	model.go      inodes, directory entries, path resolution (symlinks, "..")
//	dirindex.go   the (directory, name) → entry index used by resolution
//	pathcache.go  resolutions of absolute path strings, for the hot path
//	paths.go      interned path strings and each path's accesses per block

import (
	"maps"
	"runtime"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/fstrace"
)

// Options are the interpreter's knobs. The zero value is usable.
type Options struct {
	// MaxSymlinkDepth bounds the symlinks followed in one resolution, like
	// Linux's ELOOP limit. Zero means 40.
	MaxSymlinkDepth int
	// Links are symbolic links the node had before the trace began, by
	// absolute path, with their targets: the model has them from the
	// start, so that a path through one (/var/run/x) and the path it
	// names (/run/x) are one file. A path that is not absolute and clean
	// is left out.
	Links map[string]string
}

// Interp runs FStrace statements over the model. It is not safe for
// concurrent use; feed it statements in trace order.
type Interp struct {
	m     fsModel
	procs map[int32]*process
	// exitedEarly holds provisional pids that exited before any NewProc
	// created them, with the group that holds their accesses.
	exitedEarly map[int32]*heldGroup
	// heldGroups are the groups made so far (held.go), charged at the
	// latest when the trace ends.
	heldGroups []*heldGroup
	// waitingProcs are the processes whose statements wait for their
	// creation (waiting.go), oldest first.
	waitingProcs []*process
	// lastPid/lastProc cache the last process looked up: statements come in
	// runs from one pid.
	lastPid  int32
	lastProc *process
	sawRoot  bool

	blocks   []string
	blockIDs map[string]BlockID
	attr     fstrace.Attribution // the open block, and the block a process acts for
	failures []BlockFailure

	cur     BlockID  // the block the current statement acts for
	curProc *process // the process of the current statement
	// pending are the reads init made since it last started a process
	// (initRead): the child takes them, and they become its unit's when
	// it joins one (systemd reads a unit's EnvironmentFile= just before
	// it forks). Only init and the children it just started have any.
	pending map[*process][]pendingRead

	cache pathCache
	miss  missCache
	// noMissCache turns the cache of failed lookups off (tests compare).
	noMissCache bool

	stats    Stats
	warnings Warnings
}

// New returns an interpreter with an empty model: only "/" is known.
func New(opts Options) *Interp {
	if opts.MaxSymlinkDepth <= 0 {
		opts.MaxSymlinkDepth = 40
	}
	in := &Interp{
		m:           newFSModel(opts.MaxSymlinkDepth),
		cache:       newPathCache(),
		procs:       make(map[int32]*process),
		exitedEarly: make(map[int32]*heldGroup),
		pending:     make(map[*process][]pendingRead),
		blockIDs:    make(map[string]BlockID),
	}
	for _, path := range slices.Sorted(maps.Keys(opts.Links)) {
		in.m.seedLink(path, opts.Links[path])
	}
	return in
}

// Run interprets a batch of statements.
func (in *Interp) Run(stmts []fstrace.Statement) {
	for i := range stmts {
		in.Step(&stmts[i])
	}
}

// Step interprets one statement.
func (in *Interp) Step(st *fstrace.Statement) {
	in.stats.Statements++
	if len(in.waitingProcs) > 0 {
		in.stopWaiting(false)
	}
	in.step(st)
}

// step interprets st, or keeps it until its process's creation is seen
// (waiting.go).
func (in *Interp) step(st *fstrace.Statement) {
	switch st.Op {
	case fstrace.OpNop:
		return
	case fstrace.OpExit:
		if p := in.procs[st.Pid]; p != nil && in.waits(p, st) {
			return
		}
		in.forgetProc(st.Pid) // an unknown pid exiting is not worth creating
		return
	}
	p := in.lookupProc(st.Pid)
	if in.waits(p, st) {
		return
	}
	in.cur, in.curProc = in.block(p), p
	switch st.Op {
	case fstrace.OpNewFd:
		in.newFd(p, st)
	case fstrace.OpDelFd:
		in.delFd(p, st)
	case fstrace.OpDupFd:
		in.dupFd(p, st)
	case fstrace.OpHpath:
		in.hpath(p, st, true)
	case fstrace.OpHpathSym:
		in.hpath(p, st, false)
	case fstrace.OpLink:
		in.link(p, st)
	case fstrace.OpSymlink:
		in.symlink(p, st)
	case fstrace.OpRename:
		in.rename(p, st)
	case fstrace.OpBind:
		in.bind(p, st)
	case fstrace.OpNewProc:
		in.newProc(p, st)
	case fstrace.OpSetCwd:
		in.setCwd(p, st)
	case fstrace.OpExec:
		in.exec(p)
	case fstrace.OpBegin:
		in.begin(p, st.Block)
	case fstrace.OpEnd:
		in.end(st.Block)
	case fstrace.OpFail:
		in.fail(st)
	case fstrace.OpWritePid:
		in.writePid(p, st)
	}
}

// startOf returns the directory a relative path starts from (the cwd or
// the dirfd's inode; "/" for an absolute path). Failures are counted and
// reported as !ok.
func (in *Interp) startOf(p *process, dir int32, path string) (inodeID, bool) {
	if p.fs.rooted && path != "" {
		// After a chroot the model cannot say where a name leads: the
		// model has one root, and the cwd may lie outside the new one.
		in.stats.UnresolvedPaths++
		return noInode, false
	}
	if len(path) > 0 && path[0] == '/' {
		return rootInode, true
	}
	if dir == fstrace.AtFdcwd {
		return p.fs.cwd, true
	}
	start := in.fd(p.files, dir)
	switch start {
	case noInode, unknownInode:
		in.stats.UnknownFds++
		in.stats.UnresolvedPaths++
		return noInode, false
	case anonInode:
		// fstat on a pipe or socket has no path: not a failure.
		if path != "" {
			in.stats.UnresolvedPaths++
		}
		return noInode, false
	}
	return start, true
}

// resolve resolves dir/path for process p. Path "" names dir's own inode
// (AT_EMPTY_PATH, fchmod). Failures are counted and reported as !ok.
func (in *Interp) resolve(p *process, dir int32, path string, follow bool) (location, bool) {
	start, ok := in.startOf(p, dir, path)
	if !ok {
		return location{}, false
	}
	if len(path) == 0 {
		return in.m.locOf(start), true
	}
	absolute := path[0] == '/'
	if absolute {
		if loc, handled, ok := in.resolveProc(p, path, follow); handled {
			return loc, ok
		}
		if loc, ok := in.cache.lookup(&in.m, path); ok {
			return loc, true
		}
	}
	links := 0
	loc, status := in.m.resolve(start, path, follow, &links)
	switch status {
	case resolveOK:
		if absolute && loc.exists() && !in.m.finalLink {
			in.cache.store(&in.m, path, loc)
		}
		return loc, true
	case resolveLoop:
		in.stats.SymlinkLoops++
	}
	in.stats.UnresolvedPaths++
	return location{}, false
}

// ensure adds a missing final name to the model as a file that existed
// before the trace started.
func (in *Interp) ensure(l location) location {
	if !l.exists() {
		l.entry = in.m.addEntry(l.dir, l.name, in.m.newInode(false))
		l.ino = in.m.entries[l.entry].ino
	}
	return l
}

// record charges effect eff on l to the current block.
func (in *Interp) record(l location, isDir bool, eff fstrace.Effect, st *fstrace.Statement) {
	if in.holds() {
		in.hold(in.m.locPath(l), isDir, eff, st, false)
		return
	}
	if in.cur == NoBlock {
		if p := in.curProc; p != nil && p.init {
			switch {
			case eff == fstrace.Consumed && st.Flags&fstrace.Probe == 0:
				in.initRead(p, in.m.locPath(l), isDir, st)
			case eff == fstrace.Produced:
				// systemd writes its own state (the unit's cgroup,
				// its invocation id) just before it reads what the
				// unit's start needs: what it read before that was
				// for something else.
				if reads, ok := in.pending[p]; ok {
					in.pending[p] = reads[:0]
				}
			}
		}
		return
	}
	var script uint16
	var prog uint32
	if p := in.curProc; p != nil {
		script, prog = p.script, p.prog
	}
	in.m.paths.record(in.m.locPath(l), isDir, in.cur, eff, st, script, prog)
}

// recordParent charges Consumed on the directory holding l: creating a
// name reads (and depends on) its directory, and is marked EntryMade.
func (in *Interp) recordParent(l location, st *fstrace.Statement) {
	if in.holds() {
		in.hold(in.m.dirPath(l.dir), true, fstrace.Consumed, st, true)
		return
	}
	if in.cur == NoBlock {
		return
	}
	if a := in.m.paths.record(in.m.dirPath(l.dir), true, in.cur, fstrace.Consumed, st, 0, in.curProg()); a != nil {
		a.EntryMade = true
	}
}

// detached reports whether l names an inode through a name that was
// removed (an open unlinked file, a deleted cwd): such a location cannot
// be the target of a new name.
func (in *Interp) detached(l location) bool {
	return l.exists() && l.entry != rootEntry && !in.m.entries[l.entry].linked
}

func (in *Interp) isDir(l location) bool {
	return l.exists() && in.m.inodes[l.ino].isDir
}

func (in *Interp) newFd(p *process, st *fstrace.Statement) {
	cloexec := st.Flags&fstrace.FdCloexec != 0
	if st.Flags&fstrace.FdAnon != 0 {
		in.setFd(p.files, st.Fd, anonInode, cloexec)
		return
	}
	l, ok := in.resolve(p, st.Dir, st.Path, true)
	if !ok {
		// Keep the fd table honest: the fd is open, to something unknown.
		in.setFd(p.files, st.Fd, unknownInode, cloexec)
		return
	}
	l = in.ensure(l)
	in.setFd(p.files, st.Fd, l.ino, cloexec)
}

func (in *Interp) delFd(p *process, st *fstrace.Statement) {
	last := max(st.Fd2, st.Fd)
	if last >= int32(len(p.files.fds)) {
		last = int32(len(p.files.fds)) - 1
	}
	for fd := max(st.Fd, 0); fd <= last; fd++ {
		if st.Flags&fstrace.FdCloexec != 0 {
			p.files.fds[fd].cloexec = p.files.fds[fd].ino != noInode
		} else {
			in.closeFd(p.files, fd)
		}
	}
}

func (in *Interp) dupFd(p *process, st *fstrace.Statement) {
	if st.Fd == st.Fd2 {
		return
	}
	ino := in.fd(p.files, st.Fd)
	if ino == noInode || ino == unknownInode {
		in.stats.UnknownFds++
		ino = unknownInode
	}
	in.setFd(p.files, st.Fd2, ino, st.Flags&fstrace.FdCloexec != 0)
}

func (in *Interp) hpath(p *process, st *fstrace.Statement, follow bool) {
	if st.Effect == fstrace.Missing {
		in.missing(p, st, follow)
		return
	}
	if st.Flags&fstrace.Roots != 0 {
		in.chroot(p, st)
		return
	}
	var l location
	var ok bool
	if st.Effect == fstrace.Consumed {
		l, ok = in.resolve(p, st.Dir, st.Path, follow)
	} else {
		l, ok = in.resolveChange(p, st.Dir, st.Path, follow, st)
	}
	if !ok {
		return
	}
	if st.Effect == fstrace.Consumed {
		l = in.ensure(l)
	}
	if n := len(st.Path); n > 0 && st.Path[n-1] == '/' && l.exists() {
		in.m.inodes[l.ino].isDir = true // "name/" only resolves to a directory
	}
	switch st.Effect {
	case fstrace.Consumed:
		in.record(l, in.isDir(l), fstrace.Consumed, st)
		if st.Flags&fstrace.Runs != 0 {
			if id := in.scriptOf(in.m.locPath(l)); id != 0 {
				p.script = id
			}
			// The exec's own read is the caller's; what follows is the
			// program's, by the name execve gave it.
			p.prog = programNames.id(st.Path)
		}
	case fstrace.Produced:
		makeDir := st.Flags&fstrace.MakeDir != 0
		if !l.exists() {
			l.entry = in.m.addEntry(l.dir, l.name, in.m.newInode(makeDir))
			l.ino = in.m.entries[l.entry].ino
			in.recordParent(l, st)
		} else if makeDir {
			// mkdir succeeded, so the name was gone in reality even if
			// the model still had it (removed outside the trace).
			in.m.inodes[l.ino].isDir = true
			in.recordParent(l, st)
		}
		in.record(l, in.isDir(l), fstrace.Produced, st)
	case fstrace.Expunged:
		in.record(l, in.isDir(l), fstrace.Expunged, st)
		if l.exists() {
			in.m.unlinkEntry(l.entry)
		}
	}
}

// missing records a failed lookup: the current block looked Dir/Path up
// and it was not there. Nothing in the model changes, so that later calls
// resolve as if the lookup had not happened: the walk only reads the
// model, and the path is named by the model's path of the deepest
// directory that exists there, followed lexically by the rest (see
// fsModel.lookupPath). Outside blocks there is nothing to record, and
// nothing is resolved.
func (in *Interp) missing(p *process, st *fstrace.Statement, follow bool) {
	// Outside blocks a process first seen without its creation is held,
	// but its failed lookups are not: the lowering (Attribution's rules)
	// decodes them only inside a block, and the two must agree.
	if in.cur == NoBlock || st.Path == "" {
		return
	}
	start, ok := in.startOf(p, st.Dir, st.Path)
	if !ok {
		return
	}
	absolute := st.Path[0] == '/'
	id, cached := pathID(0), false
	if absolute && !in.noMissCache {
		id, cached = in.miss.lookup(&in.m, st.Path, follow)
	}
	if !cached {
		links := 0
		var status resolveStatus
		id, status = in.m.lookupPath(start, st.Path, follow, &links)
		if status != resolveOK {
			if status == resolveLoop {
				in.stats.SymlinkLoops++
			}
			in.stats.UnresolvedPaths++
			return
		}
		if absolute {
			in.miss.store(&in.m, st.Path, follow, id)
		}
	}
	in.stats.MissingLookups++
	if in.holds() {
		in.hold(id, false, fstrace.Missing, st, false)
		return
	}
	in.m.paths.record(id, false, in.cur, fstrace.Missing, st, 0, in.curProg())
}

func (in *Interp) link(p *process, st *fstrace.Statement) {
	old, ok := in.resolveChange(p, st.Dir, st.Path, false, st)
	if !ok {
		return
	}
	old = in.ensure(old)
	nu, ok := in.resolveChange(p, st.Dir2, st.Path2, false, st)
	if !ok {
		return
	}
	if nu.entry == rootEntry || in.detached(nu) || in.isDir(old) {
		// Link onto "/" or a removed name, or of a directory: the kernel
		// refuses, so the model is wrong about the call that succeeded.
		in.stats.UnresolvedPaths++
		in.unplaced(st)
		return
	}
	if nu.exists() && nu.ino == old.ino {
		return
	}
	in.record(old, in.isDir(old), fstrace.Consumed, st)
	in.recordParent(nu, st)
	in.record(nu, in.isDir(old), fstrace.Produced, st)
	if nu.exists() {
		in.m.unlinkEntry(nu.entry)
	}
	in.m.addEntry(nu.dir, nu.name, old.ino)
}

func (in *Interp) symlink(p *process, st *fstrace.Statement) {
	l, ok := in.resolveChange(p, st.Dir2, st.Path2, false, st)
	if !ok {
		return
	}
	if l.entry == rootEntry || in.detached(l) {
		in.stats.UnresolvedPaths++ // symlink at "/" or at a removed name: the kernel refuses
		in.unplaced(st)
		return
	}
	in.recordParent(l, st)
	in.record(l, false, fstrace.Produced, st)
	if l.exists() {
		in.m.unlinkEntry(l.entry)
	}
	ino := in.m.newInode(false)
	in.m.inodes[ino].isLink = true
	in.m.inodes[ino].target = strings.Clone(st.Path)
	in.m.addEntry(l.dir, l.name, ino)
}

func (in *Interp) rename(p *process, st *fstrace.Statement) {
	old, ok := in.resolveChange(p, st.Dir, st.Path, false, st)
	if !ok {
		return
	}
	old = in.ensure(old)
	nu, ok := in.resolveChange(p, st.Dir2, st.Path2, false, st)
	if !ok {
		return
	}
	if old.entry == rootEntry || nu.entry == rootEntry || in.detached(old) || in.detached(nu) {
		// "/" or a removed name (the "." of a deleted cwd): the kernel refuses.
		in.stats.UnresolvedPaths++
		in.unplaced(st)
		return
	}
	if nu.exists() && nu.ino == old.ino {
		return // two names of one inode: rename does nothing
	}
	movesDir := in.isDir(old)
	exchange := st.Flags&fstrace.RenameExchange != 0
	if in.m.isAncestor(old.ino, nu.dir) || (exchange && nu.exists() && in.m.isAncestor(nu.ino, old.dir)) {
		// A directory moved into itself: the kernel refuses (EINVAL).
		in.stats.UnresolvedPaths++
		in.unplaced(st)
		return
	}

	if exchange {
		nu = in.ensure(nu)
		in.record(old, in.isDir(nu), fstrace.Produced, st)
		in.recordParent(nu, st)
		in.record(nu, movesDir, fstrace.Produced, st)
		a, b := &in.m.entries[old.entry], &in.m.entries[nu.entry]
		a.ino, b.ino = b.ino, a.ino
		in.m.setPrimary(a.ino, old.entry)
		in.m.setPrimary(b.ino, nu.entry)
		in.m.structGen++
		if movesDir || in.isDir(nu) {
			in.m.pathGen++
		}
		return
	}

	in.record(old, movesDir, fstrace.Expunged, st)
	in.recordParent(nu, st)
	in.record(nu, movesDir, fstrace.Produced, st)
	if nu.exists() {
		in.m.unlinkEntry(nu.entry)
	}
	e := in.m.addEntry(nu.dir, nu.name, old.ino)
	in.m.setPrimary(old.ino, e)
	in.m.unlinkEntry(old.entry)
	if movesDir {
		in.m.pathGen++
		in.m.structGen++
	}
}

// chroot changes p's root (Hpath with Roots). The model has one root, so
// a process whose root is another directory resolves no name from then on
// (startOf); chroot("/") changes nothing, nor does a chroot into a
// directory where p bind-mounted "/" (bind): systemd sandboxes a unit so
// (ProtectSystem=, PrivateTmp=…: chdir into the bind, chroot(".")), and
// the daemon's names are then the host's. A cwd that was that directory
// becomes "/". What the call reads is the directory, as for any consumed
// path.
func (in *Interp) chroot(p *process, st *fstrace.Statement) {
	l, ok := in.resolve(p, st.Dir, st.Path, true)
	switch {
	case ok && l.ino == rootInode:
	case ok && l.exists() && slices.Contains(p.fs.rootBinds, l.ino):
		if p.fs.cwd == l.ino {
			p.fs.cwd = rootInode
		}
		in.stats.RootBinds++
		return
	default:
		p.fs.rooted = true
	}
	if ok {
		l = in.ensure(l)
		in.record(l, true, fstrace.Consumed, st)
	}
}

// bind is a bind mount (Bind): of "/" at an existing directory, it makes
// that directory an alias of the root for p's chroot. Other binds (a
// unit's private /tmp) are not followed: the names under their target
// stay the target's.
func (in *Interp) bind(p *process, st *fstrace.Statement) {
	src, ok := in.resolve(p, st.Dir, st.Path, true)
	if !ok || src.ino != rootInode {
		return
	}
	dst, ok := in.resolve(p, st.Dir2, st.Path2, true)
	if !ok || !dst.exists() || dst.ino == rootInode || slices.Contains(p.fs.rootBinds, dst.ino) {
		return
	}
	p.fs.rootBinds = append(p.fs.rootBinds, dst.ino)
}

func (in *Interp) setCwd(p *process, st *fstrace.Statement) {
	l, ok := in.resolve(p, st.Dir, st.Path, true)
	if !ok {
		return
	}
	if !l.exists() {
		l.entry = in.m.addEntry(l.dir, l.name, in.m.newInode(true))
		l.ino = in.m.entries[l.entry].ino
	}
	in.m.inodes[l.ino].isDir = true
	p.fs.cwd = l.ino
	p.fs.cwdSet = true
}

// begin opens block name; p wrote the marker, so p (and its threads) act
// for whatever block is open from now on.
func (in *Interp) begin(p *process, name string) {
	if p.held != nil {
		// Puppet itself, first seen without its creation (a tracer
		// attached to a process already running, or another process's
		// call first in the trace): it acts for the open block.
		in.charge(p.held, nil)
	}
	if in.attr.Begin(p.acts, in.blockID(name)) {
		in.warnings.ImplicitEnds++
	}
}

// blockID returns the id of block name, creating it if needed.
func (in *Interp) blockID(name string) BlockID {
	id, ok := in.blockIDs[name]
	if !ok {
		id = BlockID(len(in.blocks))
		name = strings.Clone(name)
		in.blocks = append(in.blocks, name)
		in.blockIDs[name] = id
	}
	return id
}

// fail records that the program reported block st.Block as failed, with
// message st.Path; only a block's first report is kept. The block need not
// be open: Puppet logs some failures (a refresh that failed) after the
// resource's End, and a block that never began gets an id here.
func (in *Interp) fail(st *fstrace.Statement) {
	id := in.blockID(st.Block)
	for i := range in.failures {
		if in.failures[i].Block == id {
			return
		}
	}
	in.failures = append(in.failures, BlockFailure{
		Block:   id,
		Message: strings.Clone(st.Path),
		By:      NewEvidence(st.Syscall, st.Line),
	})
}

// end closes block name when it is the open one.
func (in *Interp) end(name string) {
	id, ok := in.blockIDs[name]
	if !ok || !in.attr.End(id) {
		in.stats.UnmatchedEnds++
	}
}

// Result returns every path some block accessed, sorted by path, with the
// accesses in block order. Call it once, after the last statement.
//
// With more than one core, the two halves of the path table are listed and
// sorted side by side and then merged: Result is the last step of an
// analysis that nothing else overlaps (6 ms of a 230 ms analysis of 12k
// paths on two cores, half of it sorting).
func (in *Interp) Result() *Result {
	in.stopWaiting(true)
	in.chargeAllHeld()
	res := &Result{Blocks: in.blocks, Failures: in.failures}
	t := &in.m.paths
	n := len(t.nodes)
	if runtime.GOMAXPROCS(0) < 2 || n < minParallelResult {
		res.Paths = t.accessed(0, n)
	} else {
		var first []PathAccesses
		done := make(chan struct{})
		go func() {
			defer close(done)
			first = t.accessed(0, n/2)
		}()
		second := t.accessed(n/2, n)
		<-done
		res.Paths = mergeByPath(first, second)
	}
	res.Stats = in.stats
	res.Stats.Blocks = int64(len(in.blocks))
	if in.attr.Open() != NoBlock {
		res.Stats.UnclosedBlocks = 1
	}
	res.Stats.DistinctPaths = int64(len(res.Paths))
	res.Stats.FailedBlocks = int64(len(in.failures))
	return res
}

// minParallelResult is the least number of paths for which Result lists the
// two halves of the table on two goroutines.
const minParallelResult = 4096

// accessed returns the paths of nodes lo to hi-1 that some block accessed,
// sorted by path, with their accesses in block order. It only reads t.
func (t *pathTable) accessed(lo, hi int) []PathAccesses {
	var paths []PathAccesses
	strs := make([]string, len(t.nodes))
	for id := lo; id < hi; id++ {
		n := &t.nodes[id]
		if len(n.accesses) == 0 {
			continue
		}
		acc := slices.Clone(n.accesses)
		slices.SortStableFunc(acc, func(a, b Access) int { return int(a.Block) - int(b.Block) })
		paths = append(paths, PathAccesses{Path: t.pathString(pathID(id), strs), IsDir: n.isDir, Accesses: acc})
	}
	slices.SortFunc(paths, func(a, b PathAccesses) int { return strings.Compare(a.Path, b.Path) })
	return paths
}

// mergeByPath merges two lists sorted by path.
func mergeByPath(a, b []PathAccesses) []PathAccesses {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := make([]PathAccesses, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if strings.Compare(b[0].Path, a[0].Path) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// curProg is the program of the current process (0 when none).
func (in *Interp) curProg() uint32 {
	if p := in.curProc; p != nil {
		return p.prog
	}
	return 0
}
