package results

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmove/fsmove/puppet/runner"
)

// writeRun makes a run directory with run.json and, when given, the bench's
// files and a Puppet log.
func writeRun(t *testing.T, rec *runner.RunRecord, a *Analysis, u *Untraced, puppetLog string) string {
	t.Helper()
	dir := t.TempDir()
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	if a != nil {
		if err := WriteJSONFile(dir, AnalysisJSON, a); err != nil {
			t.Fatal(err)
		}
	}
	if u != nil {
		if err := WriteJSONFile(dir, UntracedJSON, u); err != nil {
			t.Fatal(err)
		}
	}
	if puppetLog != "" {
		if err := os.WriteFile(filepath.Join(dir, runner.PuppetLogFile), []byte(puppetLog), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func okRecord() *runner.RunRecord {
	rec := &runner.RunRecord{Status: runner.StatusOK, TraceBytes: 12345678}
	rec.AddStep("container", 2*time.Second, true, "")
	rec.AddStep("apply", 21500*time.Millisecond, true, "")
	return rec
}

func TestFromRunDir(t *testing.T) {
	dir := writeRun(t, okRecord(),
		&Analysis{Exit: 1, Seconds: 0.25, PeakRSSBytes: 30 << 20, Events: 400000, Resources: 7, MOR: 2, MN: 1},
		&Untraced{Seconds: 4.3, PuppetExit: 2}, "")
	row, err := FromRunDir("mymod", "1.2.3", dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Row{Module: "mymod", Version: "1.2.3", Status: StatusOK, PuppetUntracedS: 4.3, PuppetTracedS: 21.5,
		TraceBytes: 12345678, Events: 400000, Resources: 7, AnalysisS: 0.25, PeakMemBytes: 30 << 20, MOR: 2, MN: 1, NI: -1,
		Confirmed: -1, Refuted: -1, ConfirmUnknown: -1, ConfirmS: -1, Services: -1, ServicesUnobserved: -1, ServicesLifted: -1}
	if row != want {
		t.Errorf("row = %+v\nwant  %+v", row, want)
	}
	// fsmove bench --confirm's counts join the row.
	if err := WriteJSONFile(dir, ConfirmJSON, Confirm{Exit: 1, Seconds: 61.5, Confirmed: 2, Unknown: 1, Applies: 4}); err != nil {
		t.Fatal(err)
	}
	row, err = FromRunDir("mymod", "1.2.3", dir)
	if err != nil {
		t.Fatal(err)
	}
	want.Confirmed, want.Refuted, want.ConfirmUnknown, want.ConfirmS = 2, 0, 1, 61.5
	if row != want {
		t.Errorf("confirmed row = %+v\nwant  %+v", row, want)
	}
	if s := row.Slowdown(); s < 4.99 || s > 5.01 {
		t.Errorf("slowdown = %v, want 21.5/4.3 = 5", s)
	}
	// An analysis incomplete for a Service not observed (exit 4) still
	// gives its counts, and its coverage's.
	if err := WriteJSONFile(dir, AnalysisJSON, &Analysis{Exit: 4, Seconds: 0.25, PeakRSSBytes: 30 << 20, Events: 400000, Resources: 7,
		Coverage: &AnalysisCoverage{Services: 3, Unobserved: 1, Lifted: 1}}); err != nil {
		t.Fatal(err)
	}
	row, err = FromRunDir("mymod", "1.2.3", dir)
	if err != nil {
		t.Fatal(err)
	}
	want.MOR, want.MN, want.Services, want.ServicesUnobserved, want.ServicesLifted = 0, 0, 3, 1, 1
	if row != want || row.FirstError != "" {
		t.Errorf("incomplete row = %+v\nwant  %+v", row, want)
	}
}

func TestFromRunDirFailures(t *testing.T) {
	exit1 := 1
	compile := &runner.RunRecord{Status: runner.StatusCompileFailed, PuppetExit: &exit1, Error: "Puppet failed (exit 1) before applying a catalog"}
	log := "Notice: Compiled\n\x1b[1;31mError: Evaluation Error: Unknown variable: '::osfamily' at init.pp:3\x1b[0m\nError: second\n"
	row, err := FromRunDir("m", "", writeRun(t, compile, nil, nil, log))
	if err != nil {
		t.Fatal(err)
	}
	if row.Status != StatusCompileFailed || !strings.Contains(row.FirstError, "Unknown variable") || strings.Contains(row.FirstError, "second") {
		t.Errorf("compile failure row = %+v; want compile-failed with Puppet's first error line", row)
	}
	if row.Analyzed() || row.Events != -1 || row.AnalysisS != -1 || row.PuppetTracedS != -1 {
		t.Errorf("a compile failure has analysis figures: %+v", row)
	}

	failed := okRecord()
	failed.Status, failed.Error = runner.StatusPuppetFailed, "Puppet exited with 4 (failures)"
	row, err = FromRunDir("m", "", writeRun(t, failed, &Analysis{Exit: 0, Seconds: 0.1, Events: 5, Resources: 3}, nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	if row.Status != StatusApplyFailed || row.FirstError != "Puppet exited with 4 (failures)" || !row.Analyzed() {
		t.Errorf("apply failure row = %+v; want apply-failed, analyzed, with the record's error", row)
	}

	badAnalysis := okRecord()
	row, err = FromRunDir("m", "", writeRun(t, badAnalysis, &Analysis{Exit: 2, Error: "catalog: bad JSON\nmore", Seconds: 0.1, Resources: -1}, nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	if row.Analyzed() || row.FirstError != "analysis failed: catalog: bad JSON" {
		t.Errorf("failed analysis row = %+v", row)
	}

	timeout := &runner.RunRecord{Status: runner.StatusTimeout, Error: "context deadline exceeded"}
	timeout.AddStep("modules", time.Second, true, "")
	timeout.AddStep("apply", time.Minute, false, "context deadline exceeded")
	timeout.AddStep("copy", time.Second, true, "")
	row, err = FromRunDir("m", "", writeRun(t, timeout, nil, nil, ""))
	if err != nil || row.Status != StatusTimeout || row.FirstError != "timed out in step apply" {
		t.Errorf("timeout row = %+v, %v; want the step that timed out", row, err)
	}

	if _, err := FromRunDir("m", "", writeRun(t, &runner.RunRecord{Status: runner.StatusInterrupted}, nil, nil, "")); err == nil {
		t.Error("an interrupted run gives a row")
	}
	if _, err := FromRunDir("m", "", t.TempDir()); err == nil {
		t.Error("a directory without run.json gives a row")
	}
}

func TestElideHosts(t *testing.T) {
	cases := map[string]string{
		"could not resolve https://127.0.0.1/GPG-KEY (file: x.pp)": "could not resolve https://…/GPG-KEY (file: x.pp)",
		"fetch 'http://[::1]:8080' failed, then ftp://c":           "fetch 'http://…' failed, then ftp://…",
		"no url here": "no url here",
	}
	for in, want := range cases {
		if got := elideHosts(in); got != want {
			t.Errorf("elideHosts(%q) = %q, want %q", in, got, want)
		}
	}
}

// A run applied twice (fsmove bench --idempotence): its NI count joins the
// row, its findings and the tables; a run applied once has none (-1, null),
// and a table written before the NI column reads with -1.
func TestFromRunDirNI(t *testing.T) {
	three := int64(3)
	dir := writeRun(t, okRecord(), &Analysis{Exit: 1, Seconds: 0.25, Events: 10, Resources: 7, MOR: 2, MN: 1, NI: &three}, nil, "")
	row, err := FromRunDir("mymod", "1.2.3", dir)
	if err != nil {
		t.Fatal(err)
	}
	if row.NI != 3 || !row.AppliedTwice() || row.Findings() != 6 {
		t.Errorf("row NI %d, findings %d; want 3 and 6", row.NI, row.Findings())
	}
	once, err := FromRunDir("other", "1", writeRun(t, okRecord(), &Analysis{Exit: 1, Seconds: 0.25, Events: 10, Resources: 7, MOR: 2, MN: 1}, nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	if once.NI != -1 || once.AppliedTwice() || once.Findings() != 3 {
		t.Errorf("a run applied once: NI %d, findings %d; want -1 and 3", once.NI, once.Findings())
	}
	var csvText, js bytes.Buffer
	WriteCSV(&csvText, []Row{row, once})
	WriteJSON(&js, []Row{row, once})
	recs, err := csv.NewReader(strings.NewReader(csvText.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ni := -1
	for i, h := range recs[0] {
		if h == "ni" {
			ni = i
		}
	}
	if ni < 0 || recs[1][ni] != "3" || recs[2][ni] != "-1" {
		t.Errorf("the CSV's ni column: %q", recs)
	}
	if !strings.Contains(js.String(), `"ni": 3`) || !strings.Contains(js.String(), `"ni": null`) {
		t.Errorf("the JSON's ni: %s", js.String())
	}

}
