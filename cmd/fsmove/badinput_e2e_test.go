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
	t.Parallel()
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
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--quiet", "--init", "none", "--out", out}, c.args...)
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

// TestE2ERunCompileErrorReadable: a module with a syntax error, run with
// -v (Puppet's whole log on stderr). What fsmove prints names the user's
// file and line (not the container's /fsmove/modules/…), has no colour
// codes, says the failure once, and the apply step's line says the outcome
// rather than "done".
func TestE2ERunCompileErrorReadable(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	mod := filepath.Join(t.TempDir(), "mymod")
	os.MkdirAll(filepath.Join(mod, "manifests"), 0o755)
	os.WriteFile(filepath.Join(mod, "manifests", "init.pp"), []byte("class mymod {\n  package { 'foo'\n    ensure => installed,\n  }\n}\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"run", "-v", "--init", "none", "--out", out, mod})
	got := stderr.String()
	if code != exitRun {
		t.Errorf("exit %d, want 3", code)
	}
	hostFile := filepath.Join(mod, "manifests", "init.pp")
	for _, want := range []string{
		"  Error: Syntax error at 'ensure' (file: " + hostFile + ", line: 3",
		"apply     FAILED in ",
		": Puppet could not compile the catalog (exit 1)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	for _, bad := range []string{"/fsmove/modules/mymod", "\x1b", `\x1b`, "apply     done", "nothing to analyze"} {
		if strings.Contains(got, bad) {
			t.Errorf("stderr has %q", bad)
		}
	}
	if n := strings.Count(got, "fsmove run: Puppet could not compile the catalog"); n != 1 {
		t.Errorf("the failure is said %d times, want once", n)
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", got)
	}
}
