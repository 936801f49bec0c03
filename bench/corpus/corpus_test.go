package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/runner"
)

// moduleDir makes a minimal module directory named name under dir.
func moduleDir(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Join(p, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "manifests", "init.pp"), []byte("class "+name+" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParse(t *testing.T) {
	base := t.TempDir()
	moduleDir(t, base, "localmod")
	text := `# a corpus
deb:puppet-module-puppetlabs-ntp   # the NTP module
deb:puppet-module-nova version=2:21.0.0-1
deb:puppet-module-heini-wait-for module=wait_for
./localmod class=localmod::server param.port=8080 param.name=a#b
puppetlabs-stdlib@9.4.1

`
	entries, err := Parse(strings.NewReader(text), base)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 5 {
		t.Fatalf("got %d entries, want 5: %+v", len(entries), entries)
	}
	type want struct {
		line                       int
		kind                       runner.SourceKind
		name, pkg, class, key, ver string
	}
	wants := []want{
		{2, runner.SourceDeb, "ntp", "puppet-module-puppetlabs-ntp", "", "puppet-module-puppetlabs-ntp", ""},
		{3, runner.SourceDeb, "nova", "puppet-module-nova", "", "puppet-module-nova", "2:21.0.0-1"},
		{4, runner.SourceDeb, "wait_for", "puppet-module-heini-wait-for", "", "puppet-module-heini-wait-for", ""},
		{5, runner.SourceDir, "localmod", "", "localmod::server", "localmod+localmod__server", ""},
		{6, runner.SourceForge, "stdlib", "", "", "puppetlabs-stdlib@9.4.1", "9.4.1"},
	}
	for i, w := range wants {
		e := entries[i]
		if e.Line != w.line || e.Module.Kind != w.kind || e.Module.Name != w.name || e.Module.Package != w.pkg ||
			e.Class != w.class || e.Key != w.key || e.Version != w.ver {
			t.Errorf("entry %d = line %d %s %s pkg %q class %q key %q version %q, want %+v",
				i, e.Line, e.Module.Kind, e.Module.Name, e.Module.Package, e.Class, e.Key, e.Version, w)
		}
	}
	if got := entries[3].Module.Dir; got != filepath.Join(base, "localmod") {
		t.Errorf("relative directory resolved to %q, want it under the corpus's directory", got)
	}
	if p := entries[3].Params; len(p) != 2 || p[0] != (runner.Param{Key: "port", Value: "8080"}) || p[1].Value != "a#b" {
		t.Errorf("params = %+v, want port=8080 and name=a#b (a # inside a value is not a comment)", p)
	}
	site, err := entries[3].RunnerEntry().SitePP(entries[3].Module.Name)
	if err != nil || !strings.Contains(site, "localmod::server") || !strings.Contains(site, "8080") {
		t.Errorf("site.pp = %q, %v; want the class with its parameter", site, err)
	}
}

func TestParseErrors(t *testing.T) {
	base := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"deb:puppet-module-puppetlabs-ntp colour=red", "line 1: unknown field"},
		{"deb:puppet-module-puppetlabs-ntp class", "line 1: \"class\""},
		{"\n\ndeb:puppet-module-puppetlabs-ntp\ndeb:puppet-module-puppetlabs-ntp", "line 4: deb:puppet-module-puppetlabs-ntp is already in the corpus (line 3)"},
		{"deb:something-else", "line 1: "},
		{"deb:puppet-module-a-b module=Bad", "not a module name"},
		{"./missing-dir", "line 1: "},
		{"puppetlabs-ntp module=ntp", "module= is only for deb"},
		{"deb:puppet-module-puppetlabs-ntp param.9x=1", "line 1: "},
	} {
		_, err := Parse(strings.NewReader(tc.text), base)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error = %v, want it to contain %q", tc.text, err, tc.want)
		}
	}
}

