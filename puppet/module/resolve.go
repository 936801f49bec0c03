package module

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Source says where a dependency was found, in the order they are tried.
type Source string

const (
	FromModulePath Source = "modulepath" // a --modulepath directory
	FromFixtures   Source = "fixtures"   // the module's spec/fixtures/modules
	FromDebian     Source = "debian"     // a puppet-module-* .deb of the image
)

// FixturesDir is where PDK's "rake spec_prep" puts a module's test
// dependencies, relative to the module.
const FixturesDir = "spec/fixtures/modules"

// Found is one dependency and what satisfies it (run.json's dependencies).
type Found struct {
	Name        string `json:"name"`              // the short name Puppet loads it by
	Wanted      string `json:"wanted"`            // the full name as asked for
	Requirement string `json:"requirement"`       // the version range, "" for any
	RequiredBy  string `json:"required_by"`       // "mymod's metadata.json"
	Source      Source `json:"source,omitempty"`  // "" for one found nowhere
	Dir         string `json:"dir,omitempty"`     // the module's directory on this machine (modulepath, fixtures)
	Package     string `json:"package,omitempty"` // the Debian package (debian)
	Version     string `json:"version,omitempty"` // the version found ("" when the module does not say)
	Warning     string `json:"warning,omitempty"` // a version outside the range, another author
}

// Short is how the progress line names it: "stdlib 8.5.0-1 (debian)".
func (f Found) Short() string {
	s := f.Name
	if f.Version != "" {
		s += " " + f.Version
	}
	return s + " (" + string(f.Source) + ")"
}

// Candidates are where Resolve looks, in this order.
type Candidates struct {
	// ModulePath are the modules of --modulepath by the name Puppet
	// loads them by, each its directory (the first of a name only: Puppet
	// takes the first).
	ModulePath map[string]string
	// FixturesDir is the module's spec/fixtures/modules ("" for none).
	FixturesDir string
	// Debian are the image's module packages (its index); DebianKnown is
	// false when the image has no index (built by an older fsmove).
	Debian      []DebPackage
	DebianKnown bool
	// Image names the image in messages.
	Image string
}

// Resolution is what Resolve found.
type Resolution struct {
	Found []Found `json:"found"`
	// Packages are the Debian packages to install, those they bring in
	// included, sorted.
	Packages []string `json:"packages,omitempty"`
	// Missing are the metadata.json dependencies found nowhere, each with
	// how to give it (Found.Warning). The apply goes on without them:
	// Puppet needs a module only when the code uses it, and a compile
	// error then names what it lacks (Unknown.Explain).
	Missing []Found `json:"missing,omitempty"`
	// TestOnlyMissing counts the dependencies of .fixtures.yml and the
	// Puppetfile found nowhere: the module's unit tests use them, the
	// apply mostly does not, so they are not said (--stats counts them).
	TestOnlyMissing []Found `json:"test_only_missing,omitempty"`
	// Warnings are said, and the run goes on: a version outside its
	// range, a missing metadata.json dependency, a line that cannot be
	// read.
	Warnings []Warning `json:"warnings,omitempty"`
}

// Local returns the dependencies found on this machine in source (the
// modules to copy into the container).
func (r Resolution) Local(source Source) []Found {
	var out []Found
	for _, f := range r.Found {
		if f.Source == source {
			out = append(out, f)
		}
	}
	return out
}

// Summary is the resolution in one line: "stdlib 8.5.0-1 (debian), …".
func (r Resolution) Summary() string {
	if len(r.Found) == 0 {
		return "none"
	}
	parts := make([]string, len(r.Found))
	for i, f := range r.Found {
		parts[i] = f.Short()
	}
	return strings.Join(parts, ", ")
}

