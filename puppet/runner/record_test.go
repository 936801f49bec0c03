package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmove/fsmove/internal/files"
)

func TestRunRecordRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rec := &RunRecord{
		FsmoveVersion: "test",
		Module:        ModuleSpec{Raw: "deb:puppet-module-saz-ssh", Kind: SourceDeb, Name: "ssh", Author: "saz", Package: "puppet-module-saz-ssh"},
		Tracer:        "strace",
		TraceBytes:    12345,
		PuppetExit:    intPtr(2),
		PuppetOutcome: PuppetOutcome(2),
		Status:        StatusOK,
		Artifacts:     []string{"trace.log"},
	}
	if _, ok := rec.ApplyStep(); ok {
		t.Error("ApplyStep found before any step")
	}
	rec.AddStep("setup", time.Second, true, "")
	rec.AddStep(StepApply, 1234567*time.Microsecond, true, "puppet finished")
	if s, ok := rec.ApplyStep(); !ok || s.Name != StepApply || s.Seconds != 1.235 {
		t.Errorf("ApplyStep = %+v, %v", s, ok)
	}
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, RunJSON))
	if err != nil {
		t.Fatal(err)
	}
	// Field names are part of the interface: check them in the raw JSON.
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"fsmove_version", "module", "image", "tracer", "steps", "trace_bytes", "puppet_exit", "apply_exit", "analyze_exit", "status", "artifacts", "started", "finished"} {
		if _, ok := raw[key]; !ok {
			t.Errorf("run.json lacks %q", key)
		}
	}
	if raw["analyze_exit"] != nil || raw["puppet_exit"] != 2.0 {
		t.Errorf("exit fields: analyze_exit=%v puppet_exit=%v", raw["analyze_exit"], raw["puppet_exit"])
	}
	back, err := ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Module.Package != "puppet-module-saz-ssh" || *back.PuppetExit != 2 || back.TraceBytes != 12345 ||
		len(back.Steps) != 2 || back.Steps[1].Seconds != 1.235 || back.Steps[1].Name != "apply" {
		t.Errorf("read back %+v", back)
	}
	os.WriteFile(filepath.Join(dir, RunJSON), []byte("{"), 0o644)
	if _, err := ReadRecord(dir); err == nil {
		t.Error("broken run.json accepted")
	}
}

func TestPuppetErrors(t *testing.T) {
	log := "\x1b[0;36mDebug: loading\x1b[0m\n" +
		"\x1b[1;31mError: Evaluation Error: Unknown variable: '$x' (file: /fsmove/site.pp, line: 1, column: 6) on node fsmove-node\x1b[0m\n" +
		"\x1b[mNotice: something\x1b[0m\n" +
		"Error: Could not find class ::nope for fsmove-node\n" +
		"Error: third\n"
	got := PuppetErrors(strings.NewReader(log), 2)
	want := []string{
		"Error: Evaluation Error: Unknown variable: '$x' (file: /fsmove/site.pp, line: 1, column: 6) on node fsmove-node",
		"Error: Could not find class ::nope for fsmove-node",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestStripANSI(t *testing.T) {
	cases := map[string]string{
		"plain":                    "plain",
		"\x1b[0;32mInfo: x\x1b[0m": "Info: x",
		"\x1b[mNotice\x1b[0m":      "Notice",
		"trailing \x1b[":           "trailing ",
		"\x1b":                     "",
		"a\x1b[1;31;40mb\x1b[0mc":  "abc",
	}
	for in, want := range cases {
		if got := StripANSI(in); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

// A failed command's error has its last 15 lines, without Puppet's colours.
func TestExecFailure(t *testing.T) {
	var out strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&out, "line %d\n", i)
	}
	out.WriteString("\x1b[1;31mError: Could not connect to the Forge\x1b[0m\n")
	msg := execFailure("puppet module install", 1, out.String()).Error()
	if strings.ContainsRune(msg, 0x1b) || !strings.Contains(msg, "Error: Could not connect to the Forge") {
		t.Errorf("colours left in, or the error line lost: %q", msg)
	}
	if !strings.HasPrefix(msg, "puppet module install failed (status 1):\nline 7\n") || strings.Contains(msg, "line 6\n") {
		t.Errorf("want the last 15 lines: %q", msg)
	}
}

func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false)
	s := p.Start("apply", "puppet apply under strace")
	s.Done("puppet finished")
	p.Start("copy", "copying").Fail("no trace")
	out := buf.String()
	for _, want := range []string{
		"fsmove: apply     puppet apply under strace\n",
		"fsmove: apply     done in 0.0s: puppet finished\n",
		"fsmove: copy      FAILED in 0.0s: no trace\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\r") {
		t.Error("redraws on a non-terminal")
	}
	var quiet bytes.Buffer
	q := NewProgress(&quiet, true)
	q.Start("image", "x").Done("y")
	if quiet.Len() != 0 {
		t.Errorf("quiet progress wrote %q", quiet.String())
	}
}

func TestFormatElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		400 * time.Millisecond:   "0.4s",
		12340 * time.Millisecond: "12.3s",
		125 * time.Second:        "2m05s",
	} {
		if got := formatElapsed(d); got != want {
			t.Errorf("formatElapsed(%v) = %s, want %s", d, got, want)
		}
	}
}

func TestOutDir(t *testing.T) {
	earlierRun := func(t *testing.T) string {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, RunJSON), []byte(`{"status":"ok"}`), 0o644)
		os.WriteFile(filepath.Join(dir, TraceFile), []byte("old"), 0o644)
		os.MkdirAll(filepath.Join(dir, GraphsDir), 0o755)
		os.WriteFile(filepath.Join(dir, GraphsDir, "relationships.dot"), []byte("old"), 0o644)
		os.MkdirAll(filepath.Join(dir, ".catalog-123"), 0o755)
		// The located manifests, and the temporary file of a killed write.
		os.WriteFile(filepath.Join(dir, ManifestsFile), []byte("{}"), 0o644)
		os.WriteFile(filepath.Join(dir, "."+ManifestsFile+"-42"), []byte("{"), 0o644)
		// An --idempotence run's.
		os.WriteFile(filepath.Join(dir, PuppetReportFile), []byte("old"), 0o644)
		os.MkdirAll(filepath.Join(dir, SecondDir), 0o755)
		os.WriteFile(filepath.Join(dir, SecondDir, TraceFile), []byte("old"), 0o644)
		return dir
	}

	// Missing or empty: used as it is.
	missing := filepath.Join(t.TempDir(), "a", "b")
	if err := CheckOutDir(missing, false); err != nil {
		t.Errorf("missing dir: %v", err)
	}
	if err := prepareOutDir(missing, false); err != nil || !files.Exists(missing) {
		t.Errorf("prepare missing dir: %v", err)
	}
	if err := prepareOutDir(t.TempDir(), false); err != nil {
		t.Errorf("empty dir: %v", err)
	}

	// An earlier run: refused without force, untouched; emptied with it.
	dir := earlierRun(t)
	err := prepareOutDir(dir, false)
	var oe *OutDirError
	if !errors.As(err, &oe) || !oe.EarlierRun || !strings.Contains(err.Error(), "--force") {
		t.Errorf("earlier run without force: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, RunJSON)); string(data) != `{"status":"ok"}` {
		t.Errorf("run.json touched: %q", data)
	}
	if err := prepareOutDir(dir, true); err != nil {
		t.Fatalf("earlier run with force: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left after --force: %v", entries)
	}

	// Any file that is not fsmove's: refused even with force, nothing deleted.
	dir = earlierRun(t)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	for _, force := range []bool{false, true} {
		err := prepareOutDir(dir, force)
		if !errors.As(err, &oe) || oe.EarlierRun || !strings.Contains(err.Error(), "notes.txt") || !strings.Contains(err.Error(), "never deletes") {
			t.Errorf("foreign file, force %v: %v", force, err)
		}
	}
	if !files.Exists(filepath.Join(dir, "notes.txt")) || !files.Exists(filepath.Join(dir, TraceFile)) {
		t.Error("a refused directory was changed")
	}

	// A file, not a directory.
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if err := CheckOutDir(file, true); !errors.As(err, &oe) || !oe.NotDir {
		t.Errorf("file as --out: %v", err)
	}
}

