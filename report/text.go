package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/fstrace/interp"
	"github.com/fsmove/fsmove/internal/printable"
	"github.com/fsmove/fsmove/internal/words"
)

// ANSI styles, used only when Text is asked for colour.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiGreen  = "\x1b[32m"
	ansiDim    = "\x1b[2m"
)

// textWriter writes styled text; with colour off the styles are empty.
type textWriter struct {
	w      *bufio.Writer
	color  bool
	traces [2]string // Report.TraceNames
}

func (t *textWriter) style(s, text string) string {
	if !t.color {
		return text
	}
	return s + text + ansiReset
}

// Text writes the report for people: findings grouped MOR then MN,
// strongest confidence first, each with both resources and their manifest
// positions, the conflicting paths with effects and evidence, and the fix;
// a Group as one item with a few of its members; findings numbered as in
// every report (numbers); then the run's failure, warnings and the
// summary counts (of findings, with the number of items when groups made
// it smaller). Waived findings and paths are left out (JSON keeps them);
// findings a rule held back are listed only with ShowHeldBack.
func Text(w io.Writer, r *detector.Report, color bool) error {
	if err := check(r); err != nil {
		return err
	}
	t := &textWriter{w: bufio.NewWriter(w), color: color, traces: r.TraceNames}
	groups := detector.GroupFindings(r.Findings)
	nums := numbers(r, groups)
	reportedItems := 0
	for _, sec := range findingSections() {
		items, findings := textItems(r, groups, sec.kind, sec.held)
		if !sec.held {
			reportedItems += len(items)
		}
		if len(items) == 0 || sec.held && !r.ShowHeldBack {
			continue
		}
		head := fmt.Sprintf("%s: %d", sec.title, findings)
		if len(items) != findings {
			head += ", shown as " + words.Count(len(items), "item")
		}
		st := ansiRed
		switch {
		case sec.held:
			st = ansiDim
		case sec.kind == detector.MN || sec.kind == detector.NI:
			st = ansiYellow
		}
		fmt.Fprintf(t.w, "%s\n%s\n\n", t.style(st, head), strings.Repeat("=", len(head)))
		for _, it := range items {
			if it.group != nil {
				t.group(nums, it.group, r.Findings)
			} else {
				t.finding(nums[it.index], it.finding)
			}
		}
	}
	if r.ShowSuppressed {
		t.suppressed(r)
	}
	// Puppet's default schedules and filebucket are in no catalog and
	// are Puppet's own: nothing to say of them here (JSON lists them).
	var unknown []string
	for _, b := range r.UnresolvedBlocks {
		if ref, err := catalog.ParseRef(b); err != nil || !ref.IsPuppetDefault() {
			unknown = append(unknown, b)
		}
	}
	if len(unknown) > 0 {
		fmt.Fprintf(t.w, "%s %d block(s) not in the catalog, not checked: %s\n",
			t.style(ansiYellow, "warning:"), len(unknown), printable.String(strings.Join(unknown, ", ")))
	}
	for _, wv := range r.UnusedWaivers {
		fmt.Fprintf(t.w, "%s the waiver %s %s (%s) matched no finding\n",
			t.style(ansiYellow, "warning:"), printable.String(wv.Ref1.String()), printable.String(wv.Ref2.String()), printable.String(waiverWhere(wv)))
	}
	for _, w := range r.Warnings {
		if w.ChangesReport() { // the others are counted under --stats
			fmt.Fprintln(t.w, t.style(ansiYellow, "warning:")+" "+printable.String(warningText(w)))
		}
	}
	if r.RunFailure != nil {
		fmt.Fprintf(t.w, "%s %s\n", t.style(ansiRed, "RUN FAILED:"), printable.String(runFailureText(r.RunFailure)))
	}
	for _, why := range r.Incomplete {
		fmt.Fprintf(t.w, "%s %s\n", t.style(ansiRed, "INCOMPLETE:"), printable.String(why))
	}
	// The text report is read by a person: the coverage only when some of
	// the run went unchecked (JSON, SARIF and HTML always have it).
	if lines := r.Coverage.Lines(); worthSaying(r.Coverage) {
		fmt.Fprintln(t.w, "Coverage:")
		for _, l := range lines {
			fmt.Fprintf(t.w, "  %s\n", printable.String(l))
		}
	}
	mor, mn, ni, waived, suppressed, held := 0, 0, 0, 0, 0, 0
	for i := range r.Findings {
		switch f := &r.Findings[i]; {
		case f.Waived && f.Suppressed:
			suppressed++
		case f.Waived:
			waived++
		case f.HeldBack:
			held++
		case f.Kind == detector.MN:
			mn++
		case f.Kind == detector.NI:
			ni++
		default:
			mor++
		}
	}
	summary := fmt.Sprintf("%d MOR, %d MN", mor, mn)
	if r.Idempotence {
		summary += fmt.Sprintf(", %d NI", ni)
	}
	faults := mor + mn + ni
	if faults == 0 && r.Complete() {
		summary = cleanSummary(r)
	}
	var notes []string
	if reportedItems != faults {
		notes = append(notes, "shown as "+words.Count(reportedItems, "item"))
	}
	if waived > 0 {
		notes = append(notes, fmt.Sprintf("%d waived", waived))
	}
	if suppressed > 0 {
		notes = append(notes, fmt.Sprintf("%d suppressed", suppressed))
	}
	switch {
	case len(notes) > 0 && faults == 0 && r.Complete():
		summary += "; " + strings.Join(notes, "; ")
	case len(notes) > 0:
		summary += " (" + strings.Join(notes, "; ") + ")"
	}
	if held > 0 {
		how := "--all shows them"
		if r.ShowHeldBack {
			how = "listed above"
		}
		summary += fmt.Sprintf("; %d held back as not faults (%s)", held, how)
	}
	if note := dependencyNote(r); note != "" {
		summary += "; " + note
	}
	switch {
	case faults == 0 && succeeded(r):
		// summary already says so, with what was checked
	case faults == 0 && !r.Complete():
		summary = "No faults found, but the analysis is INCOMPLETE (see above), so this is not a clean result: " + summary
	case faults == 0:
		summary = "No faults found, but the run FAILED (see above), so this is not a clean result: " + summary
	case succeeded(r):
		summary = "Faults found: " + summary
	case !r.Complete():
		summary = "Faults found in an INCOMPLETE analysis (see above; there may be more): " + summary
	default:
		summary = "Faults found in a FAILED run (see above; there may be more): " + summary
	}
	fmt.Fprintln(t.w, t.style(ansiBold, summary))
	if c := r.Confirm; c != nil {
		fmt.Fprintf(t.w, "Confirmed by re-applying: %d confirmed, %d refuted, %d unknown (%d applies, %.0fs, %.0fs of container time)\n",
			c.Confirmed, c.Refuted, c.Unknown, c.Applies, c.Seconds, c.ContainerSeconds)
	}
	return t.w.Flush()
}

