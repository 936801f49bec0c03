package report_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/internal/browsercheck"
	"github.com/fsmove/fsmove/puppet/analyze"
	"github.com/fsmove/fsmove/report"
	"github.com/fsmove/fsmove/tracer/strace"
)

// TestHTMLRealRuns renders the page of each real capture of testdata/runs,
// with the fixture's manifests (testdata/modules, where the catalog's
// /fsmove/modules paths map to), the trace's evidence lines and the
// catalog's graph, and checks it as text and in a browser: every reported
// finding is there with its anchor, its resources' manifest lines, its
// evidence lines and a drawing of the pair with the missing edge.
func TestHTMLRealRuns(t *testing.T) {
	cases := []struct {
		dir     string
		options detector.Options
	}{
		{"mor_exec_reads_file", detector.Options{}},
		{"mor_generate_use", detector.Options{}},
		{"mn_config_service", detector.Options{}},
		{"mn_config_service", detector.Options{PackageNotify: true}}, // two findings, MN
		{"clean", detector.Options{}},
	}
	for _, c := range cases {
		name := c.dir
		if c.options.PackageNotify {
			name += "-package-notify"
		}
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "testdata", "runs", c.dir)
			modules, err := filepath.Abs(filepath.Join("..", "testdata", "modules", c.dir))
			if err != nil {
				t.Fatal(err)
			}
			trace := filepath.Join(dir, "trace.log.zst")
			in := analyze.Input{Trace: trace, Catalog: filepath.Join(dir, "catalog.json"),
				PathMap: map[string]string{"/fsmove/modules/" + c.dir: modules}}
			rep, st, err := analyze.Run(context.Background(), in, analyze.Options{Detector: c.options})
			if err != nil {
				t.Fatal(err)
			}
			lines, err := strace.ReadLines(trace, report.EvidenceLines(rep))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			err = report.HTML(&buf, rep, report.HTMLInputs{ExitStatus: 1, ReadSource: detector.ReadManifestFile, TraceLines: lines, Graph: st.Graph})
			if err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			checkRealPage(t, rep, page)
			file := filepath.Join(t.TempDir(), "report.html")
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			browsercheck.Check(t, file, browsercheck.Expect{Findings: rep.Faults(), Graphs: true})
		})
	}
}

// checkRealPage checks the page of rep as text.
func checkRealPage(t *testing.T, rep *detector.Report, page string) {
	t.Helper()
	if n := strings.Count(page, `<article class="finding`); n != rep.Faults() {
		t.Errorf("%d finding elements, want %d", n, rep.Faults())
	}
	for _, bad := range []string{"<link", " src=", `href="http`, "@import", "url(http"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page loads something (%q): it must be self-contained", bad)
		}
	}
	n := 0
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if !f.Reported() {
			continue
		}
		n++
		anchor := fmt.Sprintf(`id="finding-%d"`, n)
		at := strings.Index(page, anchor)
		if at < 0 || !strings.Contains(page, fmt.Sprintf(`<a href="#finding-%d">`, n)) {
			t.Errorf("finding %d has no anchor or no link to it", n)
			continue
		}
		article, _, _ := strings.Cut(page[at:], "</article>")
		for _, r := range []string{f.Producer.Ref(), f.Consumer.Ref()} {
			ref := html.EscapeString(r)
			if !strings.Contains(article, "<code>"+ref+"</code>") {
				t.Errorf("finding %d does not name %s", n, r)
			}
			if !strings.Contains(article, "<title>"+ref+"</title>") {
				t.Errorf("finding %d's drawing lacks %s", n, r)
			}
		}
		edge := "require (missing)"
		if f.Kind == detector.MN {
			edge = "notify (missing)"
		}
		if !strings.Contains(article, `class="missing `+f.Kind.String()+`"`) || !strings.Contains(article, edge) {
			t.Errorf("finding %d's drawing lacks the missing edge %q", n, edge)
		}
		// The manifest line of each resource, marked, when it has one.
		for _, r := range []string{f.Producer.File, f.Consumer.File} {
			if r == "" || strings.HasPrefix(r, "/fsmove/") {
				continue
			}
			if !strings.Contains(article, `<pre class="source">`) || !strings.Contains(article, `<span class="ln hit">`) {
				t.Errorf("finding %d shows no manifest line of %s", n, r)
			}
		}
		for _, pc := range f.Paths {
			for _, ev := range []int64{pc.ProducerEvidence.Line, pc.ConsumerEvidence.Line} {
				if ev > 0 && !strings.Contains(article, fmt.Sprintf(`<span class="ln hit"><span class="no">%d</span>`, ev)) {
					t.Errorf("finding %d does not quote trace line %d", n, ev)
				}
			}
		}
	}
}

