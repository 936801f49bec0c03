package detector

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// Idempotence is what the NI rules read (fsmove run --idempotence): Puppet's
// own reports of the two applies of one catalog, and the traces of both,
// interpreted. A module converges when the second apply changes nothing;
// the report says what it changed, the traces say which files it wrote.
type Idempotence struct {
	// First and Second are the reports' resource statuses; First may be
	// nil (then the first trace's failures tell what failed first).
	First, Second []catalog.ResourceStatus
	// FirstTrace and SecondTrace are the interpreted traces; either may be
	// nil (findings then have no paths from that apply).
	FirstTrace, SecondTrace *interp.Result
	// TraceNames name the first and the second apply's traces as the
	// report shows them (Report.TraceNames): in a run directory,
	// puppet/runner's trace.log and second/trace.log.
	TraceNames [2]string
	// UnmetConditions are the systemd units whose start systemd skipped
	// in either apply, each with the condition it found unmet
	// ("chrony.service": "ConditionCapability=CAP_SYS_TIME"), from the
	// node's journal (systemd mode; nil otherwise).
	UnmetConditions map[string]string
}

// NIProblem is what makes a resource non-idempotent.
type NIProblem uint8

const (
	// UnguardedExec: an Exec without creates, unless, onlyif or
	// refreshonly, which runs on every apply.
	UnguardedExec NIProblem = iota
	// GuardedExecRuns: an Exec with a guard that still lets it run again.
	GuardedExecRuns
	// ChangesAgain: Puppet changed the resource again (a content made
	// anew on each apply: a timestamp, a random value).
	ChangesAgain
	// Fight: two resources write one path differently, each undoing the
	// other on every apply.
	Fight
	// FailsSecond: the resource failed in the second apply only.
	FailsSecond
	// ServiceStops: a Service that the second apply found stopped and
	// started again. Nothing in a converged catalog stops a service, so
	// it did not stay up after the first apply started it: its daemon
	// exited, or systemd did not start it (a Condition of its unit not
	// met). The fix is in why it stops, not in the manifest's content.
	ServiceStops
	// NotifyMessage: a Notify resource, which Puppet changes on every
	// apply by design (its message is always out of sync): every run
	// reports a change. A message for the person applying the module is
	// the warning() or notice() function's job, at compile time.
	NotifyMessage
)

var niProblemNames = [...]string{"unguarded-exec", "guarded-exec-runs", "changes-again", "fight", "fails-second", "service-stops", "notify-message"}

func (p NIProblem) String() string {
	if int(p) < len(niProblemNames) {
		return niProblemNames[p]
	}
	return "unknown"
}

// NonIdempotence is what an NI finding says beyond its resources and
// paths. In a Fight the finding's Producer and Consumer are the two
// resources, the Producer the one that wrote first in the second apply
// and the Consumer the one that overwrote it; otherwise both are the one
// resource. A path's producer
// evidence is from the second apply's trace; its consumer evidence is the
// other resource's write in the second apply (Fight) or the resource's own
// write in the first apply.
type NonIdempotence struct {
	Problem NIProblem
	// Changes are the second apply's events of the resource (of the
	// Producer, in a Fight), OtherChanges those of the Consumer in a Fight.
	Changes      []catalog.ResourceEvent
	OtherChanges []catalog.ResourceEvent
	// Error is Puppet's message of the failure (FailsSecond).
	Error string
}

// execGuards are the Exec parameters that keep it from running again.
var execGuards = []string{"creates", "unless", "onlyif", "refreshonly"}

// writes are the paths each resource wrote in one apply's trace (content,
// not only metadata), with the write, filtered as Detect filters.
type writes map[*catalog.Resource]map[string]interp.Evidence

func resourceWrites(res *interp.Result, g Graph, filter *Filter) writes {
	out := writes{}
	if res == nil {
		return out
	}
	gen, _ := g.(GeneratorGraph)
	byBlock := make([]*catalog.Resource, len(res.Blocks))
	for i, name := range res.Blocks {
		if r, _ := blockResource(g, gen, name); r != nil && !isContainer(g, r) {
			byBlock[i] = r
		}
	}
	for _, pa := range res.Paths {
		if filter.Match(pa.Path) {
			continue
		}
		for _, a := range pa.Accesses {
			if a.Block < 0 || int(a.Block) >= len(byBlock) || byBlock[a.Block] == nil || !a.Produced || !a.ContentProduced || pa.IsDir {
				continue
			}
			r := byBlock[a.Block]
			if out[r] == nil {
				out[r] = map[string]interp.Evidence{}
			}
			if _, seen := out[r][pa.Path]; !seen {
				out[r][pa.Path] = a.ProducedBy
			}
		}
	}
	return out
}

