package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/dominikbraun/graph"
)

// Label says why an edge exists. An edge may carry several labels: a
// resource that both requires and subscribes to another has one edge
// labelled Before|Notify.
type Label uint8

const (
	Before  Label = 1 << iota // before/require: ordering only
	Notify                    // notify/subscribe: ordering and refresh events
	Contain                   // containment (stage, class, defined type)
	Auto                      // an autorequire/autobefore rule of the type, or an edge of Puppet's own graph
)

func (l Label) String() string {
	var parts []string
	for _, n := range []struct {
		l    Label
		name string
	}{{Before, "before"}, {Notify, "notify"}, {Contain, "contain"}, {Auto, "auto"}} {
		if l&n.l != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, "|")
}

// Relation is one resource-level edge: what the catalog says (before,
// notify, contain) or what Puppet adds at apply time (auto).
type Relation struct {
	Source, Target *Resource
	Label          Label
}

// Graph is the dependency graph of a catalog, modelled on Puppet's
// relationship graph after it replaces containers by whits.
//
// Node i < len(Resources) is resource i; for a container (a resource that
// contains others: stage, class, defined type) it stands for Puppet's
// "admissible" whit, and a second node, completed[i], stands for its
// "completed" whit. Edges into a container enter at admissible, edges out of
// it leave from completed; admissible reaches every child, every child
// reaches completed, and admissible reaches completed.
type Graph struct {
	cat *Catalog

	// Relations holds the resource-level edges, sorted by source then
	// target ID; WriteDOT draws them.
	Relations []Relation
	// Warnings lists references that did not resolve and malformed
	// relationship values.
	Warnings []string

	nodes     int
	completed []int32 // per resource: its "out" node
	owner     []int32 // per node: the resource it belongs to

	// Adjacency in compressed rows: the edges of node u are
	// dst[off[u]:off[u+1]] with labels lab[off[u]:off[u+1]].
	off []int32
	dst []int32
	lab []Label

	// Reachability, one bitset per source node, computed on first use.
	mu          sync.Mutex
	orderReach  [][]uint64
	notifyReach [][]uint64
}

// CycleError reports a dependency cycle; Cycle lists its resources in edge
// order, from the one first in the catalog, which is repeated at the end.
// The message joins them with " => " as Puppet's own cycle error does.
type CycleError struct {
	Cycle []*Resource
}

func (e *CycleError) Error() string {
	refs := make([]string, len(e.Cycle))
	for i, r := range e.Cycle {
		refs[i] = r.Ref()
	}
	return "catalog: dependency cycle: " + strings.Join(refs, " => ")
}

// relationParams are the metaparameters that make explicit edges. One row
// per parameter: reverse means the parameter's value is the edge's source.
var relationParams = []struct {
	name    string
	label   Label
	reverse bool
}{
	{"before", Before, false},
	{"require", Before, true},
	{"notify", Notify, false},
	{"subscribe", Notify, true},
}

// isRelationParam reports whether name is one of relationParams.
func isRelationParam(name string) bool {
	for _, p := range relationParams {
		if p.name == name {
			return true
		}
	}
	return false
}

// builder collects resource-level relations before they become node edges.
type builder struct {
	c        *Catalog
	g        *Graph
	relation map[[2]int32]Label
	gids     map[string][]*Resource // Group resources by gid, see autoUser
}

