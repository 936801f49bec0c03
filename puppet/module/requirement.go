package module

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Requirement is a version range as metadata.json writes it (">= 4.13.1 <
// 10.0.0", "1.x", ">= 1.0.0"); the zero Requirement allows every version.
type Requirement struct {
	Raw         string
	constraints *semver.Constraints
}

// ParseRequirement reads a version range with the meaning Puppet gives it
// (SemanticPuppet::VersionRange: comparators separated by spaces, "1.x",
// "1.0.0 - 2.0.0", "~1.2", "^1.2", "||"); "" allows every version.
// Masterminds semver reads all of these; where its meaning differs from
// Puppet's, the range is rewritten first (puppetRange).
func ParseRequirement(s string) (Requirement, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Requirement{}, nil
	}
	c, err := semver.NewConstraint(puppetRange(s))
	if err != nil {
		return Requirement{}, fmt.Errorf("version requirement %q: %w", s, err)
	}
	return Requirement{Raw: s, constraints: c}, nil
}

// puppetRange rewrites the two forms whose meaning Masterminds and Puppet
// do not share:
//   - a caret on 0.0.z: Puppet lets the patch level move ("^0.0.3" is
//     >= 0.0.3 < 0.1.0, as "~0.0.3"), Masterminds pins it to 0.0.3;
//   - a partial version in a hyphen range: Puppet fills it with zeros
//     ("1.0 - 2.0" ends at 2.0.0 included), Masterminds reads it as
//     2.0.x (2.0.5 is in).
func puppetRange(s string) string {
	alts := strings.Split(s, "||")
	for i, alt := range alts {
		if lo, hi, ok := strings.Cut(alt, " - "); ok {
			alts[i] = fillVersion(lo) + " - " + fillVersion(hi)
			continue
		}
		f := strings.Fields(alt)
		for j, c := range f {
			if strings.HasPrefix(c, "^0.0.") {
				f[j] = "~" + c[1:]
			}
		}
		alts[i] = strings.Join(f, " ")
	}
	return strings.Join(alts, " || ")
}

// fillVersion gives a partial version ("2", "2.0") its missing parts as
// zeros, as Puppet's hyphen ranges do; anything else is left as it is.
func fillVersion(v string) string {
	v = strings.TrimSpace(v)
	for _, r := range v {
		if !(r >= '0' && r <= '9' || r == '.') {
			return v
		}
	}
	switch strings.Count(v, ".") {
	case 0:
		return v + ".0.0"
	case 1:
		return v + ".0"
	}
	return v
}

// gemRange rewrites a librarian-puppet Puppetfile's "~> X.Y", which is
// Rubygems' pessimistic operator (>= X.Y < X+1.0: only the last part
// given may move), where Puppet and Masterminds read "~> X.Y" as
// >= X.Y.0 < X.Y+1.0. With three parts (and with one) the meanings agree.
func gemRange(s string) string {
	f := strings.Fields(strings.ReplaceAll(s, "~>", "~> "))
	for i := 0; i+1 < len(f); i++ {
		if f[i] != "~>" {
			continue
		}
		major, minor, ok := strings.Cut(f[i+1], ".")
		if !ok || strings.Contains(minor, ".") || !isDigits(major) || !isDigits(minor) {
			continue
		}
		next := 0
		fmt.Sscan(major, &next)
		f[i], f[i+1] = ">=", f[i+1]+".0"
		f = append(f[:i+2], append([]string{fmt.Sprintf("<%d.0.0", next+1)}, f[i+2:]...)...)
	}
	return strings.Join(f, " ")
}

func isDigits(s string) bool {
	if s == "" || len(s) > 9 { // 9 digits fit an int
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// exactRequirement is the range of one version (.fixtures.yml's pinned
// version).
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
