// Package merge puts back together the output directories of a corpus
// benched in shares (fsmove bench --shard I/N on several machines): one
// table, findings and figures, as one unsharded bench would have written
// them (timings aside), from the parts' run directories, after checking
// that the parts were made alike.
package merge

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fsmove/fsmove/bench/results"
)

// Merged is what the parts hold together.
type Merged struct {
	// Rows are the modules' rows in corpus order, one per module that has
	// a result in some part.
	Rows []results.Row
	// RunDirs are the run directories the rows come from, by module.
	RunDirs map[string]string
	// Missing are the corpus's modules that no part has a result for.
	Missing []string
	// Provenance is the first part's, for the whole corpus.
	Provenance results.Provenance
}

// ErrMixed is wrapped by Read's error when parts were made differently.
var ErrMixed = errors.New("the parts were not made alike")

// Read reads the parts (bench output directories, each with its
// bench.json) and merges them. Parts made by another fsmove, image, suite,
// tracer or init, or from another corpus, are refused (ErrMixed, naming
// each difference) unless allowMixed; a module with a result in two parts
// that differ (timings aside) is refused whatever allowMixed says.
func Read(parts []string, allowMixed bool) (*Merged, error) {
	if len(parts) == 0 {
		return nil, errors.New("no part to merge")
	}
	provs := make([]results.Provenance, len(parts))
	for i, dir := range parts {
		if err := results.ReadJSONFile(dir, results.ProvenanceJSON, &provs[i]); err != nil {
			return nil, fmt.Errorf("%s: not the output of fsmove bench (%s): %w", dir, results.ProvenanceJSON, err)
		}
	}
	if diffs := differences(parts, provs); len(diffs) > 0 && !allowMixed {
		return nil, fmt.Errorf("%w: %s", ErrMixed, strings.Join(diffs, "; "))
	}
	m := &Merged{RunDirs: map[string]string{}, Provenance: provs[0]}
	m.Provenance.Shard, m.Provenance.Parts = "", parts
	for _, p := range provs[1:] { // the whole: from the first start to the last end
		if p.Started.Before(m.Provenance.Started) {
			m.Provenance.Started = p.Started
		}
		if p.Finished.After(m.Provenance.Finished) {
			m.Provenance.Finished = p.Finished
		}
	}
	for _, mod := range provs[0].CorpusModules {
		var row *results.Row
		for _, dir := range parts {
			runDir := filepath.Join(dir, results.RunsDir, mod.Key)
			r, err := results.FromRunDir(mod.Key, mod.Version, runDir)
			if err != nil {
				continue // not run in this part (another share), or not finished
			}
			if row == nil {
				row, m.RunDirs[mod.Key] = &r, runDir
				continue
			}
			if !sameResult(*row, r) {
				return nil, fmt.Errorf("%s has two different results: in %s (%s, %d MOR, %d MN) and in %s (%s, %d MOR, %d MN)",
					mod.Key, m.RunDirs[mod.Key], row.Status, row.MOR, row.MN, runDir, r.Status, r.MOR, r.MN)
			}
		}
		if row == nil {
			m.Missing = append(m.Missing, mod.Key)
			continue
		}
		m.Rows = append(m.Rows, *row)
	}
	m.Provenance.Modules = len(m.Rows)
	return m, nil
}

// differences are the ways parts were made unlike the first, one line
// each: "fsmove: v1 in a, v2 in b".
func differences(parts []string, provs []results.Provenance) []string {
	fields := []struct {
		name string
		get  func(p results.Provenance) string
	}{
		{"fsmove", func(p results.Provenance) string { return p.FsmoveVersion }},
		{"image", func(p results.Provenance) string { return p.ImageID }},
		{"suite", func(p results.Provenance) string { return p.Suite }},
		{"tracer", func(p results.Provenance) string { return p.Tracer }},
		{"init", func(p results.Provenance) string { return p.Init }},
		{"corpus", func(p results.Provenance) string { return p.CorpusSHA256 }},
	}
	var out []string
	for _, f := range fields {
		for i := 1; i < len(provs); i++ {
			if a, b := f.get(provs[0]), f.get(provs[i]); a != b {
				out = append(out, fmt.Sprintf("%s: %q in %s, %q in %s", f.name, a, parts[0], b, parts[i]))
			}
		}
	}
	return out
}

// sameResult reports whether two rows of one module say the same, but for
// how long things took.
func sameResult(a, b results.Row) bool {
	for _, r := range []*results.Row{&a, &b} {
		r.PuppetUntracedS, r.PuppetTracedS, r.AnalysisS, r.PeakMemBytes, r.ConfirmS = 0, 0, 0, 0, 0
	}
	return a == b
}