// idempotenceFindings are the NI findings: one per resource that the
// second apply changed or failed (failed in it only), one per pair of such
// resources that wrote a path in common instead (a fight). A resource the
// catalog does not name is counted in unknown.
func idempotenceFindings(in *Idempotence, g Graph, units *Units, filter *Filter) (out []Finding, unknown []string) {
	firstFailed := map[string]bool{}
	for _, s := range in.First {
		if s.Failed {
			firstFailed[s.Ref] = true
		}
	}
	if in.First == nil && in.FirstTrace != nil {
		for _, f := range in.FirstTrace.Failures {
			if int(f.Block) < len(in.FirstTrace.Blocks) {
				firstFailed[in.FirstTrace.Blocks[f.Block]] = true
			}
		}
	}
	second := resourceWrites(in.SecondTrace, g, filter)
	first := resourceWrites(in.FirstTrace, g, filter)

	type changed struct {
		res    *catalog.Resource
		status catalog.ResourceStatus
	}
	var changes []changed
	for _, s := range in.Second {
		if !s.Changed && !s.Failed {
			continue
		}
		r, ok := g.Lookup(s.Ref)
		if !ok || r == nil {
			unknown = append(unknown, s.Ref)
			continue
		}
		if s.Failed {
			if !firstFailed[s.Ref] {
				out = append(out, niFinding(r, r, &NonIdempotence{Problem: FailsSecond, Changes: s.Events, Error: failureMessage(s)}))
			}
			continue
		}
		changes = append(changes, changed{r, s})
	}

	// Fights: two changed resources that wrote one path in the second apply.
	fighting := map[*catalog.Resource]bool{}
	for i := range changes {
		written := slices.Sorted(maps.Keys(second[changes[i].res]))
		for j := i + 1; j < len(changes); j++ {
			a, b := changes[i], changes[j]
			var common []string
			for _, p := range written {
				if _, ok := second[b.res][p]; ok {
					common = append(common, p)
				}
			}
			if len(common) == 0 {
				continue
			}
			// The producer wrote the first common path first in the
			// second apply, the consumer overwrote it: what stays is the
			// consumer's, until the next apply.
			if second[b.res][common[0]].Line < second[a.res][common[0]].Line {
				a, b = b, a
			}
			var paths []PathConflict
			for _, p := range common {
				paths = append(paths, PathConflict{Path: p, Producer: a.res, Consumer: b.res, Relation: Overwrites,
					ProducerEffect: fstrace.Produced, ConsumerEffect: fstrace.Produced,
					ProducerEvidence: second[a.res][p], ConsumerEvidence: second[b.res][p], producerReplaced: true})
			}
			f := niFinding(a.res, b.res, &NonIdempotence{Problem: Fight, Changes: a.status.Events, OtherChanges: b.status.Events})
			f.Paths = paths
			f.Fix = fightFix(a.res, b.res, paths[0].Path)
			out = append(out, f)
			fighting[a.res], fighting[b.res] = true, true
		}
	}
	for _, c := range changes {
		if fighting[c.res] {
			continue
		}
		f := niFinding(c.res, c.res, &NonIdempotence{Problem: changeProblem(c.res, c.status.Events), Changes: c.status.Events})
		if f.NI.Problem == ServiceStops {
			f.HeldBack, f.HeldReason = containerSkipped(c.res, in.UnmetConditions, g, units)
			if f.HeldBack {
				f.HeldRule = ruleContainerSkipped
			}
		}
		for _, p := range slices.Sorted(maps.Keys(second[c.res])) {
			f.Paths = append(f.Paths, PathConflict{Path: p, Producer: c.res, Consumer: c.res, Relation: Rewrites,
				ProducerEffect: fstrace.Produced, ConsumerEffect: fstrace.Produced,
				ProducerEvidence: second[c.res][p], ConsumerEvidence: first[c.res][p], producerReplaced: true})
		}
		f.Fix = niFix(f.NI.Problem, c.res, f.Paths)
		out = append(out, f)
	}
	return out, unknown
}

// changeProblem says what makes r, which the second apply changed with
// events (and which fights no other resource), non-idempotent.
func changeProblem(r *catalog.Resource, events []catalog.ResourceEvent) NIProblem {
	switch {
	case r.Is(catalog.TypeExec):
		if slices.ContainsFunc(execGuards, func(p string) bool { return guardSet(r.Params[p]) }) {
			return GuardedExecRuns
		}
		return UnguardedExec
	case r.Is(catalog.TypeNotify):
		return NotifyMessage
	case r.Is(catalog.TypeService) && slices.ContainsFunc(events, func(e catalog.ResourceEvent) bool {
		return e.Property == "ensure" && e.Previous == "stopped" && e.Desired == "running"
	}):
		return ServiceStops // started again
	}
	return ChangesAgain
}