func TestStoppedStatus(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupted by SIGTERM"))
	if st, why := StoppedStatus(ctx); st != StatusInterrupted || why != "interrupted by SIGTERM" {
		t.Errorf("cancelled with a cause: %s, %q", st, why)
	}
	ctx, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if st, why := StoppedStatus(ctx); st != StatusInterrupted || why != "interrupted" {
		t.Errorf("cancelled: %s, %q", st, why)
	}
	ctx, cancel3 := context.WithTimeout(context.Background(), 0)
	defer cancel3()
	if st, why := StoppedStatus(ctx); st != StatusTimeout || why != "timed out" {
		t.Errorf("deadline: %s, %q", st, why)
	}
	ctx, cancel4 := context.WithTimeoutCause(context.Background(), 0, errors.New("the run took longer than --timeout 1s"))
	defer cancel4()
	if st, why := StoppedStatus(ctx); st != StatusTimeout || why != "the run took longer than --timeout 1s" {
		t.Errorf("deadline with a cause: %s, %q", st, why)
	}
}

// TestProgressWriterClearsTheLine: on a terminal, text written through
// Writer while a step's line is drawn erases that line first.
func TestProgressWriterClearsTheLine(t *testing.T) {
	var buf bytes.Buffer
	p := &Progress{w: &buf, tty: true}
	s := p.Start("apply", "puppet apply")
	w := p.Writer(&buf)
	fmt.Fprintln(w, "fsmove: a warning")
	fmt.Fprint(w, "partial ")
	s.draw() // a tick: not drawn over a partial line
	fmt.Fprintln(w, "line")
	s.Done("finished")
	out := buf.String()
	drawn := "\r\033[K  … apply     puppet apply  "
	if !strings.HasPrefix(out, drawn) {
		t.Fatalf("no step line drawn first: %q", out)
	}
	i := strings.Index(out, "fsmove: a warning\n")
	if i < 0 || !strings.HasSuffix(out[:i], "\r\033[K") {
		t.Errorf("the warning does not clear the step's line first: %q", out)
	}
	if !strings.Contains(out, "partial line\n") {
		t.Errorf("a partial line was drawn over: %q", out)
	}
	if !strings.HasSuffix(out, "✓ apply     finished  0.0s\n") {
		t.Errorf("end of step: %q", out)
	}
}

func TestModulePathEntry(t *testing.T) {
	root := t.TempDir()
	single := filepath.Join(root, "one")
	writeModule(t, single, `{"name": "acme-dep"}`)
	tree := filepath.Join(root, "tree")
	writeModule(t, filepath.Join(tree, "a"), "")
	got, err := modulePathEntry(single, "/fsmove/modulepath/0")
	if err != nil || got.archiveName != "/fsmove/modulepath/0/dep" || got.puppetDir != "/fsmove/modulepath/0" {
		t.Errorf("single module: %+v %v", got, err)
	}
	got, err = modulePathEntry(tree, "/fsmove/modulepath/1")
	if err != nil || got.archiveName != "/fsmove/modulepath/1" || got.puppetDir != "/fsmove/modulepath/1" {
		t.Errorf("module tree: %+v %v", got, err)
	}
	if _, err := modulePathEntry(filepath.Join(root, "missing"), "/x"); err == nil {
		t.Error("missing --modulepath accepted")
	}
}

func TestPuppetErrorBlocks(t *testing.T) {
	log := "Notice: Compiled\n\x1b[1;31mError: apt-get returned 100: Reading package lists...\nE: Unable to locate package x\x1b[0m\nDebug: y\nplain text after a level line\nError: second\nWarning: w\nError: third\n"
	blocks := PuppetErrorBlocks(strings.NewReader(log), 2)
	if len(blocks) != 2 || blocks[0] != "Error: apt-get returned 100: Reading package lists...\nE: Unable to locate package x" || blocks[1] != "Error: second" {
		t.Errorf("blocks = %q", blocks)
	}
	if lines := PuppetErrors(strings.NewReader(log), 5); len(lines) != 3 || lines[0] != "Error: apt-get returned 100: Reading package lists..." {
		t.Errorf("lines = %q", lines)
	}
	long := "Error: x\n" + strings.Repeat("more\n", 100)
	if b := PuppetErrorBlocks(strings.NewReader(long), 1); len(b) != 1 || strings.Count(b[0], "\n") > maxErrorBlockLines {
		t.Errorf("a block of %d lines", strings.Count(b[0], "\n"))
	}
}