func buildGraph(c *Catalog) (*Graph, error) {
	if c.index == nil {
		c.buildIndex()
	}
	n := len(c.Resources)
	g := &Graph{cat: c, completed: make([]int32, n)}
	b := &builder{c: c, g: g, relation: make(map[[2]int32]Label)}
	// A catalog assembled by hand (not by Read) must keep the invariant
	// the int-indexed adjacency relies on.
	for i, r := range c.Resources {
		if r == nil || r.ID != i {
			return nil, fmt.Errorf("catalog: resource %d has the wrong ID", i)
		}
	}
	var contain []Edge
	for _, e := range c.Edges {
		if !g.owns(e.Source) || !g.owns(e.Target) {
			g.Warnings = append(g.Warnings, "containment edge with a resource not in Resources: skipped")
			continue
		}
		contain = append(contain, e)
	}

	// Containers get a second node, in resource order.
	isContainer := make([]bool, n)
	for _, e := range contain {
		isContainer[e.Source.ID] = true
	}
	g.nodes = n
	g.owner = make([]int32, n, n+n/8)
	for i := range c.Resources {
		g.owner[i] = int32(i)
		g.completed[i] = int32(i)
		if isContainer[i] {
			g.completed[i] = int32(g.nodes)
			g.owner = append(g.owner, int32(i))
			g.nodes++
		}
	}

	for _, r := range c.Resources {
		b.explicit(r)
	}
	for _, e := range contain {
		b.relation[[2]int32{int32(e.Source.ID), int32(e.Target.ID)}] |= Contain
	}
	for _, r := range c.Resources {
		b.auto(r)
	}
	// Puppet's own orderings when the run has its graph (AddPuppetGraph):
	// the autorequires of modules' types among them.
	for _, k := range c.puppetOrder {
		if b.relation[k]&(Before|Notify|Auto) == 0 {
			b.relation[k] |= Auto
		}
	}

	// Node edges from the relations.
	edges := make(map[[2]int32]Label, len(b.relation)*2)
	for k, l := range b.relation {
		s, t := k[0], k[1]
		if l&Contain != 0 {
			// admissible(s) -> admissible(t), completed(t) -> completed(s)
			edges[[2]int32{s, t}] |= Contain
			edges[[2]int32{g.completed[t], g.completed[s]}] |= Contain
		}
		if rest := l &^ Contain; rest != 0 {
			edges[[2]int32{g.completed[s], t}] |= rest
		}
		g.Relations = append(g.Relations, Relation{c.Resources[s], c.Resources[t], l})
	}
	for i, r := range c.Resources {
		if isContainer[i] {
			edges[[2]int32{int32(r.ID), g.completed[i]}] |= Contain
		}
	}
	slices.SortFunc(g.Relations, func(a, b Relation) int {
		if c := cmp.Compare(a.Source.ID, b.Source.ID); c != 0 {
			return c
		}
		return cmp.Compare(a.Target.ID, b.Target.ID)
	})
	g.compress(edges)
	sort.Strings(g.Warnings)
	g.orderReach = make([][]uint64, g.nodes)
	g.notifyReach = make([][]uint64, g.nodes)
	return g, g.checkCycles()
}

// explicit adds the before/require/notify/subscribe relations of r.
func (b *builder) explicit(r *Resource) {
	for _, p := range relationParams {
		v, ok := r.Params[p.name]
		if !ok || v == nil {
			continue
		}
		b.refs(r, p.name, v, func(t *Resource) {
			s, d := r, t
			if p.reverse {
				s, d = t, r
			}
			b.relation[[2]int32{int32(s.ID), int32(d.ID)}] |= p.label
		})
	}
}

// refs resolves a relationship value: a reference string, an array, or
// nested arrays of them. Anything else, and unknown references, are warnings.
func (b *builder) refs(r *Resource, param string, v any, each func(*Resource)) {
	switch v := v.(type) {
	case string:
		t, ok := b.c.Lookup(v)
		if !ok {
			b.g.Warnings = append(b.g.Warnings, fmt.Sprintf("%s: %s %q: unknown resource", r.Ref(), param, v))
			return
		}
		each(t)
	case []any:
		for _, e := range v {
			b.refs(r, param, e, each)
		}
	default:
		b.g.Warnings = append(b.g.Warnings, fmt.Sprintf("%s: %s: %T value is not a reference", r.Ref(), param, v))
	}
}

