package detector

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// fakeGraph is a tiny catalog: resources by reference and three edge kinds.
// Ordered follows every edge; Notifies follows notify and contain edges,
// as the real graph's queries are specified.
type fakeGraph struct {
	res     map[string]*catalog.Resource // by normalised reference
	edges   map[*catalog.Resource][]fakeEdge
	lookups int
}

type edgeKind int

const (
	before edgeKind = iota
	notify
	contain
)

type fakeEdge struct {
	to   *catalog.Resource
	kind edgeKind
}

func newFake() *fakeGraph {
	return &fakeGraph{res: map[string]*catalog.Resource{}, edges: map[*catalog.Resource][]fakeEdge{}}
}

// add declares a resource "Type[title]" at file:line with parameters.
func (g *fakeGraph) add(ref, file string, line int, params ...any) *catalog.Resource {
	open := strings.IndexByte(ref, '[')
	r := &catalog.Resource{ID: len(g.res), Type: ref[:open], Title: ref[open+1 : len(ref)-1],
		File: file, Line: line, Params: map[string]any{}}
	for i := 0; i+1 < len(params); i += 2 {
		r.Params[params[i].(string)] = params[i+1]
	}
	g.res[normRef(ref)] = r
	return r
}

func (g *fakeGraph) edge(from, to string, k edgeKind) {
	a, b := g.res[normRef(from)], g.res[normRef(to)]
	if a == nil || b == nil {
		panic("fake edge to unknown resource " + from + " " + to)
	}
	g.edges[a] = append(g.edges[a], fakeEdge{b, k})
}

// normRef folds the type, and a class title, as Puppet compares them.
func normRef(ref string) string {
	open := strings.IndexByte(ref, '[')
	if open < 0 {
		return ref
	}
	t := strings.ToLower(ref[:open])
	if t == "class" {
		return strings.ToLower(ref)
	}
	return t + ref[open:]
}

func (g *fakeGraph) Resources() []*catalog.Resource {
	var rs []*catalog.Resource
	for _, r := range g.res {
		rs = append(rs, r)
	}
	return rs
}

func (g *fakeGraph) Lookup(ref string) (*catalog.Resource, bool) {
	g.lookups++
	r, ok := g.res[normRef(ref)]
	return r, ok
}

func (g *fakeGraph) reach(a, b *catalog.Resource, ok func(edgeKind) bool) bool {
	seen := map[*catalog.Resource]bool{a: true}
	stack := []*catalog.Resource{a}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range g.edges[n] {
			if !ok(e.kind) || seen[e.to] {
				continue
			}
			if e.to == b {
				return true
			}
			seen[e.to] = true
			stack = append(stack, e.to)
		}
	}
	return false
}

func (g *fakeGraph) Ordered(a, b *catalog.Resource) bool {
	return g.reach(a, b, func(edgeKind) bool { return true })
}

func (g *fakeGraph) Notifies(a, b *catalog.Resource) bool {
	return g.reach(a, b, func(k edgeKind) bool { return k != before })
}

func (g *fakeGraph) Notifiers(r *catalog.Resource) []*catalog.Resource {
	var out []*catalog.Resource
	for _, n := range g.res {
		if n != r && g.Notifies(n, r) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *catalog.Resource) int { return a.ID - b.ID })
	return out
}

// acc is one block's access in a hand-built result: effects is a string of
// p (produced), c (consumed: read), e (expunged); the evidence line is line,
// and the syscall is given or "openat"; m is a failed lookup (Missing), k a
// production that kept the content (a metadata change when the syscall is
// chmod, chown, utime or an xattr call; else an append), s a consumption
// that only looked at metadata (stat), x an execution, n a mode change that
// left no execute bit.
type acc struct {
	block   string
	effects string
	line    int64
	syscall string
	// per, when set, gives each effect its own evidence (see at).
	per map[rune]interp.Evidence
}

// at is an access with evidence per effect: each spec is
// EFFECT[:SYSCALL]@LINE[@PROGRAM], e.g. at("Exec[sed]", "c@5",
// "p:rename@7@/usr/bin/sed").
func at(block string, specs ...string) acc {
	ac := acc{block: block, per: map[rune]interp.Evidence{}}
	for _, sp := range specs {
		eff, rest, _ := strings.Cut(sp, "@")
		sc := "openat"
		if e, s, ok := strings.Cut(eff, ":"); ok {
			eff, sc = e, s
		}
		rest, prog, _ := strings.Cut(rest, "@")
		line, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			panic("bad at spec " + sp)
		}
		ac.effects += eff
		ac.per[rune(eff[0])] = interp.NewEvidenceBy(sc, line, prog)
	}
	return ac
}