// textItem is one item of the text report: a finding (index indexes it in
// the report's findings), or a group of them.
type textItem struct {
	finding *detector.Finding
	index   int
	group   *detector.Group
}

// Numbers returns the number each finding has in every report (0 for
// one not numbered), by index in Findings: for a command that acts on
// findings by number (fsmove fix).
func Numbers(r *detector.Report) []int { return numbers(r, detector.GroupFindings(r.Findings)) }

// numbers numbers the findings as every report shows them, so that "MOR
// 5" is one finding in the text, HTML, JSON and SARIF reports: one
// sequence through the reports' sections (findingSections: the reported
// findings, then the held-back ones), in each the items' order
// (textItems), a group's members one after another. A group is thus a
// range of numbers. numbers[i] is finding i's number, 0 for a waived
// finding (no report lists it by number).
func numbers(r *detector.Report, groups []detector.Group) []int {
	nums := make([]int, len(r.Findings))
	n := 0
	for _, sec := range findingSections() {
		items, _ := textItems(r, groups, sec.kind, sec.held)
		for _, it := range items {
			if it.group == nil {
				n++
				nums[it.index] = n
				continue
			}
			for _, m := range it.group.Members {
				n++
				nums[m] = n
			}
		}
	}
	return nums
}

// textItems lists the items of one section of the text report: its
// findings that are not waived, a group once in place of its members,
// ranked by confidence (observed, content, metadata, guarded) and in the findings'
// order within a rank. findings counts the findings they show.
func textItems(r *detector.Report, groups []detector.Group, kind detector.Kind, held bool) (items []textItem, findings int) {
	idx := groupIndex(groups, len(r.Findings))
	done := make([]bool, len(groups))
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Kind != kind || f.Waived || f.HeldBack != held {
			continue
		}
		findings++
		switch gi := idx[i]; {
		case gi < 0:
			items = append(items, textItem{finding: f, index: i})
		case !done[gi]:
			done[gi] = true
			items = append(items, textItem{group: &groups[gi]})
		}
	}
	confidence := func(it textItem) detector.Confidence {
		if it.group != nil {
			return it.group.Confidence
		}
		return it.finding.Confidence
	}
	slices.SortStableFunc(items, func(x, y textItem) int { return cmp.Compare(confidence(x), confidence(y)) })
	return items, findings
}

