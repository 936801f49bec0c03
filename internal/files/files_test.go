package files

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExists(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	if Exists(f) {
		t.Errorf("%s exists before it is written", f)
	}
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !Exists(f) || !Exists(dir) {
		t.Error("a file or a directory that exists does not")
	}
	dangling := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "nope"), dangling); err != nil {
		t.Fatal(err)
	}
	if Exists(dangling) {
		t.Error("a dangling symlink exists")
	}
}

func TestSHA256(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("abc"), 0o644)
	if got, err := SHA256(p); err != nil || got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("SHA256(abc) = %s, %v", got, err)
	}
	if _, err := SHA256(p + "-missing"); err == nil {
		t.Error("a missing file has a sum")
	}
}

// TestReplace: the file holds the new data with the mode asked, and no
// temporary file is left beside it; a file in a missing directory is an
// error.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Replace(p, []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	info, _ := os.Stat(p)
	if string(data) != "new" || info.Mode().Perm() != 0o640 {
		t.Errorf("%q, mode %v", data, info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left beside it: %v", entries)
	}
	if err := Replace(filepath.Join(dir, "missing", "g"), []byte("x"), 0o644); err == nil {
		t.Error("a file in a missing directory was written")
	}
}
