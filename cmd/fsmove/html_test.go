package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/internal/browsercheck"
	"github.com/fsmove/fsmove/puppet/runner"
)

// TestAnalyzeHTMLRunDir: fsmove analyze RUN-DIR --format html writes the
// page of a saved run: run.json's facts, the module's own manifest lines
// (through the run's path map), the evidence lines of the trace, the exit
// status; -o writes it to a file. The page works in a browser.
func TestAnalyzeHTMLRunDir(t *testing.T) {
	trace, _ := savedRunWithModule(t, "", "")
	dir := filepath.Dir(trace)
	rec, err := runner.ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec.PuppetVersion, rec.Tracer, rec.Init, rec.Image.Tag, rec.Status = "7.23.0-1", "ebpf", "systemd", "fsmove/puppet:bookworm", runner.StatusOK
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"analyze", "--format", "html", "-o", page, dir}); code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s", code, stderr.String())
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(data)
	for _, want := range []string{
		"<title>fsmove report: mor_exec_reads_file</title>",
		"<th>Puppet</th><td>7.23.0-1</td>", "<th>tracer</th><td>ebpf</td>", "<th>init</th><td>systemd</td>",
		"<th>image</th><td>fsmove/puppet:bookworm</td>",
		`<span class="exit exit-1">1</span> (findings)`,
		// Line 13 of the module's manifest, the consumer's, marked.
		`<span class="ln hit"><span class="no">13</span>  exec { &#39;read-conf&#39;:</span>`,
		`openat(AT_FDCWD, &#34;/etc/mor_exec_reads_file.conf&#34;, O_RDONLY)`,
		`<svg `,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("-o: %d bytes on stdout", stdout.Len())
	}
	browsercheck.Check(t, page, browsercheck.Expect{Findings: 1, Graphs: true})

	// The same to stdout, and the other formats are unchanged by it.
	stdout.Reset()
	if code := run(&stdout, &stderr, []string{"analyze", "--format", "html", dir}); code != exitFindings || !bytes.Equal(stdout.Bytes(), data) {
		t.Errorf("to stdout: exit %d, %d bytes, want the file's %d", code, stdout.Len(), len(data))
	}
}