// containerConditions are the unit conditions that a container fails and a
// host meets, one row each: systemd skips the start of a unit whose
// condition is unmet, Puppet counts the start a success, and every apply
// finds the service stopped again. On a host the unit starts and stays
// up, so the NI is the container's doing, not the module's. A condition
// the host would fail as well (a file the module does not make) stays a
// finding.
var containerConditions = []struct {
	prefix string // of "Condition…=value" as systemd logs it
	why    string
}{
	// Not "=!CAP_…": a capability the container has, a host's root has
	// too. fsmove's container gets Docker's default capabilities
	// (docs/DESIGN.md, "The container").
	{"ConditionCapability=CAP_", "fsmove's container does not give that capability, which root has on a host"},
	{"ConditionVirtualization=!container", "the node is fsmove's container, and a host is not one"},
}

// containerSkipped says whether systemd skipped the start of Service r's
// unit for a condition that only the container fails (containerConditions),
// and why.
func containerSkipped(r *catalog.Resource, unmet map[string]string, g Graph, units *Units) (bool, string) {
	for _, unit := range slices.Sorted(maps.Keys(unmet)) {
		if unitService(g, units, unit) != r {
			continue
		}
		cond := unmet[unit]
		for _, c := range containerConditions {
			if strings.HasPrefix(cond, c.prefix) {
				return true, "systemd skipped the start of " + unit + " because " + cond + " is not met: " + c.why +
					", where the unit starts and stays up"
			}
		}
	}
	return false, ""
}

func niFinding(a, b *catalog.Resource, ni *NonIdempotence) Finding {
	f := Finding{Kind: NI, Producer: a, Consumer: b, Confidence: Observed, NI: ni, Observed: ni.Problem == FailsSecond, ObservedError: ni.Error}
	if ni.Problem == FailsSecond {
		f.Fix = niFix(FailsSecond, a, nil)
	}
	return f
}

// guardSet reports whether an Exec parameter is given (a refreshonly of
// false, an empty command list, is not a guard).
func guardSet(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != "" && v != "false"
	case []any:
		return len(v) > 0
	}
	return true
}

// failureMessage is the message of the resource's failed events, or a
// plain sentence when the report has none.
func failureMessage(s catalog.ResourceStatus) string {
	var msgs []string
	for _, e := range s.Events {
		if e.Status == "failure" && e.Message != "" {
			msgs = append(msgs, e.Message)
		}
	}
	if len(msgs) == 0 {
		return "Puppet reported it failed"
	}
	return strings.Join(msgs, "; ")
}

// niFix is the suggested change for a non-idempotent resource.
func niFix(p NIProblem, r *catalog.Resource, paths []PathConflict) string {
	ref, at := PuppetRef(r), location(r, " (", ")")
	switch p {
	case UnguardedExec:
		creates := "a file it makes"
		if len(paths) > 0 {
			creates = "'" + paths[0].Path + "'"
		}
		return fmt.Sprintf("guard %s%s so that it runs only when needed: add creates => %s, or unless/onlyif with a command that tells whether its work is done, or refreshonly => true to run it only when notified", ref, at, creates)
	case GuardedExecRuns:
		return fmt.Sprintf("the guard of %s%s lets it run on every apply: make creates name a file the command makes, or unless/onlyif test what the command changes", ref, at)
	case NotifyMessage:
		return fmt.Sprintf("%s%s reports a change on every apply (Puppet's Notify always does): say the message with the warning() or notice() function instead, or drop it", ref, at)
	case ServiceStops:
		return fmt.Sprintf("%s%s was started by the first apply and found stopped by the second: find why it does not stay up "+
			"(systemctl status and journalctl -u of its unit on the node: a daemon that exits on its configuration is a fault of the module; "+
			"a unit Condition or a capability the node lacks, such as a container's, is not)", ref, at)
	case FailsSecond:
		return fmt.Sprintf("%s%s fails when its work is already done: make it succeed on a node that is already configured (a guard, or a command that tolerates what the first apply made)", ref, at)
	}
	return fmt.Sprintf("make what %s%s writes deterministic: the same content on every apply (no timestamp, random value or order that changes), or compute it once", ref, at)
}

// fightFix says how to end a fight between a and b over path.
func fightFix(a, b *catalog.Resource, path string) string {
	return fmt.Sprintf("%s%s and %s%s both write %s, differently, so each apply undoes the other: drop one of them, or make them write the same content",
		PuppetRef(a), location(a, " (", ")"), PuppetRef(b), location(b, " (", ")"), path)
}
