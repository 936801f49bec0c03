package detector

import (
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
)

// niGraph: an unguarded Exec, a guarded one, a File, a File and an Exec
// that fight over one path, and a refreshonly Exec.
func niGraph() *fakeGraph {
	g := newFake()
	g.Add("Exec[stamp]", "site.pp", 1)
	g.Add("Exec[guarded]", "site.pp", 2, "creates", "/etc/marker")
	g.Add("File[/etc/time]", "site.pp", 3)
	g.Add("File[/etc/conf]", "site.pp", 4)
	g.Add("Exec[rewrite]", "site.pp", 5, "unless", "grep -q x /etc/conf")
	g.Add("Exec[reload]", "site.pp", 6, "refreshonly", true)
	g.Add("Exec[once]", "site.pp", 7)
	g.Add("Service[daemon]", "site.pp", 8)
	g.Add("Service[flag]", "site.pp", 9)
	g.Add("Notify[hello]", "site.pp", 10)
	return g
}

func changed(ref string, events ...catalog.ResourceEvent) catalog.ResourceStatus {
	return catalog.ResourceStatus{Ref: ref, Changed: true, Events: events}
}

// niInput are two applies of niGraph's catalog: the first apply writes on
// trace lines 10 to 13, the second on 20 to 25; each resource but
// Exec[reload] and File[/etc/stable] is non-idempotent (Exec[once] fails
// in the second apply only, File[/etc/conf] and Exec[rewrite] fight).
func niInput() *Idempotence {
	first := result(
		p("/etc/stamp", a("Exec[stamp]", "p", 10)),
		p("/etc/time", a("File[/etc/time]", "p", 11)),
		p("/etc/conf", a("File[/etc/conf]", "p", 12), a("Exec[rewrite]", "p", 13)),
	)
	second := result(
		p("/etc/stamp", a("Exec[stamp]", "p", 20)),
		p("/etc/time", a("File[/etc/time]", "p", 21)),
		p("/etc/conf", a("File[/etc/conf]", "p", 22), a("Exec[rewrite]", "p", 23)),
		p("/etc/marker", a("Exec[guarded]", "p", 24)),
		p("/proc/self/status", a("Exec[stamp]", "p", 25)), // filtered
	)
	return &Idempotence{
		TraceNames: [2]string{"trace.log", "second/trace.log"},
		First:      []catalog.ResourceStatus{{Ref: "Exec[once]"}, {Ref: "Exec[reload]", Failed: true}},
		Second: []catalog.ResourceStatus{
			changed("Exec[stamp]", catalog.ResourceEvent{Property: "returns", Previous: "notrun", Desired: "0"}),
			changed("File[/etc/time]", catalog.ResourceEvent{Property: "content", Previous: "{sha256}aa", Desired: "{sha256}bb"}),
			changed("File[/etc/conf]"),
			changed("Exec[rewrite]"),
			changed("Exec[guarded]"),
			{Ref: "Exec[once]", Failed: true, Events: []catalog.ResourceEvent{{Status: "failure", Message: "returned 1"}}},
			{Ref: "Exec[reload]", Failed: true}, // failed in both: not NI
			{Ref: "File[/etc/stable]"},          // unchanged
			changed("Notify[unknown]"),
			changed("Service[daemon]", catalog.ResourceEvent{Property: "ensure", Previous: "stopped", Desired: "running"}),
			// Not started again: a property other than ensure.
			changed("Service[flag]", catalog.ResourceEvent{Property: "enable", Previous: "false", Desired: "true"}),
			changed("Notify[hello]", catalog.ResourceEvent{Property: "message", Previous: "absent", Desired: "hello"}),
		},
		FirstTrace: first, SecondTrace: second,
	}
}

