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
