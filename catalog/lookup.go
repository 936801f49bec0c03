package catalog

import (
	"fmt"
	"sort"
	"strings"
)

// namevars maps a core type (lower case) to its namevar parameter: the
// parameter that, when it differs from the title, Puppet registers as an
// alias of the resource so that references may use it. One row per type.
//
// Exec is deliberately absent: Puppet's exec type is not isomorphic
// (lib/puppet/type/exec.rb sets @isomorphic = false), so Exec['<command>']
// does not resolve to an exec titled otherwise.
var namevars = map[string]string{
	"augeas":             "name",
	"computer":           "name",
	"cron":               "name",
	"file":               "path",
	"filebucket":         "name",
	"group":              "name",
	"host":               "name",
	"k5login":            "path",
	"macauthorization":   "name",
	"mailalias":          "name",
	"maillist":           "name",
	"mcx":                "name",
	"mount":              "name",
	"notify":             "name",
	"package":            "name",
	"resources":          "name",
	"schedule":           "name",
	"scheduled_task":     "name",
	"selboolean":         "name",
	"selmodule":          "name",
	"service":            "name",
	"ssh_authorized_key": "name",
	"sshkey":             "name",
	"stage":              "name",
	"tidy":               "path",
	"user":               "name",
	"yumrepo":            "name",
	"zfs":                "name",
	"zone":               "name",
	"zpool":              "pool",
}

// namevarParam returns the namevar parameter of a lower-case type name, or "".
func namevarParam(lowerType string) string { return namevars[lowerType] }

// lookupKey builds the index key of (type, title): the type in lower case
// without a leading "::", then the title normalised as Puppet compares it:
// class titles in lower case without a leading "::", File titles without
// trailing slashes.
func lookupKey(typ, title string) string {
	t := strings.ToLower(strings.TrimPrefix(typ, "::"))
	switch t {
	case "class":
		title = strings.ToLower(strings.TrimPrefix(title, "::"))
	case "file", "tidy":
		title = cleanFilePath(title)
	}
	return t + "\x00" + title
}

// cleanFilePath removes trailing slashes ("/etc/x/" is "/etc/x") but keeps
// the root "/".
func cleanFilePath(p string) string {
	for len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	return p
}

// How a key reached a resource. A title beats a namevar, which beats an
// alias, so that the index does not depend on the order of resources.
type keyKind int

const (
	byTitle keyKind = iota
	byNamevar
	byAlias
)

func (k keyKind) String() string {
	return [...]string{"title", "namevar", "alias"}[k]
}

type indexEntry struct {
	res  *Resource
	kind keyKind
}

// buildIndex fills c.index with every resource's title, namevar and aliases.
func (c *Catalog) buildIndex() {
	c.index = make(map[string]indexEntry, len(c.Resources)*2)
	var conflicts []string
	add := func(r *Resource, kind keyKind, title string) {
		key := lookupKey(r.Type, title)
		old, exists := c.index[key]
		if !exists {
			c.index[key] = indexEntry{r, kind}
			return
		}
		if old.res == r {
			if kind < old.kind {
				c.index[key] = indexEntry{r, kind}
			}
			return
		}
		// Two resources claim the same key: keep the stronger kind, then
		// the smaller reference, whatever the file order.
		if kind < old.kind || kind == old.kind && r.Ref() < old.res.Ref() {
			c.index[key] = indexEntry{r, kind}
		}
		conflicts = append(conflicts, fmt.Sprintf("%s[%s] names both %s (%s) and %s (%s)",
			r.Type, title, old.res.Ref(), old.kind, r.Ref(), kind))
	}
	for _, r := range c.Resources {
		add(r, byTitle, r.Title)
	}
	for _, r := range c.Resources {
		if p := namevarParam(strings.ToLower(r.Type)); p != "" {
			if s, ok := r.StringParam(p); ok && s != "" {
				add(r, byNamevar, s)
			}
		}
		for _, a := range stringList(r.Params["alias"]) {
			if a != "" {
				add(r, byAlias, a)
			}
		}
	}
	sort.Strings(conflicts)
	for _, s := range conflicts {
		c.Warnings = append(c.Warnings, "ambiguous reference "+s)
	}
}

// stringList returns the strings of a parameter that is a string or a
// (nested) array of strings; other values are ignored.
func stringList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, stringList(e)...)
		}
		return out
	}
	return nil
}

// Lookup finds the resource a reference names, by title, namevar or alias.
// Type names compare case-insensitively, class titles too, and File paths
// compare without trailing slashes.
func (c *Catalog) Lookup(ref string) (*Resource, bool) {
	r, err := ParseRef(ref)
	if err != nil {
		return nil, false
	}
	return c.lookup(r.Type, r.Title)
}

func (c *Catalog) lookup(typ, title string) (*Resource, bool) {
	if c.index == nil {
		return nil, false
	}
	e, ok := c.index[lookupKey(typ, title)]
	return e.res, ok
}

// UnitService returns the Service that manages the systemd unit unit
// ("foo.service"): the one whose title, name or alias is the unit, with or
// without its ".service" suffix (Puppet's systemd provider accepts both).
func (c *Catalog) UnitService(unit string) (*Resource, bool) {
	if r, ok := c.lookup(TypeService, unit); ok {
		return r, true
	}
	if base, ok := strings.CutSuffix(unit, ".service"); ok && base != "" {
		return c.lookup(TypeService, base)
	}
	return nil, false
}
