package catalog

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// PuppetComparison lists where our graph and the expanded relationship
// graph Puppet wrote (`puppet apply --graph`: expanded_relationships.dot)
// disagree. Edges are written "Source -> Target" for ordering edges and
// "Container -> Child (contain)" for containment.
type PuppetComparison struct {
	Missing []string // in Puppet's graph, not in ours
	Extra   []string // in ours, not in Puppet's graph
	Unknown []string // Puppet's nodes that are not in the catalog (generated at apply time)
}

// agrees reports whether the two graphs have the same edges.
func (pc *PuppetComparison) agrees() bool { return len(pc.Missing) == 0 && len(pc.Extra) == 0 }

// ComparePuppet reads Puppet's expanded relationship graph and compares its
// edges, mapped back from whits to containers, with g's relations. Puppet's
// DOT carries no labels, so before, notify and auto edges all compare as
// ordering edges.
//
// The whit edges map back as Puppet made them
// (Puppet::Graph::RelationshipGraph#replace_containers_with_anchors):
//
//	admissible(X) -> admissible(Y) or Y      X contains Y
//	completed(Y) or Y -> completed(X)        X contains Y (the same edge again)
//	completed(X) or X -> admissible(Y) or Y  X is ordered before Y
//	admissible(X) -> completed(X)            X is empty: no edge
func (g *Graph) ComparePuppet(expanded io.Reader) (*PuppetComparison, error) {
	theirs := map[string]bool{}
	unknown := map[string]bool{}
	resolve := func(name string) (ref string, whit byte, ok bool) {
		whit, name = whitOf(name)
		r, found := g.cat.Lookup(name)
		if !found {
			unknown[name] = true
			return "", whit, false
		}
		return r.Ref(), whit, true
	}
	err := eachDotEdge(expanded, func(from, to string) {
		a, wa, okA := resolve(from)
		b, wb, okB := resolve(to)
		if !okA || !okB {
			return
		}
		switch {
		case puppetOrders(wa, wb):
			theirs[a+" -> "+b] = true
		case wa == 'A' && wb == 'C':
			// An empty container's admissible -> completed.
		case wa == 'A':
			theirs[a+" -> "+b+" (contain)"] = true
		default: // wb == 'C'
			theirs[b+" -> "+a+" (contain)"] = true
		}
	})
	if err != nil {
		return nil, err
	}

	ours := map[string]bool{}
	for _, rel := range g.Relations {
		edge := rel.Source.Ref() + " -> " + rel.Target.Ref()
		if rel.Label&Contain != 0 {
			ours[edge+" (contain)"] = true
		}
		if rel.Label&^Contain != 0 {
			ours[edge] = true
		}
	}
	pc := &PuppetComparison{}
	for e := range theirs {
		if !ours[e] {
			pc.Missing = append(pc.Missing, e)
		}
	}
	for e := range ours {
		if !theirs[e] {
			pc.Extra = append(pc.Extra, e)
		}
	}
	for n := range unknown {
		pc.Unknown = append(pc.Unknown, n)
	}
	sort.Strings(pc.Missing)
	sort.Strings(pc.Extra)
	sort.Strings(pc.Unknown)
	return pc, nil
}

// puppetOrders reports whether an edge of Puppet's expanded graph whose ends
// are whits of kinds wa and wb (see whitOf; 0 for a resource) orders them,
// rather than being containment: the edge does not leave an admissible whit
// and does not enter a completed one (see ComparePuppet).
func puppetOrders(wa, wb byte) bool { return wa != 'A' && wb != 'C' }

// eachDotEdge calls fn with the two node names of every edge of a DOT
// graph as Puppet writes it (one edge a line, attributes on later lines).
func eachDotEdge(r io.Reader, fn func(from, to string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if from, to, ok := dotEdge(sc.Text()); ok {
			fn(from, to)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("catalog: puppet graph: %w", err)
	}
	return nil
}

// dotEdge splits a Puppet DOT edge line `"A" -> "B" [` into its two node
// names (with \" unescaped).
func dotEdge(line string) (from, to string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, `"`) {
		return "", "", false
	}
	from, rest, ok := strings.Cut(line[1:], `" -> "`)
	if !ok {
		return "", "", false
	}
	end := strings.LastIndex(rest, `"`)
	if end < 0 {
		return "", "", false
	}
	unescape := strings.NewReplacer(`\"`, `"`, `\\`, `\`)
	return unescape.Replace(from), unescape.Replace(rest[:end]), true
}

// whitOf recognises Puppet's whit names: "Whit[Admissible_class[Ntp]]"
// is the admissible whit ('A') of Class[Ntp], "Whit[Completed_…]" the
// completed one ('C'); any other name is a resource (0).
func whitOf(name string) (byte, string) {
	w, err := ParseRef(name)
	if err != nil || !w.Is(TypeWhit) {
		return 0, name
	}
	inner := w.Title
	if rest, ok := strings.CutPrefix(inner, "Admissible_"); ok {
		return 'A', rest
	}
	if rest, ok := strings.CutPrefix(inner, "Completed_"); ok {
		return 'C', rest
	}
	return 0, name
}
