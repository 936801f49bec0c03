package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/puppet/fix"
)

// A relationship is one a module writes between two resources it
// declares, as the catalog gives it: Holder's metaparameter Param names
// Other (a chain arrow is the left resource's before or notify there).
// Before is the resource that must come first; After the one that must
// follow (and be notified, when Notify). Planting is what the mutant does
// to it: remove it, or, for a notification, weaken it to an ordering.
type relationship struct {
	Holder, Other string // references, as the catalog writes them
	Param         string // require, before, notify or subscribe
	File          string // the holder's manifest, relative to the module's root
	Line          int    // the holder's line in it
	Before, After string
	Notify        bool
	Refreshes     bool // a refresh event changes what After does (refreshes)
	Planting      fix.Planting
}

// Kind is the finding the mutant plants: MN for a notification of a
// resource that a refresh changes (removed, or weakened to an ordering),
// MOR for an ordering (a notification of anything else only orders).
func (r relationship) Kind() string {
	if r.Notify && r.Refreshes {
		return "MN"
	}
	return "MOR"
}

// refreshes reports whether a refresh event changes what r does, by
// Puppet's types: a Service restarts, a Mount remounts, an Exec runs its
// command when its checks pass, which tells only when it has one
// (refreshonly, creates, unless, onlyif: an Exec without runs at every
// apply anyway). A notification of anything else only orders.
func refreshes(r *catalog.Resource) bool {
	switch {
	case r.IsService(), r.Is(catalog.TypeMount):
		return true
	case r.Is(catalog.TypeExec):
		for _, p := range []string{"refreshonly", "creates", "unless", "onlyif"} {
			if v, ok := r.Params[p]; ok && v != false && v != "false" {
				return true
			}
		}
	}
	return false
}

func (r relationship) String() string {
	s := fmt.Sprintf("%s %s => %s (%s:%d)", r.Holder, r.Param, r.Other, r.File, r.Line)
	if r.Planting == fix.Weaken {
		s += " weakened"
	}
	return s
}

// relationParams are the metaparameters that order two resources; reverse:
// the named resource comes first.
var relationParams = []struct {
	name    string
	reverse bool
	notify  bool
}{{"before", false, false}, {"notify", false, true}, {"require", true, false}, {"subscribe", true, true}}

// relationships lists the relationships between two resources of the
// catalog c that the module whose manifests are under root (a path as the
// catalog's files write it) declares, each notification of a resource a
// refresh changes twice: removed and weakened. Classes, stages and defined types
// are containers, not resources that touch files: a relationship that
// names one is left out, as is one whose other end the catalog does not
// hold.
func relationships(c *catalog.Catalog, g *catalog.Graph, root string) []relationship {
	var out []relationship
	declared := func(r *catalog.Resource) bool {
		return r.File != "" && strings.HasPrefix(r.File, root+"/") && !r.Is(catalog.TypeClass) && !r.Is(catalog.TypeStage) && !g.IsContainer(r)
	}
	for _, r := range c.Resources {
		if !declared(r) {
			continue
		}
		for _, p := range relationParams {
			for _, ref := range r.StringsParam(p.name) {
				o, ok := c.Lookup(ref)
				if !ok || !declared(o) || o == r {
					continue
				}
				rel := relationship{Holder: r.Ref(), Other: o.Ref(), Param: p.name, File: strings.TrimPrefix(r.File, root+"/"), Line: r.Line,
					Before: r.Ref(), After: o.Ref(), Notify: p.notify, Refreshes: refreshes(o)}
				if p.reverse {
					rel.Before, rel.After, rel.Refreshes = o.Ref(), r.Ref(), refreshes(r)
				}
				out = append(out, rel)
				if rel.Kind() == "MN" {
					// ~> written as ->: the order stays, the restart goes.
					rel.Planting = fix.Weaken
					out = append(out, rel)
				}
			}
		}
	}
	return out
}

// normRef writes a reference as Puppet source may spell it in the
// catalog's form: no quotes or blanks, the type's case folded (Service[
// 'x' ] and service["x"] are Service[x]).
func normRef(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '\'', '"', ' ', '\t':
			continue
		}
		b.WriteRune(c)
	}
	t, title, ok := strings.Cut(b.String(), "[")
	if !ok {
		return strings.ToLower(b.String())
	}
	return strings.ToLower(t) + "[" + title
}

// moduleRootIn is where fsmove run puts a module directory in the
// container, as the catalog's files name it.
func moduleRootIn(name string) string { return filepath.Join("/fsmove/modules", name) }
