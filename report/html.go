package report

import (
	"bufio"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/fstrace/interp"
	"github.com/fsmove/fsmove/internal/printable"
)

// The page's template, style and script, embedded so that the page is one
// file that needs nothing else (no network, no fonts, no libraries).
var (
	//go:embed html/report.tmpl
	htmlTemplateText string
	//go:embed html/report.css
	htmlCSS string
	//go:embed html/report.js
	htmlJS string
)

// htmlTemplate is parsed once; html/template escapes every string from a
// module or a trace in its context (text, attribute, SVG).
var htmlTemplate = template.Must(template.New("report").Parse(htmlTemplateText))

// SourceContext and TraceContext are the lines the page shows around a
// resource's manifest line and around an evidence line of the trace.
const (
	SourceContext = 3
	TraceContext  = 2
)

// HTMLInputs are what the HTML report shows that the Report alone does not
// know; the caller (cmd/fsmove) fills what it has. Every field may be
// empty: the page then says what is not available.
type HTMLInputs struct {
	// Run are the facts of the run that made the trace (its run.json),
	// nil for a trace analyzed on its own.
	Run *HTMLRun
	// ExitStatus is the status the command exits with for this report.
	ExitStatus int
	// ReadSource returns a manifest's text (detector.ReadManifestFile); nil: the
	// page shows no source lines.
	ReadSource func(file string) ([]byte, error)
	// TraceLines are lines of the trace by number, at least those of
	// EvidenceLines; nil when they could not be read (TraceError says why).
	TraceLines map[int64]string
	TraceError string
	// SecondTraceLines are lines of the second apply's trace (fsmove run
	// --idempotence), at least those of SecondEvidenceLines; nil when
	// there is none or it could not be read (SecondTraceError says why).
	// NI findings quote both traces: each line from its own.
	SecondTraceLines map[int64]string
	SecondTraceError string
	// Graph is the catalog's dependency graph; nil: no drawings.
	Graph *catalog.Graph
}

// HTMLRun are the facts of a run that the page's summary shows.
type HTMLRun struct {
	FsmoveVersion string // the fsmove that made the run
	PuppetVersion string
	Tracer        string
	Init          string
	Image         string // the image's tag, which names the suite
	Status        string // run.json's status: ok, puppet-failed…
}

// EvidenceLines are the numbers of the lines of the run's trace that the
// HTML report quotes: each evidence line in that trace of the findings it
// shows, with TraceContext lines either side, sorted. A caller reads them
// from the trace in one pass (strace.ReadLines) for HTMLInputs.TraceLines.
func EvidenceLines(r *detector.Report) []int64 {
	return evidenceLines(r, firstTrace)
}

// SecondEvidenceLines are, as EvidenceLines, the lines of the second
// apply's trace that the HTML report quotes (NI findings), for
// HTMLInputs.SecondTraceLines.
func SecondEvidenceLines(r *detector.Report) []int64 {
	return evidenceLines(r, secondTrace)
}

