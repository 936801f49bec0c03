package detector

import (
	"cmp"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// GroupBy says which resource the findings of a Group share.
type GroupBy uint8

const (
	// ByProducer: one producer, many consumers.
	ByProducer GroupBy = iota
	// ByConsumer: one consumer, many producers.
	ByConsumer
)

func (b GroupBy) String() string {
	if b == ByConsumer {
		return "consumer"
	}
	return "producer"
}

// Group is findings that one mistake makes ("one mistake, one item"): one
// producer that conflicts with many consumers, or one consumer with many
// producers, for the same reason. The reports show a group as one item
// (text, SARIF); JSON keeps every finding and lists the groups.
//
// Findings are in one group when they have the same kind, held-back
// state, confidence and confirmation verdict, and either the same producer
// and the same paths with the same relation on each, or the same consumer
// and the same paths. Waived paths do not count; waived findings and
// findings whose paths go both ways are never grouped. A group has two
// members or more.
type Group struct {
	By         GroupBy
	Kind       Kind
	HeldBack   bool
	Confidence Confidence
	// Resource is the shared producer (ByProducer) or consumer.
	Resource *catalog.Resource
	// Paths are the members' paths (waived ones left out), sorted.
	Paths []string
	// Members index the findings, in their order.
	Members []int
}

// groupKey is what the findings of a group have in common; res is the
// shared resource, paths the paths with their relations.
type groupKey struct {
	by         GroupBy
	kind       Kind
	held       bool
	confidence Confidence
	verdict    Verdict
	res        *catalog.Resource
	paths      string
}

// keyOf is f's key for a group by, and false when f is never grouped.
func keyOf(f *Finding, by GroupBy) (groupKey, bool) {
	if f.Waived || f.BothWays || f.Kind == NI { // each NI has its own fix
		return groupKey{}, false
	}
	k := groupKey{by: by, kind: f.Kind, held: f.HeldBack, confidence: f.Confidence, res: f.Producer}
	if by == ByConsumer {
		k.res = f.Consumer
	}
	if f.Confirmation != nil {
		k.verdict = f.Confirmation.Verdict
	}
	var b strings.Builder
	for _, pc := range f.Paths {
		if !pc.Waived {
			b.WriteString(pc.Path)
			b.WriteByte(0)
			b.WriteString(pc.Relation.String())
			b.WriteByte(0)
		}
	}
	if b.Len() == 0 {
		return groupKey{}, false
	}
	k.paths = b.String()
	return k, true
}

// GroupFindings returns the groups of fs, ordered by their first member. A
// finding that could join a group by producer and one by consumer joins
// the one by producer; a finding is in one group at most.
func GroupFindings(fs []Finding) []Group {
	in := make([]bool, len(fs))
	var groups []Group
	for _, by := range []GroupBy{ByProducer, ByConsumer} {
		members := map[groupKey][]int{}
		var order []groupKey
		for i := range fs {
			if in[i] {
				continue
			}
			if k, ok := keyOf(&fs[i], by); ok {
				if members[k] == nil {
					order = append(order, k)
				}
				members[k] = append(members[k], i)
			}
		}
		for _, k := range order {
			m := members[k]
			if len(m) < 2 {
				continue
			}
			g := Group{By: by, Kind: k.kind, HeldBack: k.held, Confidence: k.confidence, Resource: k.res, Members: m}
			for _, pc := range fs[m[0]].Paths {
				if !pc.Waived {
					g.Paths = append(g.Paths, pc.Path)
				}
			}
			for _, i := range m {
				in[i] = true
			}
			groups = append(groups, g)
		}
	}
	// Producer groups were made first: order all by first member.
	slices.SortFunc(groups, func(x, y Group) int { return cmp.Compare(x.Members[0], y.Members[0]) })
	return groups
}

// Others are the members' resources that the group does not share: the
// consumers of a group by producer, the producers of one by consumer.
func (g *Group) Others(fs []Finding) []*catalog.Resource {
	out := make([]*catalog.Resource, 0, len(g.Members))
	for _, m := range g.Members {
		out = append(out, g.other(&fs[m]))
	}
	return out
}

// other is f's resource that the group does not share.
func (g *Group) other(f *Finding) *catalog.Resource {
	if g.By == ByConsumer {
		return f.Producer
	}
	return f.Consumer
}

// Fix is the one change that removes every finding of the group, made on
// the shared resource, in manifest syntax: the producer ordered before (or
// notifying) each consumer, or the consumer requiring (or subscribing to)
// each producer.
func (g *Group) Fix(fs []Finding) string {
	refs := make([]string, 0, len(g.Members))
	for _, r := range g.Others(fs) {
		refs = append(refs, PuppetRef(r))
	}
	list := "[" + strings.Join(refs, ", ") + "]"
	r := PuppetRef(g.Resource)
	at := location(g.Resource, " (", ")")
	var fix string
	switch {
	case g.By == ByProducer && g.Kind == MN:
		fix = r + " must notify each of them: add notify => " + list + " to " + r + at + ", or " + r + " ~> " + list
	case g.By == ByProducer:
		fix = r + " must come before each of them: add before => " + list + " to " + r + at + ", or " + r + " -> " + list
	case g.Kind == MN:
		fix = r + " must be notified by each of them: add subscribe => " + list + " to " + r + at + ", or " + list + " ~> " + r
	default:
		fix = r + " requires each of them: add require => " + list + " to " + r + at + ", or " + list + " -> " + r
	}
	// suggestFix's reversed case: a member whose producer is ordered after
	// its service now needs that ordering removed first.
	for _, m := range g.Members {
		if fs[m].Reversed {
			fix += "; some of them are ordered the other way now: remove those orderings first, or Puppet reports a dependency cycle (each finding's own fix says which)"
			break
		}
	}
	if slices.ContainsFunc(g.Members, func(m int) bool { return changesUnitFile(&fs[m]) }) {
		fix += unitFileNote
	}
	return fix
}
