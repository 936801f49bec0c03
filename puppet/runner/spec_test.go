package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseModuleSpecDeb(t *testing.T) {
	cases := []struct {
		in, author, name, pkg string
	}{
		{"deb:puppet-module-puppetlabs-stdlib", "puppetlabs", "stdlib", "puppet-module-puppetlabs-stdlib"},
		{"deb:puppet-module-saz-ssh", "saz", "ssh", "puppet-module-saz-ssh"},
		{"deb:puppet-module-voxpupuli-ssh-keygen", "voxpupuli-ssh", "keygen", "puppet-module-voxpupuli-ssh-keygen"},
	}
	for _, c := range cases {
		got, err := ParseModuleSpec(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got.Kind != SourceDeb || got.Author != c.author || got.Name != c.name || got.Package != c.pkg || got.Raw != c.in {
			t.Errorf("%s: got %+v", c.in, got)
		}
	}
	for _, bad := range []string{"deb:", "deb:stdlib", "deb:puppet-module-", "deb:puppet-module-stdlib", "deb:puppet-module-a-B"} {
		if _, err := ParseModuleSpec(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestParseModuleSpecForge(t *testing.T) {
	cases := []struct {
		in, author, name, version string
	}{
		{"puppetlabs-ntp", "puppetlabs", "ntp", ""},
		{"puppetlabs-ntp@9.1.0", "puppetlabs", "ntp", "9.1.0"},
		{"puppetlabs/apache", "puppetlabs", "apache", ""},
	}
	for _, c := range cases {
		got, err := ParseModuleSpec(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got.Kind != SourceForge || got.Author != c.author || got.Name != c.name || got.Version != c.version {
			t.Errorf("%s: got %+v", c.in, got)
		}
	}
	for _, bad := range []string{"ntp", "puppetlabs-", "-ntp", "puppetlabs-ntp@", "Puppet Labs-ntp", "puppetlabs-NTP"} {
		if _, err := ParseModuleSpec(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func writeModule(t *testing.T, dir, metadata string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifests", "init.pp"), []byte("class x {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if metadata != "" {
		if err := os.WriteFile(filepath.Join(dir, "metadata.json"), []byte(metadata), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseModuleSpecDir(t *testing.T) {
	root := t.TempDir()
	withMeta := filepath.Join(root, "checkout")
	writeModule(t, withMeta, `{"name": "acme-webapp", "version": "1.0.0"}`)
	slashMeta := filepath.Join(root, "slash")
	writeModule(t, slashMeta, `{"name": "acme/db"}`)
	noMeta := filepath.Join(root, "puppetlabs-ntp")
	writeModule(t, noMeta, "")

	cases := []struct{ dir, name, author string }{
		{withMeta, "webapp", "acme"},
		{slashMeta, "db", "acme"},
		{noMeta, "ntp", ""},
	}
	for _, c := range cases {
		got, err := ParseModuleSpec(c.dir)
		if err != nil {
			t.Fatalf("%s: %v", c.dir, err)
		}
		if got.Kind != SourceDir || got.Name != c.name || got.Author != c.author || got.Dir != c.dir {
			t.Errorf("%s: got %+v", c.dir, got)
		}
	}

	// A directory that is not a module, a bad metadata.json, a missing path.
	notModule := filepath.Join(root, "empty")
	os.Mkdir(notModule, 0o755)
	badJSON := filepath.Join(root, "bad")
	writeModule(t, badJSON, `{"name": `)
	badName := filepath.Join(root, "badname")
	writeModule(t, badName, `{"name": "acme-Web-App"}`)
	for _, bad := range []string{notModule, badJSON, badName, filepath.Join(root, "missing"), "./nope/"} {
		if _, err := ParseModuleSpec(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestParseModuleSpecDirWinsOverForge(t *testing.T) {
	root := t.TempDir()
	writeModule(t, filepath.Join(root, "acme-tool"), "")
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	got, err := ParseModuleSpec("acme-tool")
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != SourceDir || got.Name != "tool" {
		t.Errorf("got %+v, want the directory", got)
	}
}

func TestFixtureModulesParse(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/modules/*")
	if err != nil || len(dirs) < 5 {
		t.Fatalf("fixtures: %v %v", dirs, err)
	}
	for _, d := range dirs {
		spec, err := ParseModuleSpec(d)
		if err != nil {
			t.Errorf("%s: %v", d, err)
			continue
		}
		if spec.Name != filepath.Base(d) {
			t.Errorf("%s: name %q", d, spec.Name)
		}
		init, err := os.ReadFile(filepath.Join(d, "manifests", "init.pp"))
		if err != nil || !strings.Contains(string(init), "class "+spec.Name+" {") {
			t.Errorf("%s: manifests/init.pp does not define class %s", d, spec.Name)
		}
	}
}
