package interp

import (
	"slices"
	"strings"

	"github.com/fsmove/fsmove/fstrace"
)

// Processes: fd tables and cwds that clone flags share or copy, and the
// block a process acts for.

// fdSlot is one fd of an fd table.
type fdSlot struct {
	ino     inodeID // noInode when the fd is closed
	cloexec bool
}

// fdTable is shared by the processes created with CLONE_FILES.
type fdTable struct {
	fds   []fdSlot
	users int32
}

// fsInfo is shared by the processes created with CLONE_FS.
type fsInfo struct {
	cwd    inodeID
	cwdSet bool // the process changed its cwd itself (used when a provisional process is adopted)
	// rooted: the process changed its root to another directory (chroot),
	// which the model cannot follow (Interp.chroot).
	rooted bool
	// rootBinds are the directories at which the process (or the one it
	// was forked from) bind-mounted "/" (Interp.bind): a chroot into one
	// keeps the root. Mounts belong to a mount namespace, which the model
	// does not track: a process keeps those it saw made, and a child
	// inherits them, which is what systemd's sandboxing needs (the child
	// it forks for a unit unshares, binds and chroots).
	rootBinds []inodeID
}

// process is one pid. Threads (CLONE_THREAD) share their creator's Acting
// (fstrace.Attribution says which block a process acts for).
type process struct {
	files *fdTable
	fs    *fsInfo
	acts  *fstrace.Acting
	// provisional: created on first sight, not (yet) by a NewProc.
	provisional bool
	// waiting are the statements of a provisional process kept until its
	// creation gives it a cwd (waiting.go), from statement waitFrom of the
	// trace; cwdGuessed: the creation did not come in time, its paths
	// resolve from "/".
	waiting    []waitingStmt
	waitFrom   int64
	cwdGuessed bool
	// held is the group that holds the process's accesses until the
	// creation of its first member is seen (held.go); heldIndex is the
	// process's place in it.
	held      *heldGroup
	heldIndex int32
	// init: the pid namespace's init (systemd). Its reads act for no block,
	// but those it makes for a unit are the unit's (initRead).
	init bool
	// script: the process runs the postinst of a Debian package the
	// block installed (scriptOf), or descends from one; what it
	// makes is that package's (Access.Script, the detector's rule 17).
	// 0 when it does not.
	script uint16
	// prog: the program the process runs, from its last exec in the
	// trace, or its parent's (an index in programNames, for
	// Evidence.Program); init is "PID 1". 0 when unknown.
	prog uint32
}

// pendingRead is a read of init's that may turn out to be for a unit: the
// path and what record needs of the statement (its evidence and flags).
type pendingRead struct {
	id      pathID
	isDir   bool
	flags   uint32
	prog    uint32
	line    int64
	syscall string
}

// maxPending bounds the reads kept for the next process init starts: the
// last ones it made.
const maxPending = 64

func (in *Interp) block(p *process) BlockID { return in.attr.For(p.acts) }

// lookupProc returns the process pid, creating it on first sight: a trace
// started mid-run, or a child whose first statement precedes its parent's
// clone. The first pid of the trace is the root process.
func (in *Interp) lookupProc(pid int32) *process {
	if in.lastProc != nil && in.lastPid == pid {
		return in.lastProc
	}
	p, ok := in.procs[pid]
	if !ok {
		p = &process{
			files: &fdTable{users: 1},
			fs:    &fsInfo{cwd: rootInode},
			acts:  fstrace.Dynamic(),
		}
		if pid == initPid {
			// init (systemd in a container booted with it) acts for no
			// block, and neither do the processes it starts, unless
			// they join a unit's cgroup (writePid). It is traced so that
			// its children, the services, are, and for what it reads on
			// a unit's behalf (initRead). It is not the trace's root.
			p.acts = fstrace.Pinned(NoBlock)
			p.init = true
			p.prog = programNames.id(initProgram)
			in.procs[pid] = p
			in.stats.Processes++
			in.lastPid, in.lastProc = pid, p
			return p
		}
		if in.sawRoot {
			p.provisional = true
			in.stats.UnknownPids++
			if _, early := in.exitedEarly[pid]; !early {
				in.newHeldGroup(p)
			}
		}
		in.sawRoot = true
		in.procs[pid] = p
		in.stats.Processes++
	}
	in.lastPid, in.lastProc = pid, p
	return p
}

