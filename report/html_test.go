package report

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/internal/browsercheck"
)

// writeHTML renders rep with in and returns the page.
func writeHTML(t *testing.T, rep *detector.Report, in HTMLInputs) string {
	t.Helper()
	var buf bytes.Buffer
	if err := HTML(&buf, rep, in); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// browseHTML checks page in a browser (browsercheck): it has findings
// reported findings, and no drawing (the fake graph has none).
func browseHTML(t *testing.T, page string, findings int) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	browsercheck.Check(t, file, browsercheck.Expect{Findings: findings})
}

// findingElements counts the finding articles of the page's reported
// section (held-back ones are in <details id="held">, after it).
func findingElements(page string) int {
	reported, _, _ := strings.Cut(page, `<details id="held">`)
	return strings.Count(reported, `<article class="finding`)
}

// hostile is text a module or a trace controls, made to break out of every
// context the page writes it in.
const hostile = `<script>alert(1)</script>"'` + "\x1b[31m\x07"

// TestHTMLEscaping: a resource title, a manifest path, the manifest's
// lines and the trace's lines with markup, quotes and control characters
// are shown as text: the page has only its own script, and no control
// character.
func TestHTMLEscaping(t *testing.T) {
	g := newFake()
	file := "/srv/" + hostile + "/init.pp"
	g.Add("File[/etc/"+hostile+"]", file, 2, "content", "x")
	g.Add("Exec["+hostile+"]", file, 3)
	rep := detector.Detect(result(p("/etc/"+hostile, a("File[/etc/"+hostile+"]", "p", 10), a("Exec["+hostile+"]", "c", 11))), g, detector.Options{})
	if rep.Faults() != 1 {
		t.Fatalf("findings %v", summary(rep))
	}
	rep.Module = hostile
	lines := map[int64]string{}
	for n := int64(8); n <= 13; n++ {
		lines[n] = fmt.Sprintf("%d openat(%q) %s", n, hostile, hostile)
	}
	page := writeHTML(t, rep, HTMLInputs{
		ExitStatus: 1,
		ReadSource: func(string) ([]byte, error) {
			return []byte("# " + hostile + "\nfile { '" + hostile + "': }\nexec { 'x': }\n"), nil
		},
		TraceLines: lines,
	})
	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		t.Errorf("%d <script elements, want only the page's own", n)
	}
	if strings.Contains(page, "alert(1)</script>") {
		t.Error("a hostile string is written unescaped")
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\x1b[31m\x07`, `<a href="#finding-1">`, `id="finding-1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for i := 0; i < len(page); i++ {
		if c := page[i]; c < 0x20 && c != '\n' && c != '\t' {
			t.Fatalf("a control character %#x at byte %d: %q", c, i, page[max(0, i-40):min(len(page), i+40)])
		}
	}
	// Both resources' source lines are shown, the resource's own marked.
	if n := strings.Count(page, `<span class="ln hit"><span class="no">2</span>`); n != 1 {
		t.Errorf("the producer's manifest line is marked %d times, want 1", n)
	}
	if !strings.Contains(page, `<span class="ln hit"><span class="no">10</span>`) || !strings.Contains(page, `<span class="no">12</span>`) {
		t.Error("the producer's trace line 10 and its context are not shown")
	}
	browseHTML(t, page, 1)
}

// TestHTMLHeldBack: held-back findings are on the page only with
// ShowHeldBack, in a collapsed section with their reasons, never among the
// reported findings.
func TestHTMLHeldBack(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/app.conf]", "app.pp", 5, "content", "x")
	g.Add("Service[app]", "app.pp", 20)
	g.Edge("File[/etc/app.conf]", "Service[app]", before)
	rep := detector.Detect(result(p("/etc/app.conf", a("File[/etc/app.conf]", "p", 10), a("Service[app]", "s", 20))), g, detector.Options{})
	if len(rep.Findings) != 1 || !rep.Findings[0].HeldBack {
		t.Fatalf("want one held-back finding: %v", summary(rep))
	}
	page := writeHTML(t, rep, HTMLInputs{})
	if strings.Contains(page, `id="held"`) || strings.Contains(page, "Service[app]") {
		t.Error("a held-back finding is on the page without ShowHeldBack")
	}
	rep.ShowHeldBack = true
	page = writeHTML(t, rep, HTMLInputs{})
	held := strings.Index(page, `<details id="held">`)
	if held < 0 {
		t.Fatal("no held-back section with ShowHeldBack")
	}
	if !strings.Contains(page[held:], "held back (only-looked-up): ") || !strings.Contains(page[held:], "only looked /etc/app.conf up") {
		t.Errorf("the held-back section lacks the reason:\n%s", page[held:])
	}
	if n := findingElements(page); n != 0 {
		t.Errorf("%d reported findings on the page, want 0", n)
	}
}

