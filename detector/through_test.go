package detector

import "testing"

// Rule 27: a File that must notify a Service and a check Exec subscribed
// to that Service is one fault: the MN to the Service is shown, the one to
// the Exec held, naming it. Near misses: the Exec not subscribed to the
// Service (two faults); the File notifying the Service (no fault: the
// refresh reaches the Exec); the Exec notifying the Service back (neither
// is before the other); and a chain of three, held toward the first.
func TestRuleRefreshedThrough(t *testing.T) {
	res := result(p("/etc/app.conf", a("File[/etc/app.conf]", "p", 10), a("Service[app]", "c", 20),
		a("Exec[check]", "c", 30), a("Exec[report]", "c", 40)))
	graph := func(edges ...[2]string) *fakeGraph {
		g := newFake()
		g.Add("File[/etc/app.conf]", "m.pp", 1, "content", "x")
		g.Add("Service[app]", "m.pp", 2)
		g.Add("Exec[check]", "m.pp", 3, "command", "/usr/bin/app-check", "refreshonly", true)
		g.Add("Exec[report]", "m.pp", 4, "command", "/usr/bin/app-report", "refreshonly", true)
		for _, r := range []string{"Service[app]", "Exec[check]", "Exec[report]"} {
			g.Edge("File[/etc/app.conf]", r, before)
		}
		for _, e := range edges {
			g.Edge(e[0], e[1], notify)
		}
		return g
	}
	const (
		toService = "MN File[/etc/app.conf]->Service[app] /etc/app.conf"
		toCheck   = "MN File[/etc/app.conf]->Exec[check] /etc/app.conf"
		toReport  = "MN File[/etc/app.conf]->Exec[report] /etc/app.conf"
	)
	rep := Detect(res, graph([2]string{"Service[app]", "Exec[check]"}, [2]string{"Service[app]", "Exec[report]"}), Options{})
	expectHeld(t, rep, toService, toCheck+" held", toReport+" held")
	if f := rep.Findings[1]; f.HeldRule != ruleRefreshedThrough || f.HeldReason == "" {
		t.Errorf("held by %q: %q", f.HeldRule, f.HeldReason)
	}
	expectHeld(t, Detect(res, graph(), Options{}), toService, toCheck, toReport)
	expectHeld(t, Detect(res, graph([2]string{"File[/etc/app.conf]", "Service[app]"}, [2]string{"Service[app]", "Exec[check]"}, [2]string{"Service[app]", "Exec[report]"}), Options{}))
	expectHeld(t, Detect(res, graph([2]string{"Service[app]", "Exec[check]"}, [2]string{"Exec[check]", "Service[app]"}), Options{}), toService, toCheck, toReport)

	// The check ordered before the File: then the Service, which notifies
	// it, is too, and the MN to the Service is reversed (its fix is no
	// notify from the File): it covers nothing, and the check's MN stays.
	g := newFake()
	g.Add("File[/etc/app.conf]", "m.pp", 1, "content", "x")
	g.Add("Service[app]", "m.pp", 2)
	g.Add("Exec[check]", "m.pp", 3, "command", "/usr/bin/app-check", "refreshonly", true)
	g.Edge("File[/etc/app.conf]", "Service[app]", before)
	g.Edge("Service[app]", "Exec[check]", notify)
	g.Edge("Exec[check]", "File[/etc/app.conf]", before)
	rep = Detect(result(p("/etc/app.conf", a("File[/etc/app.conf]", "p", 10), a("Service[app]", "c", 20), a("Exec[check]", "c", 30))), g, Options{})
	if len(rep.Findings) != 2 || rep.Findings[1].HeldRule == ruleRefreshedThrough {
		t.Errorf("a reversed MN held as refreshed through: %q", heldLines(rep))
	}

	// A chain: the Service notifies the check, the check the report; both
	// Execs are held, each naming the Service.
	rep = Detect(res, graph([2]string{"Service[app]", "Exec[check]"}, [2]string{"Exec[check]", "Exec[report]"}), Options{})
	expectHeld(t, rep, toService, toCheck+" held", toReport+" held")
	for _, f := range rep.Findings[1:] {
		if want := "Service['app'] notifies " + PuppetRef(f.Consumer); len(f.HeldReason) < len(want) || f.HeldReason[:len(want)] != want {
			t.Errorf("%s held for %q, want it to start %q", f.Consumer.Ref(), f.HeldReason, want)
		}
	}
}
