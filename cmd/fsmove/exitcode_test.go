package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExitStatusesTellCasesApart: what issue 27 found lumped together as 2
// is now told apart, so that a CI script can branch on it: a typo and a
// refused --out are usage errors (2, nothing started), a run that cannot
// reach Docker failed (3), an analysis that found nothing but is incomplete
// is 4, and --allow-incomplete makes that 0.
func TestExitStatusesTellCasesApart(t *testing.T) {
	noDocker(t)
	root := t.TempDir()
	module := filepath.Join("..", "..", "testdata", "modules", "clean")
	earlier := filepath.Join(root, "earlier")
	writeFile(t, filepath.Join(earlier, "run.json"), `{"status": "ok"}`)
	emptyTrace := filepath.Join(root, "trace.log")
	writeFile(t, emptyTrace, "")
	catalog := filepath.Join(fig1Dir, "catalog.json")

	cases := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"a misspelt flag", []string{"run", "--quiett", module}, exitUsage, "unknown flag: --quiett"},
		{"a refused --out", []string{"run", "--quiet", "--tracer", "strace", "--trusted", "--out", earlier, module}, exitUsage, "holds an earlier run"},
		{"a run that cannot start", []string{"run", "--quiet", "--tracer", "strace", "--trusted", "--out", filepath.Join(root, "new"), module}, exitRun, "docker"},
		{"an incomplete analysis", []string{"analyze", emptyTrace, catalog}, exitIncomplete, "incomplete"},
		{"an accepted incomplete analysis", []string{"analyze", "--allow-incomplete", emptyTrace, catalog}, exitOK, "--allow-incomplete"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, c.args)
		if code != c.code || !strings.Contains(strings.ToLower(stderr.String()), strings.ToLower(c.want)) {
			t.Errorf("%s: exit %d, want %d with %q in stderr:\n%s", c.name, code, c.code, c.want, stderr.String())
		}
	}
}

// TestExitStatusTablesAgree: fsmove --help prints exitStatusTable, and the
// README's "Exit status" table has a row for each of its statuses and no
// other.
func TestExitStatusTablesAgree(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"--help"}); code != exitOK || !strings.Contains(stdout.String(), exitStatusTable) {
		t.Errorf("fsmove --help (exit %d) does not print the exit status table:\n%s", code, stdout.String())
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Exit status")
	if !ok {
		t.Fatal(`README.md has no "## Exit status" section`)
	}
	section, _, _ = strings.Cut(section, "\n#") // up to the next heading
	readmeRows := regexp.MustCompile(`(?m)^\| (\d) \|`).FindAllStringSubmatch(section, -1)
	helpRows := regexp.MustCompile(`(?m)^  (\d)  `).FindAllStringSubmatch(exitStatusTable, -1)
	var inReadme, inHelp []string
	for _, m := range readmeRows {
		inReadme = append(inReadme, m[1])
	}
	for _, m := range helpRows {
		inHelp = append(inHelp, m[1])
	}
	if strings.Join(inReadme, ",") != strings.Join(inHelp, ",") || len(inHelp) != 5 {
		t.Errorf("README.md's exit statuses %v, --help's %v: want the same five", inReadme, inHelp)
	}
}
