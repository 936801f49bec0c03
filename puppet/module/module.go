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

	"github.com/Masterminds/semver/v3"
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

// Requirement is a version range as metadata.json writes it (">= 4.13.1 <
// 10.0.0", "1.x", ">= 1.0.0"); the zero Requirement allows every version.
type Requirement struct {
	Raw         string
	constraints *semver.Constraints
}

// ParseRequirement reads a version range; "" allows every version.
func ParseRequirement(s string) (Requirement, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Requirement{}, nil
	}
	c, err := semver.NewConstraint(s)
	if err != nil {
		return Requirement{}, fmt.Errorf("version requirement %q: %w", s, err)
	}
	return Requirement{Raw: s, constraints: c}, nil
}

// exactRequirement is the range of one version (a Puppetfile's or
// .fixtures.yml's pinned version).
func exactRequirement(version string) (Requirement, error) {
	if _, err := semver.NewVersion(version); err != nil {
		return Requirement{}, fmt.Errorf("version %q: %w", version, err)
	}
	return ParseRequirement("= " + version)
}

// Allows reports whether version is in the range. A Debian version
// ("1:8.5.0-1+deb12u1") is compared by its upstream part ("8.5.0"). An
// unreadable version is allowed only by the open range.
func (r Requirement) Allows(version string) bool {
	if r.constraints == nil {
		return true
	}
	v, err := semver.NewVersion(UpstreamVersion(version))
	if err != nil {
		return false
	}
	return r.constraints.Check(v)
}

// String is the range as written, or "any version".
func (r Requirement) String() string {
	if r.Raw == "" {
		return "any version"
	}
	return r.Raw
}

// UpstreamVersion is a Debian version without its epoch ("1:") and its
// Debian revision ("-1", "-1+deb12u1"): the module's own version.
func UpstreamVersion(v string) string {
	if _, rest, ok := strings.Cut(v, ":"); ok {
		v = rest
	}
	if i := strings.LastIndexByte(v, '-'); i > 0 {
		v = v[:i]
	}
	return v
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
}

// MetadataFile is a module's metadata file.
const MetadataFile = "metadata.json"

// ParseMetadata reads a metadata.json. Its name and dependencies must be
// well formed; a missing name is allowed (a module in development).
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
			return Metadata{}, fmt.Errorf("dependencies[%d]: %w", i, err)
		}
		req, err := ParseRequirement(d.VersionRequirement)
		if err != nil {
			return Metadata{}, fmt.Errorf("dependencies[%d] (%s): %w", i, n, err)
		}
		m.Dependencies = append(m.Dependencies, Dependency{Name: n, Requirement: req, From: MetadataFile})
	}
	return m, nil
}

// ReadMetadata reads dir's metadata.json; ok is false when there is none.
func ReadMetadata(dir string) (m Metadata, ok bool, err error) {
	path := filepath.Join(dir, MetadataFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Metadata{}, false, nil
	}
	if err != nil {
		return Metadata{}, false, err
	}
	m, err = ParseMetadata(data)
	if err != nil {
		return Metadata{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return m, true, nil
}
