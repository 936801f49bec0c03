package runner

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/container"
)

// TestModuleCopySkip: a module directory as a module author has it, with
// everything that is not the module beside its code, and exactly what of it
// goes into the container.
func TestModuleCopySkip(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"manifests/init.pp",
		"metadata.json",
		"templates/app.conf.erb",
		"files/vendor/keep.txt",          // vendor/ only at the root is the gems'
		"spec/classes/init_spec.rb",      // spec/ stays unless .pdkignore says so
		".git/HEAD",                      // version control
		"vendor/bundle/ruby/gem.rb",      // bundle install --path vendor
		".bundle/config",                 // Bundler's settings
		"spec/fixtures/modules/stdlib/x", // rspec-puppet's dependency modules
		"pkg/me-mod-1.0.0.tar.gz",        // pdk build
		"fsmove-out/mod/trace.log",       // fsmove's former default output
		"out/run.json",                   // this run's --out, inside the module
		"notes/todo.txt",                 // .pdkignore: /notes/
		"manifests/old.pp.bak",           // .pdkignore: *.bak
		"files/important.bak",            // .pdkignore: !files/important.bak
	} {
		path := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pdkignore := "# PDK's list, shortened\n/notes/\n*.bak\n!files/important.bak\n\n"
	if err := os.WriteFile(filepath.Join(dir, ".pdkignore"), []byte(pdkignore), 0o644); err != nil {
		t.Fatal(err)
	}

	skip, err := ModuleCopySkip(dir, filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	a := container.NewArchive()
	a.AddDirExcept(dir, "m", skip)
	data, err := a.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			files = append(files, strings.TrimPrefix(h.Name, "m/"))
		}
	}
	slices.Sort(files)
	want := []string{".pdkignore", "files/important.bak", "files/vendor/keep.txt", "manifests/init.pp", "metadata.json",
		"spec/classes/init_spec.rb", "templates/app.conf.erb"}
	if strings.Join(files, "\n") != strings.Join(want, "\n") {
		t.Errorf("copied:\n  %s\nwant:\n  %s", strings.Join(files, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestModuleCopySkipUnreadablePDKIgnore: a .pdkignore that cannot be read
// is said, not taken as empty.
func TestModuleCopySkipUnreadablePDKIgnore(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".pdkignore"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ModuleCopySkip(dir, ""); err == nil || !strings.Contains(err.Error(), ".pdkignore") {
		t.Errorf("a directory as .pdkignore: %v", err)
	}
}

// FuzzModuleCopySkip: any .pdkignore gives a skip function that answers
// for any path, without a panic; the module's code is never left out by
// fsmove's own list.
func FuzzModuleCopySkip(f *testing.F) {
	f.Add("/pkg/\n*.bak\n!keep.bak\n", "manifests/init.pp")
	f.Add("**/tmp\n\\#literal\n/spec/\n", "spec/fixtures/x")
	f.Add("[a-\n\\\n!\n/\n**\n", "a/b/c")
	f.Fuzz(func(t *testing.T, pdkignore, rel string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ".pdkignore"), []byte(pdkignore), 0o644); err != nil {
			t.Fatal(err)
		}
		skip, err := ModuleCopySkip(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		skip(rel, false)
		skip(rel, true)
		if pdkignore == "" && skip("manifests/init.pp", false) {
			t.Error("manifests/init.pp left out without a .pdkignore")
		}
	})
}