// TestHTMLSuppressed: waived and suppressed findings are listed with their
// reason only with ShowSuppressed, and never as reported findings.
func TestHTMLSuppressed(t *testing.T) {
	rep := goldenReport(t)
	page := writeHTML(t, rep, HTMLInputs{})
	if strings.Contains(page, `id="suppressed"`) {
		t.Error("a suppressed section without ShowSuppressed")
	}
	if n := findingElements(page); n != rep.Faults() {
		t.Errorf("%d finding elements, want %d", n, rep.Faults())
	}
	rep.ShowSuppressed = true
	page = writeHTML(t, rep, HTMLInputs{})
	if !strings.Contains(page, `<details id="suppressed">`) || !strings.Contains(page, "apt-get update tolerates a half-written list") {
		t.Error("the suppressed section or the waiver's reason is missing")
	}
	// Both kinds: the browser's kind filter hides one and keeps the other.
	browseHTML(t, page, rep.Faults())
}

// TestHTMLGroups: a group shows each of its members as a finding, with
// one anchor each, and the group's fix.
func TestHTMLGroups(t *testing.T) {
	rep := groupReport(t)
	page := writeHTML(t, rep, HTMLInputs{})
	if n := findingElements(page); n != rep.Faults() {
		t.Errorf("%d finding elements, want %d", n, rep.Faults())
	}
	for i := 1; i <= rep.Faults(); i++ {
		if !strings.Contains(page, fmt.Sprintf(`id="finding-%d"`, i)) || !strings.Contains(page, fmt.Sprintf(`href="#finding-%d"`, i)) {
			t.Errorf("finding-%d has no anchor or no link to it", i)
		}
	}
	groups := detector.GroupFindings(rep.Findings)
	if len(groups) != 1 || !strings.Contains(page, `<section class="group"`) {
		t.Fatalf("want one group drawn as one section: %d groups", len(groups))
	}
	if !strings.Contains(page, "File[&#39;/etc/services&#39;] -&gt; [Exec[&#39;a&#39;]") {
		t.Error("the group's snippet is not the shared producer before its consumers")
	}
}

// TestHTMLWithoutInputs: without sources, trace lines or graph, the page
// says what is not available instead of failing.
func TestHTMLWithoutInputs(t *testing.T) {
	rep := groupReport(t)
	page := writeHTML(t, rep, HTMLInputs{TraceError: "trace.log: gone"})
	for _, want := range []string{"source not available", "trace lines are not available: trace.log: gone", "no run.json"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if strings.Contains(page, "<svg") {
		t.Error("a drawing without a graph")
	}
	page = writeHTML(t, rep, HTMLInputs{ReadSource: func(string) ([]byte, error) { return nil, errors.New("permission denied") }})
	if !strings.Contains(page, "source not available: permission denied") {
		t.Error("an unreadable manifest is not said")
	}
}

// TestEvidenceLines: the evidence lines of the shown findings with their
// context, sorted, once each; none for a held-back finding without
// ShowHeldBack.
func TestEvidenceLines(t *testing.T) {
	rep := groupReport(t)
	got := EvidenceLines(rep)
	for _, n := range []int64{8, 10, 12, 18, 20, 26, 29, 33} {
		if !slices.Contains(got, n) {
			t.Errorf("line %d missing from %v", n, got)
		}
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("not sorted and unique: %v", got)
		}
	}
	if slices.Contains(got, 34) || slices.Contains(got, 7) {
		t.Errorf("lines beyond the context: %v", got)
	}
}

