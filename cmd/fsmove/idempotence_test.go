package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/fsmove/fsmove/tracer/strace"
)

// niRun is a real fsmove run --idempotence of testdata/modules/ni_not_idempotent
// (eBPF, systemd), its traces compressed.
var niRun = filepath.Join("..", "..", "testdata", "runs", "ni_not_idempotent")

// niReport is what the tests read of an NI finding in a JSON report.
type niReport struct {
	Findings []struct {
		Kind     string
		Waived   bool
		HeldBack bool `json:"held_back"`
		Producer struct{ Ref string }
		Consumer struct{ Ref string }
		Paths    []struct {
			Path             string
			Relation         string
			ProducerEvidence struct {
				Syscall string
				Line    int64
			} `json:"producer_evidence"`
			ConsumerEvidence struct {
				Syscall string
				Line    int64
			} `json:"consumer_evidence"`
		}
		Fix string
		NI  *struct {
			Problem string
			Changes []struct{ Property, Previous, Desired string }
			Error   string
		}
	}
	Stats struct {
		NI *int `json:"ni"`
	}
}

func analyzeNI(t *testing.T, flags ...string) (int, []byte, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, append(append([]string{"analyze"}, flags...), niRun))
	return code, stdout.Bytes(), stderr.String()
}

// TestNIFindings: the run's six non-idempotent resources, each with what
// makes it one, the paths written again with the trace lines of both
// applies, and a fix; nothing else.
func TestNIFindings(t *testing.T) {
	code, out, stderr := analyzeNI(t, "--format", "json")
	if code != exitFindings {
		t.Fatalf("exit %d, want %d\n%s", code, exitFindings, stderr)
	}
	var rep niReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.NI == nil {
			t.Fatalf("%s finding without ni: %s %s", f.Kind, f.Producer.Ref, f.Consumer.Ref)
		}
		got = append(got, f.Kind+" "+f.NI.Problem+" "+f.Producer.Ref+" "+f.Consumer.Ref)
		if f.Fix == "" {
			t.Errorf("%s: no fix", f.Producer.Ref)
		}
		switch f.NI.Problem {
		case "unguarded-exec", "changes-again":
			if len(f.Paths) != 1 || f.Paths[0].Relation != "rewrites" ||
				f.Paths[0].ProducerEvidence.Line <= 0 || f.Paths[0].ConsumerEvidence.Line <= 0 {
				t.Errorf("%s: paths %+v, want one rewritten, with a line of each trace", f.Producer.Ref, f.Paths)
			}
		case "fight":
			if len(f.Paths) != 1 || f.Paths[0].Path != "/etc/ni_not_idempotent.conf" || f.Paths[0].Relation != "overwrites" ||
				f.Paths[0].ProducerEvidence.Line >= f.Paths[0].ConsumerEvidence.Line {
				t.Errorf("fight: paths %+v", f.Paths)
			}
		case "fails-second":
			if !strings.Contains(f.NI.Error, "returned 1") {
				t.Errorf("fails-second: error %q", f.NI.Error)
			}
		}
	}
	sort.Strings(got)
	want := []string{
		"NI changes-again File[/etc/ni_not_idempotent.compiled] File[/etc/ni_not_idempotent.compiled]",
		"NI changes-again File[/etc/ni_not_idempotent.time] File[/etc/ni_not_idempotent.time]",
		"NI fails-second Exec[once] Exec[once]",
		"NI fight File[/etc/ni_not_idempotent.conf] Exec[rewrite-conf]",
		"NI service-stops Service[ni-stops] Service[ni-stops]",
		"NI unguarded-exec Exec[stamp] Exec[stamp]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep.Stats.NI == nil || *rep.Stats.NI != 6 {
		t.Errorf("stats.ni = %v, want 6", *rep.Stats.NI)
	}
	for _, f := range rep.Findings {
		if f.NI.Problem == "changes-again" {
			c := f.NI.Changes
			if len(c) != 1 || c[0].Property != "content" || !strings.HasPrefix(c[0].Desired, "{sha256}") || c[0].Previous == c[0].Desired {
				t.Errorf("changes-again: changes %+v", c)
			}
		}
	}

	_, text, _ := analyzeNI(t)
	for _, s := range []string{"Non-idempotent resources (NI): 6", "Faults found: 0 MOR, 0 MN, 6 NI",
		"add creates => '/etc/ni_not_idempotent.stamp'", "of second/trace.log", "File[/etc/ni_not_idempotent.conf] <-> Exec[rewrite-conf]"} {
		if !strings.Contains(string(text), s) {
			t.Errorf("text report without %q:\n%s", s, text)
		}
	}
}

