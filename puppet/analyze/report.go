package analyze

import (
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// Puppet's report (last_run_report.yaml) says which resources Puppet failed
// and skipped, and the coverage makes each of them a reason the analysis is
// incomplete. But the report is copied out of the container, where a
// process the module left behind can rewrite it after Puppet wrote it: a
// skipped resource called applied would pass as checked. The trace says
// the same things from what only Puppet's own process writes (its markers:
// puppet.Marker), out of the module's reach with eBPF: a resource Puppet
// evaluated has a block, one it failed has an error line. So the trace wins:
// a resource the report calls applied that the trace never saw evaluated
// is skipped, one the trace saw fail is failed, and each disagreement is
// counted in a warning.

// reconcileReport returns the report's statuses corrected by the trace
// (res) and the references the two disagree on. A leaf resource of the
// catalog that is in neither (the report lost its entry) counts as skipped
// too. A nil report (none was written or copied) is the trace's word alone.
func reconcileReport(statuses []catalog.ResourceStatus, res *interp.Result, g *catalog.Graph) ([]catalog.ResourceStatus, []string) {
	cat := g.Catalog()
	evaluated := map[*catalog.Resource]bool{}
	for _, name := range res.Blocks {
		if r, ok := cat.Lookup(name); ok {
			evaluated[r] = true
		}
	}
	failed := map[*catalog.Resource]bool{}
	for _, f := range res.Failures {
		if int(f.Block) < len(res.Blocks) {
			if r, ok := cat.Lookup(res.Blocks[f.Block]); ok {
				failed[r] = true
			}
		}
	}
	out := slices.Clone(statuses)
	var disagree []string
	seen := map[*catalog.Resource]bool{}
	for i := range out {
		st := &out[i]
		r, ok := cat.Lookup(st.Ref)
		if !ok || unmarked(st.Ref) {
			continue // Schedule[daily], Filebucket[puppet]: Puppet's own
		}
		seen[r] = true
		switch {
		case failed[r] && !st.Failed:
			st.Failed, st.Skipped = true, false
			disagree = append(disagree, st.Ref+" (failed in the trace)")
		case !st.Failed && !st.Skipped && !evaluated[r]:
			st.Skipped = true
			disagree = append(disagree, st.Ref+" (never evaluated in the trace)")
		}
	}
	for _, r := range cat.Resources {
		if seen[r] || !leaf(r, g) || unmarked(r.Ref()) {
			continue
		}
		switch {
		case failed[r]:
			out = append(out, catalog.ResourceStatus{Ref: r.Ref(), Type: r.Type, Title: r.Title, File: r.File, Line: r.Line, Failed: true})
		case !evaluated[r]:
			out = append(out, catalog.ResourceStatus{Ref: r.Ref(), Type: r.Type, Title: r.Title, File: r.File, Line: r.Line, Skipped: true})
		default:
			continue
		}
		if statuses != nil {
			disagree = append(disagree, r.Ref()+" (not in the report)")
		}
	}
	return out, disagree
}

// leaf reports whether Puppet evaluates r itself, with a block and a
// status of its own in the report: not a class, stage or node, not an
// instance of a defined type (whose type has "::"; Puppet evaluates the
// resources it declares), nothing that contains other resources, not
// exported (@@: the agent does not apply it; saz-ssh's Sshkeys).
func leaf(r *catalog.Resource, g *catalog.Graph) bool {
	switch r.Type {
	case "Class", "Stage", "Node":
		return false
	}
	return !r.Exported && !strings.Contains(r.Type, "::") && !g.IsContainer(r)
}

// unmarked reports whether r's title has a line break: Puppet's marker
// lines cut it there, so its block cannot be told (mongodb's multi-line
// Notify), and the trace has no word on it.
func unmarked(ref string) bool { return strings.ContainsAny(ref, "\n\r") }