func (t *textWriter) finding(n int, f *detector.Finding) {
	if f.Kind == detector.NI {
		t.niFinding(n, f)
		return
	}
	arrow := "->"
	if f.Kind == detector.MN {
		arrow = "~>"
	}
	p := printable.String
	fmt.Fprintf(t.w, "%s %d. %s %s %s\n", f.Kind, n,
		t.style(ansiBold, p(f.Producer.Ref())), arrow, t.style(ansiBold, p(f.Consumer.Ref())))
	fmt.Fprintf(t.w, "  confidence: %s\n", confidenceText(f.Confidence))
	fmt.Fprintf(t.w, "  producer: %s%s\n", p(f.Producer.Ref()), p(atLocation(f.Producer)))
	fmt.Fprintf(t.w, "  consumer: %s%s\n", p(f.Consumer.Ref()), p(atLocation(f.Consumer)))
	if f.Observed {
		fmt.Fprintf(t.w, "  observed: it failed in this run: %s\n", p(f.ObservedError))
	}
	if f.Unordered {
		fmt.Fprintf(t.w, "  unordered too: the consumer needs the producer's work before it, not only a restart after; ~> orders them as well\n")
	}
	if f.BothWays {
		fmt.Fprintf(t.w, "  note: the paths relate them both ways; the fix keeps the order this run used\n")
	}
	shown, pathsHeld := 0, f.HeldBack
	for _, pc := range f.Paths {
		if !pc.Waived {
			shown++
			pathsHeld = pathsHeld && pc.HeldReason != ""
		}
	}
	// A finding held back path by path gives each path's reason under the
	// path; its own reason joins them all, which only one path keeps short.
	pathsHeld = pathsHeld && shown > 1
	switch {
	case pathsHeld:
		fmt.Fprintf(t.w, "  held back: every path, for the reason under it\n")
	case f.HeldBack:
		fmt.Fprintf(t.w, "  held back%s: %s\n", ruleNamed(f.HeldRule), p(f.HeldReason))
	}
	if waived := len(f.Paths) - shown; waived > 0 {
		fmt.Fprintf(t.w, "  conflicts on %d path(s), %d more waived:\n", shown, waived)
	} else {
		fmt.Fprintf(t.w, "  conflicts on %d path(s):\n", shown)
	}
	for _, pc := range f.Paths {
		if pc.Waived {
			continue
		}
		t.path(pc)
		t.effect(pc.ProducerEffect.String(), pc.Producer, pc.ProducerEvidence)
		t.effect(pc.ConsumerEffect.String(), pc.Consumer, pc.ConsumerEvidence)
		if f.HeldBack && pc.HeldReason != "" && (pathsHeld || pc.HeldReason != f.HeldReason) {
			fmt.Fprintf(t.w, "      held back%s: %s\n", ruleNamed(pc.HeldRule), p(pc.HeldReason))
		}
	}
	if c := f.Confirmation; c != nil {
		fmt.Fprintf(t.w, "  confirmation: %s: %s (%.0fs)\n", t.style(ansiBold, string(c.Verdict)), p(c.Why), c.Seconds)
		if c.Forced != "" {
			fmt.Fprintf(t.w, "    forced: %s\n", p(c.Forced))
		}
		for _, e := range c.Evidence {
			fmt.Fprintf(t.w, "    %s\n", p(e))
		}
	}
	fmt.Fprintf(t.w, "  fix: %s\n\n", t.style(ansiGreen, p(f.Fix)))
}

