package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/internal/words"
)

// What several formats say the same way, from the one model.

// check rejects a hand-built report that the writers cannot print (a
// finding or path without its resources) with an error instead of a panic.
func check(r *detector.Report) error {
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Producer == nil || f.Consumer == nil {
			return fmt.Errorf("report: finding %d has no producer or consumer", i)
		}
		for j := range f.Paths {
			if f.Paths[j].Producer == nil || f.Paths[j].Consumer == nil {
				return fmt.Errorf("report: finding %d path %q has no producer or consumer", i, f.Paths[j].Path)
			}
		}
	}
	return nil
}

// succeeded reports whether the run succeeded and the analysis covers all
// of it: what the machine formats call complete (JSON's complete, SARIF's
// executionSuccessful).
func succeeded(r *detector.Report) bool { return r.Complete() && r.RunFailure == nil }

// relFile is file relative to BasePath, and whether it is under it; a
// file outside it (another module's, Puppet's own) is returned as it is.
func relFile(r *detector.Report, file string) (string, bool) {
	if r.BasePath == "" || !filepath.IsAbs(file) {
		return file, false
	}
	rel, err := filepath.Rel(r.BasePath, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return file, false
	}
	return rel, true
}

// relText is a message with the manifest positions under BasePath written
// relative to it ("… (site/profile/manifests/init.pp:3)"), for the formats
// that a CI system shows with the repository's files.
func relText(r *detector.Report, s string) string {
	base := strings.TrimSuffix(r.BasePath, "/")
	if base == "" {
		return s // (a base of / would also be "")
	}
	return strings.ReplaceAll(s, base+"/", "")
}

// pairText is the finding's resources as the reports write them: "A -> B"
// (MOR), "A ~> B" (MN), "A <-> B" (NI, a fight) or "A" (NI, one resource).
func pairText(f *detector.Finding) string {
	switch {
	case f.Kind == detector.NI && f.Producer == f.Consumer:
		return f.Producer.Ref()
	case f.Kind == detector.NI:
		return f.Producer.Ref() + " <-> " + f.Consumer.Ref()
	case f.Kind == detector.MN:
		return f.Producer.Ref() + " ~> " + f.Consumer.Ref()
	}
	return f.Producer.Ref() + " -> " + f.Consumer.Ref()
}

// atLocation is " at file:line" after a resource's reference, or "" when
// the catalog does not say where it is declared.
func atLocation(res *catalog.Resource) string {
	if l := detector.FileLine(res); l != "" {
		return " at " + l
	}
	return ""
}

// runFailureText says why the run failed and what that means, for the reports,
// which say that the run failed before it: "Puppet exited with 6 (…)
// (run.json: status puppet-failed); the analysis covers only what the run
// did".
func runFailureText(f *detector.RunFailure) string {
	why := "(run.json: status " + f.Status + ")"
	if f.Error != "" {
		why = f.Error + " " + why
	}
	return why + "; the analysis covers only what the run did"
}

// warningText is "41 fds used but never opened in the trace (inherited)", with
// the first one when known, unescaped.
func warningText(w detector.InputWarning) string {
	s := fmt.Sprintf("%d %s", w.Count, w.Kind)
	if w.Example != "" {
		s += " (first: " + w.Example + ")"
	}
	return s
}

// groupIndex maps each of n findings to the index of its group, or -1.
func groupIndex(groups []detector.Group, n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = -1
	}
	for gi, g := range groups {
		for _, m := range g.Members {
			idx[m] = gi
		}
	}
	return idx
}

// dependencyNote is what every human report adds to its summary when
// findings were set aside: "1 finding in dependencies, not counted
// (--scope all lists them)"; "" when none would count.
func dependencyNote(r *detector.Report) string {
	n := r.DependencyFaults()
	if n == 0 {
		return ""
	}
	return words.Count(n, "finding") + " in dependencies, not counted (--scope all lists them)"
}
