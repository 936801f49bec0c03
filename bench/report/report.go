// Package report presents a corpus run's results: a terminal summary, and
// results.html with its figures as hand-written SVG (no plotting library:
// three plain charts do not need one, and the SVG files are small, diffable
// and can be committed beside the CSV).
package report

import (
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fsmove/fsmove/bench/results"
	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/puppet/runner"
)

// Summary writes the counts per status, the findings and the slowest
// modules.
func Summary(w io.Writer, rows []results.Row, slowest int) {
	counts := map[string]int{}
	var mor, mn, ni int64
	withFindings, withNI := 0, 0
	for _, r := range rows {
		counts[r.Status]++
		if r.Analyzed() {
			mor += r.MOR
			mn += r.MN
			if r.AppliedTwice() {
				ni += r.NI
				withNI++
			}
			if r.Findings() > 0 {
				withFindings++
			}
		}
	}
	fmt.Fprintf(w, "%d modules:", len(rows))
	for _, s := range results.Statuses {
		fmt.Fprintf(w, " %s %d", s, counts[s])
	}
	fmt.Fprintln(w)
	cats := map[string]int{}
	for _, r := range rows {
		if r.Category != "" {
			cats[r.Category]++
		}
	}
	if len(cats) > 0 {
		fmt.Fprint(w, "not ok by category:")
		sep := " "
		for _, c := range results.Categories {
			if cats[c] > 0 {
				fmt.Fprintf(w, "%s%s %d", sep, c, cats[c])
				sep = ", "
			}
		}
		fmt.Fprintln(w)
	}
	if withNI > 0 {
		fmt.Fprintf(w, "findings: %d MOR, %d MN, %d NI in %d modules (NI of the %d applied twice)\n", mor, mn, ni, withFindings, withNI)
	} else {
		fmt.Fprintf(w, "findings: %d MOR, %d MN in %d modules\n", mor, mn, withFindings)
	}
	var confirmed, refuted, unknown, confirmedModules int64
	for _, r := range rows {
		if r.Confirmed >= 0 {
			confirmed, refuted, unknown = confirmed+r.Confirmed, refuted+r.Refuted, unknown+r.ConfirmUnknown
			confirmedModules++
		}
	}
	if confirmedModules > 0 {
		fmt.Fprintf(w, "re-applied to test them (%d modules): %d confirmed, %d refuted, %d unknown\n", confirmedModules, confirmed, refuted, unknown)
	}
	var services, unobserved, lifted, withServices int64
	for _, r := range rows {
		if r.Services >= 0 {
			services, unobserved, lifted = services+r.Services, unobserved+r.ServicesUnobserved, lifted+r.ServicesLifted
			withServices++
		}
	}
	if withServices > 0 {
		fmt.Fprintf(w, "services Puppet keeps running (%d modules): %d, not observed %d (%d without lifting the conditions a container cannot meet)\n",
			withServices, services, unobserved, unobserved+lifted)
	}
	byTime := append([]results.Row(nil), rows...)
	sort.SliceStable(byTime, func(i, j int) bool { return byTime[i].PuppetTracedS > byTime[j].PuppetTracedS })
	if len(byTime) > slowest {
		byTime = byTime[:slowest]
	}
	if len(byTime) > 0 && byTime[0].PuppetTracedS > 0 {
		fmt.Fprintln(w, "slowest (traced puppet apply):")
		for _, r := range byTime {
			if r.PuppetTracedS <= 0 {
				break
			}
			fmt.Fprintf(w, "  %7.1fs  %s (%s)\n", r.PuppetTracedS, r.Module, r.Status)
		}
	}
	var failed []results.Row
	for _, r := range rows {
		if r.Status != results.StatusOK && r.FirstError != "" {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintln(w, "failures:")
		for _, r := range failed {
			fmt.Fprintf(w, "  %-14s %s [%s]: %s\n", r.Status, r.Module, r.Category, clip(r.FirstError, 100))
		}
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// WriteFiles writes results.csv, results.json, findings.csv (every finding
// of the runs in dir/runs), results.html and the figures to dir.
func WriteFiles(dir, title string, rows []results.Row, prov *results.Provenance) error {
	write := func(name string, fn func(io.Writer) error) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", name, err)
		}
		return f.Close()
	}
	if err := write(results.ResultsCSV, func(w io.Writer) error { return results.WriteCSV(w, rows) }); err != nil {
		return err
	}
	if err := write("results.json", func(w io.Writer) error { return results.WriteJSON(w, rows) }); err != nil {
		return err
	}
	// findings.csv: every finding, for triage (from the runs' reports).
	fs, err := results.Findings(filepath.Join(dir, results.RunsDir), rows)
	if err != nil {
		return err
	}
	if err := write("findings.csv", func(w io.Writer) error { return results.WriteFindingsCSV(w, fs) }); err != nil {
		return err
	}
	figs := Figures(rows)
	for name, svg := range figs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(svg), 0o644); err != nil {
			return err
		}
	}
	page := Page{Title: title, Rows: rows, Figures: figs, Findings: fs, Provenance: prov,
		RunReport: func(module string) string {
			if rel := filepath.Join(results.RunsDir, module, runner.HTMLReportFile); files.Exists(filepath.Join(dir, rel)) {
				return rel
			}
			return ""
		}}
	return write("results.html", func(w io.Writer) error { return WriteHTML(w, page) })
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border: 1px solid #ccc; padding: 2px 6px; }
td.num { text-align: right; }
figure { display: inline-block; margin: 1em; }
</style></head><body>
<h1>{{.Title}}</h1>
<p>{{.Summary}}</p>
<figure>{{.FigAnalysis}}<figcaption>Analysis time against trace size (cf. the paper's Fig. 11).</figcaption></figure>
<figure>{{.FigSlowdown}}<figcaption>Tracer slowdown: traced over untraced puppet apply time, per module.</figcaption></figure>
<figure>{{.FigFindings}}<figcaption>Findings per module (MOR, MN and, for modules applied twice, NI).</figcaption></figure>
<figure>{{.FigStatus}}<figcaption>Modules that applied cleanly, and why the others did not.</figcaption></figure>
{{with .Provenance}}<h2>Made by</h2>
<table id="provenance">
<tr><th>fsmove</th><td>{{.FsmoveVersion}}</td></tr>
<tr><th>image</th><td>{{.Image}} {{.ImageID}}</td></tr>
<tr><th>suite, tracer, init</th><td>{{.Suite}}, {{.Tracer}}, {{.Init}}</td></tr>
<tr><th>corpus</th><td>{{.Corpus}} (sha256 {{.CorpusSHA256}}){{if .Shard}}, share {{.Shard}}{{end}}</td></tr>
{{if .Parts}}<tr><th>merged from</th><td>{{range .Parts}}{{.}} {{end}}</td></tr>
{{end}}<tr><th>when</th><td>{{.Started.Format "2006-01-02 15:04 MST"}} to {{.Finished.Format "2006-01-02 15:04 MST"}}</td></tr>
</table>
{{end}}<h2>Modules</h2>
<p>&ndash; : not known (the step did not run, or did not say).</p>
<table id="results">
<tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td{{if .Num}} class="num"{{end}}>{{if .Link}}<a href="{{.Link}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</table>
<h2>Findings</h2>
<table id="findings">
<tr>{{range .FindingColumns}}<th>{{.}}</th>{{end}}</tr>
{{range .Findings}}<tr>{{range .}}<td>{{if .Link}}<a href="{{.Link}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</table>
</body></html>
`))

// cell is one cell of a table: its text, a number (right-aligned), and
// where it links (a run's own report), if anywhere.
type cell struct {
	Text string
	Num  bool
	Link string
}

// Page is what results.html shows.
type Page struct {
	Title    string
	Rows     []results.Row
	Figures  map[string]string // by file name
	Findings []results.FindingRow
	// Provenance says what made the directory; nil: not shown.
	Provenance *results.Provenance
	// RunReport is the link to a module's own HTML report, relative to
	// the page; "" when it has none. Nil: no links.
	RunReport func(module string) string
}

// unknownCell is how the page shows a number the CSV writes as -1.
const unknownCell = "–"

// WriteHTML writes the page: summary, figures (inline SVG), what made it,
// the table of modules, whose cells are the CSV's fields (-1, not known,
// shown as a dash; each module linking to its run's report), and the
// findings, as findings.csv lists them.
func WriteHTML(w io.Writer, p Page) error {
	rows, figs := p.Rows, p.Figures
	link := p.RunReport
	if link == nil {
		link = func(string) string { return "" }
	}
	var sb strings.Builder
	Summary(&sb, rows, 0)
	summary, _, _ := strings.Cut(sb.String(), "\nslowest")
	var table [][]cell
	var csvText strings.Builder
	if err := results.WriteCSV(&csvText, rows); err != nil {
		return err
	}
	records, err := readCSVRecords(csvText.String())
	if err != nil {
		return err
	}
	for _, rec := range records[1:] {
		var cells []cell
		for i, f := range rec {
			c := cell{Text: f, Num: i >= 4}
			if c.Num && f == "-1" {
				c.Text = unknownCell
			}
			if i == 0 {
				c.Link = link(f)
			}
			cells = append(cells, c)
		}
		table = append(table, cells)
	}
	var findings [][]cell
	var fcsv strings.Builder
	if err := results.WriteFindingsCSV(&fcsv, p.Findings); err != nil {
		return err
	}
	frecords, err := readCSVRecords(fcsv.String())
	if err != nil {
		return err
	}
	for _, rec := range frecords[1:] {
		var cells []cell
		for i, f := range rec {
			c := cell{Text: f}
			if i == 0 {
				c.Link = link(f)
			}
			cells = append(cells, c)
		}
		findings = append(findings, cells)
	}
	return page.Execute(w, map[string]any{
		"Provenance":     p.Provenance,
		"FindingColumns": results.FindingColumns,
		"Findings":       findings,
		"Title":          p.Title,
		"Summary":        strings.TrimSpace(summary),
		"FigAnalysis":    template.HTML(figs[FigAnalysisTime]),
		"FigSlowdown":    template.HTML(figs[FigSlowdown]),
		"FigFindings":    template.HTML(figs[FigFindings]),
		"FigStatus":      template.HTML(figs[FigStatus]),
		"Columns":        results.Columns,
		"Rows":           table,
	})
}

func esc(s string) string { return template.HTMLEscapeString(s) }

func readCSVRecords(text string) ([][]string, error) {
	return csv.NewReader(strings.NewReader(text)).ReadAll()
}