// compress turns the edge set into sorted compressed rows, so that the
// adjacency does not depend on map order. An edge u -> v sorts as the
// number u<<32 | v.
func (g *Graph) compress(edges map[[2]int32]Label) {
	keys := make([]uint64, 0, len(edges))
	for k := range edges {
		keys = append(keys, uint64(k[0])<<32|uint64(k[1]))
	}
	slices.Sort(keys)
	g.off = make([]int32, g.nodes+1)
	g.dst = make([]int32, len(keys))
	g.lab = make([]Label, len(keys))
	for i, k := range keys {
		u, v := int32(k>>32), int32(uint32(k))
		g.off[u+1]++
		g.dst[i] = v
		g.lab[i] = edges[[2]int32{u, v}]
	}
	for u := 0; u < g.nodes; u++ {
		g.off[u+1] += g.off[u]
	}
}

// checkCycles reports a dependency cycle as a *CycleError. Kahn's
// algorithm on the int adjacency first peels off every node that is on no
// cycle (linear time); only the remaining nodes, if any, go into a
// dominikbraun/graph graph whose strongly connected components give the
// cycle. Building the library graph for all 10k nodes would cost more than
// the rest of the graph construction together (see BenchmarkGraph).
func (g *Graph) checkCycles() error {
	indeg := make([]int32, g.nodes)
	for _, v := range g.dst {
		indeg[v]++
	}
	queue := make([]int32, 0, g.nodes)
	for u := range indeg {
		if indeg[u] == 0 {
			queue = append(queue, int32(u))
		}
	}
	for i := 0; i < len(queue); i++ {
		u := queue[i]
		for _, v := range g.dst[g.off[u]:g.off[u+1]] {
			if indeg[v]--; indeg[v] == 0 {
				queue = append(queue, v)
			}
		}
	}
	if len(queue) == g.nodes {
		return nil
	}
	return g.cycleError(indeg)
}

// cycleError finds the cycle among the nodes Kahn's algorithm left (those
// with indeg > 0) and reports its first strongly connected component with
// more than one node, or else a node with an edge to itself.
//
// Vertices are node+1: the library's Tarjan search (v0.23.0) ends a
// component when it pops the zero value of the hash type, so a vertex 0
// would corrupt the components.
func (g *Graph) cycleError(indeg []int32) error {
	left := func(u int32) bool { return indeg[u] > 0 }
	dg := graph.New(graph.IntHash, graph.Directed())
	for u := 0; u < g.nodes; u++ {
		if left(int32(u)) {
			if err := dg.AddVertex(u + 1); err != nil {
				return fmt.Errorf("catalog: graph: %w", err)
			}
		}
	}
	selfLoop := -1
	for u := 0; u < g.nodes; u++ {
		if !left(int32(u)) {
			continue
		}
		for _, v := range g.dst[g.off[u]:g.off[u+1]] {
			switch {
			case int(v) == u:
				if selfLoop < 0 {
					selfLoop = u
				}
			case left(v):
				if err := dg.AddEdge(u+1, int(v)+1); err != nil {
					return fmt.Errorf("catalog: graph: %w", err)
				}
			}
		}
	}
	sccs, err := graph.StronglyConnectedComponents(dg)
	if err != nil {
		return fmt.Errorf("catalog: graph: %w", err)
	}
	// Choose the component with the smallest node so that the error is the
	// same on every run.
	var cycle []int
	for _, comp := range sccs {
		if len(comp) < 2 {
			continue
		}
		nodes := make([]int, len(comp))
		for i, v := range comp {
			nodes[i] = v - 1
		}
		sort.Ints(nodes)
		if cycle == nil || nodes[0] < cycle[0] {
			cycle = nodes
		}
	}
	switch {
	case cycle != nil:
		return &CycleError{Cycle: g.cycleThrough(cycle)}
	case selfLoop >= 0:
		r := g.cat.Resources[g.owner[selfLoop]]
		return &CycleError{Cycle: []*Resource{r, r}}
	}
	return fmt.Errorf("catalog: graph: a cycle was detected but not found")
}

