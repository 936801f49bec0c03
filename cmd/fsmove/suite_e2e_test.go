package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

// TestE2ERequirementsChooseSuite: a module whose metadata.json requires
// Puppet 8 runs on trixie without --suite, which one line says; run again
// with --suite bookworm it runs on Puppet 7, with a warning, and both runs
// are kept, each in the default place of its module and suite.
func TestE2ERequirementsChooseSuite(t *testing.T) {
	requireDocker(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "state"))
	module := filepath.Join("..", "..", "testdata", "suites", "requires_puppet8")
	apply := func(more ...string) (int, string, string) { return runDefaultPlace(module, more...) }
	checkSuite := func(dir, suite string) {
		t.Helper()
		s, _ := container.LookupSuite(suite)
		rec, err := runner.ReadRecord(dir)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Image.Suite != suite || rec.Image.Tag != container.SuiteImage(suite) || !strings.HasPrefix(rec.PuppetVersion, s.PuppetMajor()+".") ||
			rec.Status != runner.StatusOK {
			t.Errorf("%s: image %+v, puppet_version %q, status %s; want suite %s with Puppet %s, ok",
				dir, rec.Image, rec.PuppetVersion, rec.Status, suite, s.PuppetMajor())
		}
	}

	code, trixie, stderr := apply()
	if code != exitOK || !strings.HasPrefix(filepath.Base(trixie), "requires_puppet8-trixie-") ||
		!strings.Contains(stderr, "fsmove: suite: trixie (metadata.json requires puppet >= 8.0.0 < 9.0.0)\n") {
		t.Fatalf("without --suite: exit %d, artifacts %q; want exit 0 on trixie, said\n%s", code, trixie, stderr)
	}
	checkSuite(trixie, "trixie")

	code, bookworm, stderr := apply("--suite", "bookworm")
	if code != exitOK || bookworm == trixie || !strings.HasPrefix(filepath.Base(bookworm), "requires_puppet8-") ||
		!strings.Contains(stderr, "fsmove: warning: --suite bookworm has Puppet 7.23.0: metadata.json requires puppet >= 8.0.0 < 9.0.0\n") {
		t.Fatalf("--suite bookworm: exit %d, artifacts %q (trixie's %q); want exit 0 in a place of its own, with a warning\n%s", code, bookworm, trixie, stderr)
	}
	checkSuite(bookworm, "bookworm")
	// The trixie run is kept as it was, beside the bookworm one.
	checkSuite(trixie, "trixie")
	if entries, _ := os.ReadDir(filepath.Dir(trixie)); len(entries) != 2 {
		t.Errorf("%d runs kept, want 2", len(entries))
	}
}
