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
		// Without an author (OpenStack's modules).
		{"deb:puppet-module-foo", "", "foo", "puppet-module-foo"},
		{"deb:puppet-module-nova", "", "nova", "puppet-module-nova"},
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
	for _, bad := range []string{"deb:", "deb:stdlib", "deb:puppet-module-", "deb:puppet-module--x", "deb:puppet-module-x-",
		"deb:puppet-module-a-B", "deb:puppet-module-Foo", "deb:puppet-module-a.b"} {
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

func TestInstalledModule(t *testing.T) {
	spec := func(pkg string) ModuleSpec {
		t.Helper()
		s, err := ParseModuleSpec("deb:" + pkg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	const avail = "/usr/share/puppet/modules.available/"
	common := []string{"/.", "/usr", "/usr/share", "/usr/share/puppet", "/usr/share/doc/x/copyright"}
	// direct: a package that installs /usr/share/puppet/modules/DIR.
	direct := func(dirs ...string) string {
		lines := append(append([]string{}, common...), "/usr/share/puppet/modules")
		for _, d := range dirs {
			lines = append(lines, "/usr/share/puppet/modules/"+d, "/usr/share/puppet/modules/"+d+"/manifests/init.pp")
		}
		return strings.Join(lines, "\n") + "\n"
	}
	// available: a package that installs modules.available/DIR, linked
	// with update-alternatives.
	available := func(dirs ...string) string {
		lines := append(append([]string{}, common...), "/usr/share/puppet/modules.available")
		for _, d := range dirs {
			lines = append(lines, avail+d, avail+d+"/lib", avail+d+"/lib/puppet/type/x.rb")
		}
		return strings.Join(lines, "\n") + "\n"
	}
	// Links as the image has them (Puppet's core type modules), and more.
	links := "augeas_core\t" + avail + "puppetlabs-augeas-core\n" +
		"cron_core\t" + avail + "puppetlabs-cron-core\n" +
		"stdlib\t" + avail + "puppetlabs-stdlib\n" +
		"wait_for\t" + avail + "heini-wait-for\n" +
		"ssh_keygen\t" + avail + "voxpupuli-ssh-keygen\n" +
		"nova\t/usr/share/puppet/modules/nova\n" +
		"other\t" + avail + "acme-thing\n"
	cases := []struct {
		pkg, list, want, author string
	}{
		// The guess is right.
		{"puppet-module-puppetlabs-stdlib", available("puppetlabs-stdlib"), "stdlib", "puppetlabs"},
		{"puppet-module-nova", direct("nova"), "nova", ""},
		// The guess is wrong: the name has a dash, or an underscore.
		{"puppet-module-heini-wait-for", available("heini-wait-for"), "wait_for", "heini"},
		{"puppet-module-voxpupuli-ssh-keygen", available("voxpupuli-ssh-keygen"), "ssh_keygen", "voxpupuli"},
		{"puppet-module-puppetlabs-augeas-core", available("puppetlabs-augeas-core"), "augeas_core", "puppetlabs"},
		{"puppet-module-heini-wait-for", direct("wait_for"), "wait_for", "heini"},
		// Unrelated to the package's name: taken as it is.
		{"puppet-module-acme-thing", available("acme-thing"), "other", ""},
		// Several: the guessed one, else the one the name ends with.
		{"puppet-module-acme-thing", direct("aaa", "thing"), "thing", "acme"},
		{"puppet-module-heini-wait-for", direct("aaa", "wait_for"), "wait_for", "heini"},
		// dpkg shows no module, but the guessed name is there: kept.
		{"puppet-module-puppetlabs-stdlib", strings.Join(common, "\n"), "stdlib", "puppetlabs"},
	}
	for _, c := range cases {
		m := spec(c.pkg)
		got, ok := InstalledModule(m, c.list, links)
		if !ok || got != c.want {
			t.Errorf("%s: got %q %v, want %q", c.pkg, got, ok, c.want)
			continue
		}
		renamed := m.withInstalledName(got)
		if renamed.Name != c.want || renamed.Author != c.author || renamed.Package != c.pkg || renamed.Raw != m.Raw {
			t.Errorf("%s: renamed spec %+v, want name %q author %q", c.pkg, renamed, c.want, c.author)
		}
	}
	// No module of the package: not in modules/, nothing links to its files.
	for _, list := range []string{direct(), available("acme-unlinked"), ""} {
		if got, ok := InstalledModule(spec("puppet-module-acme-thing"), list, links); ok {
			t.Errorf("no module directory in %q: got %q", list, got)
		}
	}
}

func TestNoModuleSpec(t *testing.T) {
	cases := []struct {
		entry      Entry
		name, spec string
	}{
		{Entry{Code: "file { '/tmp/x': content => 'y' }"}, "manifest", "-e"},
		{Entry{Manifest: "examples/site.pp"}, "site", "--manifest examples/site.pp"},
		{Entry{Manifest: "/tmp/my node.pp"}, "my_node", "--manifest /tmp/my node.pp"},
		{Entry{Manifest: "init"}, "init", "--manifest init"},
		{Entry{Manifest: ".pp"}, "manifest", "--manifest .pp"},
	}
	for _, c := range cases {
		got, err := NoModuleSpec(c.entry)
		if err != nil || got.Kind != SourceNone || got.Name != c.name || got.Raw != c.spec {
			t.Errorf("%+v: got %+v %v, want name %q spec %q", c.entry, got, err, c.name, c.spec)
		}
	}
	for _, bad := range []Entry{
		{},
		{Class: "x", Code: "include x"},
		{Params: []Param{{"a", "1"}}, Manifest: "site.pp"},
		{Code: "include x", Manifest: "site.pp"},
	} {
		if got, err := NoModuleSpec(bad); err == nil {
			t.Errorf("%+v: got %+v, want an error", bad, got)
		}
	}
}
