package report

import (
	"fmt"
	"slices"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/internal/printable"
)

// The HTML report draws each finding's pair in the catalog's dependency
// graph: its direct predecessors in a column on the left, the producer
// above the consumer in the middle, its direct successors on the right,
// the catalog's edges between them, and the missing edge, dashed, from
// the producer to the consumer. The drawing is SVG laid out here, so the
// page needs no graph library.

// maxNeighbours is how many predecessors (and successors) the drawing
// shows: the ordering edges first, then containment; the others are
// counted.
const maxNeighbours = 4

// Sizes of the drawing, in SVG user units (pixels at 100%).
const (
	svgNodeWidth  = 280
	svgNodeHeight = 30
	svgColumnGap  = 60
	svgRowGap     = 14
	svgPairGap    = 70 // between producer and consumer: room for the missing edge's label
	svgMargin     = 10
	svgLabelChars = 38 // a longer reference is cut, in full in the node's title
)

// neighbours indexes a graph's resource-level edges by resource.
type neighbours struct {
	in, out map[*catalog.Resource][]catalog.Relation
}

func newNeighbours(g *catalog.Graph) *neighbours {
	n := &neighbours{in: map[*catalog.Resource][]catalog.Relation{}, out: map[*catalog.Resource][]catalog.Relation{}}
	for _, rel := range g.Relations {
		n.out[rel.Source] = append(n.out[rel.Source], rel)
		n.in[rel.Target] = append(n.in[rel.Target], rel)
	}
	return n
}

// htmlGraph is a laid-out drawing for the template.
type htmlGraph struct {
	Width, Height int
	Nodes         []svgNode
	Edges         []svgEdge
	Missing       *svgEdge // nil for NI: a fight is no missing edge
	More          string   // "3 more edges not drawn", when some were left out
}

type svgNode struct {
	X, Y, W, H   int
	TextX, TextY int
	Label, Title string
	Class        string // pair, neighbour
}

type svgEdge struct {
	X1, Y1, X2, Y2 int
	// Path is the edge as an SVG path: a straight line, or a curve for
	// an edge between the two resources of the pair.
	Path           string
	Label          string
	LabelX, LabelY int
	Class          string
}

