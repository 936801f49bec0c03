package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/runner"
)

// TestE2EBadRunInput is the part of the bad-input suite (badinput_test.go)
// that needs a real container: Puppet code that cannot compile or apply,
// and a setup step that fails. Each must exit 3 (the run failed), keep
// run.json with the failure, never exit 0, and leave no container
// (requireDocker checks).
func TestE2EBadRunInput(t *testing.T) {
	requireDocker(t)
	broken := t.TempDir()
	mod := filepath.Join(broken, "broken")
	os.MkdirAll(filepath.Join(mod, "manifests"), 0o755)
	os.WriteFile(filepath.Join(mod, "manifests", "init.pp"), []byte("class broken {\n  file { '/tmp/x':\n    ensure => \n}\n"), 0o644)

	cases := []struct {
		name   string
		args   []string
		status string
		stderr string
	}{
		{"a module that does not parse", []string{mod}, runner.StatusCompileFailed, "Syntax error"},
		{"code that fails to compile", []string{"-e", `fail("fsmove bad input")`}, runner.StatusCompileFailed, "fsmove bad input"},
		{"a resource that fails to apply", []string{"-e", `exec { 'fsmove-false': command => '/bin/false' }`}, runner.StatusPuppetFailed, "fsmove-false"},
		{"a setup step that fails", []string{"--setup", "echo fsmove-setup-output; exit 7", "-e", "notice(1)"}, runner.StatusInfraError, "fsmove-setup-output"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--quiet", "--init", "none", "--tracer", "strace", "--out", out}, c.args...)
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, args)
			if code != exitRun {
				t.Errorf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, stderr.String())
			}
			rec, err := runner.ReadRecord(out)
			if err != nil {
				t.Fatalf("run.json: %v", err)
			}
			if rec.Status != c.status {
				t.Errorf("run.json status %q, want %q (error %q)", rec.Status, c.status, rec.Error)
			}
		})
	}
}