// groupExamples is how many members the text report shows of a group.
const groupExamples = 3

// group writes a group as one item, numbered by its members' range of
// numbers (nums): the shared resource, the shared paths with its evidence,
// a few members with theirs and their numbers, and the one fix.
func (t *textWriter) group(nums []int, g *detector.Group, fs []detector.Finding) {
	p := printable.String
	arrow := "->"
	if g.Kind == detector.MN {
		arrow = "~>"
	}
	others := fmt.Sprintf("%d resources", len(g.Members))
	shared := t.style(ansiBold, p(g.Resource.Ref()))
	left, right := shared, others
	role, otherRole := "producer", "consumers"
	if g.By == detector.ByConsumer {
		left, right = others, shared
		role, otherRole = "consumer", "producers"
	}
	lo, hi := nums[g.Members[0]], nums[g.Members[len(g.Members)-1]]
	fmt.Fprintf(t.w, "%s %d-%d. %s %s %s (%s)\n", g.Kind, lo, hi, left, arrow, right, p(samePaths(g.Paths)))
	fmt.Fprintf(t.w, "  confidence: %s\n", confidenceText(g.Confidence))
	fmt.Fprintf(t.w, "  %s: %s%s\n", role, p(g.Resource.Ref()), p(atLocation(g.Resource)))
	first := &fs[g.Members[0]]
	sameHeld := g.HeldBack
	for _, m := range g.Members[1:] {
		sameHeld = sameHeld && fs[m].HeldReason == first.HeldReason
	}
	if sameHeld {
		fmt.Fprintf(t.w, "  held back%s: %s\n", ruleNamed(first.HeldRule), p(first.HeldReason))
	}
	fmt.Fprintf(t.w, "  conflicts on %d path(s), the same for each:\n", len(g.Paths))
	for _, pc := range first.Paths {
		if pc.Waived {
			continue
		}
		t.path(pc)
		if g.By == detector.ByProducer {
			t.effect(pc.ProducerEffect.String(), pc.Producer, pc.ProducerEvidence)
		} else {
			t.effect(pc.ConsumerEffect.String(), pc.Consumer, pc.ConsumerEvidence)
		}
	}
	fmt.Fprintf(t.w, "  %s (%d), for example:\n", otherRole, len(g.Members))
	otherResources := g.Others(fs)
	for i, m := range g.Members[:min(len(g.Members), groupExamples)] {
		f := &fs[m]
		o := otherResources[i]
		var evs []string
		for _, pc := range f.Paths {
			if pc.Waived {
				continue
			}
			eff, ev := pc.ConsumerEffect.String(), pc.ConsumerEvidence
			if g.By == detector.ByConsumer {
				eff, ev = pc.ProducerEffect.String(), pc.ProducerEvidence
			}
			if len(g.Paths) > 1 {
				eff = p(pc.Path) + ": " + eff
			}
			if e := evidenceText(ev); e != "" {
				eff += " " + t.style(ansiDim, e)
			}
			evs = append(evs, eff)
		}
		line := fmt.Sprintf("    %d. %s%s", nums[m], p(o.Ref()), p(atLocation(o)))
		if len(evs) == 1 {
			fmt.Fprintf(t.w, "%s: %s\n", line, evs[0])
		} else {
			fmt.Fprintf(t.w, "%s:\n", line)
			for _, e := range evs {
				fmt.Fprintf(t.w, "      %s\n", e)
			}
		}
		if f.Observed {
			fmt.Fprintf(t.w, "      observed: it failed in this run: %s\n", p(f.ObservedError))
		}
		if f.HeldBack && !sameHeld {
			fmt.Fprintf(t.w, "      held back%s: %s\n", ruleNamed(f.HeldRule), p(f.HeldReason))
		}
		if c := f.Confirmation; c != nil {
			fmt.Fprintf(t.w, "      confirmation: %s: %s (%.0fs)\n", t.style(ansiBold, string(c.Verdict)), p(c.Why), c.Seconds)
		}
	}
	if more := len(g.Members) - groupExamples; more > 0 {
		fmt.Fprintf(t.w, "    … and %d more\n", more)
	}
	fmt.Fprintf(t.w, "  fix: %s\n\n", t.style(ansiGreen, p(g.Fix(fs))))
}

