package main

// End-to-end test of "fsmove bench": a 3-module corpus (two fixture modules
// and one Debian package) through real Docker, with the fsmove binary as a
// user runs it (the bench analyzes in a child fsmove process). Like the
// other e2e tests it skips without Docker, and fails with FSMOVE_E2E=1.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/bench/results"
	"github.com/fsmove/fsmove/bench/results/resultstest"
	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/puppet/runner"
)

func TestBenchE2E(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	useBuiltBinary(t)
	bin := built.bin
	tmp := t.TempDir()
	modules, err := filepath.Abs("../../testdata/modules")
	if err != nil {
		t.Fatal(err)
	}
	corpusFile := filepath.Join(tmp, "corpus.txt")
	corpusText := "# e2e corpus\n" +
		modules + "/mor_exec_reads_file\n" +
		modules + "/clean   # no findings\n" +
		"deb:puppet-module-puppetlabs-stdlib version=test\n"
	if err := os.WriteFile(corpusFile, []byte(corpusText), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	bench := func(extra ...string) string {
		args := append([]string{"bench", "--out", out, "--workers", "2", "--untraced", "--timeout", "8m"}, extra...)
		cmd := exec.Command(bin, append(args, corpusFile)...)
		stdout, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("fsmove %v: %v\n%s\n%s", args, err, stdout, stderr)
		}
		return string(stdout)
	}
	first := bench()

	csvFile, err := os.Open(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := resultstest.ReadCSV(csvFile) // checks the columns and the statuses
	csvFile.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"mor_exec_reads_file": 1, "clean": 0, "puppet-module-puppetlabs-stdlib": 0}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), first)
	}
	for _, r := range rows {
		mor, known := want[r.Module]
		if !known {
			t.Errorf("unexpected module %q", r.Module)
			continue
		}
		if r.Status != results.StatusOK {
			t.Errorf("%s: status %s (%s), want ok", r.Module, r.Status, r.FirstError)
			continue
		}
		if r.MOR != mor || r.MN != 0 {
			t.Errorf("%s: %d MOR %d MN, want %d MOR 0 MN", r.Module, r.MOR, r.MN, mor)
		}
		checkRowAgainstRunDir(t, r, filepath.Join(out, "runs", r.Module))
	}

	// What made the directory.
	var prov results.Provenance
	if err := results.ReadJSONFile(out, results.ProvenanceJSON, &prov); err != nil {
		t.Fatal(err)
	}
	if prov.ImageID == "" || prov.Tracer == "" || prov.Init != "systemd" || prov.Modules != 3 || len(prov.CorpusSHA256) != 64 ||
		prov.Shard != "" || prov.Corpus != corpusFile || prov.Finished.Before(prov.Started) {
		t.Errorf("bench.json: %+v", prov)
	}

	// Resumed: nothing new, the same table.
	before, _ := os.ReadFile(filepath.Join(out, "results.csv"))
	second := bench("--resume")
	if !strings.Contains(second, "work done: 0 traced runs, 0 analyses, 0 untraced runs") {
		t.Errorf("resumed bench did work:\n%s", second)
	}
	after, _ := os.ReadFile(filepath.Join(out, "results.csv"))
	if string(before) != string(after) {
		t.Errorf("results.csv changed on resume:\n%s\n---\n%s", before, after)
	}

	// The corpus in three shares, as three machines would run it, merged:
	// the same modules with the same results as the one bench. (Its keys
	// fall in shares 2 and 3; share 1 is empty, which a bench must take.)
	var parts []string
	for _, shard := range []string{"1/3", "2/3", "3/3"} {
		part := filepath.Join(tmp, "part-"+shard[:1])
		cmd := exec.Command(bin, "bench", "--quiet", "--out", part, "--workers", "2", "--timeout", "8m", "--shard", shard, corpusFile)
		if outText, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("bench --shard %s: %v\n%s", shard, err, outText)
		}
		parts = append(parts, part)
	}
	merged := filepath.Join(tmp, "merged")
	if outText, err := exec.Command(bin, append([]string{"bench", "merge", "--out", merged}, parts...)...).CombinedOutput(); err != nil {
		t.Fatalf("bench merge: %v\n%s", err, outText)
	}
	if one, two := benchSummary(t, out), benchSummary(t, merged); !slices.Equal(one, two) {
		t.Errorf("the merged shares differ from the one bench:\n%s\n---\n%s", strings.Join(one, "\n"), strings.Join(two, "\n"))
	}

	// Resumed with --confirm: only the module with a finding is re-applied,
	// and its verdict reaches results.csv and findings.csv.
	third := bench("--resume", "--confirm")
	if !strings.Contains(third, "work done: 0 traced runs, 0 analyses, 0 untraced runs, 1 confirmations") {
		t.Errorf("bench --resume --confirm:\n%s", third)
	}
	csvFile, err = os.Open(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err = resultstest.ReadCSV(csvFile)
	csvFile.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		switch {
		case r.Module == "mor_exec_reads_file" && (r.Confirmed+r.Refuted+r.ConfirmUnknown != 1 || r.ConfirmS <= 0):
			t.Errorf("%s: confirmed %d refuted %d unknown %d in %vs; want one verdict", r.Module, r.Confirmed, r.Refuted, r.ConfirmUnknown, r.ConfirmS)
		case r.Module == "mor_exec_reads_file" && r.Confirmed != 1:
			// Say why, so that a verdict that depends on the machine's
			// load can be told from one that is wrong.
			data, _ := os.ReadFile(filepath.Join(out, "runs", r.Module, results.ReportJSON))
			t.Errorf("%s: not confirmed (refuted %d, unknown %d); its report:\n%s", r.Module, r.Refuted, r.ConfirmUnknown, data)
		case r.Module != "mor_exec_reads_file" && r.Confirmed != -1:
			t.Errorf("%s: confirmed %d without findings", r.Module, r.Confirmed)
		}
	}
	ff, err := os.Open(filepath.Join(out, "findings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	findings, err := resultstest.ReadFindingsCSV(ff)
	ff.Close()
	if err != nil || len(findings) != 1 || findings[0].Confirmation != "confirmed" {
		t.Errorf("findings.csv: %+v, %v; want the MOR of mor_exec_reads_file confirmed", findings, err)
	}
}

// benchSummary is a bench directory's results.csv without its timings: a
// line a module.
func benchSummary(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.ResultsCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := resultstest.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s %s %s MOR %d MN %d resources %d", r.Module, r.Version, r.Status, r.MOR, r.MN, r.Resources))
	}
	return out
}

