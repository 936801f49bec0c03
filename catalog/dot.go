package catalog

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dominikbraun/graph"
	"github.com/dominikbraun/graph/draw"
)

// WriteDOT writes the resource-level graph in Graphviz DOT: one vertex per
// resource (named by its reference), one edge per relation labelled before,
// notify, contain or auto (several labels joined by '|'), and each
// highlighted pair drawn as a red dashed edge (a finding: a relation that
// should exist). Statement order follows dominikbraun/graph's map iteration
// and so varies between calls.
func (g *Graph) WriteDOT(w io.Writer, highlight [][2]*Resource) error {
	dg := graph.New(graph.StringHash, graph.Directed())
	name := func(r *Resource) string { return dotEscape(r.Ref()) }
	for _, r := range g.cat.Resources {
		attrs := map[string]string{"shape": "box"}
		if r.IsService() {
			attrs["shape"] = "ellipse"
		}
		if err := dg.AddVertex(name(r), graph.VertexAttributes(attrs)); err != nil &&
			!errors.Is(err, graph.ErrVertexAlreadyExists) {
			return fmt.Errorf("catalog: dot: %w", err)
		}
	}
	for _, rel := range g.Relations {
		attrs := map[string]string{"label": rel.Label.String()}
		if rel.Label&Notify != 0 {
			attrs["color"] = "blue"
		} else if rel.Label == Contain {
			attrs["color"] = "gray"
		}
		if err := dg.AddEdge(name(rel.Source), name(rel.Target), graph.EdgeAttributes(attrs)); err != nil {
			return fmt.Errorf("catalog: dot: %w", err)
		}
	}
	for _, pair := range highlight {
		a, b := pair[0], pair[1]
		if !g.owns(a) || !g.owns(b) {
			return fmt.Errorf("catalog: dot: highlighted pair is not in this catalog")
		}
		attrs := map[string]string{"color": "red", "style": "dashed", "label": "missing"}
		err := dg.AddEdge(name(a), name(b), graph.EdgeAttributes(attrs))
		if errors.Is(err, graph.ErrEdgeAlreadyExists) {
			err = dg.UpdateEdge(name(a), name(b), graph.EdgeAttributes(attrs))
		}
		if err != nil {
			return fmt.Errorf("catalog: dot: %w", err)
		}
	}
	return draw.DOT(dg, w)
}

// dotEscape makes a reference safe inside the double quotes that
// dominikbraun/graph's template writes around vertex names.
func dotEscape(s string) string {
	if !strings.ContainsAny(s, "\"\\\n\r") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