// TestHTMLConfirmation: a finding's verdict, why, forced relationship
// and evidence are on its element; the counts in the summary.
func TestHTMLConfirmation(t *testing.T) {
	rep := goldenReport(t)
	var first *detector.Finding
	for i := range rep.Findings {
		if rep.Findings[i].Reported() {
			first = &rep.Findings[i]
			break
		}
	}
	first.Confirmation = &detector.Confirmation{Verdict: detector.Confirmed, Why: "with X -> Y Puppet's failures change",
		Forced: "Exec['one'] -> Exec['two']", Evidence: []string{"new failure: Error: <b>failed</b>"}, Seconds: 12}
	rep.Confirm = &detector.ConfirmStats{Confirmed: 1, Applies: 2, Seconds: 20, ContainerSeconds: 35}
	page := writeHTML(t, rep, HTMLInputs{})
	for _, want := range []string{
		`<div class="confirmation verdict-confirmed">`,
		"<strong>confirmed</strong>: with X -&gt; Y Puppet&#39;s failures change (12s)",
		"forced: <code>Exec[&#39;one&#39;] -&gt; Exec[&#39;two&#39;]</code>",
		"new failure: Error: &lt;b&gt;failed&lt;/b&gt;",
		"1 confirmed, 0 refuted, 0 unknown (2 applies, 20s, 35s of container time)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<div class="confirmation`); n != 1 {
		t.Errorf("%d confirmations on the page, want 1", n)
	}
}

// TestHTMLNonIdempotence: the NI findings of niInput are on the page after
// MOR and MN, each an element with its problem, resource(s), changes,
// error and fix; each evidence line is quoted from the trace it is in
// (the two traces' lines differ here, so a line from the wrong one shows);
// the summary counts NI and the kind filter has an NI box.
func TestHTMLNonIdempotence(t *testing.T) {
	rep := detector.Detect(result(), niGraph(), detector.Options{Idempotence: niInput()})
	nis := rep.Faults()
	if nis == 0 {
		t.Fatal("no NI findings")
	}
	first, second := map[int64]string{}, map[int64]string{}
	for n := int64(1); n <= 40; n++ {
		first[n] = fmt.Sprintf("first apply, line %d", n)
		second[n] = fmt.Sprintf("second apply, line %d", n)
	}
	page := writeHTML(t, rep, HTMLInputs{ExitStatus: 1, TraceLines: first, SecondTraceLines: second})
	if n := strings.Count(page, `<article class="finding kind-NI" `); n != nis {
		t.Errorf("%d NI elements, want %d", n, nis)
	}
	for _, want := range []string{
		fmt.Sprintf("Non-idempotent resources (NI): %d", nis),
		fmt.Sprintf(`<td data-count="NI">%d</td>`, nis),
		fmt.Sprintf("Faults found: 0 MOR, 0 MN, %d NI", nis),
		`<input type="checkbox" class="kind-filter" value="NI" checked>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	n := 0
	for i := range rep.Findings {
		f := &rep.Findings[i]
		n++
		at := strings.Index(page, fmt.Sprintf(`id="finding-%d"`, n))
		if at < 0 || !strings.Contains(page, fmt.Sprintf(`<a href="#finding-%d">NI %d. %s</a>`, n, n, html.EscapeString(pairText(f)))) {
			t.Errorf("NI %d (%s) has no element or no entry in the table of contents", n, pairText(f))
			continue
		}
		article, _, _ := strings.Cut(page[at:], "</article>")
		for _, want := range []string{"problem: " + html.EscapeString(problemText(f.NI.Problem)), "<code>" + html.EscapeString(f.Producer.Ref()) + "</code>",
			"<code>" + html.EscapeString(f.Consumer.Ref()) + "</code>", html.EscapeString(f.Fix)} {
			if !strings.Contains(article, want) {
				t.Errorf("NI %d lacks %q", n, want)
			}
		}
		if strings.Contains(article, `class="copy"`) || strings.Contains(article, "confidence:") {
			t.Errorf("NI %d has a chaining arrow to copy or a confidence", n)
		}
		if f.NI.Problem == detector.FailsSecond && !strings.Contains(article, "error in the second apply: <code>"+f.NI.Error+"</code>") {
			t.Errorf("NI %d does not show its error %q", n, f.NI.Error)
		}
		for _, e := range f.NI.Changes {
			if e.Previous != "" && !strings.Contains(article, "<code>"+e.Previous+"</code> → <code>"+e.Desired+"</code>") {
				t.Errorf("NI %d does not show its change of %s", n, e.Property)
			}
		}
		producerTrace, consumerTrace := evidenceTraces(f)
		for _, pc := range f.Paths {
			for _, e := range []struct {
				line  int64
				trace applyTrace
			}{{pc.ProducerEvidence.Line, producerTrace}, {pc.ConsumerEvidence.Line, consumerTrace}} {
				if e.line <= 0 {
					continue
				}
				text := first[e.line]
				if e.trace == secondTrace {
					text = second[e.line]
				}
				if !strings.Contains(article, fmt.Sprintf(`<span class="ln hit"><span class="no">%d</span>%s</span>`, e.line, text)) ||
					!strings.Contains(article, fmt.Sprintf("line %d of %s", e.line, rep.TraceNames[e.trace])) {
					t.Errorf("NI %d does not quote line %d of %s", n, e.line, rep.TraceNames[e.trace])
				}
			}
		}
	}
	// The NI section comes after MOR and MN (here none), in the text
	// report's order.
	if strings.Index(page, "Non-idempotent resources (NI)") < strings.Index(page, `<div id="findings"`) {
		t.Error("the NI section is not among the findings")
	}
	browseHTML(t, page, nis)

	// A waived NI is listed with the suppressed ones, as one resource.
	w := detector.Waiver{Reason: "on purpose", Kinds: detector.KindSet(0).Add(detector.NI)}
	w.Ref1, _, _ = catalog.CutRef("Exec[stamp]")
	w.Ref2 = w.Ref1
	rep = detector.Detect(result(), niGraph(), detector.Options{Idempotence: niInput(), Waivers: []detector.Waiver{w}})
	rep.ShowSuppressed = true
	page = writeHTML(t, rep, HTMLInputs{})
	if n := findingElements(page); n != nis-1 {
		t.Errorf("%d finding elements with one waived, want %d", n, nis-1)
	}
	if !strings.Contains(page, "NI Exec[stamp] (observed), waived: on purpose") {
		t.Error("the waived NI is not listed as the text report lists it")
	}
	for _, want := range []string{"trace lines are not available", "lines of the second apply&#39;s trace are not available"} {
		if !strings.Contains(page, want) {
			t.Errorf("without trace lines the page does not say %q", want)
		}
	}
}

// TestHTMLNIOnlyWhenChecked: a report without --idempotence has no NI
// count, summary or filter.
func TestHTMLNIOnlyWhenChecked(t *testing.T) {
	page := writeHTML(t, goldenReport(t), HTMLInputs{})
	for _, bad := range []string{`data-count="NI"`, `value="NI"`, " NI", "second apply"} {
		if strings.Contains(page, bad) {
			t.Errorf("a report that did not check NI has %q", bad)
		}
	}
}

// TestSecondEvidenceLines: each trace's quoted lines are those of the
// evidence in it: the second apply's writes in the second, the first
// apply's in the first.
func TestSecondEvidenceLines(t *testing.T) {
	rep := detector.Detect(result(), niGraph(), detector.Options{Idempotence: niInput()})
	var wantFirst, wantSecond []int64
	for i := range rep.Findings {
		f := &rep.Findings[i]
		pt, ct := evidenceTraces(f)
		for _, pc := range f.Paths {
			for _, e := range []struct {
				line  int64
				trace applyTrace
			}{{pc.ProducerEvidence.Line, pt}, {pc.ConsumerEvidence.Line, ct}} {
				if e.line <= 0 {
					continue
				}
				if e.trace == secondTrace {
					wantSecond = append(wantSecond, e.line)
				} else {
					wantFirst = append(wantFirst, e.line)
				}
			}
		}
	}
	if len(wantFirst) == 0 || len(wantSecond) == 0 {
		t.Fatalf("the findings quote both traces: first %v, second %v", wantFirst, wantSecond)
	}
	for _, c := range []struct {
		name       string
		got, lines []int64
	}{{"first", EvidenceLines(rep), wantFirst}, {"second", SecondEvidenceLines(rep), wantSecond}} {
		for _, l := range c.lines {
			if !slices.Contains(c.got, l) {
				t.Errorf("the %s trace's lines %v lack %d", c.name, c.got, l)
			}
		}
	}
	// The first apply wrote on lines 10 to 13, the second on 20 to 24:
	// with the context, neither quotes the other's writes.
	for _, l := range wantSecond {
		if slices.Contains(EvidenceLines(rep), l) {
			t.Errorf("the first trace's lines have %d, a line of the second", l)
		}
	}
	for _, l := range wantFirst {
		if slices.Contains(SecondEvidenceLines(rep), l) {
			t.Errorf("the second trace's lines have %d, a line of the first", l)
		}
	}
}

// TestHTMLUnordered: an MN whose pair is unordered too says so, as the
// text report does; an ordered one does not.
func TestHTMLUnordered(t *testing.T) {
	res := result(p("/etc/x.conf", a("File[/etc/x.conf]", "p", 10), a("Service[x]", "c", 20)))
	const note = "unordered too: "
	if page := writeHTML(t, detector.Detect(res, serviceGraph(), detector.Options{}), HTMLInputs{}); !strings.Contains(page, note) {
		t.Error("an unordered MN's page does not say the order is missing too")
	}
	g := serviceGraph()
	g.Edge("File[/etc/x.conf]", "Service[x]", before)
	if page := writeHTML(t, detector.Detect(res, g, detector.Options{}), HTMLInputs{}); strings.Contains(page, note) {
		t.Error("an ordered MN's page says it is unordered")
	}
}

// TestHTMLEdit: a finding's edit is shown as its diff, a line each,
// classed, with a copy button that copies the diff whole; text a module
// controls in it stays text; an edit that could not be placed says why;
// a finding without an edit shows none.
func TestHTMLEdit(t *testing.T) {
	rep := groupReport(t)
	var edited, skipped, bare int = -1, -1, -1
	for i := range rep.Findings {
		if !rep.Findings[i].Reported() {
			continue
		}
		switch {
		case edited < 0:
			edited = i
		case skipped < 0:
			skipped = i
		case bare < 0:
			bare = i
		}
	}
	if bare < 0 {
		t.Fatal("the report has fewer than three reported findings")
	}
	diff := "--- a/manifests/init.pp\n+++ b/manifests/init.pp\n@@ -3,2 +3,3 @@\n   content => '" + hostile + "',\n+  notify  => Service['x'],\n-  old\n"
	rep.Findings[edited].Edit = &detector.Edit{Says: "notify added", Diff: diff, Changes: []detector.Change{{File: "/m/manifests/init.pp", StartLine: 4, StartCol: 1, EndLine: 4, EndCol: 1, Text: "  notify  => Service['x'],\n"}}}
	rep.Findings[skipped].Edit = &detector.Edit{Skipped: "the title is built from a variable"}
	page := writeHTML(t, rep, HTMLInputs{})
	if got := strings.Count(page, `<pre class="diff">`); got != 1 {
		t.Errorf("%d diffs on the page, want 1", got)
	}
	text := html.UnescapeString(page) // the page as the browser reads it
	if !strings.Contains(text, `<span class="add">+  notify  => Service['x'],`) || !strings.Contains(text, `<span class="del">-  old`) || !strings.Contains(text, `<span class="hunk">@@ -3,2 +3,3 @@`) {
		t.Error("the diff's lines are not classed add, del and hunk")
	}
	shown := strings.NewReplacer("\x1b", `\x1b`, "\x07", `\x07`).Replace(diff)
	if !strings.Contains(text, `</pre><button type="button" class="copy" data-copy="`+shown+`">`) {
		i := strings.Index(page, `<pre class="diff">`)
		t.Errorf("no copy button with the whole diff after it: %q", page[i:min(len(page), i+800)])
	}
	if !strings.Contains(page, "none: the title is built from a variable") {
		t.Error("the skipped edit does not say why")
	}
	if strings.Contains(page, "<script>alert") || strings.ContainsAny(page, "\x1b\x07") {
		t.Error("text of the diff reached the page as markup or control characters")
	}
}
