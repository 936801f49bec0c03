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
	files, err := Extract(bytes.NewReader(data), dest, unlimited())
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
	if _, err := Extract(&buf, dest, unlimited()); err == nil {
		t.Error("entry ../../evil accepted")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(dest)), "evil")); err == nil {
		t.Error("evil written outside dest")
	}
	// A truncated stream is an error, not a panic.
	if _, err := Extract(bytes.NewReader(data[:700]), t.TempDir(), unlimited()); err == nil {
		t.Error("truncated archive accepted")
	}
}

func unlimited() *Budget { return &Budget{PerFile: 1 << 40, Total: 1 << 40} }

// tarOf writes entries (name → content; a content starting with "->" is
// a symbolic link to the rest) in order.
func tarOf(t *testing.T, entries ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: e[0], Size: int64(len(e[1])), Mode: 0o644}
		if target, ok := strings.CutPrefix(e[1], "->"); ok {
			h = &tar.Header{Typeflag: tar.TypeSymlink, Name: e[0], Linkname: target, Mode: 0o777}
		} else if strings.HasSuffix(e[0], "/") {
			h = &tar.Header{Typeflag: tar.TypeDir, Name: e[0], Mode: 0o755}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(e[1]))
		}
	}
	tw.Close()
	return buf.Bytes()
}

// A file over the budget of one file is left out and ends the extraction
// (skipping it would read it), or is cut when the budget says so; the
// budget of all files counts over several Extracts.
func TestExtractBudget(t *testing.T) {
	dest := t.TempDir()
	b := &Budget{PerFile: 10, Total: 15}
	files, err := Extract(bytes.NewReader(tarOf(t, [2]string{"d/", ""}, [2]string{"d/small", "12345"},
		[2]string{"d/fits", "abcdefgh"}, [2]string{"d/big", "0123456789ABCDEF"}, [2]string{"d/after", "x"})), dest, b)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(files, ",") != "d/small,d/fits" || b.Used != 13 {
		t.Errorf("files %v, used %d: want d/small and d/fits, 13 bytes, and nothing after d/big", files, b.Used)
	}
	if _, err := os.Stat(filepath.Join(dest, "d", "big")); err == nil {
		t.Error("d/big was written though it is over the budget of one file")
	}
	if len(b.Over) != 1 || !strings.Contains(b.Over[0], "d/big") {
		t.Errorf("over = %q, want one line about d/big", b.Over)
	}
	// 2 bytes of the total are left: a second Extract may not write 5.
	files, _ = Extract(bytes.NewReader(tarOf(t, [2]string{"more", "12345"})), dest, b)
	if len(files) != 0 || len(b.Over) != 2 || !strings.Contains(b.Over[1], "all files") {
		t.Errorf("files %v, over %q: want nothing written, said against the total", files, b.Over)
	}

	cut := &Budget{PerFile: 4, Total: 100, Cut: true}
	if _, err := Extract(bytes.NewReader(tarOf(t, [2]string{"trace.log", "line1\nline2\n"})), dest, cut); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dest, "trace.log")); string(got) != "line" || len(cut.Over) != 1 {
		t.Errorf("cut file holds %q (over %q), want its first 4 bytes and one line", got, cut.Over)
	}

	// The header's size is checked before any data is read: a terabyte
	// announced is refused even when the stream has none of it.
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "sparse", Size: 1 << 40, Mode: 0o644})
	huge := &Budget{PerFile: 1 << 20, Total: 1 << 20}
	Extract(&buf, dest, huge)
	if _, err := os.Stat(filepath.Join(dest, "sparse")); err == nil || len(huge.Over) != 1 {
		t.Errorf("a 1 TB file was written, or not said (over %q)", huge.Over)
	}
}

// What fsmove asks for must be a file or a directory: a link there is the
// container's doing. Links below it are skipped.
func TestExtractTampered(t *testing.T) {
	dest := t.TempDir()
	_, err := Extract(bytes.NewReader(tarOf(t, [2]string{"graphs", "->/etc"})), dest, unlimited())
	if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "symbolic link to /etc") {
		t.Errorf("top-level link: %v, want ErrTampered naming the link", err)
	}
	files, err := Extract(bytes.NewReader(tarOf(t, [2]string{"graphs/", ""}, [2]string{"graphs/x", "->/etc/shadow"},
		[2]string{"graphs/y.dot", "digraph{}"})), dest, unlimited())
	if err != nil || strings.Join(files, ",") != "graphs/y.dot" {
		t.Errorf("files %v, err %v: want the link below the top skipped, the rest written", files, err)
	}
	if _, err := os.Lstat(filepath.Join(dest, "graphs", "x")); err == nil {
		t.Error("a link was written")
	}
}
