package results

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"reflect"
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
		Confirmed: -1, Refuted: -1, ConfirmUnknown: -1, ConfirmS: -1}
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

func sampleRows() []Row {
	return []Row{
		{Module: "a", Version: "1.0", Status: StatusOK, PuppetUntracedS: 3.5, PuppetTracedS: 20.125, TraceBytes: 4500000,
			Events: 41000, Resources: 6, AnalysisS: 0.2, PeakMemBytes: 22 << 20, MOR: 1, MN: 0, NI: 2},
		{Module: "b, with \"quotes\"", Version: "", Status: StatusCompileFailed, FirstError: "Error: a, b \"c\"",
			PuppetUntracedS: -1, PuppetTracedS: -1, TraceBytes: 100, Events: -1, Resources: -1, AnalysisS: -1, PeakMemBytes: -1, MOR: -1, MN: -1, NI: -1},
		{Module: "c", Version: "2:21.0.0-1", Status: StatusTimeout, FirstError: "context deadline exceeded",
			PuppetUntracedS: -1, PuppetTracedS: -1, TraceBytes: 0, Events: -1, Resources: -1, AnalysisS: -1, PeakMemBytes: -1, MOR: -1, MN: -1, NI: -1},
	}
}

// The CSV and the JSON hold the same rows: each reads back to the input.
func TestCSVAndJSONAgree(t *testing.T) {
	rows := sampleRows()
	var c, j bytes.Buffer
	if err := WriteCSV(&c, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&j, rows); err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(c.String(), "\n"); header != strings.Join(Columns, ",") {
		t.Errorf("CSV header %q", header)
	}
	jsonText := j.String()
	fromCSV, err := ReadCSV(&c)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := ReadJSON(&j)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromCSV, rows) {
		t.Errorf("CSV read back:\n%+v\nwant\n%+v", fromCSV, rows)
	}
	if !reflect.DeepEqual(fromJSON, fromCSV) {
		t.Errorf("JSON and CSV disagree:\n%+v\n%+v", fromJSON, fromCSV)
	}
	if !strings.Contains(jsonText, `"analysis_s": null`) {
		t.Error("unknown numbers are not null in the JSON")
	}
}

func TestReadCSVRejects(t *testing.T) {
	for _, text := range []string{
		"module,version\nx,1\n",
		strings.Join(Columns, ",") + "\nx,1,weird,,-1,-1,0,-1,-1,-1,-1,-1,-1\n",
		strings.Join(Columns, ",") + "\nx,1,ok,,-1,-1,zero,-1,-1,-1,-1,-1,-1\n",
	} {
		if _, err := ReadCSV(strings.NewReader(text)); err == nil {
			t.Errorf("ReadCSV accepted %q", text)
		}
	}
}

// TestCommittedTriage checks the committed corpus results against their
// triage: every finding the detector reports has a verdict (real or fp)
// with a reason, and the per-module counts of the results table are the
// findings listed.
func TestCommittedTriage(t *testing.T) {
	open := func(name string) *os.File {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	rows, err := ReadCSV(open("debian-bookworm.csv"))
	if err != nil {
		t.Fatal(err)
	}
	findings, err := ReadFindingsCSV(open("debian-bookworm-findings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	triage, err := csv.NewReader(open("debian-bookworm-triage.csv")).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for i, rec := range triage {
		if i == 0 {
			continue // header
		}
		if len(rec) != 6 || (rec[4] != "real" && rec[4] != "fp") || strings.TrimSpace(rec[5]) == "" {
			t.Errorf("triage line %d: want module,kind,producer,consumer,real|fp,why: %q", i+1, rec)
			continue
		}
		verdicts[strings.Join(rec[:4], "|")] = rec[4]
	}
	counts := map[string][3]int64{}
	reported := map[string]bool{}
	for _, f := range findings {
		if f.HeldBack {
			continue
		}
		c := counts[f.Module]
		switch f.Kind {
		case "MOR":
			c[0]++
		case "MN":
			c[1]++
		case "NI":
			c[2]++
		default:
			t.Errorf("%s: finding of kind %q", f.Module, f.Kind)
		}
		counts[f.Module] = c
		key := f.Module + "|" + f.Kind + "|" + f.Producer + "|" + f.Consumer
		if _, ok := verdicts[key]; !ok {
			t.Errorf("no verdict for %s %s %s -> %s", f.Module, f.Kind, f.Producer, f.Consumer)
		}
		reported[key] = true
	}
	// A verdict for a pair the results do not report is left over from an
	// earlier run: it would count in a precision nobody can reproduce.
	for key := range verdicts {
		if !reported[key] {
			t.Errorf("verdict for %s, which the committed findings do not report", key)
		}
	}
	for _, r := range rows {
		if !r.Analyzed() {
			continue
		}
		if c := counts[r.Module]; c[0] != r.MOR || c[1] != r.MN || c[2] != max(r.NI, 0) {
			t.Errorf("%s: the table says %d MOR %d MN %d NI, findings.csv lists %d, %d and %d", r.Module, r.MOR, r.MN, r.NI, c[0], c[1], c[2])
		}
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

	// A table from before the column.
	var old []string
	for i, rec := range recs {
		rec = append(rec[:ni:ni], rec[ni+1:]...)
		if i == 0 && strings.Join(rec, ",") == strings.Join(Columns, ",") {
			t.Fatal("the ni column was not removed")
		}
		old = append(old, strings.Join(rec, ","))
	}
	rows, err := ReadCSV(strings.NewReader(strings.Join(old, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].NI != -1 || rows[0].MOR != 2 {
		t.Errorf("a table without ni reads as %+v", rows)
	}
}

// findings.csv names an NI finding's problem, and reads tables written
// before that column (and before confirmations).
func TestFindingsCSVProblem(t *testing.T) {
	in := []FindingRow{
		{Module: "m", Kind: "NI", Producer: "Exec[a]", Consumer: "Exec[a]", Relations: "rewrites", Paths: 1, Observed: false, Problem: "unguarded-exec"},
		{Module: "m", Kind: "MOR", Producer: "File[/x]", Consumer: "Exec[b]", Relations: "consumes", Paths: 2, Confirmation: "confirmed"},
	}
	var b bytes.Buffer
	if err := WriteFindingsCSV(&b, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadFindingsCSV(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("read back:\n%+v\nwant\n%+v", out, in)
	}
	for drop := 1; drop <= 2; drop++ {
		var old []string
		for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
			f := strings.Split(line, ",")
			old = append(old, strings.Join(f[:len(f)-drop], ","))
		}
		rows, err := ReadFindingsCSV(strings.NewReader(strings.Join(old, "\n") + "\n"))
		if err != nil {
			t.Fatalf("a table without its last %d columns: %v", drop, err)
		}
		if rows[0].Problem != "" || rows[0].Kind != "NI" || (drop == 1) != (rows[1].Confirmation == "confirmed") {
			t.Errorf("a table without its last %d columns reads as %+v", drop, rows)
		}
	}
}
