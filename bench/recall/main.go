// Command recall is make bench-recall: a planted-fault suite (docs/DESIGN.md,
// "Recall"). For each module of a corpus that applies, it removes one at a
// time each relationship the module writes between two resources it
// declares (a require, before, notify or subscribe metaparameter, or a
// chain arrow: removing it plants a missing ordering, or a missing
// notifier), and weakens each notification to an ordering (~> written ->:
// a missing notifier of a pair still ordered), runs fsmove on the mutant,
// and counts what fsmove reports:
//
//   - planted: the mutant's catalog leaves the pair unordered (for a
//     notifier: not notified; weakened: not notified, still ordered), and
//     the two resources met on a file in the module's own run (one of them
//     made it): found when fsmove shows a finding of the pair with the kind
//     the mutant plants (MOR for an ordering, MN for a notifier), held when
//     it holds one back, missed when it says nothing of the pair;
//   - harmless: the pair is left unordered but the resources met on no
//     file: fsmove must not report it;
//   - still ordered: Puppet orders (or notifies) the pair another way
//     (another relationship, an autorequire): nothing was planted.
//
// The edits are fix.Plant's, placed by Puppet's parser; a relationship it
// cannot place (made by a function or a collector, an arrow inside a chain
// of references) is listed as not mutated.
//
// Usage: go run ./bench/recall [flags] CORPUS. CORPUS is a corpus file of
// fsmove bench (module directories and deb:puppet-module-… packages, whose
// module is copied out of the image's Debian module packages).
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fsmove/fsmove/bench/corpus"
	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/fstrace/interp"
	"github.com/fsmove/fsmove/puppet/analyze"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/fix"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/fsmove/fsmove/tracer/strace"
)

func main() {
	fsmove := flag.String("fsmove", "bin/fsmove", "the fsmove binary to measure")
	out := flag.String("out", "/tmp/fsmove-recall", "directory of the runs (the module's and each mutant's)")
	results := flag.String("results", "", "write the table here as CSV (and a summary beside it, .md)")
	max := flag.Int("max", 0, "at most this many relationships of a module, the first in the catalog's order (0: all)")
	suite := flag.String("suite", container.DefaultSuite, "the Debian suite every module runs on (fsmove run --suite), whatever its metadata.json asks, as fsmove bench does")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: recall [flags] CORPUS\n\nPlant a fault per relationship each module writes, run fsmove on each mutant, count what it finds.")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	entries, err := corpus.ParseFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "recall:", err)
		os.Exit(2)
	}
	h := &harness{fsmove: *fsmove, out: *out, suite: *suite, max: *max}
	var rows []row
	for _, e := range entries {
		rs, err := h.module(context.Background(), e)
		if err != nil {
			fmt.Fprintf(os.Stderr, "recall: %s: %v\n", e.Spec, err)
			rows = append(rows, row{Module: e.Key, Outcome: "module-error", Note: err.Error()})
			continue
		}
		rows = append(rows, rs...)
	}
	if h.eng != nil {
		// A clean end of the session: its reaper exits at once, instead
		// of looking for leftovers 65 s after the process is gone.
		h.eng.Close()
	}
	sum := summarize(rows)
	fmt.Print(sum)
	if *results != "" {
		if err := writeCSV(*results, rows); err != nil {
			fmt.Fprintln(os.Stderr, "recall:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(strings.TrimSuffix(*results, ".csv")+".md", []byte(sum), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "recall:", err)
			os.Exit(1)
		}
	}
}

// row is one relationship of one module and what its removal gave.
type row struct {
	Module       string
	Relationship relationship
	// Outcome: found, other-kind, held, missed (planted); harmless,
	// harmless-reported; still-ordered; not-mutated; mutant-error;
	// module-error.
	Outcome string
	Note    string
	Edit    string // what the mutant changed, as fix.Plant's edits say it
}

type harness struct {
	fsmove, out, suite string
	max                int // relationships tried per module, 0 all
	eng                *container.Engine
}

// located is a module's manifests and what Puppet's parser found in them,
// by the names the catalog gives them: root (the module's directory in the
// container) and the file's path in the module.
type located struct {
	sources map[string]*fix.Source
	root    string
}