// TestHTMLRealNI renders the page of the real fsmove run --idempotence of
// testdata/runs/ni_not_idempotent with both traces' lines and the
// catalog's graph: every NI finding is an element, each evidence line is
// quoted as it is in its own trace (the first apply's trace.log or the
// second's), a fight is drawn without a missing edge and a single
// resource is not drawn; in a browser, the NI filter hides exactly them.
func TestHTMLRealNI(t *testing.T) {
	const module = "ni_not_idempotent"
	dir := filepath.Join("..", "testdata", "runs", module)
	modules, err := filepath.Abs(filepath.Join("..", "testdata", "modules", module))
	if err != nil {
		t.Fatal(err)
	}
	trace, secondTrace := filepath.Join(dir, "trace.log.zst"), filepath.Join(dir, "second", "trace.log.zst")
	in := analyze.Input{Trace: trace, Catalog: filepath.Join(dir, "catalog.json"),
		SecondTrace: secondTrace, SecondReport: filepath.Join(dir, "second", "last_run_report.yaml"),
		FirstReport: filepath.Join(dir, "last_run_report.yaml"),
		PathMap:     map[string]string{"/fsmove/modules/" + module: modules}}
	rep, st, err := analyze.Run(context.Background(), in, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Faults() == 0 || !rep.Idempotence {
		t.Fatalf("the run has no NI findings (%d faults, idempotence %v)", rep.Faults(), rep.Idempotence)
	}
	lines, err := strace.ReadLines(trace, report.EvidenceLines(rep))
	if err != nil {
		t.Fatal(err)
	}
	secondLines, err := strace.ReadLines(secondTrace, report.SecondEvidenceLines(rep))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = report.HTML(&buf, rep, report.HTMLInputs{ExitStatus: 1, ReadSource: detector.ReadManifestFile,
		TraceLines: lines, SecondTraceLines: secondLines, Graph: st.Graph})
	if err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, `<article class="finding kind-NI"`); n != rep.Faults() {
		t.Errorf("%d NI elements, want %d", n, rep.Faults())
	}
	n, fights := 0, 0
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if !f.Reported() {
			continue
		}
		n++
		at := strings.Index(page, fmt.Sprintf(`id="finding-%d"`, n))
		if at < 0 {
			t.Errorf("NI %d has no element", n)
			continue
		}
		article, _, _ := strings.Cut(page[at:], "</article>")
		if !strings.Contains(article, `<pre class="source">`) {
			t.Errorf("NI %d shows no manifest line", n)
		}
		switch {
		case f.Producer != f.Consumer:
			fights++
			for _, r := range []string{f.Producer.Ref(), f.Consumer.Ref()} {
				if !strings.Contains(article, "<title>"+html.EscapeString(r)+"</title>") {
					t.Errorf("NI %d's drawing lacks %s", n, r)
				}
			}
			if strings.Contains(article, `class="missing`) {
				t.Errorf("NI %d's drawing has a missing edge", n)
			}
		case strings.Contains(article, "<svg"):
			t.Errorf("NI %d, of one resource, is drawn", n)
		}
		// Each evidence line, as its own trace has it (the page shows it
		// escaped).
		for _, pc := range f.Paths {
			for _, e := range []struct {
				line  int64
				lines map[int64]string
			}{{pc.ProducerEvidence.Line, secondLines}, {pc.ConsumerEvidence.Line, lines}} {
				if f.Producer != f.Consumer {
					e.lines = secondLines // a fight is all in the second apply
				}
				if e.line <= 0 {
					continue
				}
				want := fmt.Sprintf(`<span class="ln hit"><span class="no">%d</span>%s</span>`, e.line, html.EscapeString(e.lines[e.line]))
				if e.lines[e.line] == "" || !strings.Contains(article, want) {
					t.Errorf("NI %d does not quote line %d of its trace: %q", n, e.line, e.lines[e.line])
				}
			}
		}
	}
	if fights == 0 {
		t.Error("the run has no fight to draw")
	}
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	browsercheck.Check(t, file, browsercheck.Expect{Findings: rep.Faults(), Graphs: true})
}
