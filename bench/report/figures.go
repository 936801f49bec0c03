package report

// The figures, drawn with gonum's plot (axes, ticks, legends and text
// measurement done by a kept library) and written as SVG without embedded
// fonts, so that they are small and the same for the same rows.

import (
	"bytes"
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fsmove/fsmove/bench/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure file names, written beside results.html.
const (
	FigAnalysisTime = "fig-analysis-time.svg"
	FigSlowdown     = "fig-slowdown.svg"
	FigFindings     = "fig-findings.svg"
	FigStatus       = "fig-status.svg"
)

// Figures returns the figures as SVG documents, by file name.
func Figures(rows []results.Row) map[string]string {
	return map[string]string{
		FigAnalysisTime: analysisTimeFigure(rows),
		FigSlowdown:     slowdownFigure(rows),
		FigFindings:     findingsFigure(rows),
		FigStatus:       statusFigure(rows),
	}
}

var palette = []color.Color{
	color.RGBA{R: 70, G: 130, B: 180, A: 255}, // steel blue
	color.RGBA{R: 255, G: 140, A: 255},        // dark orange
	color.RGBA{R: 60, G: 160, B: 80, A: 255},  // green
	color.RGBA{R: 150, G: 100, B: 190, A: 255},
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	return p
}

// svg renders p at width × height; a plot that cannot be drawn says so in
// its place rather than failing the report.
func svg(p *plot.Plot, w, h vg.Length) string {
	c := vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(false))
	// Room on both sides: a viewer's fallback font may be wider than the
	// one gonum measured the labels with.
	p.Draw(draw.Crop(draw.New(c), 12*vg.Millimeter, -8*vg.Millimeter, 0, 0))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return fmt.Sprintf("<svg xmlns=\"http://www.w3.org/2000/svg\"><text y=\"20\">%s</text></svg>\n", esc(err.Error()))
	}
	// Inlined in results.html: no XML declaration or generator comment.
	out := b.String()
	if i := strings.Index(out, "<svg"); i > 0 {
		out = out[i:]
	}
	return out
}

// empty is a figure with nothing to plot: its title says why.
func empty(title, why string) string {
	p := plot.New()
	p.Title.Text = title + " — " + why
	p.HideAxes()
	return svg(p, 16*vg.Centimeter, 3*vg.Centimeter)
}

// barsHeight fits n horizontal bars (module names on the y axis).
func barsHeight(n int) vg.Length {
	return vg.Length(n)*14*vg.Millimeter/3 + 3*vg.Centimeter
}

func shortName(module string) string { return strings.TrimPrefix(module, "puppet-module-") }

// analysisTimeFigure: one point per analyzed module, analysis seconds
// against trace MB.
func analysisTimeFigure(rows []results.Row) string {
	var xys plotter.XYs
	for _, r := range rows {
		if r.Analyzed() && r.TraceBytes > 0 {
			xys = append(xys, plotter.XY{X: float64(r.TraceBytes) / 1e6, Y: r.AnalysisS})
		}
	}
	const title = "Analysis time against trace size"
	if len(xys) == 0 {
		return empty(title, "no analyzed module")
	}
	p := newPlot(title, "trace size (MB)", "analysis time (s)")
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return empty(title, err.Error())
	}
	s.GlyphStyle.Color = palette[0]
	s.GlyphStyle.Radius = vg.Points(2.5)
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	p.Add(s)
	p.X.Min, p.Y.Min = 0, 0
	return svg(p, 16*vg.Centimeter, 10*vg.Centimeter)
}

// perModuleMax is the most modules a figure draws one bar each for; past
// it (a Forge-sized corpus) the figure is a distribution instead, which
// stays legible at any size.
const perModuleMax = 40

// bucket is one bar of a distribution: the values v with lo <= v < hi.
type bucket struct {
	name   string
	lo, hi float64
}

