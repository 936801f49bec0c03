// Package runner performs one traced "puppet apply" of a module in a fresh
// container (docs/DESIGN.md, "fsmove run, from the command line down"): it
// parses what to run, writes the entry manifest, puts the modules in place,
// runs Puppet under the tracer, and copies the artifacts out before anyone
// analyzes them.
package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SourceKind says where a module comes from.
type SourceKind string

const (
	SourceDir   SourceKind = "dir"   // a module directory on this machine
	SourceDeb   SourceKind = "deb"   // a Debian package puppet-module-[AUTHOR-]NAME
	SourceForge SourceKind = "forge" // AUTHOR-NAME[@VERSION] from the Puppet Forge
	// SourceNone: no module under test; the run applies --manifest or -e
	// code, with the --modulepath modules available (NoModuleSpec).
	SourceNone SourceKind = "none"
)

// ModuleSpec is the module argument of fsmove run.
type ModuleSpec struct {
	// Raw is the module argument as given; for kind none, what was given
	// instead ("--manifest FILE" or "-e").
	Raw  string     `json:"spec"`
	Kind SourceKind `json:"kind"`
	// Name is the module's short name (the part Puppet autoloads by):
	// "stdlib" for puppetlabs-stdlib. For a Debian package it is first
	// guessed from the package's name and then corrected to the directory
	// the package installed. For kind none it only names the run (the
	// manifest file's base name, or "manifest" for -e).
	Name string `json:"name"`
	// Author is known for forge specs, for deb specs whose package name
	// has one, and for directories whose metadata.json says it.
	Author string `json:"author,omitempty"`
	// Dir is the absolute module directory (SourceDir).
	Dir string `json:"dir,omitempty"`
	// Package is the Debian package (SourceDeb).
	Package string `json:"package,omitempty"`
	// Version is the Forge version asked for (SourceForge), "" for the latest.
	Version string `json:"version,omitempty"`
}

// debPrefix marks a Debian package spec; Debian names its Puppet modules
// puppet-module-AUTHOR-NAME, or puppet-module-NAME (OpenStack's modules).
const (
	debPrefix       = "deb:"
	debModulePrefix = "puppet-module-"
)

// ParseModuleSpec reads the module argument: "deb:puppet-module-[AUTHOR-]NAME",
// a directory, or a Forge name "AUTHOR-NAME[@VERSION]" (also AUTHOR/NAME).
// An existing directory wins over a Forge name of the same spelling.
func ParseModuleSpec(s string) (ModuleSpec, error) {
	if s == "" {
		return ModuleSpec{}, errors.New("no module given")
	}
	if pkg, ok := strings.CutPrefix(s, debPrefix); ok {
		return parseDebSpec(s, pkg)
	}
	if info, err := os.Stat(s); err == nil && info.IsDir() {
		return parseDirSpec(s)
	}
	if looksLikePath(s) {
		return ModuleSpec{}, fmt.Errorf("module directory %s not found (give a directory containing manifests/init.pp, deb:puppet-module-[AUTHOR-]NAME, or AUTHOR-NAME[@VERSION])", s)
	}
	return parseForgeSpec(s)
}

// looksLikePath reports whether s can only mean a file system path.
func looksLikePath(s string) bool {
	return strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") ||
		strings.Count(s, "/") > 1 || strings.HasSuffix(s, "/")
}