// TestNIHTML: fsmove analyze --format html of the run shows its NI
// findings, and quotes each evidence line as the trace it is in has it:
// the second apply's writes from second/trace.log, the first apply's from
// trace.log (their line numbers overlap, so a line read from the wrong
// trace shows another text).
func TestNIHTML(t *testing.T) {
	_, out, _ := analyzeNI(t, "--format", "json")
	var rep niReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	code, page, stderr := analyzeNI(t, "--format", "html")
	if code != exitFindings {
		t.Fatalf("exit %d, want %d\n%s", code, exitFindings, stderr)
	}
	if n := bytes.Count(page, []byte(`<article class="finding kind-NI"`)); n != len(rep.Findings) {
		t.Errorf("%d NI elements, want %d", n, len(rep.Findings))
	}
	var firstWanted, secondWanted []int64
	for _, f := range rep.Findings {
		for _, pc := range f.Paths {
			secondWanted = append(secondWanted, pc.ProducerEvidence.Line)
			if f.NI.Problem == "fight" {
				secondWanted = append(secondWanted, pc.ConsumerEvidence.Line)
			} else if pc.ConsumerEvidence.Line > 0 {
				firstWanted = append(firstWanted, pc.ConsumerEvidence.Line)
			}
		}
	}
	first, err := strace.ReadLines(filepath.Join(niRun, "trace.log.zst"), firstWanted)
	if err != nil {
		t.Fatal(err)
	}
	second, err := strace.ReadLines(filepath.Join(niRun, "second", "trace.log.zst"), secondWanted)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		trace string
		lines map[int64]string
	}{{"trace.log", first}, {"second/trace.log", second}} {
		if len(c.lines) == 0 {
			t.Errorf("no evidence in %s", c.trace)
		}
		for n, text := range c.lines {
			want := fmt.Sprintf(`<span class="ln hit"><span class="no">%d</span>%s</span>`, n, html.EscapeString(text))
			if !bytes.Contains(page, []byte(want)) || !bytes.Contains(page, []byte(fmt.Sprintf("line %d of %s", n, c.trace))) {
				t.Errorf("the page does not quote line %d of %s: %q", n, c.trace, text)
			}
		}
	}
}

// TestNIFormats: NI has its own rule in SARIF, its class in JUnit, its
// check in Code Quality; a report without NI has none of them.
func TestNIFormats(t *testing.T) {
	_, sarif, _ := analyzeNI(t, "--format", "sarif")
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Rules []struct{ ID string } }
			}
			Results []struct {
				RuleID    string
				RuleIndex int
			}
		}
	}
	if err := json.Unmarshal(sarif, &log); err != nil {
		t.Fatal(err)
	}
	rules := log.Runs[0].Tool.Driver.Rules
	if len(rules) != 3 || rules[2].ID != "NI" {
		t.Errorf("rules %+v, want MOR, MN, NI", rules)
	}
	n := 0
	for _, r := range log.Runs[0].Results {
		if r.RuleID == "NI" && r.RuleIndex == 2 {
			n++
		}
	}
	if n != 6 {
		t.Errorf("%d NI results, want 6", n)
	}
	_, junit, _ := analyzeNI(t, "--format", "junit")
	if c := strings.Count(string(junit), `classname="fsmove.NI"`); c != 6 {
		t.Errorf("%d JUnit NI cases, want 6", c)
	}
	_, cq, _ := analyzeNI(t, "--format", "codequality")
	if c := strings.Count(string(cq), `"check_name": "fsmove NonIdempotentResource"`); c != 6 {
		t.Errorf("%d Code Quality NI issues, want 6:\n%s", c, cq)
	}

	// A run without --idempotence: no NI rule, no NI count.
	_, plain := analyzeRun(t, "mor_exec_reads_file", "--format", "sarif")
	if strings.Contains(string(plain), `"NI"`) {
		t.Error("SARIF of a run without --idempotence names NI")
	}
	_, plainText := analyzeRun(t, "mor_exec_reads_file")
	if strings.Contains(string(plainText), "NI") {
		t.Errorf("text report of a run without --idempotence names NI:\n%s", plainText)
	}
}