// Format writes what Parse reads back to the same entries.
func TestFormatRoundTrip(t *testing.T) {
	base := t.TempDir()
	moduleDir(t, base, "localmod")
	text := "deb:puppet-module-heini-wait-for module=wait_for version=1.0-2\ndeb:puppet-module-nova\n./localmod class=localmod param.x=1\npuppetlabs-stdlib@9.4.1\n"
	entries, err := Parse(strings.NewReader(text), base)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Format(&buf, []string{"header"}, entries); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "# header\n") {
		t.Errorf("no header comment:\n%s", buf.String())
	}
	again, err := Parse(&buf, base)
	if err != nil {
		t.Fatalf("reparse: %v\n%s", err, buf.String())
	}
	if len(again) != len(entries) {
		t.Fatalf("reparsed %d entries, want %d", len(again), len(entries))
	}
	for i := range entries {
		a, b := entries[i], again[i]
		if a.Key != b.Key || a.Module.Name != b.Module.Name || a.Class != b.Class || a.Version != b.Version || len(a.Params) != len(b.Params) {
			t.Errorf("entry %d: %+v reparsed as %+v", i, a, b)
		}
	}
}

func TestParseDebianListing(t *testing.T) {
	listing := strings.Join([]string{
		"Reading package lists...",
		"P\tpuppet-module-puppetlabs-ntp\t9.2.0-1",
		"M\t/usr/share/puppet/modules.available/ntp\tntp",
		"I",
		"C\tclass ntp (",
		"P\tpuppet-module-puppetlabs-stdlib\t8.5.0-1",
		"M\t/usr/share/puppet/modules.available/stdlib\tstdlib",
		"I",
		"C\tclass stdlib::stages {", // another class only: library-only
		"P\tpuppet-module-heini-wait-for\t2.1.0-1",
		"M\t/usr/share/puppet/modules.available/wait-for\twait_for",
		"I",
		"C\t  class wait_for {",
		"P\tpuppet-module-puppetlabs-inifile\t5.2.0-1",
		"M\t/usr/share/puppet/modules.available/inifile\tinifile",
		"P\tpuppet-module-camptocamp-augeas\t1.9.0-1",
		"M\t/usr/share/puppet/modules.available/augeas\t",
		"P\tpuppet-module-nova\t21.0.0-1",
		"M\t/usr/share/puppet/modules.available/nova\tnova",
		"I",
		"C\tclass nova(",
		"P\tpuppet-module-empty\t1",
		"P\tpuppet-module-alpha-novalib\t1",
		"M\t/usr/share/puppet/modules/novalib\tnovalib",
		"I",
		"C\tclass novalibrary {", // a longer name is not the class
	}, "\n")
	entries, skipped, err := ParseDebianListing(strings.NewReader(listing))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Spec+" "+e.Module.Name+" "+e.Version)
	}
	want := []string{
		"deb:puppet-module-heini-wait-for wait_for 2.1.0-1",
		"deb:puppet-module-nova nova 21.0.0-1",
		"deb:puppet-module-puppetlabs-ntp ntp 9.2.0-1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Package] = s.Reason
	}
	for pkg, want := range map[string]string{
		"puppet-module-puppetlabs-stdlib":  "library-only",
		"puppet-module-puppetlabs-inifile": "no manifests/init.pp",
		"puppet-module-camptocamp-augeas":  "not on Puppet's module path",
		"puppet-module-empty":              "installs no module directory",
		"puppet-module-alpha-novalib":      "library-only",
	} {
		if !strings.Contains(reasons[pkg], want) {
			t.Errorf("%s skipped for %q, want %q", pkg, reasons[pkg], want)
		}
	}
	if len(skipped) != 5 {
		t.Errorf("%d skipped, want 5: %+v", len(skipped), skipped)
	}
	if _, _, err := ParseDebianListing(strings.NewReader("C\tclass x {")); err == nil {
		t.Error("a class line before any package is accepted")
	}
}

// TestRunFlags: an entry's class, parameters, dependencies and timeout
// become fsmove run's flags, in that order; an entry with none, none.
func TestRunFlags(t *testing.T) {
	entries, err := Parse(strings.NewReader("deb:puppet-module-x class=x::server deps=cron,gnupg timeout=20m param.port=80 param.x::db::url=a=b\ndeb:puppet-module-y\n"), ".")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(entries[0].RunFlags(), " ")
	want := "--class x::server --param port=80 --param x::db::url=a=b --setup apt-get install -y --no-install-recommends cron gnupg --timeout 20m0s"
	if got != want {
		t.Errorf("flags %q, want %q", got, want)
	}
	if f := entries[1].RunFlags(); len(f) != 0 {
		t.Errorf("an entry with nothing: %q", f)
	}
}