// parseDebSpec reads deb:puppet-module-[AUTHOR-]NAME. Module names have no
// '-' and authors may, so the name is guessed to follow the last '-'
// ("puppet-module-puppetlabs-stdlib": stdlib; "puppet-module-nova": nova).
// The guess can be wrong ("puppet-module-heini-wait-for" installs
// wait_for): after installing the package, the run takes the module
// directory the package actually installed (InstalledModule).
func parseDebSpec(raw, pkg string) (ModuleSpec, error) {
	rest, ok := strings.CutPrefix(pkg, debModulePrefix)
	if !ok {
		return ModuleSpec{}, fmt.Errorf("%s: Debian module packages are named puppet-module-[AUTHOR-]NAME (apt-cache search --names-only '^puppet-module-' lists them)", raw)
	}
	author, name := "", rest
	if i := strings.LastIndexByte(rest, '-'); i >= 0 {
		author, name = rest[:i], rest[i+1:]
	}
	if rest == "" || name == "" || (author == "" && name != rest) {
		return ModuleSpec{}, fmt.Errorf("%s: expected puppet-module-NAME or puppet-module-AUTHOR-NAME", raw)
	}
	if err := checkModuleName(name); err != nil {
		return ModuleSpec{}, fmt.Errorf("%s: %w", raw, err)
	}
	return ModuleSpec{Raw: raw, Kind: SourceDeb, Name: name, Author: author, Package: pkg}, nil
}

// InstalledModule picks the module a Debian package installed. dpkgList is
// the output of "dpkg -L PKG"; links lists the entries of
// /usr/share/puppet/modules as "NAME<tab>RESOLVED-PATH" lines (readlink
// -f). A package's module is an entry that the package installed itself,
// or one that resolves to a path the package installed: Debian puts most
// modules in /usr/share/puppet/modules.available/AUTHOR-NAME and links
// them into /usr/share/puppet/modules with update-alternatives. With
// several, the one named as spec guessed, else the one the package's name
// ends with (dashes for underscores), else the first. When the package's
// files show none, the guessed name is kept if it is an entry (as before
// dpkg was asked). ok is false when the package installed no module.
func InstalledModule(spec ModuleSpec, dpkgList, links string) (name string, ok bool) {
	owned := map[string]bool{}
	var dirs []string
	seen := map[string]bool{}
	add := func(dir string) {
		if dir != "" && !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	for _, line := range strings.Split(dpkgList, "\n") {
		line = strings.TrimSpace(line)
		owned[line] = true
		if rel, found := strings.CutPrefix(line, debianModules+"/"); found {
			dir, _, _ := strings.Cut(rel, "/")
			add(dir)
		}
	}
	entries := map[string]bool{}
	for _, line := range strings.Split(links, "\n") {
		entry, target, _ := strings.Cut(strings.TrimSpace(line), "\t")
		entries[entry] = true
		if entry != "" && owned[target] {
			add(entry)
		}
	}
	if len(dirs) == 0 {
		return spec.Name, entries[spec.Name]
	}
	for _, d := range dirs {
		if d == spec.Name {
			return d, true
		}
	}
	rest := strings.TrimPrefix(spec.Package, debModulePrefix)
	for _, d := range dirs {
		dashed := strings.ReplaceAll(d, "_", "-")
		if rest == dashed || strings.HasSuffix(rest, "-"+dashed) {
			return d, true
		}
	}
	return dirs[0], true
}

// withInstalledName returns spec with the module name the package
// installed, and the author the package's name then has ("" when the
// name is the whole rest of the package's name, or does not end it).
func (m ModuleSpec) withInstalledName(name string) ModuleSpec {
	if name == m.Name {
		return m
	}
	m.Name, m.Author = name, ""
	rest := strings.TrimPrefix(m.Package, debModulePrefix)
	if author, ok := strings.CutSuffix(rest, "-"+strings.ReplaceAll(name, "_", "-")); ok {
		m.Author = author
	}
	return m
}

// NoModuleSpec is the spec of a run without a module argument: it applies
// entry's --manifest file or -e code (one of them is required; --class and
// --param need a module). The name, which names the default output
// directory, is the manifest file's base name without .pp, or "manifest".
func NoModuleSpec(entry Entry) (ModuleSpec, error) {
	switch {
	case entry.Class != "" || len(entry.Params) > 0:
		return ModuleSpec{}, errors.New("--class and --param need a module (a module argument)")
	case entry.Code != "" && entry.Manifest != "":
		return ModuleSpec{}, errors.New("choose one entry: -e or --manifest")
	case entry.Code != "":
		return ModuleSpec{Raw: "-e", Kind: SourceNone, Name: "manifest"}, nil
	case entry.Manifest != "":
		return ModuleSpec{Raw: "--manifest " + entry.Manifest, Kind: SourceNone, Name: manifestRunName(entry.Manifest)}, nil
	}
	return ModuleSpec{}, errors.New("no module given (give a module, or --manifest FILE or -e CODE to apply without one)")
}

// manifestRunName is a manifest file's base name without .pp, with
// anything but letters, digits, '.', '_' and '-' replaced by '_';
// "manifest" when nothing is left.
func manifestRunName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".pp")
	b := []byte(base)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if name := strings.Trim(string(b), "."); name != "" {
		return name
	}
	return "manifest"
}

