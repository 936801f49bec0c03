package module

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Unknown is a name Puppet did not find when it compiled the catalog: a
// class, a type (defined, resource or data type: Puppet's messages do
// not tell them apart) or a function.
type Unknown struct {
	Kind string // "class", "type" or "function"
	Name string // lower case, without a leading "::": "epel::repo"
}

// unknownPhrases are how Puppet 7 and 8 say that a name is unknown, each
// followed by the name (quoted or not). A longer phrase comes before the
// shorter one it starts with.
var unknownPhrases = []struct {
	phrase, kind string
}{
	{"Could not find declared class ", "class"}, // class { 'x': } (Puppet::Resource)
	{"Could not find class ", "class"},          // include, contain, require
	{"Unknown resource type: ", "type"},         // a resource of an unknown type
	{"Unknown resource type ", "type"},          // the catalog's own check
	{"Invalid resource type ", "type"},          // Puppet::Resource, strict
	{"Resource type not found: ", "type"},       // a type reference: Selinux::Boolean, Stdlib::Absolutepath
	{"Could not find resource type ", "type"},   // the resources type
	{"Unknown function: ", "function"},          // Puppet 4 API call
	{"Unknown function ", "function"},           // 3.x API call
}

// ParseUnknown reads one of Puppet's error lines ("Error: Evaluation
// Error: Error while evaluating a Function Call, Could not find class
// ::epel for node1 (file: …)") for the name it did not find.
func ParseUnknown(line string) (Unknown, bool) {
	for _, p := range unknownPhrases {
		i := strings.Index(line, p.phrase)
		if i < 0 {
			continue
		}
		rest := strings.TrimLeft(line[i+len(p.phrase):], "'\"")
		end := 0
		for end < len(rest) && isNameByte(rest[end]) {
			end++
		}
		name := strings.TrimPrefix(strings.ToLower(rest[:end]), "::")
		if name == "" || strings.HasSuffix(name, ":") {
			return Unknown{}, false
		}
		return Unknown{Kind: p.kind, Name: name}, true
	}
	return Unknown{}, false
}

func isNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == ':'
}

// Module is the module that would provide the name, by Puppet's autoload
// rules: a namespaced name is in the module of its first segment
// (epel::repo in epel); a class or type without namespace is its module's
// main one (epel). A resource type or function of Ruby without namespace
// (selinux_boolean, ensure_packages) says no module; it is taken to be
// from the dependency of res whose name it starts with and "_" follows
// (selinux), the longest, or named as it (concat). "" when none can be
// told.
func (u Unknown) Module(res *Resolution) string {
	if first, _, ok := strings.Cut(u.Name, "::"); ok {
		return first
	}
	if u.Kind == "class" {
		return u.Name
	}
	best := ""
	if res != nil {
		for _, list := range [][]Found{res.Missing, res.TestOnlyMissing, res.Found} {
			for _, f := range list {
				if f.Name == u.Name {
					return f.Name
				}
				if strings.HasPrefix(u.Name, f.Name+"_") && len(f.Name) > len(best) {
					best = f.Name
				}
			}
		}
	}
	return best
}

// Explain says, in one line, which module the unknown name comes from and
// how to give it to fsmove; "" when there is nothing to add to Puppet's
// error (the name is the module's own, or from a module that was found).
// self is the module under test ("" for none), res the run's resolution
// (nil with --no-deps), fixtures whether the module is a directory (whose
// spec/fixtures/modules fsmove reads).
func (u Unknown) Explain(res *Resolution, self string, fixtures bool) string {
	what := u.Kind + " " + u.Name
	mod := u.Module(res)
	if mod == "" {
		var nowhere []string
		if res != nil {
			for _, f := range res.Missing {
				nowhere = append(nowhere, f.Wanted)
			}
		}
		if len(nowhere) == 0 {
			return ""
		}
		return fmt.Sprintf("the catalog needs %s, which no module found has; found nowhere: %s (give them with --modulepath DIR)",
			what, strings.Join(nowhere, ", "))
	}
	if mod == self {
		return "" // the module's own name: a fault of the module, which Puppet's error says
	}
	give := "give --modulepath DIR holding " + mod
	if fixtures {
		give += " (or put it in " + filepath.Join(FixturesDir, mod) + ")"
	}
	if res == nil {
		return fmt.Sprintf("the catalog needs %s from a module %s, which Puppet did not find: %s", what, mod, give)
	}
	for _, f := range res.Found {
		if f.Name == mod {
			return "" // there, at a version without the name: Puppet's error says it
		}
	}
	for _, f := range res.Missing {
		if f.Name == mod {
			return fmt.Sprintf("the catalog needs %s from %s, which was found nowhere: %s", what, f.Wanted, give)
		}
	}
	for _, f := range res.TestOnlyMissing {
		if f.Name == mod {
			return fmt.Sprintf("the catalog needs %s from %s, which only %s lists and was found nowhere: %s",
				what, f.Wanted, strings.TrimPrefix(f.RequiredBy, self+"'s "), give)
		}
	}
	if self == "" { // -e, --manifest: no metadata.json of its own
		return fmt.Sprintf("the catalog needs %s from a module %s, which is not on the module path: %s", what, mod, give)
	}
	return fmt.Sprintf("the catalog needs %s from a module %s that %s's %s does not list: %s", what, mod, self, MetadataFile, give)
}
