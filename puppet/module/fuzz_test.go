package module

import "testing"

// The parsers read the user's files: whatever they hold, an error or a
// result, never a panic; and what they return is well formed.

func FuzzParseMetadata(f *testing.F) {
	f.Add([]byte(`{"name": "me-mymod", "version": "1.0.0", "dependencies": [{"name": "puppetlabs/stdlib", "version_requirement": ">= 4.13.1 < 10.0.0"}]}`))
	f.Add([]byte(`{"dependencies": [{"name": "a-b", "version_requirement": "1.x"}]}`))
	f.Add([]byte(`{"dependencies": [{"name": "a-b", "version_requirement": "1.0 - 2.0 || ^0.0.3"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMetadata(data)
		if err != nil {
			return
		}
		for _, d := range m.Dependencies {
			checkDependency(t, d)
			d.Requirement.Allows("1.2.3-1")
		}
	})
}

func FuzzParseFixtures(f *testing.F) {
	f.Add([]byte("fixtures:\n  forge_modules:\n    stdlib: puppetlabs/stdlib\n    concat:\n      repo: puppetlabs/concat\n      ref: 7.3.1\n  symlinks:\n    mymod: \"#{source_dir}\"\n"))
	f.Add([]byte("fixtures:\n  repositories:\n    facts: https://example.invalid/facts.git\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		deps, _, err := ParseFixtures(data, "mymod")
		if err != nil {
			return
		}
		for _, d := range deps {
			checkDependency(t, d)
			if d.Name.Name == "mymod" {
				t.Errorf("the module itself is a dependency")
			}
		}
	})
}

func FuzzParsePuppetfile(f *testing.F) {
	f.Add([]byte("mod 'puppetlabs-stdlib', '8.5.0'\nmod \"puppetlabs/concat\", :latest\nmod 'fw',\n  :git => 'x'\n"))
	f.Add([]byte("forge 'x'\n# mod 'a'\nmod('a-b')\n"))
	f.Add([]byte("mod 'puppetlabs-stdlib', '>= 2.3.3 < 5.0.0'\nmod 'a/b', '~> 4.0', '< 4.5'\nmod 'c', :local => true\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		deps, _ := ParsePuppetfile(data)
		for _, d := range deps {
			checkDependency(t, d)
			d.Requirement.Allows("1.2.3-1")
		}
	})
}

func FuzzParseDebIndex(f *testing.F) {
	f.Add("# package\tversion\tmodules\npuppet-module-puppetlabs-concat\t7.3.1-2\tpuppetlabs-concat\n")
	f.Fuzz(func(t *testing.T, text string) {
		pkgs, err := ParseDebIndex(text)
		if err != nil {
			return
		}
		for _, p := range pkgs {
			if p.Package == "" || p.Version == "" {
				t.Errorf("empty field in %+v", p)
			}
			for _, m := range p.Modules {
				if CheckName(m.Name) != nil {
					t.Errorf("bad module name in %+v", p)
				}
			}
		}
	})
}

func checkDependency(t *testing.T, d Dependency) {
	t.Helper()
	if err := CheckName(d.Name.Name); err != nil {
		t.Errorf("dependency %+v: %v", d, err)
	}
	if d.From == "" {
		t.Errorf("dependency %+v says no file", d)
	}
}