func TestIdempotenceFindings(t *testing.T) {
	g := niGraph()
	in := niInput()
	rep := Detect(result(), g, Options{Idempotence: in})
	expect(t, rep,
		"NI Exec[stamp]->Exec[stamp] /etc/stamp",
		"NI Exec[guarded]->Exec[guarded] /etc/marker",
		"NI File[/etc/time]->File[/etc/time] /etc/time",
		"NI File[/etc/conf]->Exec[rewrite] /etc/conf",
		"NI Exec[once]->Exec[once] ",
		"NI Service[daemon]->Service[daemon] ",
		"NI Service[flag]->Service[flag] ",
		"NI Notify[hello]->Notify[hello] ",
	)
	want := map[string]NIProblem{"Exec[stamp]": UnguardedExec, "Exec[guarded]": GuardedExecRuns,
		"File[/etc/time]": ChangesAgain, "File[/etc/conf]": Fight, "Exec[once]": FailsSecond,
		"Service[daemon]": ServiceStops, "Service[flag]": ChangesAgain, "Notify[hello]": NotifyMessage}
	for _, f := range rep.Findings {
		if got := f.NI.Problem; got != want[f.Producer.Ref()] {
			t.Errorf("%s: problem %s, want %s", f.Producer.Ref(), got, want[f.Producer.Ref()])
		}
		if f.Confidence != Observed || f.Fix == "" || !f.Reported() {
			t.Errorf("%s: confidence %s, fix %q, reported %v", f.Producer.Ref(), f.Confidence, f.Fix, f.Reported())
		}
		switch f.NI.Problem {
		case UnguardedExec:
			pc := f.Paths[0]
			if pc.ProducerEvidence.Line != 20 || pc.ConsumerEvidence.Line != 10 || pc.Relation != Rewrites {
				t.Errorf("stamp: evidence %d and %d, relation %s; want 20 (second) and 10 (first), rewrites",
					pc.ProducerEvidence.Line, pc.ConsumerEvidence.Line, pc.Relation)
			}
		case Fight:
			pc := f.Paths[0]
			if pc.ProducerEvidence.Line != 22 || pc.ConsumerEvidence.Line != 23 || pc.Relation != Overwrites {
				t.Errorf("fight: evidence %d and %d, relation %s; want 22 and 23 (both of the second apply, in their order), overwrites",
					pc.ProducerEvidence.Line, pc.ConsumerEvidence.Line, pc.Relation)
			}
		case NotifyMessage:
			if !strings.Contains(f.Fix, "warning()") {
				t.Errorf("notify: fix %q", f.Fix)
			}
		case ServiceStops:
			if !strings.Contains(f.Fix, "does not stay up") || !strings.Contains(f.Fix, "site.pp:8") {
				t.Errorf("daemon: fix %q", f.Fix)
			}
		case FailsSecond:
			if !f.Observed || f.ObservedError != "returned 1" {
				t.Errorf("once: observed %v %q", f.Observed, f.ObservedError)
			}
		}
	}
	if rep.Stats.NI != 8 || len(rep.Warnings) != 1 || rep.Warnings[0].Example != "Notify[unknown]" {
		t.Errorf("stats.ni %d, warnings %+v", rep.Stats.NI, rep.Warnings)
	}

	// Waived as a one-resource pair, or by an NI-only kind set.
	w := Waiver{Reason: "on purpose"}
	w.Ref1, _, _ = catalog.CutRef("Exec[stamp]")
	w.Ref2 = w.Ref1
	w.Kinds = KindSet(0).Add(NI)
	rep = Detect(result(), g, Options{Idempotence: in, Waivers: []Waiver{w}})
	if rep.Faults() != 7 || rep.Stats.Waived != 1 {
		t.Errorf("with a waiver of Exec[stamp]: %d faults, %d waived", rep.Faults(), rep.Stats.Waived)
	}
}

// Without a second apply, or when it changed nothing, there is no NI.
func TestIdempotenceNearMisses(t *testing.T) {
	g := niGraph()
	rep := Detect(result(), g, Options{Idempotence: &Idempotence{Second: []catalog.ResourceStatus{
		{Ref: "Exec[guarded]"}, {Ref: "Exec[reload]"}, {Ref: "File[/etc/time]"}}}})
	if len(rep.Findings) != 0 || !rep.Idempotence || rep.Stats.NI != 0 {
		t.Errorf("findings %v, idempotence %v", summary(rep), rep.Idempotence)
	}
	if rep := Detect(result(), g, Options{}); rep.Idempotence {
		t.Error("a report without a second apply says it checked NI")
	}
	for v, want := range map[any]bool{nil: false, false: false, true: true, "": false, "false": false,
		"/etc/x": true} {
		if guardSet(v) != want {
			t.Errorf("guardSet(%#v) = %v, want %v", v, !want, want)
		}
	}
}

// A service that systemd did not start because its unit's condition is
// not met is held back when only a container fails that condition
// (containerConditions), and reported when a host would fail it too.
func TestServiceStopsForContainerCondition(t *testing.T) {
	cases := []struct {
		unmet map[string]string
		held  bool
	}{
		{map[string]string{"daemon.service": "ConditionCapability=CAP_SYS_TIME"}, true},
		{map[string]string{"daemon.service": "ConditionVirtualization=!container"}, true},
		{map[string]string{"daemon": "ConditionCapability=CAP_SYS_TIME"}, true},
		// Near misses: a condition a host fails too (a file the module
		// does not make), a capability the unit wants absent, another
		// unit's condition, no journal.
		{map[string]string{"daemon.service": "ConditionPathExists=/etc/daemon.conf"}, false},
		{map[string]string{"daemon.service": "ConditionCapability=!CAP_SYS_TIME"}, false},
		{map[string]string{"flag.service": "ConditionCapability=CAP_SYS_TIME"}, false},
		{nil, false},
	}
	for _, c := range cases {
		in := niInput()
		in.UnmetConditions = c.unmet
		rep := Detect(result(), niGraph(), Options{Idempotence: in})
		var daemon *Finding
		for i := range rep.Findings {
			if f := &rep.Findings[i]; f.Producer.Ref() == "Service[daemon]" {
				daemon = f
			}
		}
		switch {
		case daemon == nil:
			t.Fatalf("%v: no finding on Service[daemon]", c.unmet)
		case daemon.HeldBack != c.held:
			t.Errorf("%v: held back %v, want %v (%q)", c.unmet, daemon.HeldBack, c.held, daemon.HeldReason)
		case c.held && !strings.Contains(daemon.HeldReason, "is not met"):
			t.Errorf("%v: reason %q", c.unmet, daemon.HeldReason)
		}
		wantNI := 8 // niInput's NI findings, one fewer when held back
		if c.held {
			wantNI--
		}
		if rep.Stats.NI != wantNI {
			t.Errorf("%v: stats.ni %d, want %d", c.unmet, rep.Stats.NI, wantNI)
		}
		// The other services are never held back by it.
		for _, f := range rep.Findings {
			if f.Producer.Ref() == "Service[flag]" && f.HeldBack {
				t.Errorf("%v: Service[flag] held back: %s", c.unmet, f.HeldReason)
			}
		}
	}
}
