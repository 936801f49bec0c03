package runner

import (
	"os"
	"path/filepath"
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
