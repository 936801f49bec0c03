package detector_test

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
	"github.com/fsmove/fsmove/detector/analyze"
	"github.com/fsmove/fsmove/internal/browsercheck"
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
			lines, err := strace.ReadLines(trace, rep.EvidenceLines())
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			err = rep.WriteHTML(&buf, detector.HTMLInputs{ExitStatus: 1, ReadSource: detector.ReadManifestFile, TraceLines: lines, Graph: st.Graph})
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
