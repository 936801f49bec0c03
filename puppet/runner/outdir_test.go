package runner

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestSweepStaging: of the staging directories in a runs directory, a dead
// run's (no lock) is renamed .interrupted- with what it holds, an empty one
// is removed, a live one (locked) and a young one are left, and a dry run
// changes nothing.
func TestSweepStaging(t *testing.T) {
	runs := t.TempDir()
	old := time.Now().Add(-time.Minute)
	mk := func(name string, files ...string) string {
		dir := filepath.Join(runs, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	age := func(dir string) {
		if err := os.Chtimes(dir, old, old); err != nil {
			t.Fatal(err)
		}
	}
	dead := mk("m-1a2b.new-11", TraceFile, CatalogFile)
	empty := mk("m-1a2b.new-22")
	live := mk("m-1a2b.new-33", TraceFile)
	young := mk("m-1a2b.new-44", TraceFile)
	place := mk("m-1a2b", TraceFile)
	for _, d := range []string{dead, empty, live, place} {
		age(d)
	}
	release, err := LockStaging(live)
	if err != nil {
		t.Fatal(err)
	}
	defer release()

	listed, err := SweepStaging(runs, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{dead, empty}; !reflect.DeepEqual(listed, want) {
		t.Errorf("dry run lists %v, want %v", listed, want)
	}
	if _, err := os.Stat(dead); err != nil {
		t.Fatalf("the dry run changed %s: %v", dead, err)
	}

	swept, err := SweepStaging(runs, false)
	if err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(runs, "m-1a2b.interrupted-11")
	if want := []string{kept}; !reflect.DeepEqual(swept, want) {
		t.Errorf("swept %v, want %v", swept, want)
	}
	for _, f := range []string{TraceFile, CatalogFile} {
		if _, err := os.Stat(filepath.Join(kept, f)); err != nil {
			t.Errorf("the interrupted run lost %s: %v", f, err)
		}
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("the empty staging directory is still there: %v", err)
	}
	for _, d := range []string{live, young, place} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was touched: %v", d, err)
		}
	}
	// Once its fsmove is gone, the live one is a dead one.
	release()
	if swept, _ := SweepStaging(runs, false); len(swept) != 1 || swept[0] != filepath.Join(runs, "m-1a2b.interrupted-33") {
		t.Errorf("after the lock's release: swept %v", swept)
	}
}
