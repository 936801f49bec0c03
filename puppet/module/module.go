// Package module reads what a Puppet module says it depends on (its
// metadata.json, and the .fixtures.yml and Puppetfile that test tools read)
// and finds each dependency: in a directory of modules on this machine or
// among the puppet-module-* packages of the image (Resolve).
package module

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Name is a module's full name: AUTHOR-NAME on the Forge, where Puppet
// autoloads it by NAME alone. Author is "" when a file names the module
// by NAME only (.fixtures.yml's keys, a Puppetfile's git modules).
type Name struct {
	Author string
	Name   string
}

// ParseName reads "author-name", "author/name" or a bare "name".
func ParseName(s string) (Name, error) {
	s = strings.TrimSpace(s)
	var n Name
	if i := strings.IndexAny(s, "-/"); i >= 0 {
		n.Author, n.Name = s[:i], s[i+1:]
		if n.Author == "" {
			return Name{}, fmt.Errorf("module name %q: empty author before %q", s, s[i])
		}
		for _, r := range n.Author {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
				return Name{}, fmt.Errorf("module name %q: bad author %q", s, n.Author)
			}
		}
	} else {
		n.Name = s
	}
	if err := CheckName(n.Name); err != nil {
		return Name{}, fmt.Errorf("module name %q: %w", s, err)
	}
	return n, nil
}

// CheckName applies Puppet's rule for a module's short name: a lower-case
// letter, then lower-case letters, digits and underscores.
func CheckName(name string) error {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return fmt.Errorf("bad module name %q: it must start with a lower-case letter", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("bad module name %q: only a-z, 0-9 and _ are allowed", name)
		}
	}
	return nil
}

// String is AUTHOR-NAME, or NAME without an author.
func (n Name) String() string {
	if n.Author == "" {
		return n.Name
	}
	return n.Author + "-" + n.Name
}

// Dependency is one module the module under test needs.
type Dependency struct {
	Name        Name
	Requirement Requirement
	// From is the file that says so: metadata.json, .fixtures.yml or
	// Puppetfile (of the module that needs it).
	From string
}

// Metadata is what fsmove reads of a module's metadata.json.
type Metadata struct {
	Name         Name
	Version      string
	Dependencies []Dependency
	// Warnings are the dependencies that could not be read as written:
	// one skipped for a bad name, one taken with any version for a range
	// that cannot be read (Puppet itself does not read them).
	Warnings []string
}

// MetadataFile is a module's metadata file.
const MetadataFile = "metadata.json"

// ParseMetadata reads a metadata.json. Its name must be well formed; a
// missing name is allowed (a module in development). A dependency that
// cannot be read is a warning, never an error: Puppet never reads them.
func ParseMetadata(data []byte) (Metadata, error) {
	var raw struct {
		Name         string `json:"name"`
		Version      string `json:"version"`
		Dependencies []struct {
			Name               string `json:"name"`
			VersionRequirement string `json:"version_requirement"`
		} `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Metadata{}, err
	}
	var m Metadata
	if raw.Name != "" {
		n, err := ParseName(raw.Name)
		if err != nil {
			return Metadata{}, fmt.Errorf("name: %w", err)
		}
		m.Name = n
	}
	m.Version = raw.Version
	for i, d := range raw.Dependencies {
		n, err := ParseName(d.Name)
		if err != nil {
			m.Warnings = append(m.Warnings, fmt.Sprintf("dependencies[%d]: %q is not a module name; skipped", i, d.Name))
			continue
		}
		req, err := ParseRequirement(d.VersionRequirement)
		if err != nil {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s: cannot read the range %q; any version taken", n, d.VersionRequirement))
		}
		m.Dependencies = append(m.Dependencies, Dependency{Name: n, Requirement: req, From: MetadataFile})
	}
	return m, nil
}

// ReadMetadata reads dir's metadata.json; ok is false when there is none.
func ReadMetadata(dir string) (Metadata, bool, error) {
	return readMetadataFile(dir, ParseMetadata)
}

// readMetadataFile reads dir's metadata.json with parse; ok is false when
// there is none. A parse error names the file.
func readMetadataFile[T any](dir string, parse func([]byte) (T, error)) (v T, ok bool, err error) {
	path := filepath.Join(dir, MetadataFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return v, false, nil
	}
	if err != nil {
		return v, false, err
	}
	if v, err = parse(data); err != nil {
		var zero T
		return zero, false, fmt.Errorf("%s: %w", path, err)
	}
	return v, true, nil
}
