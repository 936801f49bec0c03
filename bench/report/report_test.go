package report

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/bench/results"
	"github.com/fsmove/fsmove/bench/results/resultstest"
	"github.com/fsmove/fsmove/puppet/runner"
)

func rows() []results.Row {
	return []results.Row{
		{Module: "a", Version: "1.0", Status: results.StatusOK, PuppetUntracedS: 4, PuppetTracedS: 20, TraceBytes: 45_000_000,
			Events: 41000, Resources: 6, AnalysisS: 0.2, PeakMemBytes: 22 << 20, MOR: 1, MN: 0, NI: -1,
			Confirmed: 1, Refuted: 0, ConfirmUnknown: 0, ConfirmS: 31.5},
		{Module: "b<&>", Version: "2", Status: results.StatusApplyFailed, Category: results.CategoryUnknown, FirstError: "Error: x < y & \"z\"", PuppetUntracedS: -1, PuppetTracedS: -1,
			TraceBytes: 9_000_000, Events: 900, Resources: 3, AnalysisS: 0.05, PeakMemBytes: 10 << 20, MOR: 0, MN: 2, NI: -1,
			Confirmed: 0, Refuted: 1, ConfirmUnknown: 1, ConfirmS: 60},
		{Module: "c", Status: results.StatusCompileFailed, Category: results.CategoryMissingType, FirstError: "Error: Could not find class ::c",
			PuppetUntracedS: -1, PuppetTracedS: -1, TraceBytes: 100, Events: -1, Resources: -1, AnalysisS: -1, PeakMemBytes: -1, MOR: -1, MN: -1, NI: -1,
			Confirmed: -1, Refuted: -1, ConfirmUnknown: -1, ConfirmS: -1},
	}
}

// The summary counts the verdicts of the confirmed modules, and says
// nothing of confirmation when no module was confirmed.
func TestSummaryConfirmations(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, rows(), 2)
	if !strings.Contains(b.String(), "re-applied to test them (2 modules): 1 confirmed, 1 refuted, 1 unknown") {
		t.Errorf("summary:\n%s", b.String())
	}
	plain := rows()
	for i := range plain {
		plain[i].Confirmed, plain[i].Refuted, plain[i].ConfirmUnknown, plain[i].ConfirmS = -1, -1, -1, -1
	}
	b.Reset()
	Summary(&b, plain, 2)
	if strings.Contains(b.String(), "re-applied") {
		t.Errorf("summary without confirmations mentions them:\n%s", b.String())
	}
}

var (
	rowRE  = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
	linkRE = regexp.MustCompile(`^<a href="([^"]*)">(.*)</a>$`)
)

// htmlTable reads the page's table of that id as records, each cell as
// the CSV writes it: a link's text, and -1 for the dash of "not known".
// links gets each cell's link by its text.
func htmlTable(t *testing.T, page, id string, links map[string]string) [][]string {
	t.Helper()
	start := strings.Index(page, `<table id="`+id+`">`)
	if start < 0 {
		t.Fatalf("no table %s", id)
	}
	table := page[start:]
	table = table[:strings.Index(table, "</table>")]
	var records [][]string
	for _, m := range rowRE.FindAllStringSubmatch(table, -1) {
		var rec []string
		for _, c := range cellRE.FindAllStringSubmatch(m[1], -1) {
			text := c[1]
			if l := linkRE.FindStringSubmatch(text); l != nil {
				text = l[2]
				if links != nil {
					links[html.UnescapeString(text)] = html.UnescapeString(l[1])
				}
			}
			if text == unknownCell {
				text = "-1"
			}
			rec = append(rec, html.UnescapeString(text))
		}
		records = append(records, rec)
	}
	return records
}