// checkRowAgainstRunDir compares a CSV row's numbers with the files of its
// run directory.
func checkRowAgainstRunDir(t *testing.T, r results.Row, dir string) {
	t.Helper()
	info, err := os.Stat(filepath.Join(dir, runner.TraceFile))
	if err != nil || info.Size() != r.TraceBytes || r.TraceBytes == 0 {
		t.Errorf("%s: trace_bytes %d, trace.log %v (%v)", r.Module, r.TraceBytes, info, err)
	}
	cat, err := catalog.ReadFile(filepath.Join(dir, runner.CatalogFile))
	if err != nil || int64(len(cat.Resources)) != r.Resources {
		t.Errorf("%s: resources %d, catalog %v", r.Module, r.Resources, err)
	}
	rec, err := runner.ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	traced := -1.0
	for _, s := range rec.Steps {
		if s.Name == "apply" {
			traced = s.Seconds
		}
	}
	if traced <= 0 || traced != r.PuppetTracedS {
		t.Errorf("%s: puppet_traced_s %v, run.json's apply step %v", r.Module, r.PuppetTracedS, traced)
	}
	var rep struct {
		Stats struct {
			Events int64 `json:"events"`
			MOR    int64 `json:"mor"`
			MN     int64 `json:"mn"`
			Peak   int64 `json:"peak_rss_bytes"`
		} `json:"stats"`
	}
	data, err := os.ReadFile(filepath.Join(dir, results.ReportJSON))
	if err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("%s: report.json: %v", r.Module, err)
	}
	if rep.Stats.Events != r.Events || r.Events <= 0 || rep.Stats.MOR != r.MOR || rep.Stats.MN != r.MN {
		t.Errorf("%s: row events/mor/mn %d/%d/%d, report %+v", r.Module, r.Events, r.MOR, r.MN, rep.Stats)
	}
	// The peak is the analysis's own, as its report says (not the bench's
	// memory through rusage).
	if r.PeakMemBytes != rep.Stats.Peak {
		t.Errorf("%s: peak_mem_bytes %d, the report's own peak %d", r.Module, r.PeakMemBytes, rep.Stats.Peak)
	}
	// The untraced apply ran through the runner, in its own directory,
	// without a trace.
	urec, err := runner.ReadRecord(filepath.Join(dir, results.UntracedDir))
	if err != nil || urec.Tracer != "none" || urec.Status != runner.StatusOK || files.Exists(filepath.Join(dir, results.UntracedDir, runner.TraceFile)) {
		t.Errorf("%s: untraced run %+v (%v)", r.Module, urec, err)
	}
	// It compiled first, as the traced run did, and so applied with the
	// facts the compile cached (Options.CompileFirst).
	if err == nil && (!slices.ContainsFunc(urec.Steps, func(s runner.StepRecord) bool { return s.Name == runner.StepCompile }) ||
		!strings.Contains(strings.Join(urec.Command, " "), "'--route_file' ")) {
		t.Errorf("%s: the untraced run did not apply as the traced one (steps %+v, command %q)", r.Module, urec.Steps, urec.Command)
	}
	if r.Tracer == "" || r.Category != "" {
		t.Errorf("%s: tracer %q, category %q", r.Module, r.Tracer, r.Category)
	}
	if r.AnalysisS <= 0 || r.PeakMemBytes <= 1<<20 || r.PuppetUntracedS <= 0 {
		t.Errorf("%s: analysis_s %v, peak_mem_bytes %d, puppet_untraced_s %v: want positive figures", r.Module, r.AnalysisS, r.PeakMemBytes, r.PuppetUntracedS)
	}
}

