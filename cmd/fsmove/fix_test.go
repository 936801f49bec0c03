package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixUsage: fsmove fix refuses, before any run or container, what it
// cannot fix: no argument, two, a module that is not there, a run of a
// module that is no directory of this machine.
func TestFixUsage(t *testing.T) {
	debRun := t.TempDir()
	if err := os.WriteFile(filepath.Join(debRun, "run.json"), []byte(`{"module":{"spec":"deb:puppet-module-x","kind":"deb","name":"x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fix"}, "want the directory of a run, or a module"},
		{[]string{"fix", "a", "b"}, "want the directory of a run, or a module"},
		{[]string{"fix", filepath.Join(t.TempDir(), "nothere")}, "not found"},
		{[]string{"fix", debRun}, "fsmove fix edits a module's own files"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(&stdout, &stderr, c.args); code != exitUsage || !strings.Contains(stderr.String(), c.want) || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want %d and %q", c.args, code, stderr.String(), stdout.String(), exitUsage, c.want)
		}
	}
}
