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
// out (its symlink is the module itself). An entry that cannot be read is
// a warning and is skipped (a ref that is no version: any version); only
// a file that is not YAML is an error.
func ParseFixtures(data []byte, self string) (deps []Dependency, warnings []string, err error) {
	var doc struct {
		Fixtures struct {
			ForgeModules map[string]yaml.Node `yaml:"forge_modules"`
			Repositories map[string]yaml.Node `yaml:"repositories"`
			Symlinks     map[string]yaml.Node `yaml:"symlinks"`
		} `yaml:"fixtures"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	add := func(section string, entries map[string]yaml.Node, forge bool) {
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
				warnings = append(warnings, fmt.Sprintf("%s: %s: %v; skipped", FixturesFile, section, err))
				continue
			}
			d := Dependency{Name: Name{Name: key}, From: FixturesFile}
			if forge {
				repo, ref, err := fixtureEntry(entries[key])
				if err != nil {
					warnings = append(warnings, fmt.Sprintf("%s: %s: %s: %v; skipped", FixturesFile, section, key, err))
					continue
				}
				if repo != "" {
					if n, err := ParseName(repo); err == nil && n.Name == key {
						d.Name = n
					}
				}
				if ref != "" {
					if d.Requirement, err = exactRequirement(ref); err != nil {
						// A git ref ("main", "v1.2"): any version.
						d.Requirement = Requirement{}
					}
				}
			}
			deps = append(deps, d)
		}
	}
	add("forge_modules", doc.Fixtures.ForgeModules, true)
	add("repositories", doc.Fixtures.Repositories, false)
	add("symlinks", doc.Fixtures.Symlinks, false)
	return deps, warnings, nil
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