// cycleThrough finds one cycle inside a strongly connected component by a
// breadth-first search from its smallest node back to itself, and returns
// its resources in edge order (whits shown as their container, repeats
// collapsed), from the one first in the catalog, that one repeated at the
// end.
func (g *Graph) cycleThrough(comp []int) []*Resource {
	in := make(map[int32]bool, len(comp))
	for _, u := range comp {
		in[int32(u)] = true
	}
	start := int32(comp[0])
	parent := map[int32]int32{}
	queue := []int32{start}
	last := int32(-1)
search:
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range g.dst[g.off[u]:g.off[u+1]] {
			if v == start {
				last = u
				break search
			}
			if _, seen := parent[v]; !seen && in[v] {
				parent[v] = u
				queue = append(queue, v)
			}
		}
	}
	var nodes []int32
	for u := last; u >= 0 && u != start; u = parent[u] {
		nodes = append(nodes, u)
	}
	nodes = append(nodes, start)
	var out []*Resource
	for i := len(nodes) - 1; i >= 0; i-- {
		r := g.cat.Resources[g.owner[nodes[i]]]
		if len(out) == 0 || out[len(out)-1] != r {
			out = append(out, r)
		}
	}
	if len(out) > 1 && out[len(out)-1] == out[0] {
		out = out[:len(out)-1]
	}
	// Start at the resource first in the catalog, so that the message does
	// not depend on how whits are numbered.
	first := 0
	for i, r := range out {
		if r.ID < out[first].ID {
			first = i
		}
	}
	out = slices.Concat(out[first:], out[:first])
	return append(out, out[0])
}

// owns reports whether r is a resource of this graph's catalog.
func (g *Graph) owns(r *Resource) bool {
	return r != nil && r.ID >= 0 && r.ID < len(g.cat.Resources) && g.cat.Resources[r.ID] == r
}

// IsContainer reports whether r contains other resources (a stage, class or
// defined-type instance with containment edges): Puppet replaces it by its
// admissible and completed whits.
func (g *Graph) IsContainer(r *Resource) bool {
	return g.owns(r) && g.completed[r.ID] != int32(r.ID)
}

// Catalog returns the catalog the graph was built from.
func (g *Graph) Catalog() *Catalog { return g.cat }

// Ordered reports whether some path leads from a to b through edges of any
// kind: Puppet finishes a before it starts b. For a container, a path
// leaves from its completed whit and enters at its admissible whit.
func (g *Graph) Ordered(a, b *Resource) bool {
	if !g.owns(a) || !g.owns(b) || a == b {
		return false
	}
	return g.reaches(g.completed[a.ID], int32(b.ID), false)
}

// Notifies reports whether a path leads from a to b whose every hop is a
// notify edge or a containment hop: a change of a sends a refresh event to b
// (through the whits of the containers between them).
func (g *Graph) Notifies(a, b *Resource) bool {
	if !g.owns(a) || !g.owns(b) || a == b {
		return false
	}
	return g.reaches(g.completed[a.ID], int32(b.ID), true)
}

// Notifiers returns the resources of the catalog that notify r (Notifies),
// in catalog order; containers (classes, defined-type instances) included.
func (g *Graph) Notifiers(r *Resource) []*Resource {
	var out []*Resource
	if !g.owns(r) {
		return nil
	}
	for _, n := range g.cat.Resources {
		if n != r && g.Notifies(n, r) {
			out = append(out, n)
		}
	}
	return out
}

func (g *Graph) reaches(s, t int32, notifyOnly bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	memo := g.orderReach
	if notifyOnly {
		memo = g.notifyReach
	}
	set := memo[s]
	if set == nil {
		set = g.search(s, notifyOnly)
		memo[s] = set
	}
	return set[t>>6]&(1<<(uint(t)&63)) != 0
}

// search is a breadth-first search from s; it returns the set of nodes
// reachable by at least one edge.
func (g *Graph) search(s int32, notifyOnly bool) []uint64 {
	set := make([]uint64, (g.nodes+63)/64)
	queue := []int32{s}
	for len(queue) > 0 {
		u := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for i := g.off[u]; i < g.off[u+1]; i++ {
			if notifyOnly && g.lab[i]&(Notify|Contain) == 0 {
				continue
			}
			v := g.dst[i]
			if set[v>>6]&(1<<(uint(v)&63)) == 0 {
				set[v>>6] |= 1 << (uint(v) & 63)
				queue = append(queue, v)
			}
		}
	}
	return set
}
