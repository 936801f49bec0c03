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
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/bench/results"
)

// Summary writes the counts per status, the findings and the slowest
// modules.
func Summary(w io.Writer, rows []results.Row, slowest int) {
	counts := map[string]int{}
	var mor, mn int64
	withFindings := 0
	for _, r := range rows {
		counts[r.Status]++
		if r.Analyzed() {
			mor += r.MOR
			mn += r.MN
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
	fmt.Fprintf(w, "findings: %d MOR, %d MN in %d modules\n", mor, mn, withFindings)
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

// Figure file names, written beside results.html.
const (
	FigAnalysisTime = "fig-analysis-time.svg"
	FigSlowdown     = "fig-slowdown.svg"
	FigFindings     = "fig-findings.svg"
)

// Figures returns the three figures as SVG documents, by file name.
func Figures(rows []results.Row) map[string]string {
	return map[string]string{
		FigAnalysisTime: analysisTimeFigure(rows),
		FigSlowdown:     slowdownFigure(rows),
		FigFindings:     findingsFigure(rows),
	}
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
	if err := write("results.csv", func(w io.Writer) error { return results.WriteCSV(w, rows) }); err != nil {
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
<figure>{{.FigFindings}}<figcaption>Findings per module (MOR and MN).</figcaption></figure>
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
		"Columns":     results.Columns,
		"Rows":        table,
	})
}

// chart is the frame of one SVG chart: size, margins and axis ranges.
type chart struct {
	b              strings.Builder
	w, h           float64
	left, bottom   float64
	xMax, yMax     float64
	xLabel, yLabel string
}

const (
	chartW = 640
	chartH = 360
	margin = 20
)

func newChart(title, xLabel, yLabel string, xMax, yMax float64) *chart {
	c := &chart{w: chartW, h: chartH, left: 70, bottom: 60, xLabel: xLabel, yLabel: yLabel}
	c.xMax, c.yMax = niceCeil(xMax), niceCeil(yMax)
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", chartW, chartH, chartW, chartH)
	fmt.Fprintf(&c.b, `<text x="%d" y="14" text-anchor="middle" font-size="13">%s</text>`+"\n", chartW/2, esc(title))
	return c
}

// px and py map data coordinates to the plot area.
func (c *chart) px(x float64) float64 { return c.left + x/c.xMax*(c.w-c.left-margin) }
func (c *chart) py(y float64) float64 { return c.h - c.bottom - y/c.yMax*(c.h-c.bottom-2*margin) }

// axes draws both axes with 5 ticks each; xTicks false leaves the x ticks
// to the caller (bar charts label their bars).
func (c *chart) axes(xTicks bool) {
	x0, y0 := c.px(0), c.py(0)
	fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x0, y0, c.px(c.xMax), y0)
	fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x0, y0, x0, c.py(c.yMax))
	for i := 0; i <= 5; i++ {
		y := c.yMax * float64(i) / 5
		fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`, x0, c.py(y), c.px(c.xMax), c.py(y))
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-4, c.py(y)+4, tick(y))
		if xTicks {
			x := c.xMax * float64(i) / 5
			fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", c.px(x), y0+14, tick(x))
		}
	}
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", (c.left+c.w)/2, c.h-6, esc(c.xLabel))
	fmt.Fprintf(&c.b, `<text x="14" y="%.1f" text-anchor="middle" transform="rotate(-90 14 %.1f)">%s</text>`+"\n", (c.h-c.bottom)/2, (c.h-c.bottom)/2, esc(c.yLabel))
}

func (c *chart) empty(msg string) {
	fmt.Fprintf(&c.b, `<text x="%d" y="%d" text-anchor="middle" fill="#888">%s</text>`+"\n", chartW/2, chartH/2, esc(msg))
}

func (c *chart) String() string { return c.b.String() + "</svg>\n" }

// analysisTimeFigure: one point per analyzed module, trace MB against
// analysis seconds, with the module's name as the point's tooltip.
func analysisTimeFigure(rows []results.Row) string {
	var pts []results.Row
	var xMax, yMax float64
	for _, r := range rows {
		if r.AnalysisS >= 0 && r.TraceBytes > 0 && r.Analyzed() {
			pts = append(pts, r)
			xMax = math.Max(xMax, mb(r.TraceBytes))
			yMax = math.Max(yMax, r.AnalysisS)
		}
	}
	c := newChart("Analysis time against trace size", "trace size (MB)", "analysis time (s)", xMax, yMax)
	c.axes(true)
	if len(pts) == 0 {
		c.empty("no analyzed module")
		return c.String()
	}
	for _, r := range pts {
		fmt.Fprintf(&c.b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="steelblue" fill-opacity="0.7"><title>%s: %.1f MB, %.2f s</title></circle>`+"\n",
			c.px(mb(r.TraceBytes)), c.py(r.AnalysisS), esc(r.Module), mb(r.TraceBytes), r.AnalysisS)
	}
	return c.String()
}