func (in *Interp) forgetProc(pid int32) {
	p, ok := in.procs[pid]
	if !ok {
		return
	}
	in.releaseFiles(p.files)
	delete(in.procs, pid)
	delete(in.pending, p)
	if p.provisional {
		// strace may print a short-lived child's whole life before its
		// parent's clone returns: remember it, and what its group holds,
		// for that NewProc.
		in.exitedEarly[pid] = p.held
	}
	if in.lastPid == pid {
		in.lastProc = nil
	}
}

// releaseFiles drops one user of t, closing its fds after the last.
func (in *Interp) releaseFiles(t *fdTable) {
	t.users--
	if t.users > 0 {
		return
	}
	for fd := range t.fds {
		in.closeFd(t, int32(fd))
	}
}

func (in *Interp) copyFiles(t *fdTable) *fdTable {
	c := &fdTable{fds: make([]fdSlot, len(t.fds)), users: 1}
	copy(c.fds, t.fds)
	for _, s := range c.fds {
		if s.ino.hasPath() {
			in.m.inodes[s.ino].opens++
		}
	}
	return c
}

func (in *Interp) fd(t *fdTable, fd int32) inodeID {
	if fd < 0 || int(fd) >= len(t.fds) {
		return noInode
	}
	return t.fds[fd].ino
}

// setFd binds fd to ino, closing what it held before (dup2 onto an open fd).
func (in *Interp) setFd(t *fdTable, fd int32, ino inodeID, cloexec bool) {
	if fd < 0 {
		return
	}
	if int(fd) >= len(t.fds) {
		if fd > maxFd {
			return
		}
		n := max(2*len(t.fds), int(fd)+1, 16)
		grown := make([]fdSlot, n)
		copy(grown, t.fds)
		t.fds = grown
	}
	// Count the new reference before dropping the old one: rebinding an
	// fd to the inode it already holds must not free an unlinked open
	// file in between.
	if ino.hasPath() {
		in.m.inodes[ino].opens++
	}
	in.closeFd(t, fd)
	t.fds[fd] = fdSlot{ino: ino, cloexec: cloexec}
}

// maxFd bounds fd tables against absurd fd numbers in a corrupt trace.
const maxFd = 1 << 20

func (in *Interp) closeFd(t *fdTable, fd int32) {
	if fd < 0 || int(fd) >= len(t.fds) {
		return
	}
	ino := t.fds[fd].ino
	t.fds[fd] = fdSlot{}
	if ino.hasPath() {
		in.m.inodes[ino].opens--
		in.m.maybeFree(ino)
	}
}