// evidenceLines are the quoted lines of one trace, firstTrace or
// secondTrace (evidenceTraces says which evidence is in which).
func evidenceLines(r *detector.Report, trace applyTrace) []int64 {
	var out []int64
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Waived || f.HeldBack && !r.ShowHeldBack {
			continue
		}
		producerTrace, consumerTrace := evidenceTraces(f)
		for _, pc := range f.Paths {
			for _, e := range []struct {
				ev    interp.Evidence
				trace applyTrace
			}{{pc.ProducerEvidence, producerTrace}, {pc.ConsumerEvidence, consumerTrace}} {
				ev := e.ev
				if ev.Line <= 0 || e.trace != trace {
					continue
				}
				for n := max(1, ev.Line-TraceContext); n <= ev.Line+TraceContext; n++ {
					out = append(out, n)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// HTML writes the report as one self-contained HTML page: a summary,
// the reported findings in the text report's order and groups, each with
// its resources' source lines, the trace lines of its evidence, a drawing
// of the pair in the dependency graph and the fix; held-back findings
// (ShowHeldBack) and suppressed ones (ShowSuppressed) in collapsed
// sections; filters by kind and resource.
func HTML(w io.Writer, r *detector.Report, in HTMLInputs) error {
	if err := check(r); err != nil {
		return err
	}
	page := pageOf(r, in)
	bw := bufio.NewWriter(w)
	if err := htmlTemplate.Execute(bw, page); err != nil {
		return err
	}
	return bw.Flush()
}

// htmlPage is what the template shows.
type htmlPage struct {
	Title      string
	Module     string
	Version    string
	Run        *HTMLRun
	RunVersion string // the run's fsmove, when not this one
	Counts     []htmlCount
	Exit       int
	ExitText   string
	Summary    string
	Confirmed  string // the confirmations' counts and cost, when findings were re-applied
	RunFailed  string // Report.RunFailure in words, when the run failed
	Incomplete []string
	Coverage   []string // Report.Coverage in words
	Warnings   []string
	NoSource   string // why no manifest is shown, when none can be
	TraceNote  string // why no trace line is shown, when none can be
	SecondNote string // why no line of the second apply's trace is shown
	Sections   []htmlSection
	Held       []htmlSection // with ShowHeldBack
	HeldCount  int
	Suppressed []htmlSuppressed // with ShowSuppressed
	Findings   int              // reported findings on the page
	Kinds      []string         // the kind filter's boxes
	TOC        []htmlTOCEntry
	CSS        template.CSS
	JS         template.JS
}

type htmlCount struct {
	Name  string
	Count int
}

type htmlTOCEntry struct {
	Anchor, Title, Kind string
}

// htmlSection is one kind of finding, reported or held back.
type htmlSection struct {
	Title string
	Items []htmlItem
}

// htmlItem is a finding or a group of them, as in the text report.
type htmlItem struct {
	Finding *htmlFinding
	Group   *htmlGroup
}

type htmlGroup struct {
	Title   string
	Anchor  string
	Role    string // "producer" or "consumer": what the members share
	Shared  htmlResource
	Paths   []string
	Fix     string
	Snippet string
	Edit    *htmlEdit
	Members []*htmlFinding
}

// htmlEdit is a finding's (or a group's) Edit: what it does, its diff a
// line each (classed for colour), the diff whole to copy, or why there is
// none.
type htmlEdit struct {
	Says    string
	Diff    string
	Lines   []htmlDiffLine
	Skipped string
}

type htmlDiffLine struct {
	Class string // "add", "del", "hunk" or "" (context, file names)
	Text  string
}

// editView is e for the page; nil for nil.
func (b *htmlBuilder) editView(e *detector.Edit) *htmlEdit {
	if e == nil {
		return nil
	}
	he := &htmlEdit{Says: printable.String(relText(b.r, e.Says)), Diff: printable.Lines(e.Diff), Skipped: printable.String(relText(b.r, e.Skipped))}
	for _, l := range strings.SplitAfter(he.Diff, "\n") {
		class := ""
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			class = "add"
		case strings.HasPrefix(l, "-"):
			class = "del"
		case strings.HasPrefix(l, "@@"):
			class = "hunk"
		}
		he.Lines = append(he.Lines, htmlDiffLine{class, l})
	}
	return he
}

type htmlFinding struct {
	Anchor     string
	Number     int
	Kind       string
	Title      string
	Held       bool
	Resources  string // both refs, lowercase, for the resource filter
	Confidence string
	Observed   string
	BothWays   bool
	Unordered  bool
	HeldRule   string // with HeldReason: " (RULE)", the rule that held it
	HeldReason string
	Producer   htmlResource
	Consumer   htmlResource
	Paths      []htmlPath
	WaivedN    int
	Fix        string
	Snippet    string // the fix as manifest code, to copy
	Edit       *htmlEdit
	Confirm    *htmlConfirmation
	Graph      *htmlGraph
	NI         *htmlNI // an NI finding's details
	Single     bool    // an NI finding of one resource: Consumer is Producer
}

// htmlNI is what an NI finding says beyond its resources and paths, as
// the text report says it.
type htmlNI struct {
	Problem string
	Changes []htmlChange
	Error   string // Puppet's message, for a resource failing only in the second apply
}

// htmlChange is one event of the second apply: what Puppet changed again.
type htmlChange struct {
	Ref      string
	Property string
	Previous string
	Desired  string
	Message  string // when the event has no old and new value
}

type htmlResource struct {
	Role     string // producer, consumer
	Ref      string
	Location string
	File     string
	Source   []htmlLine
	NoSource string // why Source is empty, when the resource has a file
}

// htmlLine is a numbered line of a manifest or of the trace; Hit marks the
// one the context is around.
type htmlLine struct {
	No   int64
	Text string
	Hit  bool
}

type htmlPath struct {
	Path       string
	Relation   string
	Metadata   bool
	HeldRule   string
	HeldReason string
	Effects    []htmlEffect // the producer's, then the consumer's
}

type htmlEffect struct {
	Role     string // producer, consumer
	Effect   string // what the resource did: produced, consumed…
	Ref      string
	Syscall  string // and the program that made it (callText)
	Line     int64
	Trace    string // the trace the line is in, named for NI (which has two)
	Lines    []htmlLine
	NotShown string // why Lines is empty
}

type htmlConfirmation struct {
	Verdict  string
	Why      string
	Forced   string
	Evidence []string
	Seconds  string
}

type htmlSuppressed struct {
	Anchor string
	Text   string
	How    string
	Reason string
	Where  string
}

// htmlBuilder builds the page; it reads each manifest once.
type htmlBuilder struct {
	r       *detector.Report
	in      HTMLInputs
	sources map[string]sourceFile
	graph   *neighbours
	numbers []int // the findings' numbers (Numbers)
	toc     []htmlTOCEntry
}

// sourceFile is a manifest's lines, or why they cannot be shown.
type sourceFile struct {
	lines []string
	err   string
}

func pageOf(r *detector.Report, in HTMLInputs) *htmlPage {
	b := &htmlBuilder{r: r, in: in, sources: map[string]sourceFile{}}
	if in.Graph != nil {
		b.graph = newNeighbours(in.Graph)
	}
	p := &htmlPage{
		Module:  printable.String(r.Module),
		Version: printable.String(r.ToolVersion),
		Run:     in.Run,
		Exit:    in.ExitStatus,
		CSS:     template.CSS(htmlCSS),
		JS:      template.JS(htmlJS),
	}
	p.ExitText = exitText(in.ExitStatus)
	p.Title = "fsmove report"
	if p.Module != "" {
		p.Title += ": " + p.Module
	}
	if in.Run != nil && in.Run.FsmoveVersion != r.ToolVersion {
		p.RunVersion = printable.String(in.Run.FsmoveVersion)
	}
	if in.ReadSource == nil {
		p.NoSource = "manifest sources are not available to this report"
	}
	if in.TraceLines == nil {
		p.TraceNote = "trace lines are not available"
		if in.TraceError != "" {
			p.TraceNote += ": " + printable.String(in.TraceError)
		}
	}
	if r.Idempotence && in.SecondTraceLines == nil {
		p.SecondNote = "lines of the second apply's trace are not available"
		if in.SecondTraceError != "" {
			p.SecondNote += ": " + printable.String(in.SecondTraceError)
		}
	}
	p.Counts, p.Summary = htmlCounts(r)
	if c := r.Confirm; c != nil {
		p.Confirmed = fmt.Sprintf("%d confirmed, %d refuted, %d unknown (%d applies, %.0fs, %.0fs of container time)",
			c.Confirmed, c.Refuted, c.Unknown, c.Applies, c.Seconds, c.ContainerSeconds)
	}
	if r.RunFailure != nil {
		p.RunFailed = printable.String(runFailureText(r.RunFailure))
	}
	for _, why := range r.Incomplete {
		p.Incomplete = append(p.Incomplete, printable.String(why))
	}
	for _, l := range r.Coverage.Lines() {
		p.Coverage = append(p.Coverage, printable.String(l))
	}
	for _, w := range r.Warnings {
		if w.ChangesReport() {
			p.Warnings = append(p.Warnings, printable.String(warningText(w)))
		}
	}
	groups := detector.GroupFindings(r.Findings)
	b.numbers = numbers(r, groups)
	for _, sec := range findingSections() {
		if sec.held && !r.ShowHeldBack {
			continue
		}
		switch s, n := b.section(groups, sec.kind, sec.held, sec.title); {
		case n == 0:
		case sec.held:
			p.Held = append(p.Held, s)
			p.HeldCount += n
		default:
			p.Sections = append(p.Sections, s)
			p.Findings += n
		}
	}
	if r.ShowSuppressed {
		p.Suppressed = b.suppressed()
	}
	p.TOC = b.toc
	p.Kinds = []string{detector.MOR.String(), detector.MN.String()}
	if r.Idempotence || slices.ContainsFunc(r.Findings, func(f detector.Finding) bool { return f.Kind == detector.NI && f.Reported() }) {
		p.Kinds = append(p.Kinds, detector.NI.String())
	}
	return p
}

// exitText says what an exit status means (README.md, "Exit status").
func exitText(code int) string {
	switch code {
	case 0:
		return "complete and clean"
	case 1:
		return "findings"
	case 2:
		return "usage or input error"
	case 3:
		return "the run failed"
	case 4:
		return "no findings, but the analysis is incomplete"
	}
	return "unknown"
}

// htmlCounts counts the reported findings by kind and by confidence, and
// says the summary line in words.
func htmlCounts(r *detector.Report) ([]htmlCount, string) {
	counts := map[string]int{}
	mor, mn, ni := 0, 0, 0
	for i := range r.Findings {
		f := &r.Findings[i]
		if !f.Reported() {
			continue
		}
		switch f.Kind {
		case detector.MN:
			mn++
		case detector.NI:
			ni++
		default:
			mor++
		}
		counts[f.Confidence.String()]++
	}
	out := []htmlCount{{"MOR", mor}, {"MN", mn}}
	kinds := fmt.Sprintf("%d MOR, %d MN", mor, mn)
	if r.Idempotence { // as the text summary: NI only when it was checked
		out = append(out, htmlCount{"NI", ni})
		kinds += fmt.Sprintf(", %d NI", ni)
	}
	for _, c := range []detector.Confidence{detector.Observed, detector.Content, detector.Metadata, detector.Guarded} {
		out = append(out, htmlCount{c.String(), counts[c.String()]})
	}
	var summary string
	switch faults := mor + mn + ni; {
	case faults == 0 && succeeded(r):
		summary = cleanSummary(r)
	case faults == 0 && !r.Complete():
		summary = "No faults found, but the analysis is INCOMPLETE, so this is not a clean result"
	case faults == 0:
		summary = "No faults found, but the run FAILED, so this is not a clean result"
	case succeeded(r):
		summary = "Faults found: " + kinds
	case !r.Complete():
		summary = "Faults found in an INCOMPLETE analysis (there may be more): " + kinds
	default:
		summary = "Faults found in a FAILED run (there may be more): " + kinds
	}
	if note := dependencyNote(r); note != "" {
		summary += "; " + note
	}
	return out, summary
}

// section is the page's section of one kind, reported or held back, and
// the number of findings in it.
func (b *htmlBuilder) section(groups []detector.Group, kind detector.Kind, held bool, title string) (htmlSection, int) {
	items, n := textItems(b.r, groups, kind, held)
	s := htmlSection{Title: fmt.Sprintf("%s: %d", title, n)}
	for _, it := range items {
		if it.group == nil {
			s.Items = append(s.Items, htmlItem{Finding: b.finding(it.index, held)})
			continue
		}
		g := it.group
		hg := &htmlGroup{
			Role:   g.By.String(),
			Shared: b.resource(g.By.String(), g.Resource),
			Paths:  printableAll(g.Paths),
			Fix:    printable.String(g.Fix(b.r.Findings)),
			Edit:   b.editView(b.r.GroupEdits[g.Members[0]]),
		}
		var refs []string
		for _, o := range g.Others(b.r.Findings) {
			refs = append(refs, detector.PuppetRef(o))
		}
		list := "[" + strings.Join(refs, ", ") + "]"
		if g.By == detector.ByConsumer {
			hg.Snippet = printable.String(chain(g.Kind, list, detector.PuppetRef(g.Resource)))
		} else {
			hg.Snippet = printable.String(chain(g.Kind, detector.PuppetRef(g.Resource), list))
		}
		arrow := "->"
		if g.Kind == detector.MN {
			arrow = "~>"
		}
		others := fmt.Sprintf("%d resources", len(g.Members))
		if g.By == detector.ByConsumer {
			hg.Title = fmt.Sprintf("%s %s %s", others, arrow, hg.Shared.Ref)
		} else {
			hg.Title = fmt.Sprintf("%s %s %s", hg.Shared.Ref, arrow, others)
		}
		for _, m := range g.Members {
			hg.Members = append(hg.Members, b.finding(m, held))
		}
		hg.Anchor = "group-" + strings.TrimPrefix(hg.Members[0].Anchor, "finding-")
		s.Items = append(s.Items, htmlItem{Group: hg})
	}
	return s, n
}

// chain is the fix as a Puppet chaining arrow: before -> after for an
// ordering, producer ~> service for a notification.
func chain(k detector.Kind, before, after string) string {
	if k == detector.MN {
		return before + " ~> " + after
	}
	return before + " -> " + after
}

func printableAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = printable.String(s)
	}
	return out
}

// finding is the view of finding i, with its number (numbers):
// anchored finding-N when reported, held-N when held back.
func (b *htmlBuilder) finding(i int, held bool) *htmlFinding {
	f := &b.r.Findings[i]
	if f.Kind == detector.NI {
		return b.niFinding(i, held)
	}
	arrow := "->"
	if f.Kind == detector.MN {
		arrow = "~>"
	}
	p := printable.String
	hf := &htmlFinding{
		Number:     b.numbers[i],
		Kind:       f.Kind.String(),
		Held:       held,
		Confidence: confidenceText(f.Confidence),
		BothWays:   f.BothWays,
		Unordered:  f.Unordered,
		Producer:   b.resource("producer", f.Producer),
		Consumer:   b.resource("consumer", f.Consumer),
		Fix:        p(f.Fix),
		Snippet:    p(chain(f.Kind, detector.PuppetRef(f.Producer), detector.PuppetRef(f.Consumer))),
		Edit:       b.editView(f.Edit),
	}
	hf.Anchor = fmt.Sprintf("finding-%d", hf.Number)
	hf.Title = fmt.Sprintf("%s %s %s", hf.Producer.Ref, arrow, hf.Consumer.Ref)
	hf.Resources = strings.ToLower(hf.Producer.Ref + "\n" + hf.Consumer.Ref)
	if f.Observed {
		hf.Observed = p(f.ObservedError)
	}
	if f.HeldBack {
		hf.HeldRule, hf.HeldReason = ruleNamed(f.HeldRule), p(f.HeldReason)
	}
	for _, pc := range f.Paths {
		hp, shown := pathView(f, &pc, hf)
		if !shown {
			continue
		}
		hp.Effects = []htmlEffect{
			b.effect("producer", pc.ProducerEffect.String(), pc.Producer, pc.ProducerEvidence, firstTrace),
			b.effect("consumer", pc.ConsumerEffect.String(), pc.Consumer, pc.ConsumerEvidence, firstTrace),
		}
		if pc.Relation == detector.Names {
			hp.Effects[1].NotShown = namesNote
		}
		hf.Paths = append(hf.Paths, hp)
	}
	if c := f.Confirmation; c != nil {
		hf.Confirm = &htmlConfirmation{
			Verdict:  string(c.Verdict),
			Why:      p(c.Why),
			Forced:   p(c.Forced),
			Evidence: printableAll(c.Evidence),
			Seconds:  fmt.Sprintf("%.0fs", c.Seconds),
		}
	}
	if b.graph != nil {
		hf.Graph = b.graph.draw(f)
	}
	b.place(hf, held)
	return hf
}

// place lists a reported finding in the table of contents, and gives a
// held-back one its anchor.
func (b *htmlBuilder) place(hf *htmlFinding, held bool) {
	if !held {
		b.toc = append(b.toc, htmlTOCEntry{Anchor: hf.Anchor, Title: fmt.Sprintf("%s %d. %s", hf.Kind, hf.Number, hf.Title), Kind: hf.Kind})
	} else {
		hf.Anchor = fmt.Sprintf("held-%d", hf.Number)
	}
}

// niFinding is an NI finding's view, as the text report writes it: the
// problem, the resource (two in a fight), what Puppet changed again or
// the error, each path written again with the lines of both traces, and
// the fix. It has no confidence (every NI is observed) and no chaining
// arrow to copy; a fight is drawn as its pair's neighbourhood, without a
// missing edge, and one resource is not drawn.
func (b *htmlBuilder) niFinding(i int, held bool) *htmlFinding {
	f := &b.r.Findings[i]
	p := printable.String
	hf := &htmlFinding{
		Number:   b.numbers[i],
		Kind:     f.Kind.String(),
		Held:     held,
		Title:    p(pairText(f)),
		Single:   f.Producer == f.Consumer,
		Producer: b.resource("resource", f.Producer),
		Consumer: b.resource("resource", f.Consumer),
		Fix:      p(f.Fix),
		NI:       &htmlNI{},
	}
	hf.Anchor = fmt.Sprintf("finding-%d", hf.Number)
	hf.Resources = strings.ToLower(hf.Producer.Ref)
	if !hf.Single {
		hf.Resources += "\n" + strings.ToLower(hf.Consumer.Ref)
	}
	if f.HeldBack {
		hf.HeldRule, hf.HeldReason = ruleNamed(f.HeldRule), p(f.HeldReason)
	}
	if ni := f.NI; ni != nil {
		hf.NI.Problem = p(problemText(ni.Problem))
		hf.NI.Error = p(ni.Error)
		if ni.Problem != detector.FailsSecond { // Error says it
			hf.NI.Changes = htmlChanges(f.Producer, ni.Changes)
		}
		if ni.Problem == detector.Fight {
			hf.NI.Changes = append(hf.NI.Changes, htmlChanges(f.Consumer, ni.OtherChanges)...)
		}
	}
	fight := f.NI != nil && f.NI.Problem == detector.Fight
	producerTrace, consumerTrace := evidenceTraces(f)
	for _, pc := range f.Paths {
		hp, shown := pathView(f, &pc, hf)
		if !shown {
			continue
		}
		hp.Effects = []htmlEffect{b.effect("resource", "written in the second apply", pc.Producer, pc.ProducerEvidence, producerTrace)}
		switch {
		case fight:
			hp.Effects = append(hp.Effects, b.effect("resource", "written again in the second apply", pc.Consumer, pc.ConsumerEvidence, consumerTrace))
		case pc.ConsumerEvidence.Line > 0 || pc.ConsumerEvidence.Syscall() != "":
			// The text report leaves out a first apply with no write.
			hp.Effects = append(hp.Effects, b.effect("resource", "written in the first apply", pc.Consumer, pc.ConsumerEvidence, consumerTrace))
		}
		hf.Paths = append(hf.Paths, hp)
	}
	if b.graph != nil && !hf.Single {
		hf.Graph = b.graph.draw(f)
	}
	b.place(hf, held)
	return hf
}

// htmlChanges are a resource's events of the second apply.
func htmlChanges(r *catalog.Resource, events []catalog.ResourceEvent) []htmlChange {
	var out []htmlChange
	for _, e := range events {
		c := htmlChange{Ref: printable.String(r.Ref()), Property: printable.String(e.Property)}
		if e.Previous != "" || e.Desired != "" {
			c.Previous, c.Desired = printable.String(e.Previous), printable.String(e.Desired)
		} else {
			c.Message = printable.String(e.Message)
		}
		out = append(out, c)
	}
	return out
}

// resource is a resource's view with its manifest lines around its own.
func (b *htmlBuilder) resource(role string, res *catalog.Resource) htmlResource {
	hr := htmlResource{Role: role, Ref: printable.String(res.Ref()), Location: printable.String(detector.FileLine(res)), File: printable.String(res.File)}
	switch {
	case res.File == "":
		return hr
	case b.in.ReadSource == nil:
		hr.NoSource = "source not available"
		return hr
	}
	src, ok := b.sources[res.File]
	if !ok {
		data, err := b.in.ReadSource(res.File)
		if err != nil {
			src.err = "source not available: " + err.Error()
		} else {
			src.lines = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		}
		b.sources[res.File] = src
	}
	switch {
	case src.err != "":
		hr.NoSource = printable.String(src.err)
	case res.Line <= 0 || res.Line > len(src.lines):
		hr.NoSource = "source not available: no line " + fmt.Sprint(res.Line) + " in the file"
	default:
		for n := max(1, res.Line-SourceContext); n <= min(len(src.lines), res.Line+SourceContext); n++ {
			hr.Source = append(hr.Source, htmlLine{No: int64(n), Text: printable.String(src.lines[n-1]), Hit: n == res.Line})
		}
	}
	return hr
}

// effect is what one resource did to a path, with its lines of the trace
// named trace (firstTrace or secondTrace). Only a report with two traces
// (Report.Idempotence) names the trace of each line on the page.
func (b *htmlBuilder) effect(role, eff string, res *catalog.Resource, ev interp.Evidence, trace applyTrace) htmlEffect {
	he := htmlEffect{Role: role, Effect: eff, Ref: printable.String(res.Ref()), Syscall: callText(ev), Line: ev.Line}
	lines := b.in.TraceLines
	if trace == secondTrace {
		lines = b.in.SecondTraceLines
	}
	if b.r.Idempotence {
		he.Trace = b.r.TraceNames[trace]
	}
	switch {
	case ev.Line <= 0:
		he.NotShown = "no trace line recorded"
	case lines == nil:
		he.NotShown = "trace lines not available"
	default:
		for n := max(1, ev.Line-TraceContext); n <= ev.Line+TraceContext; n++ {
			if text, ok := lines[n]; ok {
				he.Lines = append(he.Lines, htmlLine{No: n, Text: printable.String(text), Hit: n == ev.Line})
			}
		}
		if len(he.Lines) == 0 {
			name := b.r.TraceNames[trace]
			if name == "" {
				name = "the trace" // one apply: the run's only trace
			}
			he.NotShown = fmt.Sprintf("line %d not found in %s", ev.Line, name)
		}
	}
	return he
}

// suppressed lists the waived and suppressed findings (ShowSuppressed), as
// the text report does.
func (b *htmlBuilder) suppressed() []htmlSuppressed {
	var out []htmlSuppressed
	for i := range b.r.Findings {
		f := &b.r.Findings[i]
		if !f.Waived || f.HeldBack {
			continue
		}
		s := htmlSuppressed{
			Anchor: fmt.Sprintf("suppressed-%d", len(out)+1),
			Text:   printable.String(fmt.Sprintf("%s %s (%s)", f.Kind, pairText(f), f.Confidence)),
			How:    "waived",
			Reason: printable.String(f.WaiverReason),
			Where:  printable.String(f.WaiverSource),
		}
		if f.Suppressed {
			s.How = "suppressed"
		}
		out = append(out, s)
	}
	return out
}

// pathView starts the view of one of f's paths; a waived path is only
// counted in hf (shown false).
func pathView(f *detector.Finding, pc *detector.PathConflict, hf *htmlFinding) (hp htmlPath, shown bool) {
	if pc.Waived {
		hf.WaivedN++
		return hp, false
	}
	p := printable.String
	hp = htmlPath{Path: p(pc.Path), Relation: pc.Relation.String(), Metadata: pc.Metadata}
	if f.HeldBack && pc.HeldReason != "" && pc.HeldReason != f.HeldReason {
		hp.HeldRule, hp.HeldReason = ruleNamed(pc.HeldRule), p(pc.HeldReason)
	}
	return hp, true
}