// TestE2EBenchMisspelledPackage: a deb: line the image's module index
// lacks is the corpus's input error, whole (its line, the nearest
// package), exit 2 before any module runs.
func TestE2EBenchMisspelledPackage(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	tmp := t.TempDir()
	corpusFile := filepath.Join(tmp, "corpus.txt")
	if err := os.WriteFile(corpusFile, []byte("deb:puppet-module-puppetlabs-stdlb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"bench", "--quiet", "--out", out, corpusFile})
	want := corpusFile + ":1: deb:puppet-module-puppetlabs-stdlb: no such puppet-module-* package in the image (did you mean deb:puppet-module-puppetlabs-stdlib?)"
	if code != exitUsage || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, stderr.String(), want)
	}
	if entries, _ := os.ReadDir(filepath.Join(out, results.RunsDir)); len(entries) != 0 {
		t.Errorf("a module ran: %d run directories", len(entries))
	}
}

// TestE2EBenchRemoteEngine: an engine reached by URL (here the local one
// through a TCP port) cannot give the modules the isolated network, so the
// bench refuses it before any module starts: exit 2, saying why and what
// would work.
func TestE2EBenchRemoteEngine(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	proxy := startEngineProxy(t, "tcp")
	tmp := t.TempDir()
	corpusFile := filepath.Join(tmp, "corpus.txt")
	if err := os.WriteFile(corpusFile, []byte("deb:puppet-module-puppetlabs-stdlib\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"bench", "--quiet", "--out", out, "--docker-host", proxy.url, corpusFile})
	if code != exitUsage || !strings.Contains(stderr.String(), proxy.url) || !strings.Contains(stderr.String(), "run fsmove bench on the engine's host") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming the engine and what would work", code, stderr.String())
	}
	if entries, _ := os.ReadDir(filepath.Join(out, results.RunsDir)); len(entries) != 0 {
		t.Errorf("a module ran: %d run directories", len(entries))
	}
}
