package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/container"
)

// TestChooseSuite: metadata.json's requirements on Puppet choose the
// suite, the default first; --suite wins over them; a range that cannot be
// read is a warning and the default.
func TestChooseSuite(t *testing.T) {
	const debian = `"operatingsystem_support": [{"operatingsystem": "Debian"}]`
	requires := func(name, rng string) string {
		return `{"requirements": [{"name": "` + name + `", "version_requirement": "` + rng + `"}], ` + debian + `}`
	}
	cases := []struct {
		name     string
		metadata string // "": no metadata.json
		given    string
		suite    string
		why      string
		warning  string // a substring of the one warning; "": none
		err      string // a substring of the error
	}{
		{name: "no metadata.json", suite: container.DefaultSuite},
		{name: "no requirements", metadata: `{"name": "acme-m"}`, suite: container.DefaultSuite},
		{name: "other requirements", metadata: `{"requirements": [{"name": "pdk", "version_requirement": ">= 9.0.0"}]}`, suite: "bookworm"},
		{name: "puppet 7 or 8", metadata: requires("puppet", ">= 7.0.0 < 9.0.0"), suite: "bookworm"},
		{name: "puppet 8", metadata: requires("puppet", ">= 8.0.0 < 9.0.0"), suite: "trixie", why: "metadata.json requires puppet >= 8.0.0 < 9.0.0"},
		{name: "openvox 8", metadata: requires("openvox", ">= 8.0.0"), suite: "trixie", why: "metadata.json requires openvox >= 8.0.0"},
		{name: "puppet 7 or openvox 8", metadata: `{"requirements": [{"name": "puppet", "version_requirement": ">= 7.0.0 < 8.0.0"}, {"name": "openvox", "version_requirement": ">= 8.0.0"}]}`, suite: "bookworm"},
		{name: "openvox 8.19, past trixie's 8.10", metadata: requires("openvox", ">= 8.19.0 < 9.0.0"), suite: "trixie",
			why: "metadata.json requires openvox >= 8.19.0 < 9.0.0", warning: "metadata.json requires openvox >= 8.19.0 < 9.0.0: applied on trixie's Puppet 8.10.0"},
		{name: "puppet 7.30, past bookworm's 7.23", metadata: requires("puppet", ">= 7.30.0 < 9.0.0"), suite: "trixie",
			why: "metadata.json requires puppet >= 7.30.0 < 9.0.0"},
		{name: "puppet 7.30 only", metadata: requires("puppet", ">= 7.30.0 < 8.0.0"), suite: "bookworm",
			why: "metadata.json requires puppet >= 7.30.0 < 8.0.0", warning: "applied on bookworm's Puppet 7.23.0"},
		{name: "puppet 9", metadata: requires("puppet", ">= 9.0.0"),
			err: "metadata.json requires puppet >= 9.0.0; fsmove's suites have Puppet 7.23.0 (bookworm) and Puppet 8.10.0 (trixie), so no suite does: --suite bookworm or --suite trixie"},
		{name: "puppet 9, --suite given", metadata: requires("puppet", ">= 9.0.0"), given: "trixie", suite: "trixie",
			warning: "--suite trixie has Puppet 8.10.0: metadata.json requires puppet >= 9.0.0"},
		{name: "puppet 8, --suite bookworm", metadata: requires("puppet", ">= 8.0.0"), given: "bookworm", suite: "bookworm",
			warning: "--suite bookworm has Puppet 7.23.0: metadata.json requires puppet >= 8.0.0"},
		{name: "puppet 7, --suite trixie", metadata: requires("puppet", ">= 7.0.0 < 8.0.0"), given: "trixie", suite: "trixie",
			warning: "--suite trixie has Puppet 8.10.0"},
		{name: "malformed range", metadata: requires("puppet", ">= eight"), suite: "bookworm",
			warning: `requirements[0] (puppet): version requirement ">= eight"`},
		{name: "malformed range, --suite given", metadata: requires("puppet", "8.x.y.z"), given: "trixie", suite: "trixie",
			warning: "the Puppet it requires is not checked"},
		{name: "not Debian", metadata: `{"operatingsystem_support": [{"operatingsystem": "RedHat"}, {"operatingsystem": "CentOS"}]}`, suite: "bookworm",
			warning: "metadata.json supports RedHat, CentOS, not Debian (operatingsystem_support)"},
		{name: "debian in lower case", metadata: `{"operatingsystem_support": [{"operatingsystem": "debian"}]}`, suite: "bookworm"},
		{name: "no systems", metadata: `{"operatingsystem_support": []}`, suite: "bookworm"},
		{name: "unknown --suite", given: "sid", err: `unknown Debian suite "sid"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.metadata != "" {
				if err := os.WriteFile(filepath.Join(dir, "metadata.json"), []byte(c.metadata), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ChooseSuite(c.given, ModuleSpec{Kind: SourceDir, Dir: dir, Name: "m"})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Suite != c.suite || got.Why != c.why {
				t.Errorf("suite %q (why %q), want %q (why %q)", got.Suite, got.Why, c.suite, c.why)
			}
			switch {
			case c.warning == "" && len(got.Warnings) > 0:
				t.Errorf("warnings %q, want none", got.Warnings)
			case c.warning != "" && (len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], c.warning)):
				t.Errorf("warnings %q, want one with %q", got.Warnings, c.warning)
			}
		})
	}
}

// TestChooseSuiteOtherKinds: a Debian or Forge module's metadata.json is
// not on this machine: the default suite, or the one given.
func TestChooseSuiteOtherKinds(t *testing.T) {
	for _, raw := range []string{"deb:puppet-module-puppetlabs-stdlib", "puppetlabs-stdlib@9.0.0"} {
		spec, err := ParseModuleSpec(raw)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := ChooseSuite("", spec); err != nil || c.Suite != container.DefaultSuite || c.Why != "" || len(c.Warnings) != 0 {
			t.Errorf("%s: %+v, %v", raw, c, err)
		}
		if c, err := ChooseSuite("trixie", spec); err != nil || c.Suite != "trixie" {
			t.Errorf("%s --suite trixie: %+v, %v", raw, c, err)
		}
	}
}

// TestOSWarningWidth: the warning is one line of at most 100 columns,
// however many systems a module names and however long their names.
func TestOSWarningWidth(t *testing.T) {
	long := strings.Repeat("x", 200)
	for _, systems := range [][]string{
		{"RedHat"},
		{"RedHat", "CentOS", "OracleLinux", "Scientific", "SLES", "Ubuntu", "Fedora", "Rocky", "AlmaLinux", "Archlinux", "Gentoo"},
		{long},
		{"RedHat", long, "CentOS"},
		{"Red\nHat\x1b[2J"},
	} {
		w := "fsmove: warning: " + osWarning(systems)
		if len(w) > 100 || strings.ContainsAny(w, "\n\x1b") {
			t.Errorf("%d columns or a control character: %q", len(w), w)
		}
	}
	if w := osWarning([]string{"RedHat", "CentOS", "OracleLinux", "Scientific", "SLES", "Ubuntu", "Fedora", "Rocky", "AlmaLinux"}); !strings.Contains(w, " more, not Debian") {
		t.Errorf("a long list is not cut: %q", w)
	}
}
