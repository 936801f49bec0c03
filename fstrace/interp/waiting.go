package interp

import "github.com/fsmove/fsmove/fstrace"

// Statements that wait for their process's cwd.
//
// A process seen before its creation (held.go) has a cwd the model does not
// know: a thread shares its creator's, a forked child has a copy of it, and
// which process is the creator only its clone's return says. Resolving its
// relative paths from "/" meanwhile would make up paths: strace prints a
// new thread's open("made-here") before its creator's clone3 returns when
// the two run on two CPUs, and the model would have "/made-here" made
// instead of the file in the creator's directory. So from its first
// statement that names a path from its cwd on, a provisional process's
// statements wait (all of them, so that the process's own order is kept)
// and are interpreted when its creation is seen, with the cwd the creation
// gives it. A process whose creation does not come within maxWait
// statements of the trace (one that was running when the trace began: a
// trace begun mid-run) has its statements interpreted from "/", as before,
// and is counted in Stats.CwdGuesses. Either way each statement is
// interpreted with the block that was open when the trace showed it.

// maxWait bounds how far, in statements of the whole trace, a process's
// statements wait for its creation. A child's creation is seen a few
// statements after its first ones.
const maxWait = 1 << 12

// waits reports whether st of p waits for p's creation, and if so keeps it.
func (in *Interp) waits(p *process, st *fstrace.Statement) bool {
	if !p.provisional || p.cwdGuessed || p.fs.cwdSet || p.fs.rooted {
		return false
	}
	switch st.Op {
	case fstrace.OpBegin, fstrace.OpEnd, fstrace.OpFail:
		return false // the run's blocks, not the process's state: they keep their place
	}
	if len(p.waiting) == 0 {
		if !usesCwd(st) {
			return false
		}
		p.waitFrom = in.stats.Statements
		in.waitingProcs = append(in.waitingProcs, p)
	}
	p.waiting = append(p.waiting, waitingStmt{st: *st, open: in.attr.Open()})
	in.stats.WaitedStatements++
	return true
}

// usesCwd reports whether st names a path from its process's cwd.
func usesCwd(st *fstrace.Statement) bool {
	switch st.Op {
	case fstrace.OpNewFd:
		return st.Flags&fstrace.FdAnon == 0 && fromCwd(st.Dir, st.Path)
	case fstrace.OpHpath, fstrace.OpHpathSym, fstrace.OpSetCwd:
		return fromCwd(st.Dir, st.Path)
	case fstrace.OpLink, fstrace.OpRename, fstrace.OpBind:
		return fromCwd(st.Dir, st.Path) || fromCwd(st.Dir2, st.Path2)
	case fstrace.OpSymlink:
		return fromCwd(st.Dir2, st.Path2) // Path is the link's target, not resolved
	}
	return false
}

func fromCwd(dir int32, path string) bool {
	return dir == fstrace.AtFdcwd && (path == "" || path[0] != '/')
}

// replayWaiting interprets what p kept waiting. It runs when p's creation
// is seen (c is p as its creation made it) or when p waited too long.
func (in *Interp) replayWaiting(p *process) {
	q := p.waiting
	p.waiting = nil
	for i, w := range in.waitingProcs {
		if w == p {
			in.waitingProcs = append(in.waitingProcs[:i], in.waitingProcs[i+1:]...)
			break
		}
	}
	now := in.attr.Open()
	for i := range q {
		in.attr.Reopen(q[i].open)
		in.step(&q[i].st)
	}
	in.attr.Reopen(now)
}

// waitingStmt is a statement that waits, and the block open when the
// trace showed it: it is interpreted as then.
type waitingStmt struct {
	st   fstrace.Statement
	open BlockID
}

// stopWaiting interprets, from "/", the statements of the processes whose
// creation did not come in time (or at all, when the trace has ended).
func (in *Interp) stopWaiting(all bool) {
	for len(in.waitingProcs) > 0 {
		p := in.waitingProcs[0]
		if !all && in.stats.Statements-p.waitFrom <= maxWait {
			return
		}
		p.cwdGuessed = true
		in.stats.CwdGuesses++
		in.replayWaiting(p)
	}
}
