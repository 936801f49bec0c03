package merge

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/bench/results"
	"github.com/fsmove/fsmove/puppet/runner"
)

var corpus = []results.CorpusModule{{Key: "a", Version: "1.0"}, {Key: "b"}, {Key: "c"}, {Key: "d"}}

// part makes a bench output directory holding the given modules' finished
// runs (status by module) and its bench.json.
func part(t *testing.T, prov results.Provenance, statuses map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for key, status := range statuses {
		rec := &runner.RunRecord{Status: status}
		runDir := filepath.Join(dir, results.RunsDir, key)
		if err := os.MkdirAll(runDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := rec.Write(runDir); err != nil {
			t.Fatal(err)
		}
	}
	prov.CorpusModules = corpus
	if err := results.WriteJSONFile(dir, results.ProvenanceJSON, prov); err != nil {
		t.Fatal(err)
	}
	return dir
}

var made = results.Provenance{FsmoveVersion: "v1", ImageID: "sha256:1", Suite: "bookworm", Tracer: "ebpf", Init: "systemd", CorpusSHA256: "ab"}

func TestMergeShares(t *testing.T) {
	p1 := part(t, made, map[string]string{"a": runner.StatusOK, "c": runner.StatusPuppetFailed})
	p2 := part(t, made, map[string]string{"b": runner.StatusOK, "c": runner.StatusPuppetFailed}) // c in both, alike
	m, err := Read([]string{p1, p2}, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range m.Rows {
		got = append(got, r.Module+" "+r.Version+" "+r.Status)
	}
	if want := []string{"a 1.0 ok", "b  ok", "c  apply-failed"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q (corpus order)", got, want)
	}
	if !slices.Equal(m.Missing, []string{"d"}) || m.RunDirs["b"] != filepath.Join(p2, results.RunsDir, "b") || m.Provenance.Modules != 3 {
		t.Errorf("missing %v, run dirs %v, modules %d", m.Missing, m.RunDirs, m.Provenance.Modules)
	}
}

func TestMergeRefuses(t *testing.T) {
	other := made
	other.Tracer, other.CorpusSHA256 = "strace", "cd"
	p1 := part(t, made, map[string]string{"a": runner.StatusOK})
	p2 := part(t, other, map[string]string{"b": runner.StatusOK})
	_, err := Read([]string{p1, p2}, false)
	if !errors.Is(err, ErrMixed) || !strings.Contains(err.Error(), `tracer: "ebpf" in `+p1+`, "strace" in `+p2) || !strings.Contains(err.Error(), "corpus:") {
		t.Errorf("mixed parts: %v", err)
	}
	if _, err := Read([]string{p1, p2}, true); err != nil {
		t.Errorf("--allow-mixed: %v", err)
	}
	p3 := part(t, made, map[string]string{"a": runner.StatusPuppetFailed})
	if _, err := Read([]string{p1, p3}, true); err == nil || !strings.Contains(err.Error(), "a has two different results") {
		t.Errorf("a module with two results: %v", err)
	}
	if _, err := Read([]string{t.TempDir()}, false); err == nil || !strings.Contains(err.Error(), "not the output of fsmove bench") {
		t.Errorf("a directory without bench.json: %v", err)
	}
}
