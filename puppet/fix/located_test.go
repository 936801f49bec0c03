package fix

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLocatedRoundTrip: ModuleManifests reads the module's .pp files; what
// Write saves, ReadLocated reads back byte for byte (a text that is not
// UTF-8 too: offsets count its bytes); Changed names the files whose text
// on disk is no longer the saved one.
func TestLocatedRoundTrip(t *testing.T) {
	dir := t.TempDir()
	same := filepath.Join(dir, "manifests", "init.pp")
	edited := filepath.Join(dir, "manifests", "sub", "config.pp")
	gone := filepath.Join(dir, "manifests", "gone.pp")
	texts := map[string][]byte{same: []byte("class m { }\n# caf\xe9\n"), edited: []byte("class m::config { }\n"), gone: []byte("# gone\n")}
	for f, text := range texts {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "manifests", "notes.txt"), []byte("not a manifest"), 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := ModuleManifests(dir, time.Time{})
	if err != nil || len(read) != 3 || string(read[same]) != string(texts[same]) {
		t.Fatalf("ModuleManifests: %d files, %v", len(read), err)
	}
	if _, err := ModuleManifests(dir, time.Now().Add(-time.Hour)); err == nil {
		t.Error("files written after the run began were not refused")
	}
	found := map[string]*Manifest{same: {Path: same}, edited: {Path: edited}, gone: {Path: gone}}
	saved := filepath.Join(t.TempDir(), "manifests.json")
	if err := NewLocated(dir, read, found).Write(saved); err != nil {
		t.Fatal(err)
	}
	loc, err := ReadLocated(saved)
	if err != nil {
		t.Fatal(err)
	}
	if loc.ModuleDir != dir || len(loc.Files) != 3 || !slices.IsSortedFunc(loc.Files, func(a, b LocatedFile) int { return strings.Compare(a.Path, b.Path) }) {
		t.Fatalf("read back %+v", loc)
	}
	for _, f := range loc.Files {
		if string(f.Text) != string(texts[f.Path]) || f.Manifest == nil || f.Manifest.Path != f.Path {
			t.Errorf("%s: read back %q", f.Path, f.Text)
		}
	}
	if changed := loc.Changed(); len(changed) != 0 {
		t.Errorf("nothing changed, Changed says %v", changed)
	}
	if err := os.WriteFile(edited, []byte("class m::config { file { '/x': } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if changed := loc.Changed(); !slices.Equal(changed, []string{gone, edited}) {
		t.Errorf("Changed says %v, want %v", changed, []string{gone, edited})
	}
	if _, err := ReadLocated(filepath.Join(dir, "manifests", "notes.txt")); err == nil {
		t.Error("a file that is not JSON was read")
	}
}