// draw lays out f's pair with its neighbours and the missing edge; an NI
// fight's pair has no missing edge (the two write one path: no ordering
// fixes that).
func (n *neighbours) draw(f *detector.Finding) *htmlGraph {
	pair := []*catalog.Resource{f.Producer, f.Consumer}
	isPair := func(r *catalog.Resource) bool { return r == f.Producer || r == f.Consumer }
	// The edges to draw: into the pair, out of it, and between its two.
	var preds, succs, between []catalog.Relation
	for _, r := range pair {
		for _, rel := range n.in[r] {
			if !isPair(rel.Source) {
				preds = append(preds, rel)
			}
		}
		for _, rel := range n.out[r] {
			if isPair(rel.Target) {
				between = append(between, rel)
			} else {
				succs = append(succs, rel)
			}
		}
	}
	left, leftEdges, leftMore := pickNeighbours(preds, func(rel catalog.Relation) *catalog.Resource { return rel.Source })
	// A resource both before and after the pair is drawn once, on the left.
	succs = slices.DeleteFunc(succs, func(rel catalog.Relation) bool { return slices.Contains(left, rel.Target) })
	right, rightEdges, rightMore := pickNeighbours(succs, func(rel catalog.Relation) *catalog.Resource { return rel.Target })

	g := &htmlGraph{}
	pos := map[*catalog.Resource]*svgNode{}
	colX := []int{svgMargin, svgMargin + svgNodeWidth + svgColumnGap, svgMargin + 2*(svgNodeWidth+svgColumnGap)}
	place := func(r *catalog.Resource, x, y int, class string) {
		label := printable.String(r.Ref())
		node := svgNode{X: x, Y: y, W: svgNodeWidth, H: svgNodeHeight, TextX: x + 8, TextY: y + svgNodeHeight/2 + 4,
			Label: cutLabel(label), Title: label, Class: class}
		g.Nodes = append(g.Nodes, node)
		pos[r] = &g.Nodes[len(g.Nodes)-1]
	}
	// Pointers into g.Nodes must not move: reserve the room first.
	g.Nodes = make([]svgNode, 0, 2+len(left)+len(right))
	column := func(rs []*catalog.Resource) int {
		return len(rs)*svgNodeHeight + max(0, len(rs)-1)*svgRowGap
	}
	pairHeight := 2*svgNodeHeight + svgPairGap
	height := max(pairHeight, column(left), column(right))
	top := func(h int) int { return svgMargin + (height-h)/2 }
	place(f.Producer, colX[1], top(pairHeight), "pair producer")
	place(f.Consumer, colX[1], top(pairHeight)+svgNodeHeight+svgPairGap, "pair consumer")
	for i, r := range left {
		place(r, colX[0], top(column(left))+i*(svgNodeHeight+svgRowGap), "neighbour")
	}
	for i, r := range right {
		place(r, colX[2], top(column(right))+i*(svgNodeHeight+svgRowGap), "neighbour")
	}
	g.Width = colX[2] + svgNodeWidth + svgMargin
	g.Height = height + 2*svgMargin

	for _, rel := range slices.Concat(leftEdges, rightEdges) {
		s, t := pos[rel.Source], pos[rel.Target]
		e := svgEdge{X1: s.X + s.W, Y1: s.Y + s.H/2, X2: t.X, Y2: t.Y + t.H/2}
		e.Label, e.Class = edgeStyle(rel.Label)
		e.Path = fmt.Sprintf("M%d,%d L%d,%d", e.X1, e.Y1, e.X2, e.Y2)
		e.LabelX, e.LabelY = (e.X1+e.X2)/2, (e.Y1+e.Y2)/2-4
		g.Edges = append(g.Edges, e)
	}
	// An edge between the pair (the other way round: a finding has no
	// ordering path producer → consumer) curves out on the right.
	for _, rel := range between {
		s, t := pos[rel.Source], pos[rel.Target]
		x := s.X + s.W - 30
		y1, y2 := s.Y+s.H, t.Y
		if s.Y > t.Y {
			y1, y2 = s.Y, t.Y+t.H
		}
		e := svgEdge{X1: x, Y1: y1, X2: x, Y2: y2}
		e.Label, e.Class = edgeStyle(rel.Label)
		e.Path = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x, y1, x+40, y1, x+40, y2, x, y2)
		e.LabelX, e.LabelY = x+34, (y1+y2)/2+4
		g.Edges = append(g.Edges, e)
	}
	if f.Kind != detector.NI {
		p, c := pos[f.Producer], pos[f.Consumer]
		label := "require"
		if f.Kind == detector.MN {
			label = "notify"
		}
		x := p.X + 60
		g.Missing = &svgEdge{X1: x, Y1: p.Y + p.H, X2: x, Y2: c.Y, Label: label, Class: "missing " + f.Kind.String(),
			LabelX: x + 8, LabelY: (p.Y+p.H+c.Y)/2 + 4}
		g.Missing.Path = fmt.Sprintf("M%d,%d L%d,%d", g.Missing.X1, g.Missing.Y1, g.Missing.X2, g.Missing.Y2)
	}
	if more := leftMore + rightMore; more > 0 {
		g.More = fmt.Sprintf("%d more neighbour(s) not drawn", more)
	}
	return g
}

// edgeStyle is an edge's label and CSS classes: ordering and notify edges
// are labelled; containment and Puppet's automatic edges, which every
// resource has, are only drawn lighter (dotted, thin), so that their
// labels do not crowd the ones that matter.
func edgeStyle(l catalog.Label) (label, class string) {
	class = "edge"
	switch {
	case l&catalog.Notify != 0:
		class += " notify"
	case l&catalog.Before != 0:
		class += " before"
	case l&catalog.Contain != 0:
		return "", class + " contain"
	default:
		return "", class + " auto"
	}
	return l.String(), class
}

// pickNeighbours chooses up to maxNeighbours resources at the other end of
// rels (other gives it), ordering and notify edges before containment and
// Puppet's automatic ones, and returns them, the edges to draw, and how
// many resources were left out.
func pickNeighbours(rels []catalog.Relation, other func(catalog.Relation) *catalog.Resource) ([]*catalog.Resource, []catalog.Relation, int) {
	rank := func(rel catalog.Relation) int {
		if rel.Label&(catalog.Before|catalog.Notify) != 0 {
			return 0
		}
		return 1
	}
	sorted := slices.Clone(rels)
	slices.SortStableFunc(sorted, func(a, b catalog.Relation) int { return rank(a) - rank(b) })
	var chosen []*catalog.Resource
	seen := map[*catalog.Resource]bool{}
	for _, rel := range sorted {
		r := other(rel)
		if !seen[r] {
			seen[r] = true
			chosen = append(chosen, r)
		}
	}
	left := max(0, len(chosen)-maxNeighbours)
	chosen = chosen[:min(len(chosen), maxNeighbours)]
	var edges []catalog.Relation
	for _, rel := range sorted {
		if slices.Contains(chosen, other(rel)) {
			edges = append(edges, rel)
		}
	}
	return chosen, edges, left
}

// cutLabel shortens a reference to what a node has room for.
func cutLabel(s string) string {
	r := []rune(s)
	if len(r) <= svgLabelChars {
		return s
	}
	return string(r[:svgLabelChars-1]) + "…"
}
