package container

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries lists an archive's names with their type and content.
func entries(t *testing.T, data []byte) map[string]string {
	t.Helper()
	got := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			got[h.Name] = "dir"
		case tar.TypeSymlink:
			got[h.Name] = "-> " + h.Linkname
		case tar.TypeReg:
			b, _ := io.ReadAll(tr)
			got[h.Name] = string(b)
			if h.Uid != 0 || h.Gid != 0 {
				t.Errorf("%s owned by %d:%d", h.Name, h.Uid, h.Gid)
			}
		}
	}
}

func TestArchive(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "manifests"), 0o755)
	os.WriteFile(filepath.Join(src, "manifests", "init.pp"), []byte("class m {}\n"), 0o644)
	os.WriteFile(filepath.Join(src, "metadata.json"), []byte("{}"), 0o644)
	os.Symlink("manifests/init.pp", filepath.Join(src, "link.pp"))
	os.MkdirAll(filepath.Join(src, ".git", "objects"), 0o755)
	os.WriteFile(filepath.Join(src, ".git", "HEAD"), []byte("ref"), 0o644)

	a := NewArchive()
	a.AddFile("/fsmove/site.pp", []byte("include m\n"), 0o644)
	a.AddDir(src, "/fsmove/modules/m")
	data, err := a.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	got := entries(t, data)
	want := map[string]string{
		"fsmove/":                            "dir",
		"fsmove/site.pp":                     "include m\n",
		"fsmove/modules/":                    "dir",
		"fsmove/modules/m/":                  "dir",
		"fsmove/modules/m/manifests/":        "dir",
		"fsmove/modules/m/manifests/init.pp": "class m {}\n",
		"fsmove/modules/m/metadata.json":     "{}",
		"fsmove/modules/m/link.pp":           "-> manifests/init.pp",
	}
	for name, content := range want {
		if got[name] != content {
			t.Errorf("%s: got %q, want %q", name, got[name], content)
		}
	}
	for name := range got {
		if strings.Contains(name, ".git") {
			t.Errorf("archive has %s", name)
		}
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected entry %s", name)
		}
	}

	// The same inputs give the same bytes.
	b := NewArchive()
	b.AddFile("/fsmove/site.pp", []byte("include m\n"), 0o644)
	b.AddDir(src, "/fsmove/modules/m")
	again, _ := b.Bytes()
	if !bytes.Equal(data, again) {
		t.Error("archive is not reproducible")
	}
}

func TestArchiveErrors(t *testing.T) {
	a := NewArchive()
	a.AddFile("../escape", nil, 0o644)
	if _, err := a.Bytes(); err == nil {
		t.Error("name with .. accepted")
	}
	b := NewArchive()
	b.AddDir(filepath.Join(t.TempDir(), "missing"), "x")
	if _, err := b.Bytes(); err == nil {
		t.Error("missing source directory accepted")
	}
}

func TestExtract(t *testing.T) {
	a := NewArchive()
	a.AddFile("graphs/relationships.dot", []byte("digraph {}"), 0o644)
	a.AddFile("trace.log", []byte("1 exit_group(0) = ?\n"), 0o644)
	data, err := a.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	files, err := Extract(bytes.NewReader(data), dest)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(files, ",") != "graphs/relationships.dot,trace.log" {
		t.Errorf("files = %v", files)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "graphs", "relationships.dot")); string(b) != "digraph {}" {
		t.Errorf("content = %q", b)
	}

	// A hostile archive cannot write outside dest.
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "../../evil", Size: 1, Mode: 0o644})
	tw.Write([]byte("x"))
	tw.Close()
	if _, err := Extract(&buf, dest); err == nil {
		t.Error("entry ../../evil accepted")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(dest)), "evil")); err == nil {
		t.Error("evil written outside dest")
	}
	// A truncated stream is an error, not a panic.
	if _, err := Extract(bytes.NewReader(data[:700]), t.TempDir()); err == nil {
		t.Error("truncated archive accepted")
	}
}
