package container

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
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
	data := tarOf(t, [2]string{"trace.log", "1 exit_group(0) = ?\n"})
	dest := t.TempDir()
	file, err := Extract(bytes.NewReader(data), dest, unlimited())
	if err != nil || file != "trace.log" {
		t.Fatalf("file %q, err %v", file, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "trace.log")); string(b) != "1 exit_group(0) = ?\n" {
		t.Errorf("content = %q", b)
	}

	// A hostile archive cannot write outside dest.
	if _, err := Extract(bytes.NewReader(tarOf(t, [2]string{"../../evil", "x"})), dest, unlimited()); err == nil {
		t.Error("entry ../../evil accepted")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(dest)), "evil")); err == nil {
		t.Error("evil written outside dest")
	}
	// A truncated stream is an error, not a panic.
	if _, err := Extract(bytes.NewReader(data[:520]), t.TempDir(), unlimited()); err == nil {
		t.Error("truncated archive accepted")
	}
	if _, err := Extract(bytes.NewReader(nil), t.TempDir(), unlimited()); err == nil {
		t.Error("empty archive accepted")
	}
}

func unlimited() *Budget { return &Budget{PerFile: 1 << 40, Total: 1 << 40} }

// tarOf writes entries (name → content; a content starting with "->" is
// a symbolic link to the rest, a name ending in "/" a directory) in order.
func tarOf(t *testing.T, entries ...[2]string) []byte {
	t.Helper()
	return tarOfEntries(entries...)
}

// A file over the budget of one file is left out, or cut when the budget
// says so; the budget of all files counts over several Extracts.
func TestExtractBudget(t *testing.T) {
	dest := t.TempDir()
	b := &Budget{PerFile: 10, Total: 15}
	for _, e := range [][2]string{{"small", "12345"}, {"fits", "abcdefgh"}, {"big", "0123456789ABCDEF"}} {
		Extract(bytes.NewReader(tarOf(t, e)), dest, b)
	}
	if b.Used != 13 {
		t.Errorf("used %d, want 13: small and fits", b.Used)
	}
	if _, err := os.Stat(filepath.Join(dest, "big")); err == nil {
		t.Error("big was written though it is over the budget of one file")
	}
	if len(b.Over) != 1 || !strings.Contains(b.Over[0], "big") {
		t.Errorf("over = %q, want one line about big", b.Over)
	}
	// 2 bytes of the total are left: a fourth Extract may not write 5.
	file, _ := Extract(bytes.NewReader(tarOf(t, [2]string{"more", "12345"})), dest, b)
	if file != "" || len(b.Over) != 2 || !strings.Contains(b.Over[1], "all files") {
		t.Errorf("file %q, over %q: want nothing written, said against the total", file, b.Over)
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

// What fsmove asks for must be a regular file: a link, or a directory
// (which could hold any number of entries), is the container's doing.
func TestExtractTampered(t *testing.T) {
	dest := t.TempDir()
	_, err := Extract(bytes.NewReader(tarOf(t, [2]string{"graphs", "->/etc"})), dest, unlimited())
	if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "symbolic link to /etc") {
		t.Errorf("a link: %v, want ErrTampered naming the link", err)
	}
	file, err := Extract(bytes.NewReader(tarOf(t, [2]string{"puppet.log/", ""}, [2]string{"puppet.log/x", "data"})), dest, unlimited())
	if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "a directory") || file != "" {
		t.Errorf("a directory: file %q, %v, want ErrTampered naming the directory", file, err)
	}
	if entries, _ := os.ReadDir(dest); len(entries) != 0 {
		t.Errorf("written: %v, want nothing", entries)
	}
}

