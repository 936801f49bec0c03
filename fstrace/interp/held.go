package interp

import "github.com/fsmove/fsmove/fstrace"

// Held accesses: what a process did before the trace showed its creation.
//
// A child often runs before its parent's clone, fork or vfork returns, and
// a tracer that writes a call at its end (eBPF, and strace for a vfork)
// shows the child's calls first: a shell in a service's unit vforks cat,
// and cat reads the service's configuration before the shell's vfork
// returns. Until its creation is seen, nothing says whom such a process
// acts for: its parent may be a daemon that acts for a Service, or
// systemd's child in a unit's cgroup, while Puppet is evaluating another
// resource. Charging what it does to the open block (as for the processes
// of a trace begun mid-run) would give a daemon's reads to whatever
// resource Puppet is evaluating. So its accesses, and those of the
// processes it makes meanwhile, are held (heldGroup) until its creation is
// seen, and then charged to the block its parent makes it act for; an
// access of a process that is never created in the trace goes, at the end,
// to the block that was open when it was made, as it always did, unless
// the trace is of a whole container whose init it traced (below).
//
// A container booted with systemd runs daemons of its boot (journald)
// before the tracer starts, and a tracer that sees the whole cgroup
// (eBPF) shows their calls; ptrace and strace, which follow init's new
// children only, never do. Such a process is never created in the trace:
// it acts for no resource, as its unit would say had the trace shown it
// join it (journald's unit is no Service's). Charged to the open block,
// its work became a resource's by timing alone: journald makes a stream's
// file when a unit's process connects to it and removes it when the
// process exits, and on a busy machine the removal fell in the next
// resource's block, an ordering between two resources that never met.

// maxHeld bounds the accesses one group holds: a process that is never
// created in the trace (a daemon started before it) would hold them all.
// Past it the group's accesses are charged as they come, each to the open
// block.
const maxHeld = 1 << 14

// heldGroup is a process seen before its creation (members[0]) and the
// processes it made before then.
type heldGroup struct {
	members []*process
	// birth is the block open when each member was made: what a member
	// made by a process acting for the open block acts for (Attribution's
	// NewProc), should its first member turn out to act for the open
	// block too.
	birth []BlockID
	held  []heldAccess
	done  bool // charged: the members' accesses are charged as they come
}

// heldAccess is one access a group holds: what paths.record needs, the
// member that made it, and the block open then.
type heldAccess struct {
	id        pathID
	member    int32
	open      BlockID
	eff       fstrace.Effect
	isDir     bool
	entryMade bool
	script    uint16
	flags     uint32
	prog      uint32
	line      int64
	syscall   string
}

// holds reports whether the current statement's accesses are held.
func (in *Interp) holds() bool { return in.holdsFor(in.curProc) }

// holdsFor reports whether p's accesses are held: its group has not been
// charged, and p has not joined a unit's cgroup (then it acts for that
// unit, whoever made it).
func (in *Interp) holdsFor(p *process) bool {
	return p != nil && p.held != nil && !p.held.done && p.acts.IsDynamic()
}

// hold keeps an access of the current process for its group; past maxHeld
// the group lets go of all it holds.
func (in *Interp) hold(id pathID, isDir bool, eff fstrace.Effect, st *fstrace.Statement, entryMade bool) {
	p := in.curProc
	g := p.held
	g.held = append(g.held, heldAccess{id: id, member: p.heldIndex, open: in.attr.Open(), eff: eff, isDir: isDir,
		entryMade: entryMade, script: p.script, flags: st.Flags, prog: p.prog, line: st.Line, syscall: st.Syscall})
	in.stats.HeldAccesses++
	if len(g.held) >= maxHeld {
		in.chargeUncreated(g)
	}
}

// chargeUncreated charges group g, whose first member's creation the trace
// has not shown (at its end, or past maxHeld): to the blocks open when its
// accesses were made, or, when the trace follows init (the container's
// whole life since its boot, the apply's processes all made in it), to
// none: it is a daemon of the boot, and its members act for no block.
func (in *Interp) chargeUncreated(g *heldGroup) {
	if g.done {
		return
	}
	if _, traced := in.procs[initPid]; traced {
		// What a member that joined a unit's cgroup did there still
		// goes to the unit (charge); the rest goes nowhere.
		for _, h := range g.held {
			if g.members[h.member].acts.IsDynamic() {
				in.stats.BootAccesses++
			}
		}
		for _, m := range g.members {
			if m.acts.IsDynamic() {
				in.attr.Join(m.acts, NoBlock)
			}
		}
	}
	in.charge(g, nil)
}

