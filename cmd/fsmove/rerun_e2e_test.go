package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/runner"
)

// TestE2ERerunReplacesDefaultPlace: fsmove run MODULE twice, without --out
// or --force: both runs succeed, the second replaces the first in the
// module's default place, which the last line names, and nothing is left
// beside it. A third run that fails before its trace is out (a setup step
// that fails) keeps the second run as it was and is itself kept beside it,
// as .failed.
func TestE2ERerunReplacesDefaultPlace(t *testing.T) {
	requireDocker(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "state"))
	module := filepath.Join("..", "..", "testdata", "modules", "clean")
	apply := func(more ...string) (int, string, string) {
		return runDefaultPlace(module, append([]string{"--quiet"}, more...)...)
	}
	code, first, stderr := apply()
	if code != exitOK || !filepath.IsAbs(first) {
		t.Fatalf("first run: exit %d, artifacts %q\n%s", code, first, stderr)
	}
	rec1, err := runner.ReadRecord(first)
	if err != nil {
		t.Fatal(err)
	}
	code, second, stderr := apply()
	if code != exitOK || second != first {
		t.Fatalf("rerun: exit %d, artifacts %q, want exit 0 in %s\n%s", code, second, first, stderr)
	}
	rec2, err := runner.ReadRecord(second)
	if err != nil || !rec2.Started.After(rec1.Started) || rec2.AnalyzeExit == nil {
		t.Fatalf("run.json after the rerun: %v, started %v (first %v): want the rerun's, analyzed", err, rec2.Started, rec1.Started)
	}
	if entries, _ := os.ReadDir(filepath.Dir(first)); len(entries) != 1 {
		t.Errorf("beside the run: %d entries, want none", len(entries)-1)
	}

	code, failed, stderr := apply("--setup", "exit 7")
	if code != exitRun || failed != first+runner.FailedSuffix || !strings.Contains(stderr, "earlier run in "+first+" is kept") ||
		!strings.Contains(stderr, failed+"/setup.log") {
		t.Errorf("failing rerun: exit %d, artifacts %q, want exit %d in %s.failed\n%s", code, failed, exitRun, first, stderr)
	}
	if rec, err := runner.ReadRecord(first); err != nil || !rec.Started.Equal(rec2.Started) {
		t.Errorf("the earlier run was not kept: %v, started %v, want %v", err, rec.Started, rec2.Started)
	}
	if rec, err := runner.ReadRecord(failed); err != nil || rec.Status != runner.StatusInfraError {
		t.Errorf("the failed run's run.json: %v, %+v", err, rec)
	}
}

// runDefaultPlace runs module without --out (eBPF, no init) with more
// flags and returns the exit status, the run's directory (its
// "artifacts:" line) and standard error.
func runDefaultPlace(module string, more ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	args := append([]string{"run", "--init", "none"}, more...)
	code := run(&stdout, &stderr, append(args, module))
	dir := ""
	for _, line := range strings.Split(stderr.String(), "\n") {
		if d, ok := strings.CutPrefix(line, "artifacts: "); ok {
			dir = d
		}
	}
	return code, dir, stderr.String()
}
