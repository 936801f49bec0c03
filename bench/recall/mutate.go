package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// A relationship is one a module writes between two resources it declares,
// as a metaparameter in the declaration of one of them: Holder's Param
// names Other. Before is the resource that must come first; After the one
// that must follow (and be notified, when Notify).
type relationship struct {
	Holder, Other string   // references, as the catalog writes them
	Param         string   // require, before, notify or subscribe
	File          string   // the holder's manifest, relative to the module's root
	Line          int      // the holder's line in it
	Values        []string // the references the catalog gives Param, in order
	Before, After string
	Notify        bool
}

// Kind is the finding the removal of r plants: MN for a notifier, MOR for
// an ordering.
func (r relationship) Kind() string {
	if r.Notify {
		return "MN"
	}
	return "MOR"
}

func (r relationship) String() string {
	return fmt.Sprintf("%s %s => %s (%s:%d)", r.Holder, r.Param, r.Other, r.File, r.Line)
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
// catalog's files write it) declares. Classes, stages and defined types
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
					Values: r.StringsParam(p.name), Before: r.Ref(), After: o.Ref(), Notify: p.notify}
				if p.reverse {
					rel.Before, rel.After = o.Ref(), r.Ref()
				}
				out = append(out, rel)
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

// mutate removes from src (a manifest) the reference to other in the
// metaparameter param of the resource declared at line (1-based): the
// attribute's line when it names only other, else other's element of its
// array (on the attribute's line or on lines of its own). values are the
// references the catalog gives that parameter, in order: an element the
// source writes with a variable (Package[$package]) is other's when the
// source has as many elements as the catalog has values, and other is
// the value at its place. A parameter the body does not write, whose one
// value is other, came from a resource default: an empty value in the
// body overrides it. It looks for the attribute in the
// declaration's body, from line to the first line that closes a body; it
// never guesses: a value it cannot match to the catalog's (a relationship
// also made by a chain arrow, a value built by a function) is an error,
// and the relationship is not planted.
func mutate(src []byte, line int, param, other string, values []string) ([]byte, error) {
	switch param {
	case "require", "before", "notify", "subscribe":
	default:
		return nil, fmt.Errorf("%q is not a relationship metaparameter", param)
	}
	lines := strings.SplitAfter(string(src), "\n")
	if line < 1 || line > len(lines) {
		return nil, fmt.Errorf("line %d outside the file's %d", line, len(lines))
	}
	// at is other's element among elems: by its text, else by its place
	// when the source and the catalog agree on how many there are.
	at := func(elems []string) int {
		if i := slices.IndexFunc(elems, func(e string) bool { return normRef(e) == normRef(other) }); i >= 0 {
			return i
		}
		if len(elems) != len(values) {
			return -1
		}
		k := -1
		for i, v := range values {
			if normRef(v) == normRef(other) {
				if k >= 0 {
					return -1 // named twice: which element is not told
				}
				k = i
			}
		}
		if k >= 0 && isRef(elems[k]) {
			return k
		}
		return -1
	}
	for i := line - 1; i < len(lines); i++ {
		text := strings.TrimSpace(lines[i])
		if i > line-1 && strings.HasPrefix(text, "}") {
			break
		}
		name, value, ok := strings.Cut(text, "=>")
		if !ok || strings.TrimSpace(name) != param {
			continue
		}
		value = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), ","))
		switch {
		case value == "[":
			var elems []string
			var rows []int
			for j := i + 1; j < len(lines); j++ {
				e := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lines[j]), ","))
				if strings.HasPrefix(e, "]") {
					break
				}
				elems, rows = append(elems, e), append(rows, j)
			}
			k := at(elems)
			if k < 0 {
				return nil, fmt.Errorf("manifest:%d: %s's array (%d elements, the catalog's %d) does not name %s", i+1, param, len(elems), len(values), other)
			}
			return join(slices.Delete(lines, rows[k], rows[k]+1)), nil
		case strings.HasPrefix(value, "[") && strings.HasSuffix(value, "]"):
			elems := strings.Split(value[1:len(value)-1], ",")
			if strings.TrimSpace(elems[len(elems)-1]) == "" {
				elems = elems[:len(elems)-1] // a trailing comma
			}
			k := at(elems)
			if k < 0 {
				return nil, fmt.Errorf("manifest:%d: %s => %s (the catalog's %d values) does not name %s", i+1, param, value, len(values), other)
			}
			keep := slices.Delete(slices.Clone(elems), k, k+1)
			if len(keep) == 0 {
				return join(slices.Delete(lines, i, i+1)), nil
			}
			for j := range keep {
				keep[j] = strings.TrimSpace(keep[j])
			}
			indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " \t"))]
			nl := ""
			if strings.HasSuffix(lines[i], "\n") {
				nl = "\n"
			}
			lines[i] = indent + strings.TrimSpace(name) + " => [" + strings.Join(keep, ", ") + "]," + nl
			return join(lines), nil
		case at([]string{value}) == 0:
			return join(slices.Delete(lines, i, i+1)), nil
		default:
			return nil, fmt.Errorf("manifest:%d: %s => %s: not %s as far as this harness can tell (the catalog's values: %d)", i+1, param, value, other, len(values))
		}
	}
	// Not in the body: a resource default (File { require => … }) or a
	// chain arrow gave it. When other is the parameter's one value, an
	// empty one in the body overrides a default; a chain still orders the
	// pair, which the mutant's catalog then shows (still ordered).
	if len(values) == 1 && normRef(values[0]) == normRef(other) && line < len(lines) && strings.HasSuffix(strings.TrimSpace(lines[line-1]), ":") {
		next := lines[line]
		indent := next[:len(next)-len(strings.TrimLeft(next, " \t"))]
		if strings.TrimSpace(next) == "}" || indent == "" {
			indent = "  "
		}
		return join(slices.Insert(lines, line, indent+param+" => [],\n")), nil
	}
	return nil, fmt.Errorf("no %s => in the declaration at line %d (a chain arrow, or a relationship made by code)", param, line)
}

// isRef reports whether a source element is written as one resource
// reference, Type[...], whatever is inside the brackets.
func isRef(e string) bool {
	e = strings.TrimSpace(e)
	open := strings.IndexByte(e, '[')
	if open <= 0 || !strings.HasSuffix(e, "]") || strings.Count(e, "[") != 1 {
		return false
	}
	for _, c := range e[:open] {
		if !(c == ':' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func join(lines []string) []byte { return []byte(strings.Join(lines, "")) }

// moduleRootIn is where fsmove run puts a module directory in the
// container, as the catalog's files name it.
func moduleRootIn(name string) string { return filepath.Join("/fsmove/modules", name) }
