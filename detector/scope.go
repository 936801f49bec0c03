package detector

import (
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// Scope is the code under test: the manifest files and directories whose
// resources a module's author can fix. A finding counts only when one of
// its resources is declared in it; findings wholly inside the code it
// uses (its dependencies) are set aside (Report.InDependencies), so that
// a gate on a module is not failed by another module's faults.
type Scope struct {
	// Roots are manifest files or directories, as the catalog's resources
	// name their files (after analyze's path mapping). A resource is in
	// scope when its file is a root or lies under one.
	Roots []string
}

// holds reports whether res is declared in the code under test. A
// resource whose file the catalog does not give is taken as in scope: a
// fault hidden for want of a file name is worse than one shown.
func (s *Scope) holds(res *catalog.Resource) bool {
	if res == nil || res.File == "" {
		return true
	}
	for _, root := range s.Roots {
		root = strings.TrimSuffix(root, "/")
		if res.File == root || strings.HasPrefix(res.File, root+"/") {
			return true
		}
	}
	return false
}

// inScope reports whether f counts for the code under test: one of its
// resources is declared there.
func (s *Scope) inScope(f *Finding) bool {
	return s.holds(f.Producer) || s.holds(f.Consumer)
}

// setAside moves the findings wholly outside s from rep.Findings to
// rep.InDependencies, keeping the order of both.
func (s *Scope) setAside(rep *Report) {
	kept := rep.Findings[:0]
	for _, f := range rep.Findings {
		if s.inScope(&f) {
			kept = append(kept, f)
		} else {
			rep.InDependencies = append(rep.InDependencies, f)
		}
	}
	clear(rep.Findings[len(kept):])
	rep.Findings = kept
}

// DependencyFaults is the number of findings set aside as wholly inside
// dependencies that would count as faults (neither waived nor held back).
func (r *Report) DependencyFaults() int { return reported(r.InDependencies) }