// ReadDependencies reads what the module in dir (named self) needs: its
// metadata.json's dependencies, then those of its .fixtures.yml and
// Puppetfile that metadata.json does not name (each file is optional).
// What cannot be read is a warning (an entry skipped, a range taken as
// any version); the error is for a file that cannot be read at all, or a
// metadata.json that is not JSON.
func ReadDependencies(dir, self string) ([]Dependency, []Warning, error) {
	meta, _, err := ReadMetadata(dir)
	if err != nil {
		return nil, nil, err
	}
	var warnings []Warning
	for _, w := range meta.Warnings {
		warnings = append(warnings, warn(MetadataFile+": "+w, ""))
	}
	deps := meta.Dependencies
	seen := map[string]bool{self: true}
	for _, d := range deps {
		seen[d.Name.Name] = true
	}
	for _, f := range []struct {
		file  string
		parse func([]byte) ([]Dependency, []string, error)
	}{
		{FixturesFile, func(b []byte) ([]Dependency, []string, error) { return ParseFixtures(b, self) }},
		{PuppetfileName, func(b []byte) ([]Dependency, []string, error) {
			deps, warnings := ParsePuppetfile(b)
			return deps, warnings, nil
		}},
	} {
		data, err := os.ReadFile(filepath.Join(dir, f.file))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		more, ws, err := f.parse(data)
		if err != nil {
			// A test tool's file: the apply does not need it.
			warnings = append(warnings, warn(f.file+" cannot be read; its modules are not looked for",
				filepath.Join(dir, f.file)+": "+err.Error()))
			continue
		}
		for _, w := range ws {
			warnings = append(warnings, warn(w, ""))
		}
		for _, d := range more {
			if !seen[d.Name.Name] {
				seen[d.Name.Name] = true
				deps = append(deps, d)
			}
		}
	}
	return deps, warnings, nil
}

// Resolve finds each of the module self's dependencies: on the module
// path, in the fixtures directory, or among the image's Debian packages,
// in that order. The dependencies of a module found on this machine are
// read from its metadata.json and resolved too; those of a Debian package
// are Debian's (apt installs them). A version outside the range is a
// warning; a metadata.json dependency found nowhere is a warning and is
// listed in Missing, a test-only one (.fixtures.yml, Puppetfile) only
// counted in TestOnlyMissing. The error is for a module directory that
// cannot be read.
func Resolve(self string, deps []Dependency, c Candidates) (Resolution, error) {
	type need struct {
		dep Dependency
		by  string // "mymod's metadata.json (modulepath)"
		// file is by in a warning's few columns: "metadata.json" for
		// the module's own, "helper's metadata.json" for another's.
		file string
	}
	var queue []need
	for _, d := range deps {
		queue = append(queue, need{d, self + "'s " + d.From, d.From})
	}
	var res Resolution
	found := map[string]int{self: -1} // short name → index in res.Found (-1: the module itself)
	packages := map[string]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		d := n.dep
		if i, ok := found[d.Name.Name]; ok {
			// Already found for another module: only its range is checked.
			if i >= 0 && res.Found[i].Version != "" && !d.Requirement.Allows(res.Found[i].Version) {
				f := res.Found[i]
				res.Warnings = append(res.Warnings, warn(
					fmt.Sprintf("%s wants %s %s; %s has %s (used anyway)", n.file, d.Name.Name, d.Requirement, f.Source, f.Version),
					fmt.Sprintf("%s wants %s %s, but %s is at %s", n.by, d.Name, d.Requirement, f.Source, f.Version)))
			}
			continue
		}
		f, short, ok, err := c.find(d, n.by, n.file)
		if err != nil {
			return Resolution{}, err
		}
		if !ok {
			found[d.Name.Name] = -1 // said once
			f = Found{Name: d.Name.Name, Wanted: d.Name.String(), Requirement: d.Requirement.Raw, RequiredBy: n.by,
				Warning: c.missing(d, n.by)}
			if d.From != MetadataFile {
				res.TestOnlyMissing = append(res.TestOnlyMissing, f)
				continue
			}
			res.Missing = append(res.Missing, f)
			wanted := d.Name.String()
			if d.Requirement.Raw != "" {
				wanted += " " + d.Requirement.Raw
			}
			res.Warnings = append(res.Warnings, warn(fmt.Sprintf("%s (%s) found nowhere; the apply goes on", wanted, n.file), f.Warning))
			continue
		}
		if f.Warning != "" {
			res.Warnings = append(res.Warnings, warn(short, f.Warning))
		}
		found[d.Name.Name] = len(res.Found)
		res.Found = append(res.Found, f)
		if f.Source == FromDebian {
			packages[f.Package] = true
			continue
		}
		meta, _, err := ReadMetadata(f.Dir)
		if err != nil {
			return Resolution{}, err
		}
		file := f.Name + "'s " + MetadataFile
		for _, w := range meta.Warnings {
			res.Warnings = append(res.Warnings, warn(file+": "+w, f.Dir))
		}
		for _, dd := range meta.Dependencies {
			queue = append(queue, need{dd, file + " (" + string(f.Source) + ")", file})
		}
	}
	for p := range packages {
		res.Packages = append(res.Packages, p)
	}
	sort.Strings(res.Packages)
	return res, nil
}