// The HTML table has exactly the CSV's header and records.
func TestWriteFilesAgree(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFiles(dir, "test", rows(), nil); err != nil {
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
	htmlRecords := htmlTable(t, string(page), "results", nil)
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
	fromJSON, err := resultstest.ReadJSON(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	fromCSV, err := resultstest.ReadCSV(bytes.NewReader(csvData))
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
	for _, name := range []string{FigAnalysisTime, FigSlowdown, FigFindings, FigStatus} {
		svg, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.HasPrefix(svg, []byte("<svg")) || !bytes.Contains(page, svg[:200]) {
			t.Errorf("%s missing, not SVG, or not inlined in the page (%v)", name, err)
		}
	}
}

// Each figure plots what it says and is well-formed, deterministic SVG.
func TestFigures(t *testing.T) {
	rs := rows()
	// A second tracer's row: the slowdown figure has one median per tracer.
	rs = append(rs,
		results.Row{Module: "puppet-module-d", Status: results.StatusOK, Tracer: "strace", PuppetUntracedS: 2, PuppetTracedS: 8, AnalysisS: -1, MOR: -1, MN: -1},
		results.Row{Module: "puppet-module-e", Status: results.StatusOK, Tracer: "strace", PuppetUntracedS: 2, PuppetTracedS: 12, AnalysisS: -1, MOR: -1, MN: -1})
	rs[0].Tracer = "ebpf"
	figs := Figures(rs)
	for name, svg := range figs {
		d := xml.NewDecoder(strings.NewReader(svg))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s is not well-formed XML: %v", name, err)
			}
		}
		if again := Figures(rs)[name]; again != svg {
			t.Errorf("%s differs between two calls", name)
		}
	}
	text := func(name string) string { return strings.Join(svgTexts(figs[name]), "|") }
	if s := text(FigSlowdown); !strings.Contains(s, "ebpf (median 5.00×, 1 modules)") || !strings.Contains(s, "strace (median 5.00×, 2 modules)") || !strings.Contains(s, "|d|") {
		t.Errorf("slowdown figure texts: %s", s)
	}
	if s := text(FigFindings); !strings.Contains(s, "|a|") || !strings.Contains(s, "b<&>") || strings.Contains(s, "|c|") || !strings.Contains(s, "MOR") {
		t.Errorf("findings figure texts: %s", s)
	}
	if s := text(FigStatus); !strings.Contains(s, "ok (3)") || !strings.Contains(s, "missing type or dependency (1)") || !strings.Contains(s, "(5 modules)") {
		t.Errorf("status figure texts: %s", s)
	}
	for name, svg := range Figures(nil) {
		if !strings.Contains(strings.Join(svgTexts(svg), " "), "no ") {
			t.Errorf("%s for no rows does not say there is nothing: %s", name, svg)
		}
	}
}

// svgTexts returns the character data of an SVG's text elements.
func svgTexts(svg string) []string {
	var out []string
	d := xml.NewDecoder(strings.NewReader(svg))
	in := false
	for {
		tok, err := d.Token()
		if err != nil {
			return out
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			in = tok.Name.Local == "text"
		case xml.CharData:
			if in {
				out = append(out, strings.TrimSpace(string(tok)))
			}
		case xml.EndElement:
			in = false
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{4, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// The summary counts NI only when some module was applied twice.
func TestSummaryNI(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, rows(), 2)
	if strings.Contains(b.String(), "NI") {
		t.Errorf("summary without --idempotence mentions NI:\n%s", b.String())
	}
	twice := rows()
	analyzed := 0
	for i := range twice {
		if twice[i].Analyzed() {
			twice[i].NI = int64(i + 1)
			analyzed++
			break
		}
	}
	b.Reset()
	Summary(&b, twice, 2)
	if analyzed == 0 || !strings.Contains(b.String(), " NI in ") || !strings.Contains(b.String(), "(NI of the 1 applied twice)") {
		t.Errorf("summary with one module applied twice:\n%s", b.String())
	}
}

// The page says what made it, links each module with a report of its own
// to it, shows -1 as a dash, and lists the findings as findings.csv does.
func TestPageLinksFindingsProvenance(t *testing.T) {
	dir := t.TempDir()
	runA := filepath.Join(dir, results.RunsDir, "a")
	os.MkdirAll(runA, 0o755)
	os.WriteFile(filepath.Join(runA, runner.HTMLReportFile), []byte("<html></html>"), 0o644)
	os.WriteFile(filepath.Join(runA, results.ReportJSON), []byte(`{"findings":[{"kind":"MOR","producer":{"ref":"File[/x]"},"consumer":{"ref":"Exec[y]"},"paths":[{"relation":"reads"}]}]}`), 0o644)
	prov := &results.Provenance{FsmoveVersion: "v9.9", Image: "fsmove/puppet:bookworm", ImageID: "sha256:feed", Suite: "bookworm",
		Tracer: "ebpf", Init: "systemd", Corpus: "corpus.txt", CorpusSHA256: "beef", Shard: "2/3"}
	if err := WriteFiles(dir, "test", rows(), prov); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "results.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{"v9.9", "sha256:feed", "bookworm, ebpf, systemd", "share 2/3"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q of what made it", want)
		}
	}
	links := map[string]string{}
	htmlTable(t, page, "results", links)
	if links["a"] != "runs/a/report.html" || len(links) != 1 {
		t.Errorf("module links %v, want a's report only (b and c have none)", links)
	}
	if !strings.Contains(page, `<td class="num">`+unknownCell+`</td>`) || strings.Contains(page, `<td class="num">-1</td>`) {
		t.Error("not known is not shown as a dash")
	}
	findings := htmlTable(t, page, "findings", nil)
	csvData, _ := os.ReadFile(filepath.Join(dir, "findings.csv"))
	want, _ := csv.NewReader(bytes.NewReader(csvData)).ReadAll()
	if len(findings) != 2 || len(want) != 2 || strings.Join(findings[1], "|") != strings.Join(want[1], "|") {
		t.Errorf("findings table %q, findings.csv %q", findings, want)
	}
}