// newProc runs NewProc: st.Pid creates st.Child.
func (in *Interp) newProc(parent *process, st *fstrace.Statement) {
	if st.Child == st.Pid {
		// A process cannot be its own child: a corrupt trace. Taken as
		// a clone, it would end the parent's life (pid reuse) or adopt
		// the parent into itself; it changes nothing instead.
		in.warnings.SelfClones++
		return
	}
	child, exists := in.procs[st.Child]
	adopt := exists && child.provisional
	earlyGroup, early := in.exitedEarly[st.Child]
	early = early && !exists
	if early {
		// The child already ran and exited: it was created by this
		// NewProc after all. (Should the pid have been reused instead,
		// the process made here is the right one anyway.)
		delete(in.exitedEarly, st.Child)
		in.stats.UnknownPids--
	}
	if exists && !adopt {
		// pid reuse without an exit in the trace: the old process is gone.
		in.forgetProc(st.Child)
	}

	c := &process{script: parent.script, prog: parent.prog}
	if st.Flags&fstrace.ShareFiles != 0 {
		c.files = parent.files
		c.files.users++
	} else {
		c.files = in.copyFiles(parent.files)
	}
	if st.Flags&fstrace.ShareFS != 0 {
		c.fs = parent.fs
	} else {
		c.fs = &fsInfo{cwd: parent.fs.cwd, rooted: parent.fs.rooted, rootBinds: slices.Clone(parent.fs.rootBinds)}
	}
	c.acts = in.attr.NewProc(parent.acts, st.Flags)

	if adopt {
		// The child ran before its parent's clone returned in the trace:
		// keep what it did itself on top of what it inherited (nothing to
		// merge when the parent already shares the child's table: a
		// thread the provisional child made cloned the child again).
		if child.files != c.files {
			for fd, s := range child.files.fds {
				if s.ino != noInode {
					in.setFd(c.files, int32(fd), s.ino, s.cloexec)
				}
			}
		}
		if child.fs.cwdSet {
			if st.Flags&fstrace.ShareFS != 0 {
				c.fs.cwd = child.fs.cwd
			} else {
				c.fs = child.fs
			}
		}
		in.releaseFiles(child.files)
		in.stats.UnknownPids--
		if child.script != 0 {
			c.script = child.script // it ran a maintainer script itself
		}
		if child.prog != 0 {
			c.prog = child.prog // it ran a program itself
		}
		if !child.acts.IsDynamic() {
			// It already joined a cgroup (a service's unit): tracers that
			// order calls by their end show the child's move before the
			// parent's clone returns. It acts for that unit, not for
			// what its parent acts for.
			c.acts = child.acts
		}
	} else if !early {
		in.stats.Processes++
	}
	// A process made by one whose own creation has not been seen yet acts
	// for what that one will turn out to act for (held.go), unless it
	// joined a unit's cgroup already. What the child did before this
	// clone was held, and is now charged, or held on with its parent's.
	joined := adopt && !child.acts.IsDynamic()
	holding := in.holdsFor(parent) && !joined
	if holding {
		if st.Flags&fstrace.ShareThread == 0 {
			c.acts = fstrace.Dynamic()
		}
		in.joinHeld(parent, c)
	}
	var childGroup *heldGroup
	switch {
	case adopt:
		childGroup = child.held
	case early:
		childGroup = earlyGroup
	}
	if childGroup != nil {
		if holding {
			in.mergeHeld(parent.held, childGroup, c)
		} else {
			in.charge(childGroup, c)
		}
	}
	if parent.init && st.Flags&fstrace.ShareThread == 0 {
		// What init read just before is the unit's the child joins: now,
		// when it has joined already, or when it does (writePid).
		if reads, ok := in.pending[parent]; ok {
			delete(in.pending, parent)
			in.pending[c] = reads
			if b := in.attr.For(c.acts); !c.acts.IsDynamic() && b != NoBlock {
				in.chargePending(c, b)
			}
		}
	}
	in.procs[st.Child] = c
	if in.lastPid == st.Child {
		in.lastProc = nil
	}
	if adopt && len(child.waiting) > 0 {
		in.replayWaiting(child) // now with the cwd c has from its creator
	}
}

// exec closes the close-on-exec fds. A table shared with other processes
// is copied first: the exec'ing process gets its own.
func (in *Interp) exec(p *process) {
	// What init read before it started p stays p's across the exec:
	// systemd 256 and later start a unit's process as
	// systemd-executor, which joins the unit's cgroup only after its
	// exec (writePid charges the reads then); a process that never
	// joins a service's cgroup never charges them.
	if p.files.users > 1 {
		own := in.copyFiles(p.files)
		in.releaseFiles(p.files)
		p.files = own
	}
	t := p.files
	for fd := range t.fds {
		if t.fds[fd].cloexec {
			in.closeFd(t, int32(fd))
		}
	}
}

// initPid is the pid of init in a pid namespace. In a trace of a container
// booted with systemd it is systemd itself: never Puppet, which runs under
// docker exec, and never a traced program's own process outside containers.
const initPid = 1

// initProgram is init's program in evidence: systemd when the container
// boots with it, whose reads for a unit (its EnvironmentFile=) are
// evidence of the unit's Service.
const initProgram = "PID 1"

