package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/module"
)

func TestRerunOptions(t *testing.T) {
	dir, mod, deps := t.TempDir(), t.TempDir(), t.TempDir()
	script := filepath.Join(t.TempDir(), "prep.sh")
	if err := os.WriteFile(script, []byte("mkdir -p /srv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &RunRecord{
		Module:     ModuleSpec{Raw: mod, Kind: SourceDir, Name: "m", Dir: mod},
		Entry:      Entry{Class: "m::x", Setup: []SetupStep{{Command: "true"}, {File: script}}},
		ModulePath: []string{deps},
		Image:      container.ImageInfo{Tag: "fsmove/puppet:test"},
		Init:       container.InitNone,
	}
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := RerunOptions(dir); err == nil || !strings.Contains(err.Error(), "entry manifest") {
		t.Errorf("no site.pp: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, SiteFile), []byte("include m::x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts, err := RerunOptions(dir)
	if err != nil {
		t.Fatal(err)
	}
	site, err := opts.Entry.SitePP(opts.Module.Name)
	if err != nil || site != "include m::x\n" {
		t.Errorf("site.pp %q, %v", site, err)
	}
	if opts.Module.Dir != mod || len(opts.ModulePath) != 1 || opts.ModulePath[0] != deps ||
		opts.Image.Tag != "fsmove/puppet:test" || opts.Init != container.InitNone {
		t.Errorf("options %+v", opts)
	}
	if len(opts.Entry.Setup) != 2 || string(opts.Entry.Setup[1].Script) != "mkdir -p /srv\n" {
		t.Errorf("setup %+v", opts.Entry.Setup)
	}
	// The forced order of a confirmation goes after the saved manifest.
	opts.Entry.Append = "Exec['a'] -> File['/b']"
	if site, _ := opts.Entry.SitePP("m"); site != "include m::x\nExec['a'] -> File['/b']\n" {
		t.Errorf("appended: %q", site)
	}
	os.RemoveAll(mod)
	if _, err := RerunOptions(dir); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Errorf("module gone: %v", err)
	}
	if _, err := RerunOptions(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no run") {
		t.Errorf("empty dir: %v", err)
	}
}

// TestRerunOptionsDependencies: a run that checked dependencies reruns with
// them read again from the module; one that did not (--no-deps) without.
func TestRerunOptionsDependencies(t *testing.T) {
	dir, mod := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(mod, "metadata.json"), []byte(`{"name": "me-m", "dependencies": [{"name": "puppetlabs/stdlib", "version_requirement": ">= 4.0.0"}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, SiteFile), []byte("include m\n"), 0o644)
	rec := &RunRecord{Module: ModuleSpec{Raw: mod, Kind: SourceDir, Name: "m", Dir: mod}}
	for _, checked := range []bool{false, true} {
		rec.Dependencies = nil
		if checked {
			rec.Dependencies = &module.Resolution{}
		}
		if err := rec.Write(dir); err != nil {
			t.Fatal(err)
		}
		opts, err := RerunOptions(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(opts.Dependencies); (got == 1) != checked || (checked && opts.Dependencies[0].Name.Name != "stdlib") {
			t.Errorf("checked %v: dependencies %+v", checked, opts.Dependencies)
		}
	}
}

// TestReplaceRun: the new run takes the earlier one's place, the earlier
// one is gone, and nothing is left beside them; a place that holds files
// that are not fsmove's is refused, and both runs stay as they were.
func TestReplaceRun(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "mod-1234")
	newDir := filepath.Join(parent, "mod-1234.new-1")
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, RunJSON), "old")
	write(filepath.Join(dir, ConfirmDir, "mor-1", RunJSON), "old confirm")
	write(filepath.Join(newDir, RunJSON), "new")
	write(filepath.Join(newDir, TraceFile), "new trace")
	if err := ReplaceRun(newDir, dir); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, RunJSON)); string(data) != "new" {
		t.Errorf("run.json %q, want the new run's", data)
	}
	if _, err := os.Stat(filepath.Join(dir, ConfirmDir)); err == nil {
		t.Error("the earlier run's confirm/ is still there")
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("beside the run: %v, want only mod-1234", names)
	}

	// Into a place with a file that is not fsmove's: refused, nothing moved.
	write(filepath.Join(dir, "notes.txt"), "mine")
	write(filepath.Join(newDir, RunJSON), "newer")
	if err := ReplaceRun(newDir, dir); err == nil {
		t.Error("replaced a directory with a file that is not fsmove's")
	}
	if data, _ := os.ReadFile(filepath.Join(newDir, RunJSON)); string(data) != "newer" {
		t.Errorf("the new run moved: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(data) != "mine" {
		t.Errorf("notes.txt: %q", data)
	}
}
