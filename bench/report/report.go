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
func WriteFiles(dir, title string, rows []results.Row) error {
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
	return write("results.html", func(w io.Writer) error { return WriteHTML(w, title, rows, figs) })
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
<h2>Modules</h2>
<table id="results">
<tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td{{if .Num}} class="num"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</table>
</body></html>
`))

type cell struct {
	Text string
	Num  bool
}

// WriteHTML writes the page: summary, figures (inline SVG) and the table,
// whose cells are the CSV's fields.
func WriteHTML(w io.Writer, title string, rows []results.Row, figs map[string]string) error {
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
			cells = append(cells, cell{Text: f, Num: i >= 4})
		}
		table = append(table, cells)
	}
	return page.Execute(w, map[string]any{
		"Title":       title,
		"Summary":     strings.TrimSpace(summary),
		"FigAnalysis": template.HTML(figs[FigAnalysisTime]),
		"FigSlowdown": template.HTML(figs[FigSlowdown]),
		"FigFindings": template.HTML(figs[FigFindings]),
		"FigStatus":   template.HTML(figs[FigStatus]),
		"Columns":     results.Columns,
		"Rows":        table,
	})
}

func esc(s string) string { return template.HTMLEscapeString(s) }

func readCSVRecords(text string) ([][]string, error) {
	return csv.NewReader(strings.NewReader(text)).ReadAll()
}