// samePaths is "same path: /etc/services", or the first few of many.
func samePaths(paths []string) string {
	if len(paths) == 1 {
		return "same path: " + paths[0]
	}
	const most = 3
	s := "same paths: " + strings.Join(paths[:min(len(paths), most)], ", ")
	if len(paths) > most {
		s += fmt.Sprintf(" and %d more", len(paths)-most)
	}
	return s
}

// path is a conflict's path line: the path and its relation, and whether
// only metadata or a lookup relates the two resources there.
func (t *textWriter) path(pc detector.PathConflict) {
	rel := pc.Relation.String()
	if pc.Relation == detector.Names {
		rel += ": " + namesNote
	}
	if pc.Metadata {
		rel += "; only metadata or a lookup"
	}
	fmt.Fprintf(t.w, "    %s (%s)\n", printable.String(pc.Path), rel)
}

// confidenceText is the confidence with what it means, for the text report.
func confidenceText(c detector.Confidence) string {
	switch c {
	case detector.Observed:
		return "observed (it failed in this run)"
	case detector.Content:
		return "content (what one made, the other read, replaced or removed)"
	case detector.Metadata:
		return "metadata (only mode, owner or a lookup relates them)"
	case detector.Guarded:
		return "guarded (the producer made the file only when it was missing; in the other order it finds the other's and does what it does then)"
	}
	return c.String()
}

// namesNote says what a path of relation names is, with no trace line to
// show for the consumer (detector rule 26).
const namesNote = "the consumer's command names it, and the consumer runs only when notified: nothing did, so it did not run"

func (t *textWriter) effect(eff string, r *catalog.Resource, ev interp.Evidence) {
	if e := evidenceText(ev); e != "" {
		fmt.Fprintf(t.w, "      %s by %s %s\n", eff, printable.String(r.Ref()), t.style(ansiDim, e))
	} else {
		fmt.Fprintf(t.w, "      %s by %s\n", eff, printable.String(r.Ref()))
	}
}

// evidenceText is "(openat by /usr/bin/mariadb, trace line 42)".
func evidenceText(ev interp.Evidence) string {
	call := callText(ev)
	switch {
	case call != "" && ev.Line > 0:
		return fmt.Sprintf("(%s, trace line %d)", call, ev.Line)
	case call != "":
		return "(" + call + ")"
	case ev.Line > 0:
		return fmt.Sprintf("(trace line %d)", ev.Line)
	}
	return ""
}

// callText is the evidence's system call and, when the trace shows it, the
// program that made it: "openat by /usr/bin/mariadb", "openat".
func callText(ev interp.Evidence) string {
	call := ev.Syscall()
	if prog := ev.Program(); call != "" && prog != "" {
		call += " by " + printable.String(prog)
	}
	return call
}

