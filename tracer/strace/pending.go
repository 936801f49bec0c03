package strace

// pendingCalls owns the first halves of calls printed as "<unfinished ...>",
// one per pid, until their "<... NAME resumed>" half, the process's exit or
// a newer first half ends them. Records are reused, so that unfinished lines
// do not allocate.
type pendingCalls struct {
	byPid map[int]*pendingCall
	free  []*pendingCall
}

// pendingCall is the first half of a call printed as "<unfinished ...>".
type pendingCall struct {
	call *callInfo
	args []byte // the text between "(" and " <unfinished ...>" (kept only if wanted)
}

// start records pid's first half of call, whose arguments so far are args
// (copied, and only when the call is wanted). A pid has at most one call in
// flight, so a second first half replaces the first.
func (c *pendingCalls) start(pid int, call *callInfo, args []byte) {
	pc := c.byPid[pid]
	if pc == nil {
		if n := len(c.free); n > 0 {
			pc, c.free = c.free[n-1], c.free[:n-1]
		} else {
			pc = new(pendingCall)
		}
		if c.byPid == nil {
			c.byPid = make(map[int]*pendingCall)
		}
		c.byPid[pid] = pc
	}
	pc.call = call
	pc.args = pc.args[:0]
	if call.wanted {
		pc.args = append(pc.args, args...)
	}
}

// resume ends pid's pending call when it is named name: it returns the call
// and, for a wanted call, its first half's text followed by rest (appended
// to buf[:0]). A pending call of another name is dropped, and ok is false.
func (c *pendingCalls) resume(pid int, name, rest, buf []byte) (call *callInfo, joined []byte, ok bool) {
	pc := c.byPid[pid]
	if pc == nil {
		return nil, buf, false
	}
	if pc.call.name != string(name) {
		c.drop(pid)
		return nil, buf, false
	}
	call, joined = pc.call, buf
	if call.wanted {
		joined = append(append(buf[:0], pc.args...), rest...)
	}
	c.drop(pid)
	return call, joined, true
}

// has reports whether pid has a call in flight.
func (c *pendingCalls) has(pid int) bool { return c.byPid[pid] != nil }

// drop forgets pid's pending call, if any, and keeps its record for reuse.
func (c *pendingCalls) drop(pid int) {
	if pc := c.byPid[pid]; pc != nil {
		delete(c.byPid, pid)
		c.free = append(c.free, pc)
	}
}

// move hands the pending call of from, if any, to to, replacing to's. It
// reports whether there was one to move.
func (c *pendingCalls) move(from, to int) bool {
	pc := c.byPid[from]
	if pc == nil || from == to {
		return false
	}
	c.drop(to)
	delete(c.byPid, from)
	c.byPid[to] = pc
	return true
}

// count is the number of calls in flight.
func (c *pendingCalls) count() int { return len(c.byPid) }
