package results_test

// The tables read back (resultstest): what the bench writes, and what is
// committed.

import (
	"bytes"
	"encoding/csv"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/bench/results"
	"github.com/fsmove/fsmove/bench/results/resultstest"
)

func sampleRows() []results.Row {
	return []results.Row{
		{Module: "a", Version: "1.0", Status: results.StatusOK, PuppetUntracedS: 3.5, PuppetTracedS: 20.125, TraceBytes: 4500000,
			Events: 41000, Resources: 6, AnalysisS: 0.2, PeakMemBytes: 22 << 20, MOR: 1, MN: 0, NI: 2},
		{Module: "b, with \"quotes\"", Version: "", Status: results.StatusCompileFailed, FirstError: "Error: a, b \"c\"",
			PuppetUntracedS: -1, PuppetTracedS: -1, TraceBytes: 100, Events: -1, Resources: -1, AnalysisS: -1, PeakMemBytes: -1, MOR: -1, MN: -1, NI: -1},
		{Module: "c", Version: "2:21.0.0-1", Status: results.StatusTimeout, FirstError: "context deadline exceeded",
			PuppetUntracedS: -1, PuppetTracedS: -1, TraceBytes: 0, Events: -1, Resources: -1, AnalysisS: -1, PeakMemBytes: -1, MOR: -1, MN: -1, NI: -1},
	}
}

// The CSV and the JSON hold the same rows: each reads back to the input.
func TestCSVAndJSONAgree(t *testing.T) {
	rows := sampleRows()
	var c, j bytes.Buffer
	if err := results.WriteCSV(&c, rows); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteJSON(&j, rows); err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(c.String(), "\n"); header != strings.Join(results.Columns, ",") {
		t.Errorf("CSV header %q", header)
	}
	jsonText := j.String()
	fromCSV, err := resultstest.ReadCSV(&c)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := resultstest.ReadJSON(&j)
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
		strings.Join(results.Columns, ",") + "\nx,1,weird,,-1,-1,0,-1,-1,-1,-1,-1,-1\n",
		strings.Join(results.Columns, ",") + "\nx,1,ok,,-1,-1,zero,-1,-1,-1,-1,-1,-1\n",
	} {
		if _, err := resultstest.ReadCSV(strings.NewReader(text)); err == nil {
			t.Errorf("ReadCSV accepted %q", text)
		}
	}
}

// TestCommittedTriage checks each committed corpus pass against its
// triage: every finding the detector reports has a verdict (real or fp)
// with a reason, and the per-module counts of the results table are the
// findings listed. A pass is PREFIX.csv, PREFIX-findings.csv and
// PREFIX-triage.csv.
func TestCommittedTriage(t *testing.T) {
	for _, prefix := range []string{"debian-bookworm", "debian-bookworm-rerun"} {
		t.Run(prefix, func(t *testing.T) { checkTriage(t, prefix) })
	}
}

func checkTriage(t *testing.T, prefix string) {
	open := func(name string) *os.File {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	rows, err := resultstest.ReadCSV(open(prefix + ".csv"))
	if err != nil {
		t.Fatal(err)
	}
	findings, err := resultstest.ReadFindingsCSV(open(prefix + "-findings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	triage, err := csv.NewReader(open(prefix + "-triage.csv")).ReadAll()
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

// findings.csv names an NI finding's problem, and reads tables written
// before that column (and before confirmations).
func TestFindingsCSVProblem(t *testing.T) {
	in := []results.FindingRow{
		{Module: "m", Kind: "NI", Producer: "Exec[a]", Consumer: "Exec[a]", Relations: "rewrites", Paths: 1, Observed: false, Problem: "unguarded-exec"},
		{Module: "m", Kind: "MOR", Producer: "File[/x]", Consumer: "Exec[b]", Relations: "consumes", Paths: 2, Confirmation: "confirmed"},
	}
	var b bytes.Buffer
	if err := results.WriteFindingsCSV(&b, in); err != nil {
		t.Fatal(err)
	}
	out, err := resultstest.ReadFindingsCSV(strings.NewReader(b.String()))
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
		rows, err := resultstest.ReadFindingsCSV(strings.NewReader(strings.Join(old, "\n") + "\n"))
		if err != nil {
			t.Fatalf("a table without its last %d columns: %v", drop, err)
		}
		if rows[0].Problem != "" || rows[0].Kind != "NI" || (drop == 1) != (rows[1].Confirmation == "confirmed") {
			t.Errorf("a table without its last %d columns reads as %+v", drop, rows)
		}
	}
}

// A table from before the ni column reads with ni unknown.
func TestReadCSVWithoutNI(t *testing.T) {
	var csvText bytes.Buffer
	if err := results.WriteCSV(&csvText, sampleRows()[:2]); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&csvText).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ni := slices.Index(recs[0], "ni")
	if ni < 0 || recs[1][ni] != "2" {
		t.Fatalf("the CSV's ni column: %q", recs)
	}
	var old bytes.Buffer
	w := csv.NewWriter(&old)
	for _, rec := range recs {
		w.Write(append(rec[:ni:ni], rec[ni+1:]...))
	}
	w.Flush()
	rows, err := resultstest.ReadCSV(&old)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].NI != -1 || rows[0].MOR != 1 {
		t.Errorf("a table without ni reads as %+v", rows)
	}
}