// module runs e, then each of its mutants.
func (h *harness) module(ctx context.Context, e corpus.Entry) ([]row, error) {
	dir := filepath.Join(h.out, e.Key)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	src, err := e.CopyModule(ctx, "fsmove/puppet:"+h.suite, filepath.Join(dir, "src"))
	if err != nil {
		return nil, err
	}
	base := filepath.Join(dir, "base")
	if err := h.run(ctx, e, src, base); err != nil {
		return nil, err
	}
	cat, g, err := readCatalog(base)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(src)
	rels := relationships(cat, g, moduleRootIn(name))
	meets, err := meetings(base, cat, g)
	if err != nil {
		return nil, err
	}
	loc, err := h.locate(ctx, src)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "recall: %s: %d relationships\n", e.Key, len(rels))
	if h.max > 0 && len(rels) > h.max {
		rels = rels[:h.max]
	}
	var rows []row
	for i, rel := range rels {
		r := row{Module: e.Key, Relationship: rel}
		r.Outcome, r.Note, r.Edit = h.mutant(ctx, e, src, filepath.Join(dir, "mutant-"+strconv.Itoa(i+1)), rel, cat, loc, meets)
		fmt.Fprintf(os.Stderr, "recall: %s: %s: %s %s\n", e.Key, rel, r.Outcome, r.Note)
		rows = append(rows, r)
	}
	return rows, nil
}

// locate asks Puppet's parser where the module at src declares its
// resources and writes its arrows (fix.Locate, in a container of the
// suite's image).
func (h *harness) locate(ctx context.Context, src string) (*located, error) {
	texts, err := fix.ModuleManifests(src, time.Time{})
	if err != nil {
		return nil, err
	}
	loc := &located{sources: map[string]*fix.Source{}, root: moduleRootIn(filepath.Base(src))}
	named := map[string][]byte{}
	for path, text := range texts {
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return nil, err
		}
		named[filepath.Join(loc.root, rel)] = text
	}
	if h.eng == nil {
		if h.eng, err = container.Connect(ctx); err != nil {
			return nil, err
		}
	}
	found, err := fix.Locate(ctx, h.eng, container.SuiteImage(h.suite), named)
	if err != nil {
		return nil, err
	}
	for name, text := range named {
		loc.sources[name] = &fix.Source{Text: text, Manifest: found[name]}
	}
	return loc, nil
}

// mutant plants rel's removal or weakening (fix.Plant) in a copy of src,
// runs it and says what fsmove made of it, and what the edit was.
func (h *harness) mutant(ctx context.Context, e corpus.Entry, src, dir string, rel relationship, cat *catalog.Catalog, loc *located, meets map[[2]string]bool) (outcome, note, edit string) {
	first, ok1 := cat.Lookup(rel.Before)
	then, ok2 := cat.Lookup(rel.After)
	if !ok1 || !ok2 {
		return "mutant-error", "the pair is not in the module's catalog", ""
	}
	edits, err := fix.Plant(loc.sources, first, then, rel.Notify, rel.Planting)
	if err != nil {
		return "not-mutated", err.Error(), ""
	}
	var says []string
	for _, e := range edits {
		if e.Says != "" {
			says = append(says, e.Says)
		}
	}
	edit = strings.Join(says, "; ")
	edited, err := fix.Apply(edits, loc.sources)
	if err != nil {
		return "mutant-error", err.Error(), edit
	}
	mod := filepath.Join(dir, "src", filepath.Base(src))
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return "mutant-error", err.Error(), edit
	}
	if out, err := exec.CommandContext(ctx, "cp", "-a", src+"/.", mod+"/").CombinedOutput(); err != nil {
		return "mutant-error", strings.TrimSpace(string(out)), edit
	}
	for name, text := range edited {
		if err := os.WriteFile(filepath.Join(mod, strings.TrimPrefix(name, loc.root+"/")), text, 0o644); err != nil {
			return "mutant-error", err.Error(), edit
		}
	}
	outcome, note = h.judge(ctx, e, mod, dir, rel, meets)
	return outcome, note, edit
}

