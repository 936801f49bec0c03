package module

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Platform is what a module's metadata.json says it runs on: the Puppet
// versions of its "requirements" and the systems of its
// "operatingsystem_support". It is read apart from Metadata, so that a
// module whose dependencies are not read (--no-deps) still says which
// Puppet it needs.
type Platform struct {
	// Puppet are the requirements named puppet or openvox (Puppet's fork,
	// which kept its version numbers), in the file's order.
	Puppet []PuppetRequirement
	// OperatingSystems are operatingsystem_support's names, in the
	// file's order; nil when the file says nothing of them.
	OperatingSystems []string
}

// PuppetRequirement is one requirement on the version of Puppet.
type PuppetRequirement struct {
	Name  string // "puppet" or "openvox", as written
	Range Requirement
}

// String is "puppet >= 8.0.0".
func (r PuppetRequirement) String() string {
	return r.Name + " " + r.Range.String()
}

// puppetNames are the requirement names that are a Puppet version.
var puppetNames = []string{"puppet", "openvox"}

// ParsePlatform reads the requirements and operatingsystem_support of a
// metadata.json. A requirement on Puppet whose range cannot be read is an
// error that names it; requirements on other things (pdk, bolt) are not
// fsmove's to check.
func ParsePlatform(data []byte) (Platform, error) {
	var raw struct {
		Requirements []struct {
			Name               string `json:"name"`
			VersionRequirement string `json:"version_requirement"`
		} `json:"requirements"`
		OperatingSystemSupport []struct {
			OperatingSystem string `json:"operatingsystem"`
		} `json:"operatingsystem_support"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Platform{}, err
	}
	var p Platform
	for i, r := range raw.Requirements {
		name := strings.TrimSpace(r.Name)
		known := false
		for _, n := range puppetNames {
			known = known || strings.EqualFold(name, n)
		}
		if !known {
			continue
		}
		req, err := ParseRequirement(r.VersionRequirement)
		if err != nil {
			return Platform{}, fmt.Errorf("requirements[%d] (%s): %w", i, name, err)
		}
		p.Puppet = append(p.Puppet, PuppetRequirement{Name: name, Range: req})
	}
	for _, s := range raw.OperatingSystemSupport {
		p.OperatingSystems = append(p.OperatingSystems, strings.TrimSpace(s.OperatingSystem))
	}
	return p, nil
}

// AllowsPuppet reports whether a Puppet of that version meets the
// requirements: one of them allows it (a module that names both puppet
// and openvox runs on either), or there are none.
func (p Platform) AllowsPuppet(version string) bool {
	if len(p.Puppet) == 0 {
		return true
	}
	for _, r := range p.Puppet {
		if r.Range.Allows(version) {
			return true
		}
	}
	return false
}

// AllowsPuppetMajor reports whether the requirements allow some Puppet
// of that major version ("8"): its first or its last release. (A range
// wholly inside one major's minor versions, say ">= 8.19.0 < 8.20.0",
// is read as not allowing it; no module writes one.)
func (p Platform) AllowsPuppetMajor(major string) bool {
	return p.AllowsPuppet(major+".0.0") || p.AllowsPuppet(major+".999999.999999")
}

// PuppetString is the requirements as metadata.json words them:
// "puppet >= 8.0.0 < 9.0.0", or several joined by " or ".
func (p Platform) PuppetString() string {
	var parts []string
	for _, r := range p.Puppet {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, " or ")
}

// SupportsDebian reports whether operatingsystem_support names Debian,
// or says nothing (a module that lists no systems claims none away).
func (p Platform) SupportsDebian() bool {
	if p.OperatingSystems == nil {
		return true
	}
	for _, name := range p.OperatingSystems {
		if strings.EqualFold(name, "Debian") {
			return true
		}
	}
	return false
}

// ReadPlatform reads dir's metadata.json's Platform; ok is false when
// there is no metadata.json.
func ReadPlatform(dir string) (Platform, bool, error) {
	return readMetadataFile(dir, ParsePlatform)
}