// find looks for d on the module path, in the fixtures, then in Debian.
// When what it finds is not quite what d asks for, f.Warning says so in
// full, and short in a warning line's few columns (file: where d is
// asked for, as short as can be).
func (c Candidates) find(d Dependency, by, file string) (f Found, short string, ok bool, err error) {
	f = Found{Name: d.Name.Name, Wanted: d.Name.String(), Requirement: d.Requirement.Raw, RequiredBy: by}
	wants := fmt.Sprintf("%s wants %s %s; ", file, d.Name.Name, d.Requirement)
	local := func(dir string, source Source) (Found, string, bool, error) {
		meta, hasMeta, err := ReadMetadata(dir)
		if err != nil {
			return Found{}, "", false, err
		}
		f.Source, f.Dir, f.Version = source, dir, meta.Version
		switch {
		case hasMeta && d.Name.Author != "" && meta.Name.Author != "" && !strings.EqualFold(meta.Name.Author, d.Name.Author):
			f.Warning = fmt.Sprintf("%s wants %s; %s %s is %s, another author's module of that name (used all the same)",
				by, d.Name, source, dir, meta.Name)
			short = fmt.Sprintf("%s wants %s; %s has %s (used anyway)", file, d.Name, source, meta.Name)
		case f.Version == "" && d.Requirement.Raw != "":
			f.Warning = fmt.Sprintf("%s wants %s %s; %s %s does not say its version (no version in %s)",
				by, d.Name, d.Requirement, source, dir, MetadataFile)
			short = wants + string(source) + "'s says no version (used anyway)"
		case f.Version != "" && !d.Requirement.Allows(f.Version):
			f.Warning = fmt.Sprintf("%s wants %s %s, but %s %s is at %s (used all the same)",
				by, d.Name, d.Requirement, source, dir, f.Version)
			short = wants + string(source) + " has " + f.Version + " (used anyway)"
		}
		return f, short, true, nil
	}
	if dir, ok := c.ModulePath[d.Name.Name]; ok {
		return local(dir, FromModulePath)
	}
	if dir, ok := c.fixture(d.Name.Name); ok {
		return local(dir, FromFixtures)
	}
	var outside *DebPackage
	for i, p := range c.Debian {
		if !p.provides(d.Name) {
			continue
		}
		if d.Requirement.Allows(p.Version) {
			f.Source, f.Package, f.Version = FromDebian, p.Package, p.Version
			return f, "", true, nil
		}
		if outside == nil {
			outside = &c.Debian[i]
		}
	}
	if outside != nil {
		f.Source, f.Package, f.Version = FromDebian, outside.Package, outside.Version
		f.Warning = fmt.Sprintf("%s wants %s %s, but Debian's %s is at %s (used all the same)",
			by, d.Name, d.Requirement, outside.Package, outside.Version)
		short = wants + "debian has " + outside.Version + " (used anyway)"
		return f, short, true, nil
	}
	return Found{}, "", false, nil
}

// fixture is the module name's directory in the fixtures directory, its
// symbolic link resolved (rake spec_prep links some).
func (c Candidates) fixture(name string) (string, bool) {
	if c.FixturesDir == "" {
		return "", false
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(c.FixturesDir, name))
	if err != nil {
		return "", false
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", false
	}
	return dir, true
}

// provides reports whether the package installs the module n: by its
// short name, and by its author when both say one.
func (p DebPackage) provides(n Name) bool {
	for _, m := range p.Modules {
		if m.Name == n.Name && (n.Author == "" || m.Author == "" || strings.EqualFold(m.Author, n.Author)) {
			return true
		}
	}
	return false
}

// missing says that d was found nowhere, and how to provide it.
func (c Candidates) missing(d Dependency, by string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s) was found nowhere; give --modulepath DIR with a module %s in it", d.Name, d.Requirement, by, d.Name.Name)
	if c.FixturesDir != "" {
		fmt.Fprintf(&b, ", or put it in %s (\"pdk bundle exec rake spec_prep\" does)", filepath.Join(c.FixturesDir, d.Name.Name))
	}
	switch {
	case !c.DebianKnown:
		fmt.Fprintf(&b, "; the image %s has no index of Debian's module packages (built by an older fsmove: fsmove image build --rebuild)", c.Image)
	default:
		var others []string
		for _, p := range c.Debian {
			for _, m := range p.Modules {
				if m.Name == d.Name.Name {
					others = append(others, fmt.Sprintf("%s %s has %s", p.Package, p.Version, m))
				}
			}
		}
		if len(others) > 0 {
			fmt.Fprintf(&b, "; Debian's %s: another author's module of that name", strings.Join(others, ", "))
		} else {
			fmt.Fprintf(&b, "; no Debian package of the image %s has it", c.Image)
		}
	}
	return b.String()
}