// TestNIFailOnAndWaivers: NI findings go through --fail-on and waivers as
// the others do.
func TestNIFailOnAndWaivers(t *testing.T) {
	if code, _, _ := analyzeNI(t, "--fail-on", "MOR,MN"); code != exitOK {
		t.Errorf("--fail-on MOR,MN: exit %d, want %d (NI reported, not failing)", code, exitOK)
	}
	if code, _, _ := analyzeNI(t, "--fail-on", "NI"); code != exitFindings {
		t.Errorf("--fail-on NI: exit %d, want %d", code, exitFindings)
	}
	waivers := filepath.Join(t.TempDir(), "waivers")
	os.WriteFile(waivers, []byte("Exec[stamp] Exec[stamp] -- stamps on purpose\n"+
		"File[/etc/ni_not_idempotent.conf] Exec[rewrite-conf] -- known\n"), 0o644)
	_, out, _ := analyzeNI(t, "--format", "json", "--waivers", waivers)
	var rep niReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	var waived []string
	for _, f := range rep.Findings {
		if f.Waived {
			waived = append(waived, f.Producer.Ref)
		}
	}
	sort.Strings(waived)
	if strings.Join(waived, " ") != "Exec[stamp] File[/etc/ni_not_idempotent.conf]" {
		t.Errorf("waived %v, want Exec[stamp] File[/etc/ni_not_idempotent.conf]", waived)
	}
	_, text, _ := analyzeNI(t, "--waivers", waivers)
	if !strings.Contains(string(text), "0 MOR, 0 MN, 4 NI (2 waived)") {
		t.Errorf("text with waivers:\n%s", text)
	}
}

// TestNIWithoutSecondReport: a run whose second apply left no report is
// analyzed, and incomplete, with the reason.
func TestNIWithoutSecondReport(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"catalog.json", "trace.log.zst", runner.RunJSON, runner.PuppetReportFile} {
		data, err := os.ReadFile(filepath.Join(niRun, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"analyze", dir})
	if code != exitIncomplete || !strings.Contains(stdout.String(), "Puppet wrote no report of the second apply") {
		t.Errorf("exit %d, want %d\n%s%s", code, exitIncomplete, stdout.String(), stderr.String())
	}
}

// TestNIInlineSuppression: "# fsmove:ignore NI" on Exec['stamp']'s line,
// in a copy of the module that the saved run maps its catalog's files to,
// suppresses that NI finding; an MOR-only comment does not.
func TestNIInlineSuppression(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "modules", "ni_not_idempotent", "manifests", "init.pp")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	const execLine = "  exec { 'stamp':"
	if !strings.Contains(string(data), execLine+"\n") {
		t.Fatal("the fixture has no exec { 'stamp': } line")
	}
	saved, _ := filepath.Abs(niRun)
	for _, c := range []struct {
		comment    string
		suppressed bool
	}{
		{" # fsmove:ignore NI it stamps each apply on purpose", true},
		{" # fsmove:ignore MOR not about this", false},
	} {
		mod := filepath.Join(t.TempDir(), "ni_not_idempotent")
		os.MkdirAll(filepath.Join(mod, "manifests"), 0o755)
		text := strings.Replace(string(data), execLine+"\n", execLine+c.comment+"\n", 1)
		if err := os.WriteFile(filepath.Join(mod, "manifests", "init.pp"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		for _, f := range []string{"trace.log.zst", "catalog.json", runner.PuppetReportFile, runner.SecondDir} {
			if err := os.Symlink(filepath.Join(saved, f), filepath.Join(out, f)); err != nil {
				t.Fatal(err)
			}
		}
		rec, err := runner.ReadRecord(niRun)
		if err != nil {
			t.Fatal(err)
		}
		rec.Module.Dir = mod
		rec.PathMap = map[string]string{"/fsmove/modules/ni_not_idempotent": mod}
		if err := rec.Write(out); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, []string{"analyze", out})
		got := strings.Contains(stdout.String(), "0 MOR, 0 MN, 5 NI (1 suppressed)")
		if got != c.suppressed || code != exitFindings || !strings.Contains(stdout.String(), " NI") {
			t.Errorf("%q: exit %d, suppressed %v, want %v:\n%s%s", c.comment, code, got, c.suppressed, stdout.String(), stderr.String())
		}
	}
}
