package main

import (
	"bytes"
	"encoding/json"
	"net/url"
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
	// withdrawn, when set, is a part of the reason fix gives for writing
	// no edit for the run's one finding (which it then leaves reported).
	withdrawn string
}

// fixCases run in CI: the chain of two classes and a defined type
// (fix_chain), an element moved from require to subscribe
// (mn_config_service), the arrows of a body realigned (near_rules), an
// apply that fails for a resource of its own before and after the fix
// (mor_observed_failure), and a notification that would make a cycle,
// withdrawn (fix_cycle). FSMOVE_E2E_ALL=1 adds every fixture with a
// finding (fixtureCases).
var fixCases = []fixCase{
	{"fix_chain", []string{
		"+  Class['fix_chain::config'] ~> Class['fix_chain::service']",
		`+    require   => File["/etc/fix_chain-${title}.conf"],`},
		[]string{"MN File[/etc/fix_chain.conf] Service[fix-chain]", "MN File[/etc/systemd/system/fix-chain.service] Service[fix-chain]",
			"MOR File[/etc/fix_chain-web.conf] Exec[read-web]"}, ""},
	{"mn_config_service", []string{
		"+    require   => Package['cron'],",
		"+    subscribe => File['/etc/cron.d/mn_config_service'],"}, nil, ""},
	{"near_rules", []string{"+    require => Augeas['fsmove-svc'],", "+    require => Package['uuid-runtime'],"}, nil, ""},
	{"mor_observed_failure", []string{"+    require => File['/etc/mor_observed_failure.conf'],"}, nil, ""},
	{"fix_cycle", nil, []string{"MN File[/etc/fix_cycle.conf] Service[fix-cycle]"}, "would make a dependency cycle, so the edit is withdrawn"},
	{"fix_cycle_apply", []string{"+    require  => Exec['make-input'],"},
		[]string{"MOR Exec[make-input] Exec[make-conf]", "MN Exec[make-conf] Service[fix-cycle-apply]"},
		"): no edit: with the other edits Puppet found a dependency cycle, ("},
}

// TestE2EFix: fsmove fix --write --verify on a copy of each fixture's
// module (after fsmove run into a directory) edits its manifests, the
// applied again module has none of the findings, and nothing new; its
// diff adds the lines the fixture wants; fsmove fix again on the fixed
// module's own run finds nothing to fix.
func TestE2EFix(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	cases := slices.Clone(fixCases)
	if e2eAll {
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
			originals := readManifests(t, mod)
			if c.withdrawn != "" && len(c.adds) == 0 {
				checkWithdrawn(t, c, mod, out, originals)
				return
			}
			sarifFixed := checkReportEdits(t, out, reported)
			stdout.Reset()
			stderr.Reset()
			code = run(&stdout, &stderr, []string{"fix", "--quiet", "--write", "--verify", out})
			// A case with an edit withdrawn at --verify (a cycle the edits
			// make together) exits 1 and keeps the rest.
			wantCode, wantFixed := exitOK, reported
			if c.withdrawn != "" {
				wantCode, wantFixed = exitFindings, reported-1
				if !strings.Contains(stderr.String(), c.withdrawn) || !strings.Contains(stderr.String(), "fsmove fix: verify: withdrawn: ") {
					t.Errorf("fix does not say it withdrew an edit at --verify (%q):\n%s", c.withdrawn, stderr.String())
				}
			}
			if code != wantCode {
				t.Fatalf("fsmove fix --write --verify: exit %d, want %d\n%s\n%s", code, wantCode, stdout.String(), stderr.String())
			}
			if n := len(fixed.FindAllString(stderr.String(), -1)); n != wantFixed {
				t.Errorf("%d findings verified fixed, want %d:\n%s", n, wantFixed, stderr.String())
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
			// With one finding, the SARIF fix made by its lines and columns
			// in the run's text is what --write wrote.
			if reported == 1 {
				for f, text := range readManifests(t, mod) {
					if got := applySARIF(t, originals[f], sarifFixed[f]); got != text {
						t.Errorf("%s: the SARIF fix gives\n%s\nfsmove fix --write wrote\n%s", f, got, text)
					}
				}
			}
			// The verifying run is a run: fix on it has nothing to do.
			stdout.Reset()
			stderr.Reset()
			// (With an edit withdrawn, its finding is still there, and its
			// notification now runs against the order the kept edit wrote:
			// withdrawn again, exit 1, no diff.)
			if code := run(&stdout, &stderr, []string{"fix", "--quiet", filepath.Join(out, "fix", "run")}); code != wantCode || stdout.Len() != 0 {
				t.Errorf("fsmove fix on the verifying run: exit %d, diff %q\n%s", code, stdout.String(), stderr.String())
			}
		})
	}
}

