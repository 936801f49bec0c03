package confirm

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/runner"
)

// morApply is the apply of a MOR finding with the other order forced: the
// entry manifest and a relationship that puts the consumer first, or,
// when the run already showed the consumer failing first (Observed), the
// producer first.
func morApply(name string, f *detector.Finding, entry runner.Entry) (*apply, error) {
	first, then := f.Consumer, f.Producer
	if f.Observed {
		first, then = f.Producer, f.Consumer
	}
	if first == nil || then == nil {
		return nil, fmt.Errorf("the finding does not name both resources")
	}
	entry.Append = ForcedOrder(first, then)
	return &apply{name: name, finding: f, entry: entry}, nil
}

// ForcedOrder is the Puppet code that applies first before then: a chaining
// arrow between two resource references, titles quoted as Puppet strings.
func ForcedOrder(first, then *catalog.Resource) string {
	return refCode(first) + " -> " + refCode(then)
}

// refCode writes a reference in manifest syntax: File['/etc/x'], with the
// title single-quoted (backslash and quote escaped).
func refCode(r *catalog.Resource) string {
	title := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(r.Title)
	return r.Type + "['" + title + "']"
}

// pathsOf lists a finding's paths.
func pathsOf(f *detector.Finding) []string {
	var paths []string
	for _, p := range f.Paths {
		paths = append(paths, p.Path)
	}
	return paths
}

// probeThen is the Then of a MOR or baseline apply: Puppet's errors and
// the state of paths after the apply.
func probeThen(a *apply, paths []string) func(ctx context.Context, n *runner.Node) error {
	return func(ctx context.Context, n *runner.Node) error {
		log, err := n.PuppetLog(ctx)
		if err != nil {
			return err
		}
		a.outcome.errors = runner.PuppetErrors(strings.NewReader(log), 200)
		a.outcome.states, err = probe(ctx, n, paths)
		return err
	}
}

// failureKey is what two of Puppet's error lines share when they report
// the same failure: the resource path of "Error: /Stage[main]/…/Exec[x]/
// returns: change from …" (messages hold times and temporary names), or
// the whole line.
func failureKey(line string) string {
	msg := strings.TrimPrefix(line, "Error: ")
	if strings.HasPrefix(msg, "/") {
		if i := strings.Index(msg, ": "); i > 0 {
			return msg[:i]
		}
	}
	return msg
}

// failures maps failure keys to their first error line.
func failures(lines []string) map[string]string {
	m := map[string]string{}
	for _, l := range lines {
		k := failureKey(l)
		if _, ok := m[k]; !ok {
			m[k] = l
		}
	}
	return m
}

// morVerdict compares the forced apply with the two baselines.
func morVerdict(f *detector.Finding, forced string, base1, base2, other outcome) detector.Confirmation {
	c := detector.Confirmation{Forced: forced}
	unknown := func(why string, evidence ...string) detector.Confirmation {
		c.Verdict, c.Why, c.Evidence = detector.Unknown, why, evidence
		return c
	}
	for _, b := range []outcome{base1, base2} {
		if b.err != nil {
			return unknown("the manifest as it is could not be applied: " + b.err.Error())
		}
	}
	if other.err != nil {
		return unknown(fmt.Sprintf("the apply with %s could not be made: %s", forced, other.err))
	}
	if other.status == runner.StatusCompileFailed {
		for _, l := range other.errors {
			if strings.Contains(l, "dependency cycle") {
				return unknown("forcing "+forced+" makes a dependency cycle", l)
			}
		}
		return unknown("Puppet could not compile the manifest with "+forced, other.errors...)
	}

	// Failures: new in the other order (in neither baseline), or gone
	// from it (in both baselines).
	f1, f2, fo := failures(base1.errors), failures(base2.errors), failures(other.errors)
	var evidence []string
	for _, k := range slices.Sorted(maps.Keys(fo)) {
		if _, ok := f1[k]; !ok {
			if _, ok := f2[k]; !ok {
				evidence = append(evidence, "new failure: "+fo[k])
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(f1)) {
		if _, ok := f2[k]; ok {
			if _, ok := fo[k]; !ok {
				evidence = append(evidence, "failure gone: "+f1[k])
			}
		}
	}
	if len(evidence) > 0 {
		c.Verdict, c.Why, c.Evidence = detector.Confirmed, "with "+forced+" Puppet's failures change", evidence
		return c
	}

	// State of the finding's paths that both resources write: a path the
	// consumer only reads (consumes, missing) does not end otherwise
	// because of this pair, whatever else the forced order moves (a third
	// resource that writes it), so it is not compared; the harm of a
	// reader in the wrong order shows as a failure.
	var unstable, readOnly []string
	compared, missed := 0, 0
	for _, pc := range f.Paths {
		p := pc.Path
		if pc.Relation == detector.Missed {
			missed++
		}
		if !consumerWrites(pc.Relation) {
			readOnly = append(readOnly, p)
			continue
		}
		s1, ok1 := base1.states[p]
		s2, ok2 := base2.states[p]
		so, oko := other.states[p]
		if !ok1 || !ok2 || !oko {
			continue
		}
		if !s1.Same(s2) {
			lines, ok := unstableLines(s1, s2)
			if !ok {
				unstable = append(unstable, fmt.Sprintf("unstable: %s is %s, then %s in two applies of the same manifest", p, s1, s2))
				continue
			}
			// Compared on the lines both plain applies agree on.
			unstable = append(unstable, fmt.Sprintf("%s: %d of its %d lines differ between two applies of the same manifest, compared without them", p, len(lines), len(s1.Lines)))
			compared++
			if diff := sameBut(s1, so, lines); diff != "" {
				evidence = append(evidence, fmt.Sprintf("%s: with %s, %s", p, forced, diff))
			}
			continue
		}
		compared++
		if !so.Same(s1) {
			evidence = append(evidence, fmt.Sprintf("%s: %s, with %s: %s", p, s1, forced, so))
		}
	}
	if len(evidence) > 0 {
		c.Verdict = detector.Confirmed
		c.Why = fmt.Sprintf("with %s, %d of the finding's paths end in another state", forced, len(evidence))
		c.Evidence = append(evidence, unstable...)
		return c
	}
	if compared == 0 && missed > 0 {
		// The consumer looked for the path and went on without it (an
		// onlyif test): in the other order it does something else, which
		// need be neither a failure nor one of the finding's paths.
		return unknown(fmt.Sprintf("with %s Puppet's failures do not change, and the consumer went on without %d of the finding's paths: what it does when it finds them is not among them", forced, missed), unstable...)
	}
	if compared == 0 && len(readOnly) > 0 && len(unstable) == 0 {
		c.Verdict = detector.Refuted
		c.Why = fmt.Sprintf("with %s Puppet's failures do not change, and the consumer only reads the finding's %d path(s)", forced, len(readOnly))
		return c
	}
	if compared == 0 {
		return unknown("no path the consumer writes is the same in two applies of the same manifest, and Puppet's failures do not change", unstable...)
	}
	c.Verdict = detector.Refuted
	outcome := "Puppet succeeds as it does without it"
	if len(fo) > 0 {
		outcome = "Puppet fails on the same resources as without it"
	}
	c.Why = fmt.Sprintf("with %s %s, and the finding's %d stable path(s) end in the same state", forced, outcome, compared)
	c.Evidence = unstable
	return c
}

// consumerWrites reports whether the consumer of a path with this relation
// writes it (so that the two orders can leave it otherwise).
func consumerWrites(r detector.Relation) bool {
	return r == detector.Modifies || r == detector.Overwrites || r == detector.Expunges
}