// manyRows is a Forge-sized results table: n modules, most clean, with
// slowdowns and findings spread out.
func manyRows(n int) []results.Row {
	var rs []results.Row
	for i := range n {
		r := results.Row{Module: fmt.Sprintf("puppet-module-m%05d", i), Status: results.StatusOK, Tracer: "ebpf",
			PuppetUntracedS: 10, PuppetTracedS: 10 * (1 + float64(i%50)/10), TraceBytes: int64(1000 * (i + 1)), Events: 10, Resources: 5,
			AnalysisS: 0.1, PeakMemBytes: 1 << 20, MOR: int64(i % 7), MN: int64(i % 3), NI: -1,
			Confirmed: -1, Refuted: -1, ConfirmUnknown: -1, ConfirmS: -1, Services: -1, ServicesUnobserved: -1, ServicesLifted: -1}
		if i%10 == 9 {
			r.Status, r.Category = results.StatusApplyFailed, results.CategoryUnknown
		}
		rs = append(rs, r)
	}
	return rs
}

// svgHeightCm is the height an SVG figure declares, in centimetres.
func svgHeightCm(t *testing.T, doc string) float64 {
	t.Helper()
	m := regexp.MustCompile(`<svg[^>]* height="([0-9.]+)(cm|pt|px|in|mm)?"`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("no height in %.200s", doc)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	switch m[2] {
	case "pt":
		v *= 2.54 / 72
	case "px":
		v *= 2.54 / 96
	case "in":
		v *= 2.54
	case "mm":
		v /= 10
	}
	return v
}

// At 354 and at 7,000 modules the figures are distributions of a fixed
// size, not a bar per module; a few dozen modules keep one bar each.
func TestFiguresAtScale(t *testing.T) {
	for _, n := range []int{354, 7000} {
		figs := Figures(manyRows(n))
		for _, name := range []string{FigSlowdown, FigFindings} {
			doc := figs[name]
			if h := svgHeightCm(t, doc); h > 12 {
				t.Errorf("%d modules: %s is %.1f cm high", n, name, h)
			}
			if strings.Contains(doc, "m00001") {
				t.Errorf("%d modules: %s names modules", n, name)
			}
		}
		if !strings.Contains(figs[FigSlowdown], "1.5–2×") || !strings.Contains(figs[FigFindings], "3–5") {
			t.Errorf("%d modules: the distributions lack their ranges", n)
		}
		if want := fmt.Sprintf("ebpf (%d modules,", n); !strings.Contains(figs[FigSlowdown], want) {
			t.Errorf("%d modules: the slowdown legend does not count them (%q)", n, want)
		}
	}
	few := Figures(manyRows(12))
	if !strings.Contains(few[FigSlowdown], "m00011") {
		t.Error("12 modules: the slowdown figure lost its bar per module")
	}
	dir := t.TempDir()
	if err := WriteFiles(dir, "7000", manyRows(7000), nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, results.ResultsCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := resultstest.ReadCSV(f)
	if err != nil || len(back) != 7000 {
		t.Errorf("results.csv of 7,000 modules read back: %d rows, %v", len(back), err)
	}
}
