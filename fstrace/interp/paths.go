package interp

import (
	"strings"

	"github.com/fsmove/fsmove/fstrace"
)

// The path table interns absolute path strings as a tree of (parent path,
// name) nodes. It is lexical, independent of the model: a path keeps its
// id (and its accesses) after the inode it named is renamed away. Strings
// are built only once, in Result.

// pathID indexes pathTable.nodes.
type pathID int32

const rootPath pathID = 0

type pathNode struct {
	parent   pathID
	name     string
	isDir    bool
	accesses []Access // in order of first access; sorted by block in Result
	hint     int32    // index in accesses of the last block recorded
	// maxBlock is the highest block ever recorded (with accesses): a
	// higher one has no access yet. Blocks get their ids in the order they
	// first begin, so a block new to the path is found so without a scan
	// (paths that every block looks at, Ruby's own files, would otherwise
	// cost a scan of all the blocks each).
	maxBlock BlockID
}

type pathKey struct {
	parent pathID
	name   string
}

type pathTable struct {
	nodes []pathNode
	kids  map[pathKey]pathID
	// lastName and lastID cache the last syscall name interned for an
	// Evidence: statements come in runs of one call.
	lastName string
	lastID   uint32
}

// evidence is st's Evidence.
func (t *pathTable) evidence(st *fstrace.Statement, prog uint32) Evidence {
	if st.Syscall != t.lastName {
		t.lastName, t.lastID = st.Syscall, syscallNames.id(st.Syscall)
	}
	return Evidence{Line: st.Line, name: t.lastID, prog: prog}
}

func newPathTable() pathTable {
	t := pathTable{
		nodes: make([]pathNode, 1, 1024),
		kids:  make(map[pathKey]pathID, 1024),
	}
	t.nodes[rootPath] = pathNode{parent: rootPath, isDir: true}
	return t
}

// child interns parent/name. name is copied only when the path is new.
func (t *pathTable) child(parent pathID, name string) pathID {
	if id, ok := t.kids[pathKey{parent, name}]; ok {
		return id
	}
	n := pathNode{parent: parent, name: strings.Clone(name)}
	t.nodes = append(t.nodes, n)
	id := pathID(len(t.nodes) - 1)
	t.kids[pathKey{parent, n.name}] = id
	return id
}

// record adds effect eff of block b to path id, keeping the first evidence
// of each effect. A path produced and then expunged by the same block is a
// temporary: the block's access to it is dropped (Missing included). A
// failed lookup (Missing) leaves isDir as it was. script is the maintainer
// script the producing process runs (process.script; 0 for none), prog the
// program of the calling process, for the evidence (process.prog). It
// returns the block's access to the path, nil when the effect dropped it.
func (t *pathTable) record(id pathID, isDir bool, b BlockID, eff fstrace.Effect, st *fstrace.Statement, script uint16, prog uint32) *Access {
	n := &t.nodes[id]
	if eff != fstrace.Missing {
		n.isDir = isDir
	}
	i := int(n.hint)
	switch {
	case len(n.accesses) == 0 || b > n.maxBlock:
		i = -1
		n.maxBlock = b
	case i >= len(n.accesses) || n.accesses[i].Block != b:
		i = len(n.accesses) - 1
		for i >= 0 && n.accesses[i].Block != b {
			i--
		}
	}
	if i < 0 {
		n.accesses = append(n.accesses, Access{Block: b})
		i = len(n.accesses) - 1
	}
	n.hint = int32(i)
	a := &n.accesses[i]
	ev := t.evidence(st, prog)
	switch eff {
	case fstrace.Consumed:
		if !a.Consumed {
			a.Consumed, a.ConsumedBy = true, ev
		} else if pr := ev.prog; pr != a.ConsumedBy.prog && pr != a.reader2 {
			if a.reader2 == 0 && pr != 0 {
				a.reader2 = pr
			} else {
				a.readersMore = true
			}
		}
		a.ContentConsumed = a.ContentConsumed || st.Flags&fstrace.Probe == 0
		a.Executed = a.Executed || st.Flags&fstrace.Runs != 0
		if st.Flags&fstrace.Lists != 0 {
			if !a.Listed {
				a.Listed, a.ListedBy = true, ev
			}
			if ev.Line > a.LastListedBy.Line {
				a.LastListedBy = ev
			}
		}
	case fstrace.Produced:
		if !a.Produced {
			a.Produced, a.ProducedBy = true, ev
			a.script = script
		} else if a.script != script {
			a.script = mixedScripts
		}
		if !a.Replaced && st.Flags&fstrace.Keeps == 0 {
			a.Replaced, a.ReplacedBy = true, ev
		}
		a.ContentProduced = a.ContentProduced || st.Flags&fstrace.Meta == 0
		a.NoExec = a.NoExec || st.Flags&fstrace.NoExec != 0
	case fstrace.Expunged:
		if a.Produced && !a.Expunged {
			// Created (or written) and removed within the block.
			n.accesses = append(n.accesses[:i], n.accesses[i+1:]...)
			return nil
		}
		if !a.Expunged {
			a.Expunged, a.ExpungedBy = true, ev
		}
	case fstrace.Missing:
		if !a.Missing {
			a.Missing, a.MissingBy = true, ev
		}
	}
	return a
}

// lexical returns the id of path rest taken lexically from id: "." stays,
// ".." goes to the parent ("/.." is "/"), other names are children.
func (t *pathTable) lexical(id pathID, rest string) pathID {
	for rest != "" {
		comp := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		switch comp {
		case "", ".":
		case "..":
			id = t.nodes[id].parent
		default:
			id = t.child(id, comp)
		}
	}
	return id
}

// pathString builds the string of id, memoising it and its ancestors in
// strs (built once each, only for the paths asked for).
func (t *pathTable) pathString(id pathID, strs []string) string {
	if id == rootPath {
		return "/"
	}
	if strs[id] != "" {
		return strs[id]
	}
	// Walk up to the nearest ancestor already built, then build downward.
	var chain []pathID
	for cur := id; cur != rootPath && strs[cur] == ""; cur = t.nodes[cur].parent {
		chain = append(chain, cur)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		n := &t.nodes[chain[i]]
		if n.parent == rootPath {
			strs[chain[i]] = "/" + n.name
		} else {
			strs[chain[i]] = strs[n.parent] + "/" + n.name
		}
	}
	return strs[id]
}
