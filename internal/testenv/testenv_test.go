package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a test would end instead of
// ending it.
type recorder struct {
	testing.TB
	failed, skipped string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
}

// TestMissing: without FSMOVE_E2E=1 a missing requirement skips; with it,
// it fails; both say what is missing.
func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		env      string
		wantFail bool
	}{{"", false}, {"0", false}, {"1", true}} {
		t.Setenv("FSMOVE_E2E", tc.env)
		r := &recorder{TB: t}
		Missing(r, "no %s", "cc")
		got := r.skipped
		if tc.wantFail {
			got = r.failed
		}
		if !strings.Contains(got, "no cc") || (r.failed != "") != tc.wantFail || (r.skipped != "") == tc.wantFail {
			t.Errorf("FSMOVE_E2E=%q: failed %q, skipped %q", tc.env, r.failed, r.skipped)
		}
	}
}

// TestLookPath: a program on PATH is found without ending the test; one
// that is not ends it through Missing.
func TestLookPath(t *testing.T) {
	t.Setenv("FSMOVE_E2E", "1")
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	found := filepath.Join(dir, "fsmove-test-program")
	if err := os.WriteFile(found, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	if got := LookPath(r, "fsmove-test-program"); got != found || r.failed != "" || r.skipped != "" {
		t.Errorf("program on PATH: path %q, failed %q, skipped %q", got, r.failed, r.skipped)
	}
	r = &recorder{TB: t}
	if got := LookPath(r, "fsmove-no-such-program"); got != "" || !strings.Contains(r.failed, "fsmove-no-such-program") {
		t.Errorf("missing program: path %q, failed %q", got, r.failed)
	}
}
