package interp

import "github.com/fsmove/fsmove/fstrace"

// Paths through /proc. /proc/<pid>/fd/N, /proc/<pid>/cwd and
// /proc/<pid>/root (pid a number, "self" or "thread-self") are links the
// kernel resolves to the process's open file, cwd and root whatever their
// names: a lexical path such as /proc/self/fd/3/name names nothing in the
// model. They are resolved from the model's own fd tables and cwds; an fd
// the model does not know leaves the path unresolved (counted, and a
// reason of incompleteness when the call changes a file: resolveChange).

// procLink splits path into the inode of the /proc link it goes through
// and the rest of the path after the link ("" or "/…"). handled is false
// when path is not through such a link (/proc/meminfo, /proc/self/status,
// any path outside /proc): it resolves as any other path. ok is false when
// it is one but the model cannot say where it leads: an unknown pid or fd,
// or the root of a process that changed its root.
func (in *Interp) procLink(p *process, path string) (start inodeID, rest string, handled, ok bool) {
	const prefix = "/proc/"
	if len(path) <= len(prefix) || path[:len(prefix)] != prefix {
		return noInode, "", false, false
	}
	who, after := cutComponent(path[len(prefix):])
	what, after := cutComponent(after)
	var target *process
	switch {
	case who == "self" || who == "thread-self":
		target = p
	case isDecimal(who):
		target = in.procs[parsePid(who)] // nil: a process the trace never showed
	default:
		return noInode, "", false, false
	}
	switch what {
	case "cwd":
		if target == nil || target.fs.rooted {
			return noInode, "", true, false // a cwd relative to an unknown root
		}
		return target.fs.cwd, after, true, true
	case "root":
		if target == nil || target.fs.rooted {
			return noInode, "", true, false
		}
		return rootInode, after, true, true
	case "fd":
		num, after := cutComponent(after)
		if num == "" {
			return noInode, "", false, false // the directory /proc/<pid>/fd itself
		}
		if target == nil || !isDecimal(num) {
			return noInode, "", true, false
		}
		return in.fd(target.files, parsePid(num)), after, true, true
	}
	return noInode, "", false, false
}

// cutComponent splits off the first component of a path, after one
// leading "/": "fd/3/x" and "/fd/3/x" give "fd" and "/3/x".
func cutComponent(path string) (first, rest string) {
	if path != "" && path[0] == '/' {
		path = path[1:]
	}
	for i := 0; i < len(path); i++ {
		if path[i] == '/' {
			return path[:i], path[i:]
		}
	}
	return path, ""
}

// isDecimal reports whether s is a short non-empty string of digits.
func isDecimal(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parsePid reads a string isDecimal accepted.
func parsePid(s string) int32 {
	var n int32
	for i := 0; i < len(s); i++ {
		n = n*10 + int32(s[i]-'0')
	}
	return n
}

// resolveProc resolves a path through a /proc link (procLink) for
// resolve. The link itself, followed, is the file it leads to; not
// followed (lstat, readlink, unlink), it is a name in /proc, resolved as
// any other path (handled false).
func (in *Interp) resolveProc(p *process, path string, follow bool) (loc location, handled, ok bool) {
	start, rest, handled, ok := in.procLink(p, path)
	if !handled || (rest == "" && !follow) {
		return location{}, false, false
	}
	if ok {
		switch start {
		case noInode, unknownInode:
			in.stats.UnknownFds++
			ok = false
		case anonInode:
			if rest == "" {
				return location{}, true, false // a pipe or socket reopened: no file, not a failure
			}
			ok = false
		}
	}
	if !ok {
		in.stats.UnresolvedPaths++
		return location{}, true, false
	}
	if rest == "" {
		return in.m.locOf(start), true, true
	}
	links := 0
	loc, status := in.m.resolve(start, rest[1:], follow, &links)
	switch status {
	case resolveOK:
		return loc, true, true
	case resolveLoop:
		in.stats.SymlinkLoops++
	}
	in.stats.UnresolvedPaths++
	return location{}, true, false
}

// resolveChange resolves the path of a statement that changes a file
// (creates, opens for writing, removes, renames, links). Inside a block, a
// path the model cannot place (an unknown directory fd: one received over a
// socket or made by a call the model does not know; a path after a change
// of root) is counted as an unplaced change: the analysis cannot say which
// file the block changed, so it is incomplete (Stats.UnplacedChanges).
// Outside blocks (Puppet's start-up), for a process whose accesses are
// held, and through an fd of a process the trace never showed being made
// (preExisting), it is only an unresolved path.
func (in *Interp) resolveChange(p *process, dir int32, path string, follow bool, st *fstrace.Statement) (location, bool) {
	unresolved := in.stats.UnresolvedPaths
	l, ok := in.resolve(p, dir, path, follow)
	if !ok && in.stats.UnresolvedPaths > unresolved && !in.preExisting(p, dir, path) {
		in.unplaced(st)
	}
	return l, ok
}

// preExisting reports whether dir is an fd the model does not know of a
// process the trace never showed being made (provisional), used as the
// start of a relative path or by itself: an fd the process had before
// the trace began. A daemon of the boot (journald growing its journal
// with ftruncate) acts so during any apply; what the module runs is made
// in the trace, so its unknown fds still count.
func (in *Interp) preExisting(p *process, dir int32, path string) bool {
	if !p.provisional || dir == fstrace.AtFdcwd || len(path) > 0 && path[0] == '/' {
		return false
	}
	ino := in.fd(p.files, dir)
	return ino == noInode || ino == unknownInode
}

// unplaced counts a change inside a block that the model could not place
// (resolveChange, or a rename or link the model thinks the kernel refused
// though the call succeeded), keeping the first as an example.
func (in *Interp) unplaced(st *fstrace.Statement) {
	if in.cur == NoBlock || in.holds() {
		return
	}
	if in.stats.UnplacedChanges == 0 {
		in.stats.FirstUnplacedChange = *st
	}
	in.stats.UnplacedChanges++
}
