// Package detectortest builds the detector's inputs by hand for tests: a
// small catalog graph (Graph) and a trace's interpreted accesses (Result,
// Path, Access, At). The detector's own tests and those of the reports fed
// by its Report (package report) share them. It does not import detector,
// so that the detector's in-package tests can use it.
package detectortest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// Graph is a tiny catalog: resources by reference and three edge kinds.
// Ordered follows every edge; Notifies follows notify and contain edges,
// as the real graph's queries are specified.
type Graph struct {
	res   map[string]*catalog.Resource // by normalised reference
	edges map[*catalog.Resource][]edge
	// Lookups counts the calls of Lookup.
	Lookups int
}

// EdgeKind is the kind of an edge of Graph.
type EdgeKind int

// The edge kinds: an ordering (require, before), a notification (notify,
// subscribe), a containment (a class and its resources).
const (
	Before EdgeKind = iota
	Notify
	Contain
)

type edge struct {
	to   *catalog.Resource
	kind EdgeKind
}

// NewGraph returns an empty Graph.
func NewGraph() *Graph {
	return &Graph{res: map[string]*catalog.Resource{}, edges: map[*catalog.Resource][]edge{}}
}

// Add declares a resource "Type[title]" at file:line with parameters
// given as name, value, name, value…
func (g *Graph) Add(ref, file string, line int, params ...any) *catalog.Resource {
	open := strings.IndexByte(ref, '[')
	r := &catalog.Resource{ID: len(g.res), Type: ref[:open], Title: ref[open+1 : len(ref)-1],
		File: file, Line: line, Params: map[string]any{}}
	for i := 0; i+1 < len(params); i += 2 {
		r.Params[params[i].(string)] = params[i+1]
	}
	g.res[normRef(ref)] = r
	return r
}

