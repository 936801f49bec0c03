package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/bench/results"
	"github.com/fsmove/fsmove/internal/files"
)

// TestBenchRefusesEarlierResults: an --out that holds an earlier bench's
// run directories or results is not redone silently: exit 2, naming
// --resume and --force, and nothing touched; --resume and --force together
// are a usage error. (No Docker: the check comes before any engine.)
func TestBenchRefusesEarlierResults(t *testing.T) {
	corpusFile := filepath.Join(t.TempDir(), "corpus.txt")
	os.WriteFile(corpusFile, []byte("deb:puppet-module-puppetlabs-stdlib\n"), 0o644)
	for name, made := range map[string]string{
		"a run directory": filepath.Join(results.RunsDir, "stdlib", "run.json"),
		"results.csv":     results.ResultsCSV,
	} {
		out := t.TempDir()
		path := filepath.Join(out, made)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte("earlier"), 0o644)
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, []string{"bench", "--quiet", "--out", out, corpusFile})
		if code != exitUsage || !strings.Contains(stderr.String(), "--resume continues it, --force starts over") {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming --resume and --force", name, code, stderr.String())
		}
		if data, err := os.ReadFile(path); err != nil || string(data) != "earlier" {
			t.Errorf("%s: the earlier bench's file was touched: %q, %v", name, data, err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"bench", "--resume", "--force", "--out", t.TempDir(), corpusFile}); code != exitUsage {
		t.Errorf("--resume --force: exit %d, want 2", code)
	}
	for _, shard := range []string{"0/2", "3/2", "two"} {
		stderr.Reset()
		if code := run(&stdout, &stderr, []string{"bench", "--shard", shard, "--out", t.TempDir(), corpusFile}); code != exitUsage || !strings.Contains(stderr.String(), "--shard") {
			t.Errorf("--shard %s: exit %d, %q; want 2 naming --shard", shard, code, stderr.String())
		}
	}
}

// TestBenchForceStartsOver: --force lets a bench start over in an --out
// with results (the run directories are removed once every check passed,
// not by the check: a bench that then fails on its corpus loses nothing);
// an empty or new --out needs neither flag.
func TestBenchForceStartsOver(t *testing.T) {
	out := t.TempDir()
	runDir := filepath.Join(out, results.RunsDir, "stdlib")
	os.MkdirAll(runDir, 0o755)
	if over, err := checkBenchOut(&benchFlags{out: out, force: true}); err != nil || !over || !files.Exists(runDir) {
		t.Errorf("--force: start over %v, %v; the run directory kept: %v", over, err, files.Exists(runDir))
	}
	corpusFile := filepath.Join(t.TempDir(), "corpus.txt")
	os.WriteFile(corpusFile, []byte("no such module line\n"), 0o644)
	var stdout, stderr bytes.Buffer
	// (Exit 2 for the corpus, or 3 where no Docker engine answers: either
	// way before any module, and the earlier run stays.)
	if code := run(&stdout, &stderr, []string{"bench", "--force", "--quiet", "--out", out, corpusFile}); code == exitOK || !files.Exists(runDir) {
		t.Errorf("--force with a bad corpus: exit %d, the earlier run kept: %v (%s)", code, files.Exists(runDir), stderr.String())
	}
	os.RemoveAll(filepath.Join(out, results.RunsDir))
	if over, err := checkBenchOut(&benchFlags{out: out}); err != nil || over {
		t.Errorf("an --out with no results: %v, %v", over, err)
	}
	if over, err := checkBenchOut(&benchFlags{out: filepath.Join(out, "new")}); err != nil || over {
		t.Errorf("a new --out: %v, %v", over, err)
	}
}

// TestBenchInfraFailures: modules whose runs failed outside the module make
// the bench exit 3, named (ten at most); none, no error.
func TestBenchInfraFailures(t *testing.T) {
	if err := infraFailures(nil, 5); err != nil {
		t.Errorf("no failure: %v", err)
	}
	var failed []string
	for _, m := range strings.Fields("a b c d e f g h i j k l") {
		failed = append(failed, "puppet-module-"+m)
	}
	err := infraFailures(failed, 20)
	var said bytes.Buffer
	if code := exitCode(&said, "fsmove bench", err); code != exitRun || strings.Count(said.String(), "\n") != 1 {
		t.Fatalf("error %v: exit %d, said %q; want exit 3 and one line", err, code, said.String())
	}
	msg := err.Error()
	for _, want := range []string{"12 of 20 modules", "puppet-module-a,", "puppet-module-j, and 2 more", "--resume runs them again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "puppet-module-k") {
		t.Errorf("message names more than ten modules: %q", msg)
	}
}

// TestForgeCorpusCommand: fsmove bench forge-corpus writes a corpus that
// fsmove bench reads, and says what it left out.
func TestForgeCorpusCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "forge.txt")
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"bench", "forge-corpus", "-o", out, "../../bench/corpus/testdata/forge-page.json"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(data), "\npuppetlabs-ntp@10.1.0\npuppetlabs-stdlib@9.6.0\n") || !strings.Contains(stderr.String(), "kept 2; left out 1 deprecated") {
		t.Errorf("corpus:\n%s\nstderr: %s", data, stderr.String())
	}
	if code := run(&stdout, &stderr, []string{"bench", "forge-corpus"}); code != exitUsage {
		t.Errorf("no page: exit %d, want 2", code)
	}
}