func TestExecOutput(t *testing.T) {
	log := "Notice: /Stage[main]/A/Exec[x]/returns: one\nDebug: z\n\x1b[mNotice: /Stage[main]/A/Exec[x]/returns: two\x1b[0m\nNotice: /Stage[main]/A/Exec[x]/returns: three\nNotice: /Stage[main]/A/File[f]/ensure: created\n"
	if got := ExecOutput(strings.NewReader(log), 2); strings.Join(got, "|") != "Notice: /Stage[main]/A/Exec[x]/returns: two|Notice: /Stage[main]/A/Exec[x]/returns: three" {
		t.Errorf("ExecOutput = %q", got)
	}
}

// TestHostPaths: the container's module directories become the host's,
// the longest first; other paths stay.
func TestHostPaths(t *testing.T) {
	pathMap := map[string]string{
		"/fsmove/modules/mymod":  "/home/me/mymod",
		"/fsmove/modulepath/1":   "/home/me/deps1/",
		"/fsmove/modulepath/10":  "/home/me/deps10",
		"/fsmove/modulepath/1/x": "/elsewhere/x",
	}
	for in, want := range map[string]string{
		"Error: Syntax error at 'ensure' (file: /fsmove/modules/mymod/manifests/init.pp, line: 8, column: 5)": "Error: Syntax error at 'ensure' (file: /home/me/mymod/manifests/init.pp, line: 8, column: 5)",
		"at /fsmove/modulepath/10/stdlib/lib/x.rb:3 and /fsmove/modulepath/1/concat/init.pp:4":                "at /home/me/deps10/stdlib/lib/x.rb:3 and /home/me/deps1/concat/init.pp:4",
		"/fsmove/modulepath/1/x/y.pp":      "/elsewhere/x/y.pp",
		"/fsmove/modules/mymodule/init.pp": "/fsmove/modules/mymodule/init.pp",
		"/fsmove/site.pp:1":                "/fsmove/site.pp:1",
	} {
		if got := HostPaths(in, pathMap); got != want {
			t.Errorf("HostPaths(%q) = %q, want %q", in, got, want)
		}
	}
	if got := HostPaths("/fsmove/modules/mymod/x", nil); got != "/fsmove/modules/mymod/x" {
		t.Errorf("no map: %q", got)
	}
}

// run.json keeps the second apply of --idempotence, and a run without it
// has no trace of one.
func TestRecordSecondRun(t *testing.T) {
	dir := t.TempDir()
	rec := &RunRecord{Tracer: "ebpf", Report: PuppetReportFile, Second: &SecondRun{
		Dir: SecondDir, ApplyExit: intPtr(0), PuppetExit: intPtr(6), PuppetOutcome: PuppetOutcome(6),
		TraceBytes: 1234, DroppedEvents: 2, Report: SecondDir + "/" + PuppetReportFile,
	}}
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := got.Second
	if s == nil || s.Dir != SecondDir || s.PuppetExit == nil || *s.PuppetExit != 6 || s.PuppetOutcome != "changes-and-failures" ||
		s.TraceBytes != 1234 || s.DroppedEvents != 2 || s.Report != "second/last_run_report.yaml" || got.Report != PuppetReportFile {
		t.Errorf("read back %+v, %+v", got, s)
	}
	if p := s.captureProblems("ebpf", false); len(p) != 1 || !strings.Contains(p[0], "lost 2 events") {
		t.Errorf("problems = %q", p)
	}
	if p := s.captureProblems("ebpf", true); len(p) != 0 {
		t.Errorf("problems with --allow-drops = %q", p)
	}
	plain := &RunRecord{Tracer: "ebpf"}
	if err := plain.Write(dir); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, RunJSON))
	if strings.Contains(string(data), "second_run") || strings.Contains(string(data), `"report"`) {
		t.Errorf("a run without --idempotence records a second run:\n%s", data)
	}
}