// Edge adds an edge of kind k from one declared resource to another.
func (g *Graph) Edge(from, to string, k EdgeKind) {
	a, b := g.res[normRef(from)], g.res[normRef(to)]
	if a == nil || b == nil {
		panic("fake edge to unknown resource " + from + " " + to)
	}
	g.edges[a] = append(g.edges[a], edge{b, k})
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

// Resources are the declared resources, in no order.
func (g *Graph) Resources() []*catalog.Resource {
	var rs []*catalog.Resource
	for _, r := range g.res {
		rs = append(rs, r)
	}
	return rs
}

// Lookup finds a declared resource by its reference, type and class
// title in any case.
func (g *Graph) Lookup(ref string) (*catalog.Resource, bool) {
	g.Lookups++
	r, ok := g.res[normRef(ref)]
	return r, ok
}

func (g *Graph) reach(a, b *catalog.Resource, ok func(EdgeKind) bool) bool {
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

// Ordered reports whether edges of any kind lead from a to b.
func (g *Graph) Ordered(a, b *catalog.Resource) bool {
	return g.reach(a, b, func(EdgeKind) bool { return true })
}

// Notifies reports whether notify and contain edges lead from a to b.
func (g *Graph) Notifies(a, b *catalog.Resource) bool {
	return g.reach(a, b, func(k EdgeKind) bool { return k != Before })
}

// Notifiers are the resources that notify r, in the order declared.
func (g *Graph) Notifiers(r *catalog.Resource) []*catalog.Resource {
	var out []*catalog.Resource
	for _, n := range g.res {
		if n != r && g.Notifies(n, r) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *catalog.Resource) int { return a.ID - b.ID })
	return out
}

// UnitService finds the Service whose title is the unit, with or without
// ".service" (the catalog's own rule also reads name and alias).
func (g *Graph) UnitService(unit string) (*catalog.Resource, bool) {
	if r, ok := g.res[normRef("Service["+unit+"]")]; ok {
		return r, true
	}
	r, ok := g.res[normRef("Service["+strings.TrimSuffix(unit, ".service")+"]")]
	return r, ok
}

// AccessSpec is one block's access in a hand-built result: effects is a
// string of p (produced), c (consumed: read), e (expunged); the evidence
// line is line, and the syscall is given or "openat"; m is a failed lookup
// (Missing), k a production that kept the content (a metadata change when
// the syscall is chmod, chown, utime or an xattr call; else an append), s
// a consumption that only looked at metadata (stat), w a name made in a
// directory, l a listing (getdents), x an execution, n a mode change that
// left no execute bit.
type AccessSpec struct {
	block   string
	effects string
	line    int64
	// per, when set, gives each effect its own evidence (see At).
	per map[rune]interp.Evidence
}

// Access is block's access with effects, all on one trace line.
func Access(block, effects string, line int64) AccessSpec {
	return AccessSpec{block: block, effects: effects, line: line}
}

// At is an access with evidence per effect: each spec is
// EFFECT[:SYSCALL]@LINE[@PROGRAM], e.g. At("Exec[sed]", "c@5",
// "p:rename@7@/usr/bin/sed").
func At(block string, specs ...string) AccessSpec {
	ac := AccessSpec{block: block, per: map[rune]interp.Evidence{}}
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

// PathSpec is a path and its accesses, for Result.
type PathSpec struct {
	path  string
	isDir bool
	accs  []AccessSpec
}

// Path is a file's accesses; Dir a directory's.
func Path(path string, accs ...AccessSpec) PathSpec { return PathSpec{path: path, accs: accs} }
func Dir(path string, accs ...AccessSpec) PathSpec {
	return PathSpec{path: path, isDir: true, accs: accs}
}

// Result builds an interp.Result; blocks get IDs in order of first use.
func Result(paths ...PathSpec) *interp.Result {
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
			ev := interp.NewEvidence("openat", ac.line)
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

// Failed marks block as reported failed by Puppet with msg.
func Failed(res *interp.Result, block, msg string) *interp.Result {
	for id, name := range res.Blocks {
		if name == block {
			res.Failures = append(res.Failures, interp.BlockFailure{Block: interp.BlockID(id), Message: msg})
		}
	}
	return res
}

// SortPaths sorts a result's paths, as the interpreter leaves them.
func SortPaths(r *interp.Result) {
	slices.SortStableFunc(r.Paths, func(x, y interp.PathAccesses) int { return strings.Compare(x.Path, y.Path) })
}

// IndexGraph answers in O(1), like the catalog's precomputed index, so that
// a benchmark measures the detector, not a fake's searches.
type IndexGraph struct {
	byRef map[string]*catalog.Resource
}

// Lookup finds a resource by its exact reference.
func (g *IndexGraph) Lookup(ref string) (*catalog.Resource, bool) {
	r, ok := g.byRef[ref]
	return r, ok
}

// Resources are ordered when their IDs share a residue mod 4: about a
// quarter of the pairs; a notify path exists when they share it mod 8.
func (g *IndexGraph) Ordered(a, b *catalog.Resource) bool  { return a.ID%4 == b.ID%4 }
func (g *IndexGraph) Notifies(a, b *catalog.Resource) bool { return a.ID%8 == b.ID%8 }

// SyntheticRun builds a run shaped like a Puppet trace: nres resources
// (Files, Execs, Packages, Services), npaths distinct paths, most touched
// by one or two blocks, some hot paths touched by many, and a share of
// Puppet's own paths that the default filters drop.
func SyntheticRun(nres, npaths int) (*interp.Result, *IndexGraph) {
	rng := rand.New(rand.NewPCG(7, 11))
	g := &IndexGraph{byRef: map[string]*catalog.Resource{}}
	res := &interp.Result{}
	types := []string{"File", "Exec", "Package", "Service"}
	for i := 0; i < nres; i++ {
		t := types[i%len(types)]
		title := fmt.Sprintf("/etc/app%d/conf", i)
		if t != "File" {
			title = fmt.Sprintf("%s%d", strings.ToLower(t), i)
		}
		r := &catalog.Resource{ID: i, Type: t, Title: title, File: "/code/modules/m/manifests/init.pp", Line: i + 1}
		g.byRef[r.Ref()] = r
		res.Blocks = append(res.Blocks, r.Ref())
	}
	for i := 0; i < npaths; i++ {
		var path string
		switch i % 5 {
		case 0:
			path = fmt.Sprintf("/usr/lib/ruby/vendor_ruby/puppet/x%07d.rb", i)
		case 1:
			path = fmt.Sprintf("/etc/app%d/conf.d/f%07d", i%nres, i)
		default:
			path = fmt.Sprintf("/var/lib/app/d%03d/f%07d", i%997, i)
		}
		pa := interp.PathAccesses{Path: path}
		n := 1 + rng.IntN(2)
		if rng.IntN(100) == 0 {
			n = 20 // hot path: read by many resources
		}
		for j := 0; j < n; j++ {
			a := interp.Access{Block: interp.BlockID(rng.IntN(nres))}
			ev := interp.NewEvidence("openat", int64(i*10+j))
			// Writes and reads of content, as openat's are (without
			// ContentProduced every production would be metadata only,
			// held back by rule 12).
			if j == 0 && rng.IntN(3) == 0 {
				a.Produced, a.ProducedBy, a.ContentProduced, a.Replaced, a.ReplacedBy = true, ev, true, true, ev
			} else {
				a.Consumed, a.ConsumedBy, a.ContentConsumed = true, ev, true
			}
			pa.Accesses = append(pa.Accesses, a)
		}
		res.Paths = append(res.Paths, pa)
	}
	SortPaths(res)
	return res, g
}
