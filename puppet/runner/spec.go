// Package runner performs one traced "puppet apply" of a module in a fresh
// container (SPEC "fsmove run"): it parses what to run, writes the entry
// manifest, puts the modules in place, runs Puppet under the tracer, and
// copies the artifacts out before anyone analyzes them.
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
	SourceDeb   SourceKind = "deb"   // a Debian package puppet-module-AUTHOR-NAME
	SourceForge SourceKind = "forge" // AUTHOR-NAME[@VERSION] from the Puppet Forge
)

// ModuleSpec is the module argument of fsmove run.
type ModuleSpec struct {
	Raw  string     `json:"spec"`
	Kind SourceKind `json:"kind"`
	// Name is the module's short name (the part Puppet autoloads by):
	// "stdlib" for puppetlabs-stdlib.
	Name string `json:"name"`
	// Author is known for deb and forge specs, and for directories whose
	// metadata.json says it.
	Author string `json:"author,omitempty"`
	// Dir is the absolute module directory (SourceDir).
	Dir string `json:"dir,omitempty"`
	// Package is the Debian package (SourceDeb).
	Package string `json:"package,omitempty"`
	// Version is the Forge version asked for (SourceForge), "" for the latest.
	Version string `json:"version,omitempty"`
}

// debPrefix marks a Debian package spec; Debian names its Puppet modules
// puppet-module-AUTHOR-NAME.
const (
	debPrefix       = "deb:"
	debModulePrefix = "puppet-module-"
)

// ParseModuleSpec reads the module argument: "deb:puppet-module-AUTHOR-NAME",
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
		return ModuleSpec{}, fmt.Errorf("module directory %s not found (give a directory containing manifests/init.pp, deb:puppet-module-AUTHOR-NAME, or AUTHOR-NAME[@VERSION])", s)
	}
	return parseForgeSpec(s)
}

// looksLikePath reports whether s can only mean a file system path.
func looksLikePath(s string) bool {
	return strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") ||
		strings.Count(s, "/") > 1 || strings.HasSuffix(s, "/")
}

func parseDebSpec(raw, pkg string) (ModuleSpec, error) {
	rest, ok := strings.CutPrefix(pkg, debModulePrefix)
	if !ok {
		return ModuleSpec{}, fmt.Errorf("%s: Debian module packages are named puppet-module-AUTHOR-NAME (apt-cache search --names-only '^puppet-module-' lists them)", raw)
	}
	// Module names have no '-', authors may: the name follows the last '-'.
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 || i == len(rest)-1 {
		return ModuleSpec{}, fmt.Errorf("%s: expected puppet-module-AUTHOR-NAME", raw)
	}
	author, name := rest[:i], rest[i+1:]
	if err := checkModuleName(name); err != nil {
		return ModuleSpec{}, fmt.Errorf("%s: %w", raw, err)
	}
	return ModuleSpec{Raw: raw, Kind: SourceDeb, Name: name, Author: author, Package: pkg}, nil
}

func parseForgeSpec(raw string) (ModuleSpec, error) {
	full, version, _ := strings.Cut(raw, "@")
	sep := strings.IndexAny(full, "-/")
	if sep <= 0 || sep == len(full)-1 {
		return ModuleSpec{}, fmt.Errorf("%s: not a directory, and not a Forge module AUTHOR-NAME[@VERSION] nor deb:puppet-module-AUTHOR-NAME", raw)
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
	spec := ModuleSpec{Raw: raw, Kind: SourceDir, Dir: dir}
	author, name, err := metadataName(dir)
	if err != nil {
		return ModuleSpec{}, err
	}
	if name == "" {
		// No metadata.json: Puppet would know the module by its directory
		// name, minus an AUTHOR- prefix as in a checkout "puppetlabs-ntp".
		name = filepath.Base(dir)
		if i := strings.LastIndexByte(name, '-'); i >= 0 {
			name = name[i+1:]
		}
	}
	if err := checkModuleName(name); err != nil {
		return ModuleSpec{}, fmt.Errorf("module %s: %w", raw, err)
	}
	spec.Name, spec.Author = name, author
	if _, err := os.Stat(filepath.Join(dir, "manifests")); err != nil {
		return ModuleSpec{}, fmt.Errorf("module %s has no manifests/ directory: is it a Puppet module?", raw)
	}
	return spec, nil
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