// distribution draws, per series (a tracer, a kind of finding), how many
// modules fall in each bucket: grouped horizontal bars, the buckets on the
// y axis, each series' legend saying what its count and median are.
func distribution(title, x string, buckets []bucket, names []string, series map[string][]float64) string {
	p := newPlot(title, x, "")
	width := 12 * vg.Millimeter / 3 / vg.Length(len(names))
	labels := make([]string, len(buckets))
	for i, b := range buckets {
		labels[i] = b.name
	}
	for i, name := range names {
		vals := make(plotter.Values, len(buckets))
		for _, v := range series[name] {
			for j, b := range buckets {
				if v >= b.lo && v < b.hi {
					vals[j]++
					break
				}
			}
		}
		b, err := groupedBars(vals, width, i, len(names))
		if err != nil {
			return empty(title, err.Error())
		}
		p.Add(b)
		p.Legend.Add(fmt.Sprintf("%s (%d modules, median %.2f)", name, len(series[name]), Median(series[name])), b)
	}
	p.NominalY(labels...)
	p.X.Min = 0
	p.X.Max = roomForLegend(p.X.Max)
	p.Legend.Top = true
	return svg(p, 16*vg.Centimeter, barsHeight(len(buckets)+len(names)))
}

// groupedBars is series i of n drawn as horizontal bars beside the others
// (each series its colour, the group centred on its label).
func groupedBars(vals plotter.Values, width vg.Length, i, n int) (*plotter.BarChart, error) {
	b, err := plotter.NewBarChart(vals, width)
	if err != nil {
		return nil, err
	}
	b.Horizontal = true
	b.Color = palette[i%len(palette)]
	b.LineStyle.Width = 0
	b.Offset = vg.Length(i)*width - vg.Length(n-1)*width/2
	return b, nil
}

// slowdownBuckets are the slowdown distribution's bars (×).
var slowdownBuckets = []bucket{{"< 1.1×", 0, 1.1}, {"1.1–1.25×", 1.1, 1.25}, {"1.25–1.5×", 1.25, 1.5}, {"1.5–2×", 1.5, 2},
	{"2–3×", 2, 3}, {"3–5×", 3, 5}, {"5–10×", 5, 10}, {"≥ 10×", 10, math.Inf(1)}}

// findingsBuckets are the findings distribution's bars (findings of one
// kind in one module).
var findingsBuckets = []bucket{{"1", 1, 2}, {"2", 2, 3}, {"3–5", 3, 6}, {"6–10", 6, 11}, {"11–20", 11, 21}, {"> 20", 21, math.Inf(1)}}

// slowdownFigure: traced over untraced Puppet time per module, one bar
// per tracer, the median of each tracer in the legend, a line at 1×; past
// perModuleMax modules, how many modules fall in each slowdown range.
func slowdownFigure(rows []results.Row) string {
	byTracer := map[string]map[string]float64{}
	modSet := map[string]bool{}
	for _, r := range rows {
		if s := r.Slowdown(); s > 0 {
			t := r.Tracer
			if t == "" {
				t = "unknown tracer"
			}
			if byTracer[t] == nil {
				byTracer[t] = map[string]float64{}
			}
			byTracer[t][r.Module] = s
			modSet[r.Module] = true
		}
	}
	const title = "Tracer slowdown (traced / untraced Puppet time)"
	if len(modSet) == 0 {
		return empty(title, "no module has an untraced time (fsmove bench --untraced)")
	}
	mods := slices.Sorted(maps.Keys(modSet))
	tracers := slices.Sorted(maps.Keys(byTracer))
	if len(mods) > perModuleMax {
		series := map[string][]float64{}
		for _, t := range tracers {
			series[t] = slices.Collect(maps.Values(byTracer[t]))
		}
		return distribution(fmt.Sprintf("%s, %d modules", title, len(mods)), "modules", slowdownBuckets, tracers, series)
	}
	p := newPlot(title, "slowdown (×)", "")
	names := make([]string, len(mods))
	for i, m := range mods {
		names[i] = shortName(m)
	}
	width := 12 * vg.Millimeter / 3 / vg.Length(len(tracers))
	for i, t := range tracers {
		vals := make(plotter.Values, len(mods))
		var all []float64
		for j, m := range mods {
			vals[j] = byTracer[t][m]
			if v := byTracer[t][m]; v > 0 {
				all = append(all, v)
			}
		}
		b, err := groupedBars(vals, width, i, len(tracers))
		if err != nil {
			return empty(title, err.Error())
		}
		p.Add(b)
		p.Legend.Add(fmt.Sprintf("%s (median %.2f×, %d modules)", t, Median(all), len(all)), b)
	}
	ref, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(len(mods)) - 0.5}})
	if err == nil {
		ref.Color = color.RGBA{R: 200, A: 255}
		ref.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(ref)
	}
	p.NominalY(names...)
	p.X.Min = 0
	p.X.Max = roomForLegend(p.X.Max)
	p.Legend.Top = true
	return svg(p, 16*vg.Centimeter, barsHeight(len(mods)+len(tracers)))
}