func parseForgeSpec(raw string) (ModuleSpec, error) {
	full, version, _ := strings.Cut(raw, "@")
	sep := strings.IndexAny(full, "-/")
	if sep <= 0 || sep == len(full)-1 {
		return ModuleSpec{}, fmt.Errorf("%s: not a directory, and not a Forge module AUTHOR-NAME[@VERSION] nor deb:puppet-module-[AUTHOR-]NAME", raw)
	}
	author, name := full[:sep], full[sep+1:]
	if err := checkModuleName(name); err != nil {
		return ModuleSpec{}, fmt.Errorf("%s: %w", raw, err)
	}
	for _, r := range author {
		if !isNameRune(r) {
			return ModuleSpec{}, fmt.Errorf("%s: bad Forge author %q", raw, author)
		}
	}
	if strings.Contains(raw, "@") && version == "" {
		return ModuleSpec{}, fmt.Errorf("%s: empty version after @", raw)
	}
	return ModuleSpec{Raw: raw, Kind: SourceForge, Name: name, Author: author, Version: version}, nil
}

func parseDirSpec(raw string) (ModuleSpec, error) {
	dir, err := filepath.Abs(raw)
	if err != nil {
		return ModuleSpec{}, err
	}
	author, name, err := dirModuleName(dir)
	if err != nil {
		return ModuleSpec{}, fmt.Errorf("module %s: %w", raw, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifests")); err != nil {
		return ModuleSpec{}, fmt.Errorf("module %s has no manifests/ directory: is it a Puppet module?", raw)
	}
	return ModuleSpec{Raw: raw, Kind: SourceDir, Dir: dir, Name: name, Author: author}, nil
}

// dirModuleName is the name Puppet knows the module in dir by: the name in
// its metadata.json, else its directory's name minus an AUTHOR- prefix (as
// in a checkout "puppetlabs-ntp").
func dirModuleName(dir string) (author, name string, err error) {
	author, name, err = metadataName(dir)
	if err != nil {
		return "", "", err
	}
	if name == "" {
		name = filepath.Base(dir)
		if i := strings.LastIndexByte(name, '-'); i >= 0 {
			name = name[i+1:]
		}
	}
	if err := checkModuleName(name); err != nil {
		return "", "", err
	}
	return author, name, nil
}

// metadataName reads the "name" of metadata.json ("author-name" or
// "author/name"). Both are "" when the file does not exist.
func metadataName(dir string) (author, name string, err error) {
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if errors.Is(err, os.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	var meta struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return "", "", fmt.Errorf("%s: %w", filepath.Join(dir, "metadata.json"), err)
	}
	if meta.Name == "" {
		return "", "", nil
	}
	i := strings.LastIndexAny(meta.Name, "-/")
	if i < 0 {
		return "", meta.Name, nil
	}
	return meta.Name[:i], meta.Name[i+1:], nil
}

// checkModuleName applies Puppet's rule for module names: a lower-case
// letter, then lower-case letters, digits and underscores.
func checkModuleName(name string) error {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return fmt.Errorf("bad module name %q: it must start with a lower-case letter", name)
	}
	for _, r := range name {
		if !isNameRune(r) {
			return fmt.Errorf("bad module name %q: only a-z, 0-9 and _ are allowed", name)
		}
	}
	return nil
}

func isNameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_'
}
