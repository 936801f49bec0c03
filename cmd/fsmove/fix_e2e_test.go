package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fixCase is a fixture fsmove fix must fix, and lines its diff must add.
type fixCase struct {
	module string
	adds   []string
	// findings, when set, are the run's (as e2eFindings says them).
	findings []string
}

// fixCases run in CI: the chain of two classes and a defined type
// (fix_chain), an element moved from require to subscribe
// (mn_config_service), the arrows of a body realigned (near_rules), and an
// apply that fails for a resource of its own before and after the fix
// (mor_observed_failure). FSMOVE_E2E_ALL=1 adds every fixture with a
// finding (fixtureCases).
var fixCases = []fixCase{
	{"fix_chain", []string{
		"+  Class['fix_chain::config'] ~> Class['fix_chain::service']",
		`+    require   => File["/etc/fix_chain-${title}.conf"],`},
		[]string{"MN File[/etc/fix_chain.conf] Service[fix-chain]", "MN File[/etc/systemd/system/fix-chain.service] Service[fix-chain]",
			"MOR File[/etc/fix_chain-web.conf] Exec[read-web]"}},
	{"mn_config_service", []string{
		"+    require   => Package['cron'],",
		"+    subscribe => File['/etc/cron.d/mn_config_service'],"}, nil},
	{"near_rules", []string{"+    require => Augeas['fsmove-svc'],", "+    require => Package['uuid-runtime'],"}, nil},
	{"mor_observed_failure", []string{"+    require => File['/etc/mor_observed_failure.conf'],"}, nil},
}

// TestE2EFix: fsmove fix --write --verify on a copy of each fixture's
// module (after fsmove run into a directory) edits its manifests, the
// applied again module has none of the findings, and nothing new; its
// diff adds the lines the fixture wants; fsmove fix again on the fixed
// module's own run finds nothing to fix.
func TestE2EFix(t *testing.T) {
	requireDocker(t)
	cases := slices.Clone(fixCases)
	if os.Getenv("FSMOVE_E2E_ALL") != "" {
		for _, fc := range fixtureCases {
			if len(fc.want) > 0 && !slices.ContainsFunc(cases, func(c fixCase) bool { return c.module == fc.module }) {
				cases = append(cases, fixCase{module: fc.module})
			}
		}
	}
	fixed := regexp.MustCompile(`(?m)^fsmove fix: verify: finding \d+ \(.*\): fixed$`)
	for _, c := range cases {
		t.Run(c.module, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			mod := filepath.Join(work, c.module)
			if err := copyTree(filepath.Join("..", "..", "testdata", "modules", c.module), mod); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(work, "run")
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, append(append([]string{"run", "--quiet", "--out", out}, depsImageArgs()...), mod))
			if code != exitFindings && code != exitRun {
				t.Fatalf("fsmove run: exit %d\n%s", code, stderr.String())
			}
			found := e2eFindings(t, analyzeJSON(t, out))
			if c.findings != nil && !slices.Equal(sorted(found), sorted(c.findings)) {
				t.Errorf("the run's findings %q, want %q", found, c.findings)
			}
			reported := len(found)
			stdout.Reset()
			stderr.Reset()
			code = run(&stdout, &stderr, []string{"fix", "--quiet", "--write", "--verify", out})
			if code != exitOK {
				t.Fatalf("fsmove fix --write --verify: exit %d, want 0\n%s\n%s", code, stdout.String(), stderr.String())
			}
			if n := len(fixed.FindAllString(stderr.String(), -1)); n != reported {
				t.Errorf("%d findings verified fixed, want the run's %d:\n%s", n, reported, stderr.String())
			}
			diff := stdout.String()
			if !strings.HasPrefix(diff, "--- a/manifests/") {
				t.Errorf("the diff does not name the module's files under a/ and b/:\n%s", diff)
			}
			for _, want := range c.adds {
				if !slices.Contains(strings.Split(diff, "\n"), want) {
					t.Errorf("the diff does not add %q:\n%s", want, diff)
				}
			}
			// --write edited the copy as the diff says: its files hold
			// each added line.
			var edited []byte
			filepath.WalkDir(filepath.Join(mod, "manifests"), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					edited = append(edited, b...)
				}
				return nil
			})
			for _, l := range strings.Split(diff, "\n") {
				if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") && !bytes.Contains(edited, []byte(l[1:]+"\n")) {
					t.Errorf("the module's files lack the added line %q", l[1:])
				}
			}
			// The verifying run is a run: fix on it has nothing to do.
			stdout.Reset()
			stderr.Reset()
			if code := run(&stdout, &stderr, []string{"fix", "--quiet", filepath.Join(out, "fix", "run")}); code != exitOK || stdout.Len() != 0 {
				t.Errorf("fsmove fix on the verifying run: exit %d, diff %q\n%s", code, stdout.String(), stderr.String())
			}
		})
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// analyzeJSON is fsmove analyze --format json of a run's directory.
func analyzeJSON(t *testing.T, dir string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"analyze", "--format", "json", dir}); code != exitFindings && code != exitOK {
		t.Fatalf("fsmove analyze %s: exit %d\n%s", dir, code, stderr.String())
	}
	return stdout.Bytes()
}