// Stats writes the counts and phase times for --stats.
func Stats(w io.Writer, r *detector.Report) error {
	bw := bufio.NewWriter(w)
	s := &r.Stats
	rows := []struct {
		name  string
		value int64
	}{
		{"trace bytes", s.TraceBytes},
		{"trace lines", s.TraceLines},
		{"malformed lines", s.MalformedLines},
		{"bad arguments", s.BadArgs},
		{"unknown calls", s.UnknownCalls},
		{"cut block markers", s.CutMarks},
		{"implicit block ends", s.ImplicitEnds},
		{"self clones", s.SelfClones},
		{"events", s.Events},
		{"statements", s.Interp.Statements},
		{"processes", s.Interp.Processes},
		{"unknown pids", s.Interp.UnknownPids},
		{"unknown fds", s.Interp.UnknownFds},
		{"unresolved paths", s.Interp.UnresolvedPaths},
		{"symlink loops", s.Interp.SymlinkLoops},
		{"unmatched block ends", s.Interp.UnmatchedEnds},
		{"unclosed blocks", s.Interp.UnclosedBlocks},
		{"blocks", int64(s.Blocks)},
		{"blocks not in catalog", int64(s.UnresolvedBlocks)},
		{"blocks generated at apply time", int64(s.GeneratedBlocks)},
		{"accesses not checked", int64(s.UnresolvedAccesses)},
		{"container accesses", int64(s.ContainerAccesses)},
		{"processes moved into a unit", s.Interp.UnitMoves},
		{"reads systemd made for a unit", s.Interp.UnitReads},
		{"accesses held until creation", s.Interp.HeldAccesses},
		{"accesses of daemons of the boot", s.Interp.BootAccesses},
		{"statements waiting for a cwd", s.Interp.WaitedStatements},
		{"cwds not known, taken as /", s.Interp.CwdGuesses},
		{"chroots into a bind of /", s.Interp.RootBinds},
		{"units attributed to a Service", int64(s.UnitBlocks)},
		{"units no Service names", int64(s.UnclaimedUnits)},
		{"their accesses, not checked", int64(s.UnclaimedAccesses)},
		{"distinct paths", int64(s.Paths)},
		{"filtered paths", int64(s.FilteredPaths)},
		{"related resource pairs", int64(s.RelatedPairs)},
		{"MOR", int64(s.MOR)},
		{"MN", int64(s.MN)},
		{"findings in dependencies", int64(s.InDependencies)},
		{"waived", int64(s.Waived)},
		{"waivers", int64(s.Waivers)},
		{"unused waivers", int64(s.UnusedWaivers)},
	}
	fmt.Fprintln(bw, "Stats:")
	for _, row := range rows {
		fmt.Fprintf(bw, "  %-24s %d\n", row.name, row.value)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(bw, "Input problems worked around (* also in the report):")
		for _, w := range r.Warnings {
			mark := " "
			if w.ChangesReport() {
				mark = "*"
			}
			fmt.Fprintf(bw, " %s%s\n", mark, printable.String(warningText(w)))
		}
	}
	if len(s.Phases) > 0 {
		fmt.Fprintln(bw, "Phases:")
		for _, p := range s.Phases {
			fmt.Fprintf(bw, "  %-24s %.3fs\n", p.Name, p.Duration.Seconds())
		}
	}
	return bw.Flush()
}

// niFinding writes an NI finding: the resource (two in a fight), what
// Puppet changed again, the paths written again with the trace lines of
// both applies, and the fix.
func (t *textWriter) niFinding(n int, f *detector.Finding) {
	p := printable.String
	fmt.Fprintf(t.w, "NI %d. %s\n", n, t.style(ansiBold, p(pairText(f))))
	problem, changes, paths := niLines(f, t.traces)
	fmt.Fprintf(t.w, "  problem: %s\n", p(problem))
	fmt.Fprintf(t.w, "  resource: %s%s\n", p(f.Producer.Ref()), p(atLocation(f.Producer)))
	if f.Consumer != f.Producer {
		fmt.Fprintf(t.w, "  resource: %s%s\n", p(f.Consumer.Ref()), p(atLocation(f.Consumer)))
	}
	if f.Observed {
		fmt.Fprintf(t.w, "  observed: %s\n", p(f.ObservedError))
	}
	if f.HeldBack {
		fmt.Fprintf(t.w, "  held back%s: %s\n", ruleNamed(f.HeldRule), p(f.HeldReason))
	}
	for _, c := range changes {
		fmt.Fprintf(t.w, "  changed again: %s\n", p(c))
	}
	if len(paths) > 0 {
		fmt.Fprintf(t.w, "  wrote again in the second apply:\n")
	}
	for _, l := range paths {
		fmt.Fprintf(t.w, "    %s\n", p(l))
	}
	fmt.Fprintf(t.w, "  fix: %s\n\n", t.style(ansiGreen, p(f.Fix)))
}