// writePid runs WritePid: p wrote the number st.Child to the fd st.Fd.
// Writing a pid to a cgroup's cgroup.procs file moves that process (0: the
// writer) into the cgroup, and its later children are born there. When
// the cgroup is a systemd service unit's (…/foo.service/cgroup.procs), the
// process acts for that unit's block (UnitBlock) for the rest of its life,
// whatever its lineage: systemd starts services as its own children, not
// Puppet's. The move is made by the service's own process and by systemd
// for it; either is enough. Other writes of a number (pid files) change
// nothing.
func (in *Interp) writePid(p *process, st *fstrace.Statement) {
	ino := in.fd(p.files, st.Fd)
	if !ino.hasPath() {
		return
	}
	unit, ok := in.m.cgroupUnit(ino)
	if !ok {
		return
	}
	target := p
	if st.Child != 0 && st.Child != st.Pid {
		if target = in.procs[st.Child]; target == nil {
			return // the process moves itself too, and is known by then
		}
	}
	block := NoBlock
	if isServiceName(unit) {
		block = in.blockID(UnitBlock(unit))
	}
	// A cgroup move takes all of a process's threads, which share its
	// Acting.
	if in.attr.Join(target.acts, block) {
		in.stats.UnitMoves++
	}
	in.chargePending(target, block)
}

// chargePending gives the reads p took along from init to block (none when
// it is NoBlock), and forgets them.
func (in *Interp) chargePending(p *process, block BlockID) {
	if block != NoBlock {
		for _, pr := range in.pending[p] {
			st := fstrace.Statement{Syscall: pr.syscall, Line: pr.line, Flags: pr.flags}
			in.m.paths.record(pr.id, pr.isDir, block, fstrace.Consumed, &st, 0, pr.prog)
			in.stats.UnitReads++
		}
	}
	delete(in.pending, p)
}

// initRead takes a read that init made outside every block (in.cur is
// NoBlock; lookups are not reads and never come here): a unit file or a
// drop-in of a service is that unit's (systemd reads them on a reload or a
// start, on the unit's behalf); another file is kept for the next process
// init starts (see Interp.pending).
func (in *Interp) initRead(p *process, id pathID, isDir bool, st *fstrace.Statement) {
	n := &in.m.paths.nodes[id]
	if unit, ok := UnitOfFile(in.m.paths.nodes[n.parent].name, n.name); ok && !isDir {
		in.m.paths.record(id, isDir, in.blockID(UnitBlock(unit)), fstrace.Consumed, st, 0, p.prog)
		in.stats.UnitReads++
		return
	}
	// The most recent reads are the ones for the next start: when the list
	// is full, the oldest goes (init reads hundreds of files on a reload).
	reads := in.pending[p]
	if len(reads) == maxPending {
		copy(reads, reads[1:])
		reads = reads[:maxPending-1]
	}
	in.pending[p] = append(reads, pendingRead{id: id, isDir: isDir, flags: st.Flags, prog: p.prog, line: st.Line, syscall: st.Syscall})
}

// UnitBlock names the block of a systemd service unit: the accesses of the
// processes that run in the unit's cgroup. The detector gives them to the
// catalog's Service for that unit.
func UnitBlock(unit string) string { return "Unit[" + unit + "]" }

// BlockUnit returns the unit of a block that UnitBlock named.
func BlockUnit(block string) (unit string, ok bool) {
	unit, ok = strings.CutPrefix(block, "Unit[")
	if !ok || !strings.HasSuffix(unit, "]") {
		return "", false
	}
	return strings.TrimSuffix(unit, "]"), true
}

// scriptOf returns the id of the package whose maintainer script id is
// (/var/lib/dpkg/info/P.postinst, which dpkg runs to configure P), when
// the current block wrote P's file list before: the block installs P, and
// the script is that install's, not a trigger's run for a package
// installed earlier. 0 otherwise. (A new package's preinst runs from
// dpkg's temporary directory, before its file list exists: not taken.)
func (in *Interp) scriptOf(id pathID) uint16 {
	t := &in.m.paths
	stem, ok := strings.CutSuffix(t.nodes[id].name, ".postinst")
	if !ok || stem == "" || in.cur == NoBlock {
		return 0
	}
	info := t.nodes[id].parent
	if info != t.lexical(rootPath, "var/lib/dpkg/info") {
		return 0
	}
	list, ok := t.kids[pathKey{info, stem + ".list"}]
	if !ok {
		return 0
	}
	for i := range t.nodes[list].accesses {
		if a := &t.nodes[list].accesses[i]; a.Block == in.cur && a.Produced {
			return scriptID(packageName(stem))
		}
	}
	return 0
}

// packageName drops the architecture of a package name (libc6:amd64).
func packageName(s string) string {
	name, _, _ := strings.Cut(s, ":")
	return name
}