// findingsFigure: MOR, MN and NI per module that has findings, stacked (NI
// only when some module was applied twice); past perModuleMax such
// modules, how many modules have how many findings of each kind.
func findingsFigure(rows []results.Row) string {
	var names []string
	var mor, mn, ni plotter.Values
	twice := false
	for _, r := range rows {
		if r.Analyzed() && r.Findings() > 0 {
			names = append(names, shortName(r.Module))
			mor = append(mor, float64(r.MOR))
			mn = append(mn, float64(r.MN))
			ni = append(ni, float64(max(r.NI, 0)))
		}
		twice = twice || r.AppliedTwice()
	}
	const title = "Findings per module (modules with findings)"
	if len(names) == 0 {
		return empty(title, "no findings")
	}
	kinds, values := []string{"MOR", "MN"}, []plotter.Values{mor, mn}
	if twice {
		kinds, values = append(kinds, "NI"), append(values, ni)
	}
	if len(names) > perModuleMax {
		series := map[string][]float64{}
		for i, kind := range kinds {
			for _, v := range values[i] {
				if v > 0 {
					series[kind] = append(series[kind], v)
				}
			}
		}
		return distribution(fmt.Sprintf("Modules by number of findings (%d modules with findings)", len(names)), "modules", findingsBuckets, kinds, series)
	}
	p := newPlot(title, "findings", "")
	width := 10 * vg.Millimeter / 3
	var below *plotter.BarChart
	for i, kind := range kinds {
		b, err := plotter.NewBarChart(values[i], width)
		if err != nil {
			return empty(title, err.Error())
		}
		b.Horizontal = true
		b.Color = palette[i]
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		p.Add(b)
		p.Legend.Add(kind, b)
		below = b
	}
	p.Legend.Top = true
	p.NominalY(names...)
	p.X.Min = 0
	p.X.Max = roomForLegend(p.X.Max)
	return svg(p, 16*vg.Centimeter, barsHeight(len(names)+len(kinds)))
}

// roomForLegend widens a bar chart's value axis so that the legend, at the
// top right, does not cover the longest bars.
func roomForLegend(max float64) float64 { return max * 1.6 }

// statusFigure: modules that applied cleanly, and the others by category.
func statusFigure(rows []results.Row) string {
	const title = "Modules by outcome"
	if len(rows) == 0 {
		return empty(title, "no module")
	}
	counts := map[string]int{}
	for _, r := range rows {
		k := "ok"
		if r.Status != results.StatusOK {
			k = r.Status
			if r.Category != "" {
				k = r.Category
			}
		}
		counts[k]++
	}
	var names []string
	var vals plotter.Values
	for _, k := range append([]string{"ok"}, append(results.Categories, results.Statuses[1:]...)...) {
		if n := counts[k]; n > 0 {
			names = append(names, fmt.Sprintf("%s (%d)", k, n))
			vals = append(vals, float64(n))
			delete(counts, k)
		}
	}
	p := newPlot(fmt.Sprintf("%s (%d modules)", title, len(rows)), "modules", "")
	b, err := plotter.NewBarChart(vals, 10*vg.Millimeter/3)
	if err != nil {
		return empty(title, err.Error())
	}
	b.Horizontal = true
	b.Color = palette[0]
	b.LineStyle.Width = 0
	p.Add(b)
	p.NominalY(names...)
	p.X.Min = 0
	return svg(p, 16*vg.Centimeter, barsHeight(len(names)))
}

// Median of vs (0 for none): the middle value, or the mean of the two
// middle values of an even count.
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
