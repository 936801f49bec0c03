package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/cmd/fsmove/internal/project"
	"github.com/fsmove/fsmove/puppet/runner"
)

// savedRunWithModule lays out the saved run of the fixture
// mor_exec_reads_file (testdata/runs) as fsmove run leaves it, its run.json
// mapping the catalog's container paths to a copy of the module whose line
// 12 (the blank line above exec { 'read-conf': }, line 13) is line12, and
// whose root holds config as .fsmove.yml when not "". It returns the
// trace's and the catalog's paths.
func savedRunWithModule(t *testing.T, line12, config string) (trace, catalog string) {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "modules", "mor_exec_reads_file", "manifests", "init.pp")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if !strings.Contains(lines[12], "exec { 'read-conf':") || strings.TrimSpace(lines[11]) != "" {
		t.Fatalf("the fixture moved: line 13 is %q, line 12 %q", lines[12], lines[11])
	}
	lines[11] = line12
	mod := filepath.Join(t.TempDir(), "mor_exec_reads_file")
	if err := os.MkdirAll(filepath.Join(mod, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "manifests", "init.pp"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(mod, project.FileName), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	saved, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "runs", "mor_exec_reads_file"))
	for _, f := range []string{"trace.log.zst", "catalog.json"} {
		if err := os.Symlink(filepath.Join(saved, f), filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	rec := runner.RunRecord{
		Module:  runner.ModuleSpec{Raw: mod, Kind: runner.SourceDir, Name: "mor_exec_reads_file", Dir: mod},
		PathMap: map[string]string{"/fsmove/modules/mor_exec_reads_file": mod},
	}
	if err := rec.Write(out); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(out, "trace.log.zst"), filepath.Join(out, "catalog.json")
}

// TestAnalyzeInlineSuppressionRealRun: on a real trace and catalog, an
// inline comment above the consumer suppresses the fixture's one MOR (exit
// 0, counted, listed with --show-suppressed); without it, or without a
// reason, the MOR is reported (exit 1).
func TestAnalyzeInlineSuppressionRealRun(t *testing.T) {
	analyze := func(trace, catalog string, flags ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"analyze"}, flags...), trace, catalog)
		code := run(&stdout, &stderr, args)
		return code, stdout.String(), stderr.String()
	}

	trace, catalog := savedRunWithModule(t, "  # fsmove:ignore MOR the exec only reads it on first install", "")
	code, out, errs := analyze(trace, catalog)
	if code != exitOK || !strings.Contains(out, "No missing ordering relationships or notifiers among") || !strings.Contains(out, "; 1 suppressed") {
		t.Errorf("suppressed: exit %d, report:\n%s%s", code, out, errs)
	}
	code, out, _ = analyze(trace, catalog, "--show-suppressed")
	if code != exitOK || !strings.Contains(out, "suppressed: the exec only reads it on first install") ||
		!strings.Contains(out, filepath.Join("manifests", "init.pp")+":12") {
		t.Errorf("--show-suppressed: exit %d, report:\n%s", code, out)
	}
	code, out, _ = analyze(trace, catalog, "--format", "json")
	var rep struct {
		Findings []struct {
			Suppressed   bool   `json:"suppressed"`
			WaiverReason string `json:"waiver_reason"`
		} `json:"findings"`
		Stats struct {
			Suppressed int `json:"suppressed"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if code != exitOK || len(rep.Findings) != 1 || !rep.Findings[0].Suppressed || rep.Stats.Suppressed != 1 {
		t.Errorf("JSON: exit %d, %+v", code, rep)
	}

	// The same pair without the comment is reported.
	trace, catalog = savedRunWithModule(t, "", "")
	if code, out, _ := analyze(trace, catalog); code != exitFindings || strings.Contains(out, "suppressed") {
		t.Errorf("no comment: exit %d, report:\n%s", code, out)
	}

	// A comment without a reason does not suppress, and says so.
	trace, catalog = savedRunWithModule(t, "  # fsmove:ignore MOR", "")
	code, out, _ = analyze(trace, catalog)
	if code != exitFindings || !strings.Contains(out, "fsmove:ignore comments without a reason, which do not suppress") {
		t.Errorf("no reason: exit %d, report:\n%s", code, out)
	}

	// An MN comment is not about an MOR.
	trace, catalog = savedRunWithModule(t, "  # fsmove:ignore MN -- not this kind", "")
	if code, _, _ := analyze(trace, catalog); code != exitFindings {
		t.Errorf("an MN comment suppressed an MOR: exit %d", code)
	}
}

// TestAnalyzeFailOnRealRun: the fixture's MOR has the confidence content.
// --fail-on decides whether it fails; it is reported either way. The
// module's .fsmove.yml, found through run.json, sets it too, and the
// command line wins.
func TestAnalyzeFailOnRealRun(t *testing.T) {
	trace, catalog := savedRunWithModule(t, "", "")
	cases := []struct {
		failOn string
		want   int
	}{
		{"", exitFindings},
		{"MOR", exitFindings},
		{"MN", exitOK},
		{"MOR,content", exitFindings},
		{"MOR,observed", exitOK},
		{"metadata", exitFindings},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, []string{"analyze", "--fail-on", c.failOn, trace, catalog})
		if code != c.want || !strings.Contains(stdout.String(), "Faults found: 1 MOR, 0 MN") {
			t.Errorf("--fail-on %q: exit %d, want %d; report:\n%s%s", c.failOn, code, c.want, stdout.String(), stderr.String())
		}
		if c.want == exitOK && !strings.Contains(stderr.String(), "none of them --fail-on") {
			t.Errorf("--fail-on %q: stderr does not say why the exit is 0: %q", c.failOn, stderr.String())
		}
	}

	trace, catalog = savedRunWithModule(t, "", "fail_on: MN\n")
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"analyze", trace, catalog}); code != exitOK ||
		!strings.Contains(stderr.String(), "config: ") || !strings.Contains(stderr.String(), "(1 settings)") {
		t.Errorf("fail_on from the module's .fsmove.yml: exit %d, stderr %q", code, stderr.String())
	}
	if code := run(&stdout, &stderr, []string{"analyze", "--fail-on", "MOR", trace, catalog}); code != exitFindings {
		t.Errorf("--fail-on MOR over the file's fail_on: MN: exit %d", code)
	}
	if code := run(&stdout, &stderr, []string{"analyze", "--no-config", trace, catalog}); code != exitFindings {
		t.Errorf("--no-config: exit %d", code)
	}
	if code := run(&stdout, &stderr, []string{"analyze", "--fail-on", "MORE", trace, catalog}); code != exitUsage {
		t.Errorf("--fail-on MORE: exit %d, want 2", code)
	}
}
