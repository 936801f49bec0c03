// Package testenv decides what a test does when the machine lacks something
// it needs (a C compiler, python3, strace, root, a cgroup, Docker): it
// skips, so that go test passes on a developer's machine, but under
// FSMOVE_E2E=1, which CI sets (.ci/run), it fails, so that CI never passes
// by running less than every test. .ci/setup installs what the tests need.
//
// It also starts what several packages' tests run (StartLoop). Only tests
// import this package.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Required reports whether every test must run (FSMOVE_E2E=1): a missing
// requirement is then a failure, not a skip.
func Required() bool { return os.Getenv("FSMOVE_E2E") == "1" }

// Missing ends the test because something it needs is missing: a skip, or
// with Required a failure. The message says what is missing.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	what := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("FSMOVE_E2E=1 but %s", what)
		return
	}
	t.Skipf("%s (set FSMOVE_E2E=1 to make this a failure)", what)
}

// LookPath returns the path of program, or ends the test through Missing.
func LookPath(t testing.TB, program string) string {
	t.Helper()
	path, err := exec.LookPath(program)
	if err != nil {
		Missing(t, "no %s: %v", program, err)
	}
	return path
}

// Root ends the test through Missing unless it runs as root; why says what
// needs root.
func Root(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Missing(t, "%s needs root", why)
	}
}
