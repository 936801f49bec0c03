package runner

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	rec.AddStep("apply", 1234567*time.Microsecond, true, "puppet finished")
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
		len(back.Steps) != 1 || back.Steps[0].Seconds != 1.235 || back.Steps[0].Name != "apply" {
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
		if got := stripANSI(in); got != want {
			t.Errorf("stripANSI(%q) = %q, want %q", in, got, want)
		}
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

func TestPrepareOutDirKeepsForeignFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, TraceFile), []byte("old"), 0o644)
	os.MkdirAll(filepath.Join(dir, GraphsDir), 0o755)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if err := prepareOutDir(dir); err != nil {
		t.Fatal(err)
	}
	if fileExists(filepath.Join(dir, TraceFile)) || fileExists(filepath.Join(dir, GraphsDir)) {
		t.Error("old artifacts left")
	}
	if !fileExists(filepath.Join(dir, "notes.txt")) {
		t.Error("a file that is not fsmove's was removed")
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