// findingSection is one section of findings in the text and HTML reports.
type findingSection struct {
	kind  detector.Kind
	held  bool // the findings a rule held back (--all)
	title string
}

// findingSections are the reports' sections of findings, in order: the
// reported ones of each kind, then the held-back ones of the kinds a rule
// can hold back.
func findingSections() []findingSection {
	return []findingSection{
		{detector.MOR, false, "Missing ordering relationships (MOR)"},
		{detector.MN, false, "Missing notifiers (MN)"},
		{detector.NI, false, "Non-idempotent resources (NI)"},
		{detector.MOR, true, "Held back, not faults (--all)"},
		{detector.MN, true, "Held back notifiers, not faults (--all)"},
		{detector.NI, true, "Held back non-idempotent resources, not faults (--all)"},
	}
}

// cleanSummary is what a report without faults says when its analysis is
// complete: what was checked, so that a clean result shows its reach.
func cleanSummary(r *detector.Report) string {
	c := r.Checked()
	summary := fmt.Sprintf("No missing ordering relationships or notifiers among %s (%s, %s, %s checked)",
		words.Count(c.Resources, "resource"), words.Count(c.Blocks, "block"), words.Count(c.Paths, "path"),
		words.Count(c.RelatedPairs, "related resource pair"))
	switch {
	case !r.Idempotence:
	case slices.ContainsFunc(r.Findings, func(f detector.Finding) bool { return f.Kind == detector.NI && f.HeldBack }):
		summary += "; the second apply changed nothing but what is held back"
	default:
		summary += "; the second apply changed nothing"
	}
	return summary
}

// suppressed lists the waived and suppressed findings for the text
// report (ShowSuppressed), one line each with the reason and where it was
// written.
func (t *textWriter) suppressed(r *detector.Report) {
	var lines []string
	for i := range r.Findings {
		f := &r.Findings[i]
		if !f.Waived || f.HeldBack {
			continue
		}
		how, where := "waived", f.WaiverSource
		if f.Suppressed {
			how = "suppressed"
		}
		if where != "" {
			where = " (" + where + ")"
		}
		lines = append(lines, fmt.Sprintf("%s %s (%s), %s: %s%s", f.Kind, pairText(f),
			f.Confidence, how, f.WaiverReason, where))
	}
	if len(lines) == 0 {
		return
	}
	head := fmt.Sprintf("Suppressed and waived (--show-suppressed): %d", len(lines))
	fmt.Fprintf(t.w, "%s\n%s\n\n", t.style(ansiDim, head), strings.Repeat("=", len(head)))
	for n, l := range lines {
		fmt.Fprintf(t.w, "%d. %s\n", n+1, printable.String(l))
	}
	fmt.Fprintln(t.w)
}

// waiverWhere says where w was written, for the text report's warning
// of an unused waiver.
func waiverWhere(w detector.Waiver) string {
	if w.Source != "" {
		return w.Source
	}
	return fmt.Sprintf("waivers line %d", w.Line)
}

// worthSaying reports whether the text report shows the coverage c:
// whether some of the run went unchecked (a Service
// not observed, a resource Puppet skipped or failed) or a daemon ran only
// because a condition of its unit was lifted.
func worthSaying(c *detector.Coverage) bool {
	if c == nil {
		return false
	}
	lifted := slices.ContainsFunc(c.Services, func(s detector.ServiceCoverage) bool { return s.Lifted != "" })
	return lifted || len(c.Unobserved())+len(c.Skipped)+len(c.Failed) > 0
}

// ruleNamed is " (RULE)" after "held back", naming the rule that held a
// finding or a path back (a name from detector's table of hold rules,
// never the trace's or the catalog's text; docs/DESIGN.md lists them), or
// "" when the finding carries none.
func ruleNamed(rule string) string {
	if rule == "" {
		return ""
	}
	return " (" + rule + ")"
}
