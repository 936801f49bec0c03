// Package fix writes the edit that removes a finding from a module's
// manifests: the require, notify (or the chain arrow ~>) a maintainer
// would add, placed where the resource is declared, in the file's own
// style. Where each declaration, attribute and arrow lies comes from
// Puppet's own parser (locate.rb, run in the run's image by Locate), not
// from patterns over the source: a manifest is Puppet's language, and only
// Puppet reads it exactly.
//
// Make turns the findings and the manifests into a Plan of Edits; Apply
// makes them in memory and Diff writes the result as a unified diff.
// docs/DESIGN.md ("fsmove fix") says which edit each case gets and why.
package fix

import (
	"encoding/json"
	"fmt"
)

// Manifests is what the locator printed: one Manifest per file asked.
type Manifests struct {
	Files []Manifest `json:"files"`
}

// Manifest is one manifest file as Puppet's parser saw it.
type Manifest struct {
	Path      string     `json:"path"`
	Resources []Resource `json:"resources"`
	Arrows    []Arrow    `json:"arrows"`
	// Error is Puppet's, when the file did not parse (then nothing else
	// is known of it).
	Error string `json:"error"`
}

// Span is a byte range of a file.
type Span struct {
	Offset int `json:"offset"`
	Length int `json:"length"`
}

// End is the offset just past the span.
func (s Span) End() int { return s.Offset + s.Length }

// Scope is the class, defined type or node a declaration is in; nil at
// the top of a file.
type Scope struct {
	Kind string `json:"kind"` // "class", "define" or "node"
	Name string `json:"name"`
	// Params are the class's or defined type's parameters, by name.
	Params []string `json:"params"`
}

// Resource is one resource expression: type { title: attrs; title: attrs }.
type Resource struct {
	Span
	Type  string `json:"type"` // as written, lower case for a plain name: "file", "apt::source"
	Form  string `json:"form"` // "regular", "virtual" or "exported"
	Scope *Scope `json:"container"`
	// Guards are the branches (of if, unless, case) and lambdas the
	// declaration is in, outermost first: it is declared only where each
	// holds.
	Guards []Guard `json:"guards"`
	Bodies []Body  `json:"bodies"`
}

// Guard is a branch a declaration is in: the if, unless, case or lambda
// at Offset (its line), and which branch ("then", "else", "option N",
// "lambda").
type Guard struct {
	Offset int    `json:"offset"`
	Branch string `json:"branch"`
	Line   int    `json:"line"`
}

// Body is one title and its attributes.
type Body struct {
	Title string `json:"title"` // the title's source text
	// Literal is the title's value when it is one plain string; nil for
	// an array, an interpolated string, a variable.
	Literal   *string `json:"title_literal"`
	TitleSpan Span    `json:"title_span"`
	// TitleVars are the variables the title reads, by name ("title",
	// "apt::dir").
	TitleVars []string    `json:"title_vars"`
	Line      int         `json:"line"` // the title's line, as the catalog gives it
	Ops       []Attribute `json:"ops"`
}

// Attribute is one "name => value" (or "+>") of a body.
type Attribute struct {
	Span
	Name     string `json:"name"`
	Operator string `json:"operator"`
	Value    Value  `json:"value"`
	// List holds the elements when the value is an array literal.
	List []Value `json:"list"`
}

// Value is an expression's span and source text.
type Value struct {
	Span
	Text string `json:"text"`
}

// Arrow is a relationship arrow between two expressions: ->, ~>, <-, <~.
// Left and Right are the operands next to it (in a -> b ~> c, the ~>'s
// left is b).
type Arrow struct {
	Span
	Operator string `json:"operator"`
	Left     Value  `json:"left"`
	Right    Value  `json:"right"`
	Line     int    `json:"line"`
	Scope    *Scope `json:"container"`
}

// check says whether every span m gives lies in a text of n bytes and
// makes sense (ends after it starts; an attribute's name at its start):
// spans come from another process, and an edit must never land outside
// the text or slice it wrongly.
func (m *Manifest) check(n int) error {
	in := func(s Span) bool { return s.Offset >= 0 && s.Length >= 0 && s.End() <= n }
	for _, r := range m.Resources {
		if !in(r.Span) {
			return fmt.Errorf("fix: %s: a resource at %d+%d outside the file's %d bytes", m.Path, r.Offset, r.Length, n)
		}
		for _, b := range r.Bodies {
			if !in(b.TitleSpan) {
				return fmt.Errorf("fix: %s: a title outside the file", m.Path)
			}
			for _, op := range b.Ops {
				if !in(op.Span) || !in(op.Value.Span) || op.Value.Offset < op.Offset || len(op.Name) > op.Length {
					return fmt.Errorf("fix: %s: attribute %s outside the file or its own span", m.Path, op.Name)
				}
				for _, e := range op.List {
					if !in(e.Span) || e.Offset < op.Value.Offset || e.End() > op.Value.End() {
						return fmt.Errorf("fix: %s: an element of %s outside its array", m.Path, op.Name)
					}
				}
			}
		}
	}
	for _, a := range m.Arrows {
		if !in(a.Left.Span) || !in(a.Right.Span) || a.Left.End() > a.Right.Offset {
			return fmt.Errorf("fix: %s: an arrow's operands outside the file or out of order", m.Path)
		}
	}
	return nil
}

// ParseManifests reads the locator's output.
func ParseManifests(data []byte) (*Manifests, error) {
	var m Manifests
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("fix: the locator's output: %w", err)
	}
	return &m, nil
}