// newHeldGroup makes p, seen before its creation, the first member of a
// group.
func (in *Interp) newHeldGroup(p *process) {
	p.held = &heldGroup{members: []*process{p}, birth: []BlockID{in.attr.Open()}}
	in.heldGroups = append(in.heldGroups, p.held)
}

// joinHeld makes c, which a member of a holding group made, a member too.
func (in *Interp) joinHeld(parent, c *process) {
	g := parent.held
	c.held = g
	c.heldIndex = int32(len(g.members))
	g.members = append(g.members, c)
	g.birth = append(g.birth, in.attr.Open())
}

// mergeHeld moves what group g2 holds into g1: g2's first member, now
// created, is c, a member of g1, whose creator is held too.
func (in *Interp) mergeHeld(g1, g2 *heldGroup, c *process) {
	if g2.done || g1 == g2 {
		return
	}
	index := make([]int32, len(g2.members))
	index[0] = c.heldIndex
	for i, m := range g2.members[1:] {
		index[i+1] = int32(len(g1.members))
		m.held, m.heldIndex = g1, index[i+1]
		g1.members = append(g1.members, m)
		g1.birth = append(g1.birth, g2.birth[i+1])
	}
	for _, h := range g2.held {
		h.member = index[h.member]
		g1.held = append(g1.held, h)
	}
	g2.done = true
	g2.members, g2.birth, g2.held = nil, nil, nil
	if len(g1.held) >= maxHeld {
		in.chargeUncreated(g1)
	}
}

// charge charges what group g holds, and lets its members charge as they
// go. root is its first member as its creation made it (nil when the trace
// never showed it): the members that did not join a unit of their own act
// for what root acts for, or, when root acts for the open block, for the
// block open when each was made. An access goes to the block its member
// acts for, or, for a member acting for the open block, to the block open
// when the access was made.
func (in *Interp) charge(g *heldGroup, root *process) {
	if g.done {
		return
	}
	g.done = true
	if root != nil {
		g.members[0] = root
		for i, m := range g.members[1:] {
			if !m.acts.IsDynamic() {
				continue // it joined a unit's cgroup itself
			}
			b := g.birth[i+1]
			if !root.acts.IsDynamic() {
				b = in.attr.For(root.acts)
			}
			if b != NoBlock {
				in.attr.Join(m.acts, b)
			}
		}
	}
	for _, h := range g.held {
		b := h.open
		if m := g.members[h.member]; !m.acts.IsDynamic() {
			b = in.attr.For(m.acts)
		}
		if b == NoBlock {
			continue
		}
		st := fstrace.Statement{Syscall: h.syscall, Line: h.line, Flags: h.flags}
		a := in.m.paths.record(h.id, h.isDir, b, h.eff, &st, h.script, h.prog)
		if a == nil {
			continue
		}
		a.EntryMade = a.EntryMade || h.entryMade
		keepEarliest(a, h.eff, in.m.paths.evidence(&st, h.prog), h.flags)
	}
	for _, m := range g.members {
		m.held = nil
	}
	g.members, g.birth, g.held = nil, nil, nil
}

// chargeAllHeld charges, at the end of the trace, what every group still
// holds: its first member's creation was never seen.
func (in *Interp) chargeAllHeld() {
	for _, g := range in.heldGroups {
		in.chargeUncreated(g)
	}
	in.heldGroups = nil
}

// keepEarliest makes ev the evidence of effect eff of a when it is earlier
// in the trace than the one a has: a held access is charged after later
// ones of the same block, and the evidence of an effect is its first.
func keepEarliest(a *Access, eff fstrace.Effect, ev Evidence, flags uint32) {
	keeps := flags&fstrace.Keeps != 0
	first := func(by *Evidence) {
		if ev.Line < by.Line {
			*by = ev
		}
	}
	switch eff {
	case fstrace.Consumed:
		first(&a.ConsumedBy)
		if flags&fstrace.Lists != 0 {
			first(&a.ListedBy)
		}
	case fstrace.Produced:
		first(&a.ProducedBy)
		if !keeps {
			first(&a.ReplacedBy)
		}
	case fstrace.Expunged:
		first(&a.ExpungedBy)
	case fstrace.Missing:
		first(&a.MissingBy)
	}
}