// checkWithdrawn: fsmove fix --write --verify writes no edit for the
// run's finding and says why, exits 1 (a finding without an edit), leaves
// the module's files as they were, and verifies nothing; the JSON report's
// edit says why too, and SARIF offers no fix.
func checkWithdrawn(t *testing.T, c fixCase, mod, out string, originals map[string]string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"fix", "--quiet", "--write", "--verify", out})
	if code != exitFindings || stdout.Len() != 0 {
		t.Errorf("fsmove fix: exit %d, diff %q; want 1 and no diff\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "): no edit: ") || !strings.Contains(stderr.String(), c.withdrawn) || strings.Contains(stderr.String(), "verify:") {
		t.Errorf("fsmove fix does not say the edit is withdrawn (%q), or verified something:\n%s", c.withdrawn, stderr.String())
	}
	for f, text := range readManifests(t, mod) {
		if text != originals[f] {
			t.Errorf("%s changed", f)
		}
	}
	var rep struct {
		Findings []struct {
			Edit *struct{ Diff, Skipped string }
		}
	}
	if err := json.Unmarshal(analyzeJSON(t, out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Edit == nil || rep.Findings[0].Edit.Diff != "" || !strings.Contains(rep.Findings[0].Edit.Skipped, c.withdrawn) {
		t.Errorf("the JSON report's edit does not say it is withdrawn: %+v", rep.Findings)
	}
	stdout.Reset()
	run(&stdout, &stderr, []string{"analyze", "--format", "sarif", out})
	if strings.Contains(stdout.String(), `"fixes"`) {
		t.Error("SARIF offers a fix that was withdrawn")
	}
}

// readManifests are the texts of a module's manifests, by absolute path.
func readManifests(t *testing.T, mod string) map[string]string {
	t.Helper()
	texts := map[string]string{}
	filepath.WalkDir(filepath.Join(mod, "manifests"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".pp") {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			texts[p] = string(b)
		}
		return nil
	})
	return texts
}

// sarifReplacement is a replacement of a SARIF fix.
type sarifReplacement struct {
	DeletedRegion struct {
		StartLine, StartColumn, EndLine, EndColumn int
	}
	InsertedContent struct{ Text string }
}

// checkReportEdits: fsmove run saved the located manifests; the JSON
// report gives each of the run's findings an edit with a diff of the
// module's files, SARIF each result a fix, the HTML page the diffs. It
// returns the SARIF fixes' replacements by file (absolute path).
func checkReportEdits(t *testing.T, out string, reported int) map[string][]sarifReplacement {
	t.Helper()
	if _, err := os.Stat(filepath.Join(out, "manifests.json")); err != nil {
		t.Errorf("fsmove run saved no located manifests: %v", err)
	}
	var rep struct {
		Findings []struct {
			Kind     string
			HeldBack bool `json:"held_back"`
			Waived   bool
			Edit     *struct{ Diff, Skipped string }
		}
	}
	if err := json.Unmarshal(analyzeJSON(t, out), &rep); err != nil {
		t.Fatal(err)
	}
	edits := 0
	for _, f := range rep.Findings {
		if f.HeldBack || f.Waived {
			continue
		}
		if f.Edit == nil || !strings.HasPrefix(f.Edit.Diff, "--- a/manifests/") {
			t.Errorf("a %s finding of the JSON report has no edit, or one without a diff: %+v", f.Kind, f.Edit)
			continue
		}
		edits++
	}
	if edits != reported {
		t.Errorf("%d edits in the JSON report for %d findings", edits, reported)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || bytes.Count(page, []byte(`<pre class="diff">`)) == 0 {
		t.Errorf("the HTML report shows no diff (%v)", err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"analyze", "--format", "sarif", out}); code != exitFindings {
		t.Fatalf("fsmove analyze --format sarif: exit %d\n%s", code, stderr.String())
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Fixes []struct {
					ArtifactChanges []struct {
						ArtifactLocation struct{ URI string }
						Replacements     []sarifReplacement
					}
				}
			}
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]sarifReplacement{}
	for _, r := range log.Runs[0].Results {
		if len(r.Fixes) != 1 || len(r.Fixes[0].ArtifactChanges) == 0 {
			t.Errorf("a SARIF result has %d fixes, want 1 with changes", len(r.Fixes))
			continue
		}
		for _, c := range r.Fixes[0].ArtifactChanges {
			u, err := url.Parse(c.ArtifactLocation.URI)
			if err != nil || u.Scheme != "file" {
				t.Errorf("a fix's file %q is not a file URI (the module is outside the base path)", c.ArtifactLocation.URI)
				continue
			}
			byFile[u.Path] = append(byFile[u.Path], c.Replacements...)
		}
	}
	return byFile
}

// applySARIF makes replacements in text by their lines and columns (the
// manifests are ASCII: a column is a byte), the last first.
func applySARIF(t *testing.T, text string, rs []sarifReplacement) string {
	t.Helper()
	offset := func(line, col int) int {
		off := 0
		for l := 1; l < line; l++ {
			i := strings.IndexByte(text[off:], '\n')
			if i < 0 {
				t.Fatalf("line %d past the text's end", line)
			}
			off += i + 1
		}
		return off + col - 1
	}
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i].DeletedRegion
		start, end := offset(r.StartLine, r.StartColumn), offset(r.EndLine, r.EndColumn)
		text = text[:start] + rs[i].InsertedContent.Text + text[end:]
	}
	return text
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
