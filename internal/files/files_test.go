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