// judge runs the mutant mod and says what fsmove made of rel's planting.
func (h *harness) judge(ctx context.Context, e corpus.Entry, mod, dir string, rel relationship, meets map[[2]string]bool) (outcome, note string) {
	run := filepath.Join(dir, "run")
	if err := h.run(ctx, e, mod, run); err != nil {
		return "mutant-error", err.Error()
	}
	cat, g, err := readCatalog(run)
	if err != nil {
		return "mutant-error", err.Error()
	}
	before, ok1 := cat.Lookup(rel.Before)
	after, ok2 := cat.Lookup(rel.After)
	if !ok1 || !ok2 {
		return "mutant-error", "the pair is not in the mutant's catalog"
	}
	switch {
	case rel.Planting == fix.Weaken && g.Notifies(before, after):
		return "still-ordered", "still notified"
	case rel.Planting == fix.Weaken && !g.Ordered(before, after):
		return "mutant-error", "weakened, the pair is no longer ordered"
	case rel.Planting == fix.Remove && g.Ordered(before, after) && (rel.Kind() == "MOR" || g.Notifies(before, after)):
		return "still-ordered", ""
	}
	kinds, held, err := reported(run, rel.Before, rel.After)
	if err != nil {
		return "mutant-error", err.Error()
	}
	if !meets[pairKey(rel.Before, rel.After)] {
		if len(kinds) > 0 {
			return "harmless-reported", strings.Join(kinds, ",")
		}
		return "harmless", ""
	}
	switch {
	case slices.Contains(kinds, rel.Kind()):
		return "found", ""
	case len(kinds) > 0:
		return "other-kind", strings.Join(kinds, ",")
	case held != "":
		return "held", held
	}
	// Why it was missed: whether the two still met in the mutant's own
	// run (a refreshonly Exec that nothing notifies no longer runs).
	if m, err := meetings(run, cat, g); err == nil && !m[pairKey(rel.Before, rel.After)] {
		return "missed", "they met on no file in the mutant's run"
	}
	return "missed", ""
}

// run runs fsmove on module directory mod into out, with e's class,
// parameters and setup, and its report as JSON with the held-back pairs
// (findingsOf). A module that Puppet could not apply is an error.
func (h *harness) run(ctx context.Context, e corpus.Entry, mod, out string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	// --allow-unobserved: a daemon that did not run is the module's
	// business here, not a reason to stop. An incomplete analysis (events
	// lost, a trace cut) is not allowed: it would judge a mutant on less
	// than its run, so it is an error of that mutant.
	args := []string{"run", "--quiet", "--no-config", "--suite", h.suite, "--out", out, "--all", "--allow-unobserved",
		"--format", "json", "-o", findingsOf(out)}
	args = append(args, e.RunFlags()...)
	args = append(args, mod)
	cmd := exec.CommandContext(ctx, h.fsmove, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return fmt.Errorf("fsmove run %s: %v: %s", mod, err, lastLine(stderr.String()))
	}
	return nil
}

