package fix

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// Planting a fault is the inverse of Make: where a module writes that one
// resource comes before another, or notifies it, Plant writes the edit that
// takes the relationship away, or keeps the order and drops the
// notification. make bench-recall (bench/recall) measures what fsmove finds
// of the faults planted so (docs/DESIGN.md, "Recall"). The places are
// Puppet's parser's, as for Make's edits.

// Planting is what Plant does to a relationship.
type Planting int

const (
	// Remove takes the relationship away: the pair is left unordered (a
	// missing ordering, or a missing notifier when it notified).
	Remove Planting = iota
	// Weaken keeps the order and drops the notification: notify =>
	// becomes before =>, subscribe => require =>, ~> ->, <~ <- (a missing
	// notifier of a pair still ordered).
	Weaken
)

func (p Planting) String() string {
	if p == Weaken {
		return "weaken"
	}
	return "remove"
}

// Plant returns the edits that plant p where the module writes that first
// comes before then (and notifies it, when notify). It looks, in this
// order, on first's body (before =>, or notify =>), on then's (require =>,
// or subscribe =>), at the chain arrows between their references or
// declarations, and last at a resource default: a body that does not
// write the attribute whose catalog value is the other resource alone
// gets an empty one, which overrides the default (and, to weaken, the
// ordering attribute naming the other resource by its title); an arrow
// from a collector gives such a value too, and is not overridden so (the
// mutant stays ordered). An element written with a variable
// (Package[$name]) is the other resource's when the array has as many
// elements as the catalog's value and the other resource is at its place
// there. The error says why nothing is edited: a relationship made by code
// or a collector, an array the catalog does not match, an arrow inside a
// chain of references, an ordering to weaken.
func Plant(sources map[string]*Source, first, then *catalog.Resource, notify bool, p Planting) ([]Edit, error) {
	if p == Weaken && !notify {
		return nil, fmt.Errorf("%s before %s is an ordering: only a notification is weakened", first.Ref(), then.Ref())
	}
	for f, src := range sources {
		if err := src.Manifest.check(len(src.Text)); err != nil && src.Manifest.Error == "" {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	fd, _ := find(sources, first)
	td, _ := find(sources, then)
	attrs := []struct {
		on           decl
		name, weaker string
		holder       *catalog.Resource
		other        *catalog.Resource
	}{{fd, "before", "", first, then}, {td, "require", "", then, first}}
	if notify {
		attrs[0].name, attrs[0].weaker = "notify", "before"
		attrs[1].name, attrs[1].weaker = "subscribe", "require"
	}
	for _, a := range attrs {
		op, elem, ok := naming(a.on, a.name, a.other, a.holder.StringsParam(a.name))
		if !ok {
			continue
		}
		if p == Weaken {
			c := &conversion{op: op, elem: elem, to: a.weaker}
			return bodyEdits(a.on, sources[a.on.file].Text, nil, []*conversion{c}), nil
		}
		if elem < 0 || len(op.List) == 1 {
			return []Edit{removeAttr(a.on, sources[a.on.file].Text, op)}, nil
		}
		edits := removeElems(a.on.file, sources[a.on.file].Text, op, map[int]bool{elem: true}, nil)
		edits[0].Says = fmt.Sprintf("%s leaves %s => %s on %s (line %d)", op.List[elem].Text, op.Name, op.Value.Text, a.on.ref(), a.on.body.Line)
		return edits, nil
	}
	if e, err := plantArrow(sources, first, then, notify, p); err == nil || !errors.Is(err, errNoArrow) {
		return e, err
	}
	for _, a := range attrs {
		if a.on.body == nil || a.on.body.op(a.name) != nil {
			continue
		}
		if vals := a.holder.StringsParam(a.name); len(vals) == 1 && sameRef(vals[0], a.other) {
			adds := []*addition{{name: a.name, refs: []string{"[]"}}}
			if p == Weaken {
				if a.on.body.op(a.weaker) != nil {
					continue // the order would have to join what the body writes
				}
				adds = append(adds, &addition{name: a.weaker, refs: []string{a.other.Type + "[" + quote(a.other.Title) + "]"}})
			}
			return insert(a.on, sources[a.on.file].Text, adds), nil
		}
	}
	return nil, fmt.Errorf("no %s written between %s and %s in the module's manifests (a relationship made by code, a collector, or a value the catalog does not match)", relation(notify), first.Ref(), then.Ref())
}

func relation(notify bool) string {
	if notify {
		return "notification"
	}
	return "ordering"
}

// naming finds on d's body the attribute name whose value names other:
// its element (-1: the attribute holds one reference). values are the
// catalog's value of the attribute, which tells an element written with a
// variable by its place.
func naming(d decl, name string, other *catalog.Resource, values []string) (*Attribute, int, bool) {
	if d.body == nil {
		return nil, 0, false
	}
	op := d.body.op(name)
	if op == nil || op.Operator != "=>" {
		return nil, 0, false
	}
	elems := op.List
	if elems == nil {
		elems = []Value{op.Value}
	}
	at := -1
	for i, e := range elems {
		if names(e.Text, other) {
			at = i
			break
		}
	}
	if at < 0 && len(elems) == len(values) {
		for i, v := range values {
			if !sameRef(v, other) {
				continue
			}
			if at >= 0 {
				return nil, 0, false // named twice: which element is not told
			}
			at = i
		}
		if at >= 0 {
			if _, _, plain := parseRef(elems[at].Text); plain || !isRef(elems[at].Text) {
				return nil, 0, false // a plain reference to another resource, or no reference
			}
		}
	}
	if at < 0 {
		return nil, 0, false
	}
	if op.List == nil {
		at = -1
	}
	return op, at, true
}

// sameRef reports whether a catalog's reference (Type[title]) is r's.
func sameRef(ref string, r *catalog.Resource) bool {
	typ, title, ok := strings.Cut(strings.TrimSuffix(ref, "]"), "[")
	return ok && strings.EqualFold(strings.TrimPrefix(typ, "::"), r.Type) && title == r.Title
}

// removeAttr takes an attribute out of its body: its line, when it has
// one of its own, else the attribute, its comma and the blanks after them.
func removeAttr(d decl, text []byte, op *Attribute) Edit {
	end, _ := afterComma(text, op.End())
	end += len(blanks(text[end:]))
	says := fmt.Sprintf("%s => %s on %s (line %d) removed", op.Name, op.Value.Text, d.ref(), d.body.Line)
	if startsLine(text, op.Offset) && end < len(text) && text[end] == '\n' {
		return Edit{File: d.file, Start: op.Offset - len(indentOf(text, op.Offset)), End: end + 1, Says: says}
	}
	return Edit{File: d.file, Start: op.Offset, End: end, Says: says}
}

var errNoArrow = errors.New("no arrow")

// plantArrow finds the chain arrow first -> then (then <- first; ~> and
// <~ for a notification) and writes p's edit of it: the operator swapped
// to weaken; to remove, the reference at an end of the chain goes with
// the operator (Package['p'] -> File['x'] -> Service['s'] loses
// "Package['p'] -> " or " -> Service['s']"), a chain of two references
// goes whole, and an operator between two declarations goes alone (what
// is left is two resource expressions, as if written apart). A reference
// inside a chain (a -> b -> c -> d, b -> c) is not removed: what would be
// left is not a statement.
func plantArrow(sources map[string]*Source, first, then *catalog.Resource, notify bool, p Planting) ([]Edit, error) {
	forward, backward, weaker := "->", "<-", ""
	if notify {
		forward, backward = "~>", "<~"
	}
	for _, f := range sortedFiles(sources) {
		src := sources[f]
		m := src.Manifest
		operand := func(v Value, r *catalog.Resource) bool { return names(v.Text, r) || declares(m, v, r) }
		for _, ar := range m.Arrows {
			switch {
			case ar.Operator == forward && operand(ar.Left, first) && operand(ar.Right, then):
				weaker = "->"
			case ar.Operator == backward && operand(ar.Left, then) && operand(ar.Right, first):
				weaker = "<-"
			default:
				continue
			}
			opAt, ok := operatorAt(src.Text, ar)
			if !ok {
				continue
			}
			chain := fmt.Sprintf("the chain %s %s %s (line %d)", ar.Left.Text, ar.Operator, ar.Right.Text, ar.Line)
			if p == Weaken {
				return []Edit{{File: f, Start: opAt, End: opAt + 2, New: weaker, Says: chain + " becomes " + weaker}}, nil
			}
			leftChained, rightChained := false, false
			for _, other := range m.Arrows {
				leftChained = leftChained || other.Right.Span == ar.Left.Span
				rightChained = rightChained || other.Left.Span == ar.Right.Span
			}
			leftDecl, rightDecl := isDeclaration(m, ar.Left), isDeclaration(m, ar.Right)
			says := chain + " removed"
			switch {
			case !leftChained && !rightChained && !leftDecl && !rightDecl:
				start, end := ar.Left.Offset, ar.Right.End()
				if nl := end + len(blanks(src.Text[end:])); startsLine(src.Text, start) && nl < len(src.Text) && src.Text[nl] == '\n' {
					start, end = start-len(indentOf(src.Text, start)), nl+1 // the statement's line
				}
				return []Edit{{File: f, Start: start, End: end, Says: says}}, nil
			case !rightChained && !rightDecl:
				return []Edit{{File: f, Start: ar.Left.End(), End: ar.Right.End(), Says: says}}, nil
			case !leftChained && !leftDecl:
				return []Edit{{File: f, Start: ar.Left.Offset, End: ar.Right.Offset, Says: says}}, nil
			case leftDecl && rightDecl:
				return []Edit{{File: f, Start: opAt, End: opAt + 2, Says: says}}, nil
			}
			return nil, fmt.Errorf("%s links two references inside a longer chain: removing it leaves no statement", chain)
		}
	}
	return nil, errNoArrow
}

// declares reports whether an arrow's operand is a declaration of r
// (file { '/x': } -> service { 's': }).
func declares(m *Manifest, v Value, r *catalog.Resource) bool {
	for _, res := range m.Resources {
		if res.Span != v.Span || !sameType(res.Type, r.Type) {
			continue
		}
		for _, b := range res.Bodies {
			if b.Line == r.Line && (b.Literal == nil || *b.Literal == r.Title) {
				return true
			}
		}
	}
	return false
}

// isDeclaration reports whether an arrow's operand is a resource
// expression.
func isDeclaration(m *Manifest, v Value) bool {
	for _, res := range m.Resources {
		if res.Span == v.Span {
			return true
		}
	}
	return false
}