type pathSpec struct {
	path  string
	isDir bool
	accs  []acc
}

func p(path string, accs ...acc) pathSpec     { return pathSpec{path: path, accs: accs} }
func dir(path string, accs ...acc) pathSpec   { return pathSpec{path: path, isDir: true, accs: accs} }
func a(block, effects string, line int64) acc { return acc{block: block, effects: effects, line: line} }

// result builds an interp.Result; blocks get IDs in order of first use.
func result(paths ...pathSpec) *interp.Result {
	res := &interp.Result{}
	ids := map[string]interp.BlockID{}
	for _, ps := range paths {
		pa := interp.PathAccesses{Path: ps.path, IsDir: ps.isDir}
		for _, ac := range ps.accs {
			id, ok := ids[ac.block]
			if !ok {
				id = interp.BlockID(len(res.Blocks))
				ids[ac.block] = id
				res.Blocks = append(res.Blocks, ac.block)
			}
			sc := ac.syscall
			if sc == "" {
				sc = "openat"
			}
			ev := interp.NewEvidence(sc, ac.line)
			x := interp.Access{Block: id}
			for _, e := range ac.effects {
				if pe, ok := ac.per[e]; ok {
					ev = pe
				}
				switch e {
				case 'p':
					x.Produced, x.ProducedBy = true, ev
					x.Replaced, x.ReplacedBy = true, ev
					x.ContentProduced = true
				case 'k': // produced, content kept (chmod, append)
					x.Produced, x.ProducedBy = true, ev
					x.ContentProduced = x.ContentProduced || !isMetadataCall(ev.Syscall())
				case 'c':
					x.Consumed, x.ConsumedBy = true, ev
					x.ContentConsumed = true
				case 's':
					x.Consumed, x.ConsumedBy = true, ev
				case 'w': // consumed a directory by making a name in it
					x.Consumed, x.ConsumedBy = true, ev
					x.ContentConsumed, x.EntryMade = true, true
				case 'l': // listed a directory (getdents)
					x.Consumed, x.ConsumedBy = true, ev
					x.ContentConsumed, x.Listed, x.ListedBy, x.LastListedBy = true, true, ev, ev
				case 'x':
					x.Consumed, x.ConsumedBy = true, ev
					x.ContentConsumed, x.Executed = true, true
				case 'n':
					x.NoExec = true
				case 'e':
					x.Expunged, x.ExpungedBy = true, ev
				case 'm':
					x.Missing, x.MissingBy = true, ev
				}
			}
			pa.Accesses = append(pa.Accesses, x)
		}
		res.Paths = append(res.Paths, pa)
	}
	return res
}

// isMetadataCall: the calls whose production changes only metadata.
func isMetadataCall(syscall string) bool {
	for _, m := range []string{"chmod", "chown", "utime", "xattr"} {
		if strings.Contains(syscall, m) {
			return true
		}
	}
	return false
}

// failed marks block as reported failed by Puppet with msg.
func failed(res *interp.Result, block, msg string) *interp.Result {
	for id, name := range res.Blocks {
		if name == block {
			res.Failures = append(res.Failures, interp.BlockFailure{Block: interp.BlockID(id), Message: msg})
		}
	}
	return res
}

// Aliases so that helpers read naturally in golden_test.go.
type interp_Result = interp.Result
type interp_BlockID = interp.BlockID

func sortPaths(r *interp.Result) {
	slices.SortStableFunc(r.Paths, func(x, y interp.PathAccesses) int { return strings.Compare(x.Path, y.Path) })
}

// UnitService finds the Service whose title is the unit, with or without
// ".service" (the catalog's own rule also reads name and alias).
func (g *fakeGraph) UnitService(unit string) (*catalog.Resource, bool) {
	if r, ok := g.res[normRef("Service["+unit+"]")]; ok {
		return r, true
	}
	r, ok := g.res[normRef("Service["+strings.TrimSuffix(unit, ".service")+"]")]
	return r, ok
}