// findingsOf is where run writes the report of the run in out.
func findingsOf(out string) string { return out + "-findings.json" }

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// readCatalog reads the catalog of a run directory, with Puppet's own
// graph of the apply when it is there (which names the resources made at
// apply time, and their generators).
func readCatalog(run string) (*catalog.Catalog, *catalog.Graph, error) {
	c, err := catalog.ReadFile(filepath.Join(run, runner.CatalogFile))
	if err != nil {
		return nil, nil, err
	}
	if f, err := os.Open(filepath.Join(run, runner.GraphsDir, runner.ExpandedGraph)); err == nil {
		err = c.AddPuppetGraph(f)
		f.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	g, err := c.Graph()
	var cycle *catalog.CycleError
	if err != nil && !errors.As(err, &cycle) {
		return nil, nil, err
	}
	return c, g, nil
}

func pairKey(a, b string) [2]string {
	a, b = normRef(a), normRef(b)
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// meetings returns the pairs of resources that met on a file in the run:
// one of them made it (a production) and the other touched it. A systemd
// unit's block is the Service whose work it is (by systemd's names of the
// unit, units.txt, as the analysis decides); a resource made at apply time
// (a recursive File's) is its generator.
func meetings(run string, cat *catalog.Catalog, g *catalog.Graph) (map[[2]string]bool, error) {
	var units *detector.Units
	if f, err := os.Open(filepath.Join(run, runner.UnitsFile)); err == nil {
		units, _, err = detector.ParseUnits(f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	dg := detector.CatalogGraph(cat, g)
	r, err := strace.Open(filepath.Join(run, runner.TraceFile), analyze.ReaderOptions(false))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res, err := analyze.Interpret(context.Background(), r, &analyze.TraceCounts{}, nil, nil)
	if err != nil && res == nil {
		return nil, err
	}
	names := make([]string, len(res.Blocks))
	for i, b := range res.Blocks {
		names[i] = b
		if unit, ok := interp.BlockUnit(b); ok {
			if s := detector.UnitResource(dg, units, unit); s != nil {
				names[i] = s.Ref()
			}
		} else if _, ok := cat.Lookup(b); !ok {
			if gen, ok := cat.Generator(b); ok {
				names[i] = gen.Ref()
			}
		}
	}
	meets := map[[2]string]bool{}
	for _, pa := range res.Paths {
		for _, x := range pa.Accesses {
			if !x.Produced || int(x.Block) >= len(names) || x.Block < 0 {
				continue
			}
			for _, y := range pa.Accesses {
				if y.Block != x.Block && y.Block >= 0 && int(y.Block) < len(names) && names[x.Block] != names[y.Block] {
					meets[pairKey(names[x.Block], names[y.Block])] = true
				}
			}
		}
	}
	return meets, nil
}

// reported returns the kinds of the findings fsmove showed for the pair
// (either way: MOR too for an MN that says the pair is unordered), and the
// rule and reason of one it held back ("RULE: reason").
func reported(run, a, b string) (kinds []string, held string, err error) {
	data, err := os.ReadFile(findingsOf(run))
	if err != nil {
		return nil, "", err
	}
	var rep struct {
		Findings []struct {
			Kind       string `json:"kind"`
			Unordered  bool   `json:"unordered"`
			HeldBack   bool   `json:"held_back"`
			HeldRule   string `json:"held_rule"`
			HeldReason string `json:"held_reason"`
			Producer   struct {
				Ref string `json:"ref"`
			} `json:"producer"`
			Consumer struct {
				Ref string `json:"ref"`
			} `json:"consumer"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, "", fmt.Errorf("%s: %w", run, err)
	}
	want := pairKey(a, b)
	for _, f := range rep.Findings {
		if pairKey(f.Producer.Ref, f.Consumer.Ref) != want {
			continue
		}
		if f.HeldBack {
			if held == "" {
				held = f.HeldReason
				if held == "" {
					held = "held back"
				}
				if f.HeldRule != "" {
					held = f.HeldRule + ": " + held
				}
			}
			continue
		}
		if !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
		// An MN that says its pair is unordered too reports the missing
		// order as well (~> fixes both).
		if f.Kind == "MN" && f.Unordered && !slices.Contains(kinds, "MOR") {
			kinds = append(kinds, "MOR")
		}
	}
	return kinds, held, nil
}

// summarize prints found / planted by kind, and the harmless removals
// reported.
func summarize(rows []row) string {
	var b strings.Builder
	// A row of the table: MOR (an ordering removed, or a notification of
	// what a refresh does not change), MN (a notification removed), MN
	// weakened (~> written ->), or all.
	kinds := []struct {
		label string
		is    func(relationship) bool
	}{
		{"MOR", func(r relationship) bool { return r.Kind() == "MOR" }},
		{"MN", func(r relationship) bool { return r.Kind() == "MN" && r.Planting == fix.Remove }},
		{"MN, weakened to an ordering", func(r relationship) bool { return r.Kind() == "MN" && r.Planting == fix.Weaken }},
		{"all", func(relationship) bool { return true }},
	}
	count := func(is func(relationship) bool, outcomes ...string) int {
		n := 0
		for _, r := range rows {
			if is(r.Relationship) && slices.Contains(outcomes, r.Outcome) {
				n++
			}
		}
		return n
	}
	all := kinds[len(kinds)-1].is
	planted := []string{"found", "other-kind", "held", "missed"}
	fmt.Fprintf(&b, "| kind | planted | found | other kind | held back | missed |\n|---|---|---|---|---|---|\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", k.label, count(k.is, planted...), count(k.is, "found"), count(k.is, "other-kind"), count(k.is, "held"), count(k.is, "missed"))
	}
	fmt.Fprintf(&b, "\nharmless removals: %d, of them reported: %d; still ordered (or notified) another way: %d; not mutated: %d; errors: %d\n",
		count(all, "harmless", "harmless-reported"), count(all, "harmless-reported"), count(all, "still-ordered"), count(all, "not-mutated"),
		count(all, "mutant-error", "module-error"))
	for _, r := range rows {
		switch r.Outcome {
		case "module-error":
			fmt.Fprintf(&b, "- %s: %s %s\n", r.Module, r.Outcome, r.Note)
		case "other-kind", "held", "missed", "harmless-reported", "mutant-error":
			fmt.Fprintf(&b, "- %s: %s: %s %s\n", r.Module, r.Relationship, r.Outcome, r.Note)
		}
	}
	return b.String()
}

func writeCSV(path string, rows []row) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"module", "holder", "param", "other", "file", "line", "planting", "kind", "outcome", "note", "edit"})
	for _, r := range rows {
		rel := r.Relationship
		w.Write([]string{r.Module, rel.Holder, rel.Param, rel.Other, rel.File, strconv.Itoa(rel.Line), rel.Planting.String(), rel.Kind(), r.Outcome, r.Note, r.Edit})
	}
	w.Flush()
	return errors.Join(w.Error(), f.Close())
}