// bar is one labelled bar (or stack of two).
type bar struct {
	label string
	a, b  float64 // stacked: a at the bottom, b on top
}

// barFigure draws labelled vertical bars; refLine > 0 draws a dashed
// horizontal line there (slowdown 1×).
func barFigure(title, yLabel string, bars []bar, refLine float64, legendA, legendB string) string {
	yMax := refLine
	for _, b := range bars {
		yMax = math.Max(yMax, b.a+b.b)
	}
	c := newChart(title, "", yLabel, 1, yMax)
	c.bottom = 110
	c.axes(false)
	if len(bars) == 0 {
		c.empty("no data")
		return c.String()
	}
	slot := (c.w - c.left - margin) / float64(len(bars))
	width := math.Max(slot*0.7, 1)
	for i, b := range bars {
		x := c.left + float64(i)*slot + (slot-width)/2
		fmt.Fprintf(&c.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="steelblue"><title>%s: %s</title></rect>`,
			x, c.py(b.a), width, c.py(0)-c.py(b.a), esc(b.label), strconv.FormatFloat(b.a, 'g', 4, 64))
		if b.b > 0 {
			fmt.Fprintf(&c.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="darkorange"><title>%s: %s</title></rect>`,
				x, c.py(b.a+b.b), width, c.py(b.a)-c.py(b.a+b.b), esc(b.label), strconv.FormatFloat(b.b, 'g', 4, 64))
		}
		lx, ly := x+width/2, c.py(0)+6
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" font-size="9" text-anchor="end" transform="rotate(-60 %.1f %.1f)">%s</text>`+"\n",
			lx, ly, lx, ly, esc(clip(b.label, 22)))
	}
	if refLine > 0 {
		fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="red" stroke-dasharray="4 3"/>`+"\n",
			c.px(0), c.py(refLine), c.px(c.xMax), c.py(refLine))
	}
	if legendA != "" {
		fmt.Fprintf(&c.b, `<rect x="%.1f" y="22" width="10" height="10" fill="steelblue"/><text x="%.1f" y="31">%s</text>`, c.w-150, c.w-136, esc(legendA))
		fmt.Fprintf(&c.b, `<rect x="%.1f" y="36" width="10" height="10" fill="darkorange"/><text x="%.1f" y="45">%s</text>`+"\n", c.w-150, c.w-136, esc(legendB))
	}
	return c.String()
}

func slowdownFigure(rows []results.Row) string {
	var bars []bar
	for _, r := range rows {
		if s := r.Slowdown(); s > 0 {
			bars = append(bars, bar{label: r.Module, a: s})
		}
	}
	return barFigure("Tracer slowdown per module (traced / untraced)", "slowdown (×)", bars, 1, "", "")
}

func findingsFigure(rows []results.Row) string {
	var bars []bar
	for _, r := range rows {
		if r.Analyzed() {
			bars = append(bars, bar{label: r.Module, a: float64(r.MOR), b: float64(r.MN)})
		}
	}
	return barFigure("Findings per analyzed module", "findings", bars, 0, "MOR", "MN")
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// niceCeil rounds v up to 1, 2 or 5 times a power of ten (1 for v <= 0).
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func tick(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func esc(s string) string { return template.HTMLEscapeString(s) }

func readCSVRecords(text string) ([][]string, error) {
	return csv.NewReader(strings.NewReader(text)).ReadAll()
}
