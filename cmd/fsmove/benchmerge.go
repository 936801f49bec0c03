package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fsmove/fsmove/bench/merge"
	"github.com/fsmove/fsmove/bench/report"
	"github.com/fsmove/fsmove/bench/results"
	"github.com/spf13/cobra"
)

var benchMergeHelp = help{
	synopsis: `fsmove bench merge --out DIR [--allow-mixed] [--force] SHARD_DIR...`,
	description: `
Put together the output directories of a corpus benched in shares
(fsmove bench --shard I/N, on one machine or many): DIR gets results.csv,
results.json, results.html, findings.csv and the figures, as one bench of the
whole corpus would have written them (timings aside), and DIR/runs links to
each module's run directory in its part. Parts made by another fsmove, image,
suite, tracer or init, or from another corpus, are refused (each difference
named) unless --allow-mixed; a module with two different results is refused.
Modules of the corpus that no part has a result for are named (exit 3).`,
	examples: []example{
		{"fsmove bench merge --out all part-1 part-2 part-3", "three shares of one corpus"},
	},
	groups: []flagGroup{{"Flags", []string{"out", "allow-mixed", "force"}}},
	exit: `Exit status:
  0  every module of the corpus has its row
  2  usage error, parts not made alike, a module with two results, or DIR
     holds results (--force replaces them)
  3  some modules of the corpus have a result in no part (named)
`,
	more: `More: README.md ("Corpus files").`,
}

// benchMergeFlags are fsmove bench merge's flags.
type benchMergeFlags struct {
	out        string
	allowMixed bool
	force      bool
}

func newBenchMergeCmd(c *cli) *cobra.Command {
	var f benchMergeFlags
	cmd := &cobra.Command{
		Use:   "merge",
		Short: "put together the output directories of a corpus benched in shares",
	}
	fs := cmd.Flags()
	fs.StringVar(&f.out, "out", "", "output `DIR` (required)")
	fs.BoolVar(&f.allowMixed, "allow-mixed", false, "merge parts made by another fsmove, image, suite, tracer, init or corpus")
	fs.BoolVar(&f.force, "force", false, "replace the results DIR holds")
	setHelp(cmd, benchMergeHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runBenchMerge(c.stdout, c.stderr, args, &f)
	}
	return cmd
}

func runBenchMerge(stdout, stderr io.Writer, parts []string, f *benchMergeFlags) error {
	if f.out == "" || len(parts) == 0 {
		return usagef("give --out DIR and the shards' output directories")
	}
	for i, p := range parts {
		abs, err := filepath.Abs(p)
		if err != nil {
			return usageError{err}
		}
		parts[i] = abs
	}
	startOver, err := checkBenchOut(&benchFlags{out: f.out, force: f.force})
	if err != nil {
		return err
	}
	m, err := merge.Read(parts, f.allowMixed)
	if err != nil {
		return usageError{err}
	}
	runs := filepath.Join(f.out, results.RunsDir)
	if startOver {
		if err := os.RemoveAll(runs); err != nil { // links to the earlier parts' runs
			return usageError{err}
		}
	}
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return usageError{err}
	}
	for _, r := range m.Rows {
		if err := os.Symlink(m.RunDirs[r.Module], filepath.Join(runs, r.Module)); err != nil {
			return runError{err}
		}
	}
	title := fmt.Sprintf("fsmove bench: %s (%d parts)", filepath.Base(m.Provenance.Corpus), len(parts))
	if err := report.WriteFiles(f.out, title, m.Rows, &m.Provenance); err != nil {
		return runError{err}
	}
	if err := results.WriteJSONFile(f.out, results.ProvenanceJSON, m.Provenance); err != nil {
		return runError{err}
	}
	report.Summary(stdout, m.Rows, 5)
	fmt.Fprintf(stdout, "merged %d parts: %d modules; results in %s\n", len(parts), len(m.Rows), filepath.Join(f.out, "results.html"))
	if n := len(m.Missing); n > 0 {
		return runError{fmt.Errorf("%d of the corpus's %d modules have a result in no part: %s", n, len(m.Provenance.CorpusModules), someModules(m.Missing))}
	}
	return nil
}
