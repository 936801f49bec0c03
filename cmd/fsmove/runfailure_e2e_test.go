package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/runner"
)

// TestE2EFailedRunFormats: a real apply in which resources fail
// (mor_observed_failure: Puppet exits 6) exits 3, and its machine formats
// say the run failed: the run's own JSON report has complete false with
// the run's status, and fsmove analyze of its directory gives SARIF
// executionSuccessful false, a JUnit error and a Code Quality issue, while
// exiting as the analysis says (1: the observed MOR), as before.
func TestE2EFailedRunFormats(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"run", "--quiet", "--init", "none", "--out", out, "--format", "json",
		filepath.Join("..", "..", "testdata", "modules", "mor_observed_failure")})
	if code != exitRun {
		t.Fatalf("exit %d, want 3\nstderr:\n%s", code, stderr.String())
	}
	rec, err := runner.ReadRecord(out)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != runner.StatusPuppetFailed || rec.PuppetExit == nil || *rec.PuppetExit != 6 {
		t.Fatalf("run.json: status %q, puppet_exit %v; want puppet-failed, 6", rec.Status, rec.PuppetExit)
	}
	const why = "Puppet exited with 6"
	var js struct {
		Complete   bool `json:"complete"`
		RunFailure *struct {
			Status string `json:"status"`
			Error  string `json:"error"`
		} `json:"run_failure"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &js); err != nil {
		t.Fatalf("the run's JSON report: %v\n%.500s", err, stdout.String())
	}
	if js.Complete || js.RunFailure == nil || js.RunFailure.Status != runner.StatusPuppetFailed || !strings.Contains(js.RunFailure.Error, why) {
		t.Errorf("the run's JSON report: complete %v, run_failure %+v; want false, puppet-failed, %q", js.Complete, js.RunFailure, why)
	}
	checkFailedRunFormats(t, out, exitFindings, runner.StatusPuppetFailed, why)
}
