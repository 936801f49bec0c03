package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModulePathModules: a --modulepath of one module is that module by
// its metadata name; a directory of modules, each subdirectory by its
// name; the first of a name wins, as in Puppet's search.
func TestModulePathModules(t *testing.T) {
	tmp := t.TempDir()
	one := filepath.Join(tmp, "puppetlabs-helper")
	os.MkdirAll(filepath.Join(one, "manifests"), 0o755)
	os.WriteFile(filepath.Join(one, "metadata.json"), []byte(`{"name": "me-helper"}`), 0o644)
	tree := filepath.Join(tmp, "tree")
	for _, m := range []string{"helper", "apt", "Not_A_Name"} {
		os.MkdirAll(filepath.Join(tree, m, "manifests"), 0o755)
	}
	os.WriteFile(filepath.Join(tree, "README"), nil, 0o644)
	mods, err := modulePathModules([]string{one, tree})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"helper": one, "apt": filepath.Join(tree, "apt")}
	if len(mods) != len(want) {
		t.Errorf("got %v, want %v", mods, want)
	}
	for name, dir := range want {
		if mods[name] != dir {
			t.Errorf("%s: got %q, want %q", name, mods[name], dir)
		}
	}
	if _, err := modulePathModules([]string{filepath.Join(tmp, "nothing")}); err == nil {
		t.Error("a missing --modulepath was accepted")
	}
}

// TestReadDependenciesWithoutModule: with -e or --manifest the modules of
// --modulepath are the dependencies, in name order (Resolve then reads
// theirs); with a Debian module there is nothing to read.
func TestReadDependenciesWithoutModule(t *testing.T) {
	tree := t.TempDir()
	for _, m := range []string{"web", "apt"} {
		os.MkdirAll(filepath.Join(tree, m, "manifests"), 0o755)
	}
	spec, err := NoModuleSpec(Entry{Code: "include web"})
	if err != nil {
		t.Fatal(err)
	}
	deps, _, err := ReadDependencies(spec, []string{tree})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range deps {
		got = append(got, d.Name.Name+" "+d.From)
	}
	if want := "apt --modulepath,web --modulepath"; strings.Join(got, ",") != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if deps, _, err := ReadDependencies(ModuleSpec{Kind: SourceDeb, Name: "web"}, []string{tree}); err != nil || len(deps) != 0 {
		t.Errorf("a Debian module: %v, %v; want none", deps, err)
	}
}