// TestExtractFiles: the wanted files of a directory's stream, each under
// its own name; the rest skipped; a wanted name made a link is tampering,
// and the other wanted files are written all the same.
func TestExtractFiles(t *testing.T) {
	dest := t.TempDir()
	data := tarOf(t, [2]string{"compile/", ""}, [2]string{"compile/var/catalog/node.json", "{}"},
		[2]string{"compile/var/other.yaml", "x: 1"}, [2]string{"compile/graphs/a.dot", "digraph a {}"},
		[2]string{"compile/graphs/b.dot", "->/etc/shadow"})
	want := map[string]string{"compile/var/catalog/node.json": "node.json", "compile/graphs/a.dot": "graphs/a.dot",
		"compile/graphs/b.dot": "graphs/b.dot", "compile/graphs/missing.dot": "graphs/missing.dot"}
	wrote, err := ExtractFiles(bytes.NewReader(data), dest, want, unlimited())
	if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "b.dot is a symbolic link to /etc/shadow") {
		t.Errorf("err %v, want ErrTampered naming b.dot", err)
	}
	if len(wrote) != 2 || !wrote["compile/var/catalog/node.json"] || !wrote["compile/graphs/a.dot"] {
		t.Errorf("wrote %v, want the catalog and a.dot", wrote)
	}
	for file, content := range map[string]string{"node.json": "{}", "graphs/a.dot": "digraph a {}"} {
		if b, _ := os.ReadFile(filepath.Join(dest, file)); string(b) != content {
			t.Errorf("%s holds %q, want %q", file, b, content)
		}
	}
	for _, file := range []string{"other.yaml", "var", "compile", "graphs/b.dot"} {
		if _, err := os.Lstat(filepath.Join(dest, file)); err == nil {
			t.Errorf("%s written", file)
		}
	}
	// The budget holds across the files; a name to leave dest is refused.
	b := &Budget{PerFile: 5, Total: 100}
	if wrote, _ := ExtractFiles(bytes.NewReader(data), t.TempDir(), want, b); len(wrote) != 1 || len(b.Over) != 1 {
		t.Errorf("wrote %v, over %q: want the catalog only, a.dot said over budget", wrote, b.Over)
	}
	if _, err := ExtractFiles(bytes.NewReader(data), dest, map[string]string{"compile/graphs/a.dot": "../../evil"}, unlimited()); err == nil {
		t.Error("a destination leaving dest accepted")
	}
	// Once every wanted name was seen the stream is read no further: what
	// follows (here a stream that fails) is not read.
	head := tarOf(t, [2]string{"apply/graphs/a.dot", "digraph a {}"}, [2]string{"apply/puppet.log", "log"})
	head = head[:len(head)-1024] // the two zero blocks that end a tar
	cut := io.MultiReader(bytes.NewReader(head), iotest.ErrReader(errors.New("read past the wanted files")))
	wrote, err = ExtractFiles(cut, t.TempDir(), map[string]string{"apply/graphs/a.dot": "a.dot", "apply/puppet.log": "puppet.log"}, unlimited())
	if err != nil || len(wrote) != 2 {
		t.Errorf("wrote %v, err %v: want both files and the stream left unread after them", wrote, err)
	}
	wrote, err = ExtractFiles(io.MultiReader(bytes.NewReader(head), iotest.ErrReader(errors.New("cut"))), t.TempDir(),
		map[string]string{"apply/puppet.log": "puppet.log", "apply/puppet.exit": "puppet.exit"}, unlimited())
	if err == nil || len(wrote) != 1 {
		t.Errorf("wrote %v, err %v: a wanted name not seen yet reads on (and here meets the cut)", wrote, err)
	}
	// A stream of too many entries is refused, not read to its end.
	many := make([][2]string, maxEntries+1)
	for i := range many {
		many[i] = [2]string{fmt.Sprintf("d/%d", i), ""}
	}
	if _, err := ExtractFiles(bytes.NewReader(tarOf(t, many...)), t.TempDir(), want, unlimited()); !errors.Is(err, ErrTampered) {
		t.Errorf("%d entries: %v, want ErrTampered", len(many), err)
	}
}

