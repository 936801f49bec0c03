package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EScope: the gate judges the module under test. A clean module that
// includes a dependency with a missing ordering relationship exits 0 and
// counts the dependency's finding on one line; the same run analyzed with
// --scope all lists it and exits 1.
func TestE2EScope(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	dir := filepath.Join("..", "..", "testdata", "scope")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := append([]string{"run", "--network", "none", "--out", out, "--modulepath", filepath.Join(dir, "faultydep")}, depsImageArgs()...)
	code := run(&stdout, &stderr, append(args, filepath.Join(dir, "uses_faultydep")))
	if code != exitOK {
		t.Fatalf("fsmove run: exit %d, want %d (the only finding is the dependency's)\n%s\n%s", code, exitOK, stdout.String(), stderr.String())
	}
	if want := "1 finding in dependencies, not counted (--scope all lists them)"; !strings.Contains(stdout.String(), want) {
		t.Errorf("the report does not say %q:\n%s", want, stdout.String())
	}
	if strings.Contains(stdout.String(), "Exec[faultydep-read]") {
		t.Errorf("the report lists the dependency's finding:\n%s", stdout.String())
	}

	// The run's own artifacts, analyzed again: JSON counts it, --scope
	// all lists it and fails the gate.
	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"analyze", "--format", "json", out}); code != exitOK {
		t.Fatalf("fsmove analyze RUN-DIR: exit %d, want %d\n%s", code, exitOK, stderr.String())
	}
	var rep struct {
		Findings []json.RawMessage `json:"findings"`
		Stats    struct {
			InDependencies int `json:"in_dependencies"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 0 || rep.Stats.InDependencies != 1 {
		t.Errorf("JSON: %d findings, %d in dependencies; want 0, 1\n%s", len(rep.Findings), rep.Stats.InDependencies, stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"analyze", "--scope", "all", "--format", "json", out}); code != exitFindings {
		t.Fatalf("fsmove analyze --scope all: exit %d, want %d\n%s", code, exitFindings, stderr.String())
	}
	got := e2eFindings(t, stdout.Bytes())
	if want := "MOR File[/etc/faultydep.conf] Exec[faultydep-read]"; len(got) != 1 || got[0] != want {
		t.Errorf("--scope all: findings %q, want [%q]", got, want)
	}

	// fsmove fix edits the module's own files only: the dependency's
	// finding is listed as not edited, and its files stay as they were.
	before := treeText(t, filepath.Join(dir, "faultydep"))
	stdout.Reset()
	stderr.Reset()
	code = run(&stdout, &stderr, []string{"fix", "--quiet", out})
	if code != exitOK || stdout.Len() != 0 || !strings.Contains(stderr.String(), "Exec[faultydep-read]: inside a dependency") {
		t.Errorf("fsmove fix: exit %d, diff %q; want 0, none, and the dependency's finding not edited\n%s", code, stdout.String(), stderr.String())
	}
	if treeText(t, filepath.Join(dir, "faultydep")) != before {
		t.Error("fsmove fix changed the dependency's files")
	}
}

// treeText is every file under dir, names and contents, in walk order.
func treeText(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		b.WriteString(p + "\n" + string(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
