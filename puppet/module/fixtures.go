package module

import (
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"
)

// FixturesFile is rspec-puppet's (and PDK's) list of the modules a module's
// tests need, which "rake spec_prep" puts in spec/fixtures/modules.
const FixturesFile = ".fixtures.yml"

// ParseFixtures reads a .fixtures.yml: the modules of fixtures'
// forge_modules, repositories and symlinks, named by their keys (the
// directory each gets in spec/fixtures/modules). A forge module's repo
// ("author/name") gives its author, its ref its version; a repository's
// ref is a git ref, not a version. self, the module's own name, is left
// out (its symlink is the module itself).
func ParseFixtures(data []byte, self string) ([]Dependency, error) {
	var doc struct {
		Fixtures struct {
			ForgeModules map[string]yaml.Node `yaml:"forge_modules"`
			Repositories map[string]yaml.Node `yaml:"repositories"`
			Symlinks     map[string]yaml.Node `yaml:"symlinks"`
		} `yaml:"fixtures"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var deps []Dependency
	add := func(section string, entries map[string]yaml.Node, forge bool) error {
		keys := make([]string, 0, len(entries))
		for k := range entries {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, key := range keys {
			if key == self {
				continue
			}
			if err := CheckName(key); err != nil {
				return fmt.Errorf("fixtures: %s: %w", section, err)
			}
			d := Dependency{Name: Name{Name: key}, From: FixturesFile}
			if forge {
				repo, ref, err := fixtureEntry(entries[key])
				if err != nil {
					return fmt.Errorf("fixtures: %s: %s: %w", section, key, err)
				}
				if repo != "" {
					if n, err := ParseName(repo); err == nil && n.Name == key {
						d.Name = n
					}
				}
				if ref != "" {
					if d.Requirement, err = exactRequirement(ref); err != nil {
						return fmt.Errorf("fixtures: %s: %s: %w", section, key, err)
					}
				}
			}
			deps = append(deps, d)
		}
		return nil
	}
	if err := add("forge_modules", doc.Fixtures.ForgeModules, true); err != nil {
		return nil, err
	}
	if err := add("repositories", doc.Fixtures.Repositories, false); err != nil {
		return nil, err
	}
	if err := add("symlinks", doc.Fixtures.Symlinks, false); err != nil {
		return nil, err
	}
	return deps, nil
}

// fixtureEntry reads a forge_modules entry: "author/name", or a map with
// repo and ref.
func fixtureEntry(n yaml.Node) (repo, ref string, err error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, "", nil
	case yaml.MappingNode:
		var m struct {
			Repo string `yaml:"repo"`
			Ref  string `yaml:"ref"`
		}
		if err := n.Decode(&m); err != nil {
			return "", "", err
		}
		return m.Repo, m.Ref, nil
	}
	return "", "", fmt.Errorf("want \"author/name\" or a map with repo and ref")
}