// TestExtractManifests: only .pp regular files are written, under dest,
// within budget; links, other files and names leaving dest are not.
func TestExtractManifests(t *testing.T) {
	dest := t.TempDir()
	data := tarOf(t,
		[2]string{"manifests/", ""},
		[2]string{"manifests/init.pp", "class apt {}\n"},
		[2]string{"manifests/key/", ""},
		[2]string{"manifests/key/add.pp", "define apt::key::add {}\n"},
		[2]string{"manifests/link.pp", "->/etc/shadow"},
		[2]string{"manifests/README", "not a manifest"},
		[2]string{"manifests/big.pp", strings.Repeat("#", 200)},
	)
	budget := &Budget{PerFile: 100, Total: 1 << 20}
	n, err := ExtractManifests(bytes.NewReader(data), dest, budget)
	if err != nil || n != 2 {
		t.Fatalf("%d files, err %v; want 2, nil", n, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "manifests", "key", "add.pp")); string(b) != "define apt::key::add {}\n" {
		t.Errorf("add.pp = %q", b)
	}
	for _, name := range []string{"link.pp", "README", "big.pp"} {
		if _, err := os.Lstat(filepath.Join(dest, "manifests", name)); err == nil {
			t.Errorf("%s written", name)
		}
	}
	if len(budget.Over) != 1 || !strings.Contains(budget.Over[0], "big.pp") {
		t.Errorf("over budget: %q, want big.pp", budget.Over)
	}
	if _, err := ExtractManifests(bytes.NewReader(tarOf(t, [2]string{"../../evil.pp", "x"})), dest, unlimited()); err == nil {
		t.Error("entry ../../evil.pp accepted")
	}
	if _, err := ExtractManifests(bytes.NewReader(data[:700]), t.TempDir(), unlimited()); err == nil {
		t.Error("truncated archive accepted")
	}
}

// FuzzExtractFiles: whatever the container's stream holds, no panic,
// nothing written but the wanted files, each under its own name in dest,
// and the budget kept.
func FuzzExtractFiles(f *testing.F) {
	f.Add(tarOfEntries([2]string{"compile/graphs/a.dot", "digraph a {}"}, [2]string{"compile/var/x", "1"}))
	f.Add(tarOfEntries([2]string{"compile/graphs/a.dot", "->/etc"}, [2]string{"compile/../../a.dot", "x"}))
	f.Add([]byte{})
	want := map[string]string{"compile/graphs/a.dot": "graphs/a.dot", "compile/catalog.json": "catalog.json"}
	f.Fuzz(func(t *testing.T, data []byte) {
		dest, err := os.MkdirTemp("", "fuzz-extract-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dest)
		budget := &Budget{PerFile: 64, Total: 100}
		wrote, _ := ExtractFiles(bytes.NewReader(data), dest, want, budget)
		var found []string
		filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dest, p)
				found = append(found, filepath.ToSlash(rel))
			}
			return nil
		})
		for _, f := range found {
			if f != "graphs/a.dot" && f != "catalog.json" {
				t.Errorf("%s written", f)
			}
		}
		if len(found) != len(wrote) || budget.Used > budget.Total {
			t.Errorf("found %v, wrote %v, used %d of %d", found, wrote, budget.Used, budget.Total)
		}
	})
}

// tarOfEntries is tarOf without a test, for a fuzz target's seeds.
func tarOfEntries(entries ...[2]string) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: e[0], Size: int64(len(e[1])), Mode: 0o644}
		if target, ok := strings.CutPrefix(e[1], "->"); ok {
			h = &tar.Header{Typeflag: tar.TypeSymlink, Name: e[0], Linkname: target, Mode: 0o777}
		} else if strings.HasSuffix(e[0], "/") {
			h = &tar.Header{Typeflag: tar.TypeDir, Name: e[0], Mode: 0o755}
		}
		tw.WriteHeader(h)
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(e[1]))
		}
	}
	tw.Close()
	return buf.Bytes()
}
