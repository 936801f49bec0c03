package detector

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// CoverageInput is what a run knows of the work it could not observe
// (fsmove run; its Services only in systemd mode, where systemd's units
// are known): a clean report must mean "checked and
// found nothing", not "nothing happened that fsmove could see".
type CoverageInput struct {
	// UnmetConditions are the units whose start systemd skipped, by every
	// name, with the condition; Failed those whose start failed, with why
	// (runner's RunRecord).
	UnmetConditions, Failed map[string]string
	// Lifted are the units systemd started despite a condition a
	// container cannot meet, lifted for the trace, by every name, with
	// the conditions (runner's lift.go): their failure is expected.
	Lifted map[string]string
	// Resources are the statuses of Puppet's report of the apply: which
	// resources it failed or skipped (nil: not known).
	Resources []catalog.ResourceStatus
}

// Coverage says what the analysis checked: the Services whose daemon it
// saw at work, and the resources Puppet applied.
type Coverage struct {
	// Services are the catalog's Services that Puppet keeps running: a
	// missing notifier toward one shows only when a process of its unit
	// reads the files the others change.
	Services []ServiceCoverage `json:"services"`
	// Observed counts the Services observed.
	Observed int `json:"observed"`
	// Applied counts the resources Puppet applied; Failed and Skipped
	// (a dependency failed) are those it did not, whose work was not
	// checked. All three are nil/0 without Puppet's report.
	Applied int      `json:"applied"`
	Failed  []string `json:"failed,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
}

// ServiceCoverage is one Service: whether a process of its unit was seen
// in the trace and, when not, why (systemd's own record of the run).
type ServiceCoverage struct {
	Service  string `json:"service"`
	Observed bool   `json:"observed"`
	// Why is, for a Service not observed, why.
	Why string `json:"why,omitempty"`
	// Lifted says the daemon ran only because fsmove lifted a condition
	// of its unit that a container cannot meet, and that a later failure
	// of it is expected.
	Lifted string `json:"lifted,omitempty"`
}

// Unobserved lists the Services not observed, each with why.
func (c *Coverage) Unobserved() []ServiceCoverage {
	if c == nil {
		return nil
	}
	var out []ServiceCoverage
	for _, s := range c.Services {
		if !s.Observed {
			out = append(out, s)
		}
	}
	return out
}

// seeServices marks the Services whose unit's block accessed pa's path
// (unitServices: the Service of each unit block, nil for other blocks),
// unless the path is a unit file or a drop-in: systemd reads those for the
// unit when it loads it, even when it then skips the start, while any
// other access in a unit's block was made by a process of the unit (or by
// systemd for one it started).
func seeServices(observed map[*catalog.Resource]bool, unitServices []*catalog.Resource, pa *interp.PathAccesses) {
	if _, ok := interp.UnitOfFile(path.Base(path.Dir(pa.Path)), path.Base(pa.Path)); ok {
		return
	}
	for ai := range pa.Accesses {
		b := pa.Accesses[ai].Block
		if b >= 0 && int(b) < len(unitServices) && unitServices[b] != nil {
			observed[unitServices[b]] = true
		}
	}
}

// coverage accounts for the Services that ensure running (observed: see
// seeServices) and for the resources of
// Puppet's report.
func coverage(in *CoverageInput, g Graph, units *Units, observed map[*catalog.Resource]bool) *Coverage {
	c := &Coverage{Services: []ServiceCoverage{}}
	rg, ok := g.(ResourceGraph)
	if !ok || units == nil {
		rg = nil // without systemd's units, no process is a Service's
	}
	// The Services started despite a lifted condition, with it; and
	// those of them whose unit then failed, which is the lift's doing,
	// not the module's: Puppet's failure of them is expected.
	lifted, expected := map[string]string{}, map[string]bool{}
	if rg != nil {
		for _, r := range rg.Resources() {
			if unit, cond := unitOf(r, in.Lifted, g, units); r.IsService() && unit != "" {
				lifted[r.Ref()] = cond
				expected[r.Ref()] = expectedFailure(r, g, units, in.Lifted, in.Failed)
			}
		}
	}
	status := map[string]catalog.ResourceStatus{}
	for _, s := range in.Resources {
		status[s.Ref] = s
		switch {
		case s.Failed && !expected[s.Ref]:
			c.Failed = append(c.Failed, s.Ref)
		case s.Skipped:
			c.Skipped = append(c.Skipped, s.Ref)
		default:
			c.Applied++
		}
	}
	if rg == nil {
		return c
	}
	for _, r := range rg.Resources() {
		if !r.IsService() || !keptRunning(r) {
			continue
		}
		// A daemon whose start failed may have stopped before it read
		// what it reads on a host: not observed, unless it ran only
		// because of the lift, whose failure is expected once it has read
		// its configuration.
		failedUnit, failedWhy := unitOf(r, in.Failed, g, units)
		cond := lifted[r.Ref()]
		sc := ServiceCoverage{Service: r.Ref(), Observed: observed[r] && (failedUnit == "" || cond != "")}
		if cond != "" {
			sc.Lifted = "started despite " + cond + ", not met in a container"
			if failedUnit != "" {
				sc.Lifted += ": its later failure is expected"
			}
		}
		switch {
		case sc.Observed:
			c.Observed++
		case cond != "" && failedUnit != "":
			sc.Why = "started despite " + cond + ", but no process of " + failedUnit + " read a file before it failed: " + failedWhy
		default:
			sc.Why = notObservedWhy(r, status[r.Ref()], in, g, units)
		}
		c.Services = append(c.Services, sc)
	}
	slices.SortFunc(c.Services, func(a, b ServiceCoverage) int { return strings.Compare(a.Service, b.Service) })
	return c
}

// keptRunning: the Service's ensure is running (or true), so that its
// daemon runs after the apply and reads what the catalog wrote.
func keptRunning(r *catalog.Resource) bool {
	switch ensure := r.Params["ensure"].(type) {
	case string:
		return ensure == "running" || ensure == "true"
	case bool:
		return ensure
	}
	return false
}

// unitOf returns a unit of m that Service r manages, by any of its names,
// and its value; "" when none.
func unitOf(r *catalog.Resource, m map[string]string, g Graph, units *Units) (string, string) {
	for _, unit := range slices.Sorted(maps.Keys(m)) {
		if unitService(g, units, unit) == r {
			return unit, m[unit]
		}
	}
	return "", ""
}

// ExpectedFailures returns the resources Puppet failed (statuses) when
// every one of them is a Service whose failure the lift lets happen
// (expectedFailure): the run's apply then did what a host's would, and the
// runner calls it done. Otherwise, or when none failed, nil.
func ExpectedFailures(statuses []catalog.ResourceStatus, g Graph, units *Units, lifted, failed map[string]string) []string {
	var refs []string
	for _, st := range statuses {
		if !st.Failed {
			continue
		}
		r, ok := g.Lookup(st.Ref)
		if !ok || !expectedFailure(r, g, units, lifted, failed) {
			return nil
		}
		refs = append(refs, st.Ref)
	}
	return refs
}

// expectedFailure reports whether Service r's unit, by any of its names,
// was started despite a lifted condition (lifted) and then failed
// (failed): chronyd cannot set the clock in a container, and that is the
// lift's doing, not the module's.
func expectedFailure(r *catalog.Resource, g Graph, units *Units, lifted, failed map[string]string) bool {
	if !r.IsService() {
		return false
	}
	l, _ := unitOf(r, lifted, g, units)
	f, _ := unitOf(r, failed, g, units)
	return l != "" && f != ""
}

// notObservedWhy says why no process of Service r's unit was seen at
// work: what Puppet did with the resource, else what systemd says of the
// unit.
func notObservedWhy(r *catalog.Resource, st catalog.ResourceStatus, in *CoverageInput, g Graph, units *Units) string {
	switch {
	case st.Failed:
		return "Puppet failed to manage it"
	case st.Skipped:
		return "Puppet skipped it: a dependency failed"
	}
	if unit, why := unitOf(r, in.Failed, g, units); unit != "" {
		return unit + ": " + why
	}
	if unit, cond := unitOf(r, in.UnmetConditions, g, units); unit != "" {
		return unit + ": " + cond + " not met in the container: systemd skipped its start"
	}
	return "no process of its unit ran in the traced apply (systemd did not start it, or it started after the trace ended)"
}

// Lines says the coverage in sentences, the same in every format: how
// many Services were observed, each one not observed and why, and the
// resources Puppet did not apply.
func (c *Coverage) Lines() []string {
	if c == nil {
		return nil
	}
	lines := []string{"no Service that Puppet keeps running"}
	if len(c.Services) > 0 {
		lines[0] = fmt.Sprintf("observed %d of %d services that Puppet keeps running", c.Observed, len(c.Services))
	}
	for _, s := range c.Services {
		switch {
		case !s.Observed:
			lines = append(lines, "not observed: "+s.Service+" — "+s.Why)
		case s.Lifted != "":
			lines = append(lines, "observed: "+s.Service+" — "+s.Lifted)
		}
	}
	if c.Applied > 0 || len(c.Failed)+len(c.Skipped) > 0 {
		lines = append(lines, fmt.Sprintf("Puppet applied %d resource(s)", c.Applied))
	}
	if len(c.Skipped) > 0 {
		lines = append(lines, fmt.Sprintf("not checked: %d resource(s) Puppet skipped for a failed dependency: %s", len(c.Skipped), strings.Join(c.Skipped, ", ")))
	}
	if len(c.Failed) > 0 {
		lines = append(lines, fmt.Sprintf("not checked: %d resource(s) that failed: %s", len(c.Failed), strings.Join(c.Failed, ", ")))
	}
	return lines
}
