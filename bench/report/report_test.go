package report

import (
	"bytes"
	"encoding/csv"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/bench/results"
)

func rows() []results.Row {
	return []results.Row{
		{Module: "a", Version: "1.0", Status: results.StatusOK, PuppetUntracedS: 4, PuppetTracedS: 20, TraceBytes: 45_000_000,
			Events: 41000, Resources: 6, AnalysisS: 0.2, PeakMemBytes: 22 << 20, MOR: 1, MN: 0},
		{Module: "b<&>", Version: "2", Status: results.StatusApplyFailed, Category: results.CategoryUnknown, FirstError: "Error: x < y & \"z\"", PuppetUntracedS: -1, PuppetTracedS: -1,
			TraceBytes: 9_000_000, Events: 900, Resources: 3, AnalysisS: 0.05, PeakMemBytes: 10 << 20, MOR: 0, MN: 2},
		{Module: "c", Status: results.StatusCompileFailed, Category: results.CategoryMissingType, FirstError: "Error: Could not find class ::c",
			PuppetUntracedS: -1, PuppetTracedS: -1, TraceBytes: 100, Events: -1, Resources: -1, AnalysisS: -1, PeakMemBytes: -1, MOR: -1, MN: -1},
	}
}

var (
	rowRE  = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
)

// The HTML table has exactly the CSV's header and records.
func TestWriteFilesAgree(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFiles(dir, "test", rows()); err != nil {
		t.Fatal(err)
	}
	csvData, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(bytes.NewReader(csvData)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "results.html"))
	if err != nil {
		t.Fatal(err)
	}
	table := string(page[strings.Index(string(page), `<table id="results">`):])
	var htmlRecords [][]string
	for _, m := range rowRE.FindAllStringSubmatch(table, -1) {
		var rec []string
		for _, c := range cellRE.FindAllStringSubmatch(m[1], -1) {
			rec = append(rec, html.UnescapeString(c[1]))
		}
		htmlRecords = append(htmlRecords, rec)
	}
	if len(htmlRecords) != len(records) {
		t.Fatalf("HTML has %d table rows, CSV %d records", len(htmlRecords), len(records))
	}
	for i := range records {
		if strings.Join(records[i], "|") != strings.Join(htmlRecords[i], "|") {
			t.Errorf("row %d: CSV %q, HTML %q", i, records[i], htmlRecords[i])
		}
	}
	jsonFile, err := os.Open(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer jsonFile.Close()
	fromJSON, err := results.ReadJSON(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	fromCSV, err := results.ReadCSV(bytes.NewReader(csvData))
	if err != nil {
		t.Fatal(err)
	}
	if len(fromJSON) != 3 || len(fromCSV) != 3 {
		t.Fatalf("%d JSON rows, %d CSV rows, want 3", len(fromJSON), len(fromCSV))
	}
	for i := range fromCSV {
		if fromCSV[i] != fromJSON[i] {
			t.Errorf("row %d: CSV %+v, JSON %+v", i, fromCSV[i], fromJSON[i])
		}
	}
	for _, name := range []string{FigAnalysisTime, FigSlowdown, FigFindings} {
		svg, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.HasPrefix(svg, []byte("<svg")) || !bytes.Contains(page, svg[:200]) {
			t.Errorf("%s missing, not SVG, or not inlined in the page (%v)", name, err)
		}
	}
}

// Each figure plots what it says: one point per analyzed module, one bar
// per module with an untraced time, one stack per analyzed module.
func TestFigures(t *testing.T) {
	figs := Figures(rows())
	if n := strings.Count(figs[FigAnalysisTime], "<circle"); n != 2 {
		t.Errorf("analysis figure has %d points, want 2 (the analyzed modules)", n)
	}
	if !strings.Contains(figs[FigAnalysisTime], "<title>a: 45.0 MB, 0.20 s</title>") {
		t.Error("analysis figure lacks module a's point")
	}
	if n := strings.Count(figs[FigSlowdown], `fill="steelblue"><title>`); n != 1 || !strings.Contains(figs[FigSlowdown], "<title>a: 5</title>") {
		t.Errorf("slowdown figure: %d bars, want one of 5×:\n%s", n, figs[FigSlowdown])
	}
	f := figs[FigFindings]
	if !strings.Contains(f, "<title>a: 1</title>") || !strings.Contains(f, "<title>b&lt;&amp;&gt;: 2</title>") || strings.Contains(f, "<title>c:") {
		t.Errorf("findings figure wrong:\n%s", f)
	}
	empty := Figures(nil)
	for name, svg := range empty {
		if !strings.Contains(svg, "no ") || !strings.HasSuffix(svg, "</svg>\n") {
			t.Errorf("%s for no rows: %s", name, svg)
		}
	}
}

func TestSummary(t *testing.T) {
	var b strings.Builder
	Summary(&b, rows(), 5)
	s := b.String()
	for _, want := range []string{
		"3 modules: ok 1 compile-failed 1 apply-failed 1 timeout 0 infra-error 0",
		"findings: 1 MOR, 2 MN in 2 modules",
		"20.0s  a (ok)",
		"compile-failed c [missing type or dependency]: Error: Could not find class ::c",
		"not ok by category: missing type or dependency 1, unknown 1\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

func TestNiceCeil(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{{0, 1}, {0.3, 0.5}, {1, 1}, {1.1, 2}, {7, 10}, {45, 50}, {120, 200}} {
		if got := niceCeil(tc.in); got != tc.want {
			t.Errorf("niceCeil(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
