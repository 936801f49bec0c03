package module

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	for in, want := range map[string]Name{
		"puppetlabs/stdlib":  {"puppetlabs", "stdlib"},
		"puppetlabs-stdlib":  {"puppetlabs", "stdlib"},
		"heini-wait_for":     {"heini", "wait_for"},
		"concat":             {"", "concat"},
		" puppet-Archive ":   {},
		"puppetlabs-Stdlib":  {},
		"-stdlib":            {},
		"puppetlabs/":        {},
		"a b-c":              {},
		"theforeman-foreman": {"theforeman", "foreman"},
	} {
		got, err := ParseName(in)
		if (err == nil) != (want != Name{}) || got != want {
			t.Errorf("ParseName(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestRequirement(t *testing.T) {
	for _, c := range []struct {
		req, version string
		ok           bool
	}{
		{">= 4.13.1 < 10.0.0", "8.5.0", true},
		{">= 4.13.1 < 10.0.0", "8.5.0-1", true}, // Debian's revision
		{">= 4.13.1 < 10.0.0", "1:8.5.0-1+deb12u1", true},
		{">= 4.13.1 < 10.0.0", "10.0.0", false},
		{">= 4.13.1 < 10.0.0", "4.13.0", false},
		{">= 1.0.0", "7.3.1-2", true},
		{"", "0.0.1", true},
		{">= 1.0.0", "not a version", false},
	} {
		r, err := ParseRequirement(c.req)
		if err != nil {
			t.Fatalf("ParseRequirement(%q): %v", c.req, err)
		}
		if got := r.Allows(c.version); got != c.ok {
			t.Errorf("%q allows %q = %v, want %v", c.req, c.version, got, c.ok)
		}
	}
	for _, bad := range []string{">= banana", "~~", "1.0.0 -"} {
		if _, err := ParseRequirement(bad); err == nil {
			t.Errorf("ParseRequirement(%q) accepted", bad)
		}
	}
}

// TestPuppetRanges: each form of SemanticPuppet::VersionRange (what Puppet
// reads in metadata.json) against versions on both sides of its bounds,
// as Puppet decides them.
func TestPuppetRanges(t *testing.T) {
	for _, c := range []struct {
		req     string
		in, out []string
	}{
		{">=1.0.0 <2.0.0", []string{"1.0.0", "1.9.9"}, []string{"0.9.9", "2.0.0"}},
		{">= 1.0.0 < 2.0.0", []string{"1.0.0", "1.9.9"}, []string{"0.9.9", "2.0.0"}},
		{">= 4.13.1 < 10.0.0", []string{"4.13.1", "9.9.9"}, []string{"4.13.0", "10.0.0"}},
		{"1.x", []string{"1.0.0", "1.9.9"}, []string{"0.9.9", "2.0.0"}},
		{"1.2.x", []string{"1.2.0", "1.2.9"}, []string{"1.1.9", "1.3.0"}},
		{"1", []string{"1.0.0", "1.9.9"}, []string{"2.0.0"}},
		{"1.2", []string{"1.2.0", "1.2.9"}, []string{"1.3.0"}},
		{"1.2.3", []string{"1.2.3"}, []string{"1.2.4", "1.2.2"}},
		{"=1.2.3", []string{"1.2.3"}, []string{"1.2.4"}},
		{"1.0.0 - 2.0.0", []string{"1.0.0", "2.0.0"}, []string{"0.9.9", "2.0.1"}},
		// Puppet fills a partial bound with zeros: 2.0.5 is out.
		{"1.0 - 2.0", []string{"1.0.0", "2.0.0"}, []string{"2.0.5", "2.1.0"}},
		{">=1.0.0 || <0.5", []string{"0.4.0", "1.0.0", "3.0.0"}, []string{"0.5.0", "0.9.9"}},
		{"~1.2", []string{"1.2.0", "1.2.9"}, []string{"1.3.0"}},
		{"~> 1.2", []string{"1.2.0", "1.2.9"}, []string{"1.3.0"}}, // Puppet's tilde, not Rubygems'
		{"~> 1.2.3", []string{"1.2.3", "1.2.9"}, []string{"1.2.2", "1.3.0"}},
		{"^1.2", []string{"1.2.0", "1.9.0"}, []string{"1.1.9", "2.0.0"}},
		{"^0.2.3", []string{"0.2.3", "0.2.9"}, []string{"0.3.0"}},
		// Puppet lets the patch level of ^0.0.z move, up to 0.1.0.
		{"^0.0.3", []string{"0.0.3", "0.0.9"}, []string{"0.0.2", "0.1.0"}},
		{">1.2", []string{"1.3.0"}, []string{"1.2.9"}},
		{"<=1.2", []string{"1.2.9"}, []string{"1.3.0"}},
		{"*", []string{"0.0.1", "99.0.0"}, nil},
	} {
		r, err := ParseRequirement(c.req)
		if err != nil {
			t.Errorf("ParseRequirement(%q): %v", c.req, err)
			continue
		}
		for _, v := range c.in {
			if !r.Allows(v) {
				t.Errorf("%q does not allow %s", c.req, v)
			}
		}
		for _, v := range c.out {
			if r.Allows(v) {
				t.Errorf("%q allows %s", c.req, v)
			}
		}
	}
}

// TestGemRange: a librarian-puppet Puppetfile's "~> X.Y" is Rubygems':
// >= X.Y < X+1.
func TestGemRange(t *testing.T) {
	for in, want := range map[string]string{
		"~> 4.0":           ">= 4.0.0 <5.0.0",
		"~>4.2":            ">= 4.2.0 <5.0.0",
		"~> 4.2.1":         "~> 4.2.1",
		"~> 4":             "~> 4",
		">= 2.3.3 < 5.0.0": ">= 2.3.3 < 5.0.0",
		"8.5.0":            "8.5.0",
	} {
		if got := gemRange(in); got != want {
			t.Errorf("gemRange(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseMetadata(t *testing.T) {
	m, err := ParseMetadata([]byte(`{"name": "me-mymod", "version": "0.1.0", "dependencies": [
		{"name": "puppetlabs/stdlib", "version_requirement": ">= 4.13.1 < 10.0.0"},
		{"name": "puppetlabs-concat"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != (Name{"me", "mymod"}) || m.Version != "0.1.0" || len(m.Dependencies) != 2 {
		t.Fatalf("got %+v", m)
	}
	d := m.Dependencies[0]
	if d.Name != (Name{"puppetlabs", "stdlib"}) || d.Requirement.Raw != ">= 4.13.1 < 10.0.0" || d.From != MetadataFile {
		t.Errorf("dependency 0 = %+v", d)
	}
	if m.Dependencies[1].Requirement.String() != "any version" {
		t.Errorf("dependency 1 = %+v", m.Dependencies[1])
	}
	for _, bad := range []string{`{`, `{"dependencies": 3}`, `{"name": "Bad Name"}`} {
		if _, err := ParseMetadata([]byte(bad)); err == nil {
			t.Errorf("ParseMetadata(%s) accepted", bad)
		}
	}
	// A dependency that cannot be read is a warning: a bad name skipped,
	// a bad range taken as any version.
	m, err = ParseMetadata([]byte(`{"dependencies": [{"name": "Bad Name"}, {"name": "a-b", "version_requirement": "~~"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Dependencies) != 1 || m.Dependencies[0].Name.Name != "b" || m.Dependencies[0].Requirement.Raw != "" || len(m.Warnings) != 2 {
		t.Errorf("got %+v", m)
	}
}

func TestParseFixtures(t *testing.T) {
	deps, _, err := ParseFixtures([]byte(`
fixtures:
  forge_modules:
    stdlib: "puppetlabs/stdlib"
    concat:
      repo: "puppetlabs/concat"
      ref: "7.3.1"
  repositories:
    facts: "https://example.invalid/facts.git"
    translate:
      repo: "https://example.invalid/translate.git"
      ref: "main"
  symlinks:
    mymod: "#{source_dir}"
`), "mymod")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range deps {
		got = append(got, d.Name.String()+" "+d.Requirement.Raw)
	}
	if want := "puppetlabs-concat = 7.3.1|puppetlabs-stdlib |facts |translate "; strings.Join(got, "|") != want {
		t.Errorf("got %q", strings.Join(got, "|"))
	}
	if _, _, err := ParseFixtures([]byte("fixtures: ["), "mymod"); err == nil {
		t.Error("ParseFixtures of bad YAML accepted")
	}
	// An entry that cannot be read is skipped with a warning; a ref that
	// is not a version is a git ref: any version.
	deps, warnings, err := ParseFixtures([]byte("fixtures:\n  forge_modules:\n    Bad: x\n    a:\n      ref: main\n    b: [1]\n"), "mymod")
	if err != nil || len(deps) != 1 || deps[0].Name.Name != "a" || deps[0].Requirement.Raw != "" || len(warnings) != 2 {
		t.Errorf("got %+v, %q, %v", deps, warnings, err)
	}
}

func TestParsePuppetfile(t *testing.T) {
	deps, warnings := ParsePuppetfile([]byte(`forge 'file:///srv/forge'
# mod 'commented/out'
mod 'puppetlabs-stdlib', '8.5.0'
mod "puppetlabs/concat", :latest   # a comment
mod 'apt'
mod 'firewall',
  :git => 'file:///srv/git/firewall.git',
  :ref => 'v1.0'
mod 'inifile', :git => 'file:///srv/git/inifile.git', :tag => '6.1.0'
mod 'local_one', :local => true
mod 'puppetlabs-mysql', '>= 2.3.3 < 5.0.0'
mod 'puppetlabs/apache', '~> 4.0'
mod 'puppetlabs/ntp', '>=1.0.0'
mod 'puppetlabs-xinetd', '>= 1.0', '< 4.0'
mod("puppetlabs-motd", "6.0.0")
modulefile
`))
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
	var got []string
	for _, d := range deps {
		got = append(got, d.Name.String()+" "+d.Requirement.Raw)
	}
	want := "puppetlabs-stdlib 8.5.0|puppetlabs-concat |apt |firewall |inifile |local_one |" +
		"puppetlabs-mysql >= 2.3.3 < 5.0.0|puppetlabs-apache ~> 4.0|puppetlabs-ntp >=1.0.0|puppetlabs-xinetd >= 1.0 < 4.0|puppetlabs-motd 6.0.0"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %q\nwant %q", strings.Join(got, "|"), want)
	}
	// A range is a range, not an exact version; librarian's ~> is Rubygems'.
	for i, c := range []struct{ version string }{{"4.5.0"}, {"4.9.0"}, {"1.0.0"}, {"3.9.0"}} {
		d := deps[6+i]
		if !d.Requirement.Allows(c.version) {
			t.Errorf("%s %s does not allow %s", d.Name, d.Requirement, c.version)
		}
	}
	if deps[6].Requirement.Allows("5.0.0") || deps[7].Requirement.Allows("5.0.0") || !deps[0].Requirement.Allows("8.5.0") || deps[0].Requirement.Allows("8.5.1") {
		t.Errorf("ranges: %+v", deps)
	}
	// What cannot be read is a warning: the line skipped, or the module
	// taken with any version.
	deps, warnings = ParsePuppetfile([]byte("mod stdlib\nmod 'Bad Name'\nmod 'a-b', 'banana'\nmod 'c-d'\n"))
	if len(deps) != 2 || deps[0].Name.Name != "b" || deps[0].Requirement.Raw != "" || len(warnings) != 3 {
		t.Errorf("got %+v, %q", deps, warnings)
	}
}

func TestParseDebIndex(t *testing.T) {
	pkgs, err := ParseDebIndex("# package\tversion\tmodules\n" +
		"puppet-module-puppetlabs-concat\t7.3.1-2\tpuppetlabs-concat\n" +
		"openstack-puppet-modules\t0.34\t\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 2 || pkgs[0].Modules[0] != (Name{"puppetlabs", "concat"}) || pkgs[0].Version != "7.3.1-2" || len(pkgs[1].Modules) != 0 {
		t.Errorf("got %+v", pkgs)
	}
	if _, err := ParseDebIndex("a\tb\n"); err == nil {
		t.Error("a line of two fields accepted")
	}
}

// debianIndex is a small fake of the image's index.
var debianIndex = []DebPackage{
	{Package: "puppet-module-puppetlabs-stdlib", Version: "8.5.0-1", Modules: []Name{{"puppetlabs", "stdlib"}}},
	{Package: "puppet-module-puppetlabs-concat", Version: "7.3.1-2", Modules: []Name{{"puppetlabs", "concat"}}},
	{Package: "puppet-module-camptocamp-kmod", Version: "2.5.0-1", Modules: []Name{{"camptocamp", "kmod"}}},
}

func writeModule(t *testing.T, dir, metadata string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, MetadataFile), []byte(metadata), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestResolve(t *testing.T) {
	tmp := t.TempDir()
	// helper (module path) needs stdlib; the fixture "extra" is in
	// spec/fixtures/modules at a version outside its range.
	helper := writeModule(t, filepath.Join(tmp, "mp", "helper"), `{"name": "me-helper", "version": "1.0.0",
		"dependencies": [{"name": "puppetlabs-stdlib", "version_requirement": ">= 9.0.0"}]}`)
	fixtures := filepath.Join(tmp, "mymod", FixturesDir)
	extra := writeModule(t, filepath.Join(fixtures, "extra"), `{"name": "me-extra", "version": "0.5.0"}`)
	deps := []Dependency{
		{Name: Name{"puppetlabs", "concat"}, Requirement: mustReq(t, ">= 1.0.0 < 10.0.0"), From: MetadataFile},
		{Name: Name{"me", "helper"}, Requirement: mustReq(t, "1.x"), From: MetadataFile},
		{Name: Name{"me", "extra"}, Requirement: mustReq(t, ">= 1.0.0"), From: MetadataFile},
		{Name: Name{"", "facts"}, From: FixturesFile},
	}
	c := Candidates{ModulePath: map[string]string{"helper": helper}, FixturesDir: fixtures, Debian: debianIndex, DebianKnown: true, Image: "img"}
	res, err := Resolve("mymod", deps, c)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Summary(), "concat 7.3.1-2 (debian), helper 1.0.0 (modulepath), extra 0.5.0 (fixtures), stdlib 8.5.0-1 (debian)"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if got, want := strings.Join(res.Packages, " "), "puppet-module-puppetlabs-concat puppet-module-puppetlabs-stdlib"; got != want {
		t.Errorf("Packages = %q, want %q", got, want)
	}
	if res.Found[2].Dir != extra || res.Found[1].Dir != helper {
		t.Errorf("dirs: %+v", res.Found)
	}
	// Each warning is one short line, its detail apart; the test-only
	// dependency found nowhere is not said, only counted.
	var lines, details []string
	for _, w := range res.Warnings {
		if len(w.Line) > MaxWarningColumns || strings.Contains(w.Line, "\n") {
			t.Errorf("warning line too long: %q", w.Line)
		}
		lines, details = append(lines, w.Line), append(details, w.Detail)
	}
	wantLines := []string{
		"metadata.json wants extra >= 1.0.0; fixtures has 0.5.0 (used anyway)",
		"helper's metadata.json wants stdlib >= 9.0.0; debian has 8.5.0-1 (used anyway)",
	}
	if strings.Join(lines, "\n") != strings.Join(wantLines, "\n") {
		t.Errorf("warning lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(wantLines, "\n"))
	}
	for _, w := range []string{"wants me-extra >= 1.0.0, but fixtures " + extra + " is at 0.5.0",
		"helper's metadata.json (modulepath) wants puppetlabs-stdlib >= 9.0.0, but Debian's puppet-module-puppetlabs-stdlib is at 8.5.0-1"} {
		if !strings.Contains(strings.Join(details, "\n"), w) {
			t.Errorf("details lack %q:\n%s", w, strings.Join(details, "\n"))
		}
	}
	if len(res.TestOnlyMissing) != 1 || res.TestOnlyMissing[0].Name != "facts" || len(res.Missing) != 0 {
		t.Errorf("missing %+v, test-only %+v", res.Missing, res.TestOnlyMissing)
	}
}

// TestResolveMissing: a metadata.json dependency found nowhere is listed
// and said in one short line, how to give it in the detail; the
// resolution goes on.
func TestResolveMissing(t *testing.T) {
	deps := []Dependency{
		{Name: Name{"puppetlabs", "stdlib"}, From: MetadataFile},
		{Name: Name{"voxpupuli", "kmod"}, Requirement: mustReq(t, ">= 1.0.0"), From: MetadataFile},
		{Name: Name{"me", "nowhere"}, Requirement: mustReq(t, "2.x"), From: MetadataFile},
		{Name: Name{"me", "a_module_with_a_very_long_name_that_goes_on"}, Requirement: mustReq(t, ">= 1.0.0 < 2.0.0 || >= 3.0.0 < 4.0.0"), From: MetadataFile},
	}
	fixtures := filepath.Join(t.TempDir(), FixturesDir)
	res, err := Resolve("mymod", deps, Candidates{FixturesDir: fixtures, Debian: debianIndex, DebianKnown: true, Image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Found) != 1 || len(res.Missing) != 3 || len(res.Warnings) != 3 {
		t.Fatalf("found %+v, missing %+v, warnings %+v", res.Found, res.Missing, res.Warnings)
	}
	if got, want := res.Warnings[0].Line, "voxpupuli-kmod >= 1.0.0 (metadata.json) found nowhere; the apply goes on"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	if w := res.Warnings[2].Line; len(w) != MaxWarningColumns || !strings.HasSuffix(w, "...") {
		t.Errorf("a long line is not cut: %q", w)
	}
	details := res.Warnings[0].Detail + "\n" + res.Warnings[1].Detail
	for _, want := range []string{
		"voxpupuli-kmod >= 1.0.0 (mymod's metadata.json) was found nowhere; give --modulepath DIR with a module kmod in it, or put it in " + filepath.Join(fixtures, "kmod"),
		"Debian's puppet-module-camptocamp-kmod 2.5.0-1 has camptocamp-kmod: another author's module",
		"me-nowhere 2.x (mymod's metadata.json) was found nowhere",
		"no Debian package of the image img has it",
	} {
		if !strings.Contains(details, want) {
			t.Errorf("details lack %q:\n%s", want, details)
		}
	}
	if m := res.Missing[1]; m.Name != "nowhere" || m.Wanted != "me-nowhere" || m.Requirement != "2.x" || m.RequiredBy != "mymod's metadata.json" || m.Source != "" {
		t.Errorf("missing[1] = %+v", m)
	}
	// Without an index, the detail says how to get one.
	res, err = Resolve("mymod", deps[:1], Candidates{Image: "img"})
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Detail, "fsmove image build --rebuild") {
		t.Errorf("without an index: %+v, %v", res, err)
	}
}

func mustReq(t *testing.T, s string) Requirement {
	t.Helper()
	r, err := ParseRequirement(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReadDependencies(t *testing.T) {
	dir := writeModule(t, filepath.Join(t.TempDir(), "mymod"), `{"name": "me-mymod", "dependencies": [{"name": "puppetlabs/stdlib", "version_requirement": ">= 4.0.0"}]}`)
	os.WriteFile(filepath.Join(dir, FixturesFile), []byte("fixtures:\n  forge_modules:\n    stdlib: puppetlabs/stdlib\n    apt: puppetlabs/apt\n  symlinks:\n    mymod: \"#{source_dir}\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, PuppetfileName), []byte("mod 'puppetlabs-apt', '9.0.0'\nmod 'puppetlabs-inifile'\n"), 0o644)
	deps, warnings, err := ReadDependencies(dir, "mymod")
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	var got []string
	for _, d := range deps {
		got = append(got, d.Name.String()+"@"+d.From)
	}
	if want := "puppetlabs-stdlib@metadata.json puppetlabs-apt@.fixtures.yml puppetlabs-inifile@Puppetfile"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
	// Files that cannot be read are warnings, never errors.
	os.WriteFile(filepath.Join(dir, MetadataFile), []byte(`{"dependencies": [{"name": "a-b", "version_requirement": "banana"}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, FixturesFile), []byte("fixtures: ["), 0o644)
	os.WriteFile(filepath.Join(dir, PuppetfileName), []byte("mod 'puppetlabs-stdlib', '>= 2.3.3 < 5.0.0'\nmod 'x', 'y'\n"), 0o644)
	deps, warnings, err = ReadDependencies(dir, "mymod")
	if err != nil || len(deps) != 3 || len(warnings) != 3 {
		t.Errorf("deps %+v, warnings %+v, err %v", deps, warnings, err)
	}
}
