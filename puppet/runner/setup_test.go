package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModulePathEntryLibOnly(t *testing.T) {
	root := t.TempDir()
	mkfile := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// metadata.json and lib/, no manifests/: one module, named by its
	// metadata.
	withMeta := filepath.Join(root, "checkout")
	mkfile(filepath.Join(withMeta, "metadata.json"), `{"name": "puppetlabs-stdlib"}`)
	mkfile(filepath.Join(withMeta, "lib", "puppet", "functions", "f.rb"), "")
	// lib/puppet only: one module, named by its directory.
	libOnly := filepath.Join(root, "acme-types")
	mkfile(filepath.Join(libOnly, "lib", "puppet", "type", "thing.rb"), "")
	// lib/facter only.
	facts := filepath.Join(root, "facts")
	mkfile(filepath.Join(facts, "lib", "facter", "x.rb"), "")
	// A directory of modules, one of them lib-only.
	tree := filepath.Join(root, "tree")
	mkfile(filepath.Join(tree, "stdlib", "metadata.json"), `{"name": "puppetlabs-stdlib"}`)
	mkfile(filepath.Join(tree, "stdlib", "lib", "puppet", "functions", "f.rb"), "")

	cases := []struct{ dir, archive string }{
		{withMeta, "/m/0/stdlib"},
		{libOnly, "/m/0/types"},
		{facts, "/m/0/facts"},
		{tree, "/m/0"},
	}
	for _, c := range cases {
		got, err := modulePathEntry(c.dir, "/m/0")
		if err != nil || got.archiveName != c.archive || got.puppetDir != "/m/0" {
			t.Errorf("%s: got %+v %v, want archive %s", c.dir, got, err, c.archive)
		}
	}
	// Relative paths work too (the name comes from the absolute path).
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(withMeta); err != nil {
		t.Fatal(err)
	}
	if got, err := modulePathEntry(".", "/m/1"); err != nil || got.archiveName != "/m/1/stdlib" {
		t.Errorf(".: got %+v %v", got, err)
	}
	os.Chdir(wd)

	// A lib-only module with a bad metadata.json or a bad name.
	badMeta := filepath.Join(root, "badmeta")
	mkfile(filepath.Join(badMeta, "metadata.json"), `{"name": `)
	badName := filepath.Join(root, "Bad.Name")
	mkfile(filepath.Join(badName, "lib", "puppet", "x.rb"), "")
	for _, bad := range []string{badMeta, badName} {
		if got, err := modulePathEntry(bad, "/m/0"); err == nil || !strings.Contains(err.Error(), "--modulepath "+bad) {
			t.Errorf("%s: got %+v %v, want an error naming --modulepath and the path", bad, got, err)
		}
	}
}

func TestCheckModulePath(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	os.WriteFile(file, nil, 0o644)
	if err := CheckModulePath([]string{root}); err != nil {
		t.Errorf("an empty directory of modules: %v", err)
	}
	if err := CheckModulePath(nil); err != nil {
		t.Errorf("none: %v", err)
	}
	for bad, want := range map[string]string{
		filepath.Join(root, "missing"): "no such directory",
		file:                           "not a directory",
	} {
		err := CheckModulePath([]string{root, bad})
		if err == nil || !strings.Contains(err.Error(), "--modulepath "+bad+": "+want) {
			t.Errorf("%s: %v, want %q", bad, err, want)
		}
	}
}

func TestReadSetupFile(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "prepare.sh")
	os.WriteFile(script, []byte("mkdir -p /srv/data\n"), 0o644)
	st, err := ReadSetupFile(script)
	if err != nil || st.File != script || string(st.Script) != "mkdir -p /srv/data\n" || st.Command != "" {
		t.Errorf("got %+v %v", st, err)
	}
	if got := setupScriptPath(2, st); got != "/fsmove/setup/3-prepare.sh" {
		t.Errorf("script path %s", got)
	}
	for bad, want := range map[string]string{
		filepath.Join(dir, "missing.sh"): "no such file or directory",
		dir:                              "not a regular file",
	} {
		if _, err := ReadSetupFile(bad); err == nil || err.Error() != "--setup-file "+bad+": "+want {
			t.Errorf("%s: %v, want %q", bad, err, want)
		}
	}
}

func TestSetupDescribe(t *testing.T) {
	if got := (SetupStep{Command: "mkdir -p /srv/data"}).describe(); got != "--setup mkdir -p /srv/data" {
		t.Errorf("command: %q", got)
	}
	if got := (SetupStep{File: "prep.sh"}).describe(); got != "--setup-file prep.sh" {
		t.Errorf("file: %q", got)
	}
}
