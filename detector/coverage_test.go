package detector

import (
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// Every Service that Puppet keeps running is accounted for: observed when
// a block of its unit is in the trace and its start did not fail, else
// with systemd's or Puppet's reason. A Service not kept running, and a run without systemd's units,
// account for none.
func TestCoverage(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/a.conf]", "m.pp", 1, "content", "x")
	for _, s := range []string{"seen", "failed", "cond", "none", "puppetskipped", "unitfile"} {
		g.Add("Service["+s+"]", "m.pp", 2, "ensure", "running")
	}
	g.Add("Service[stopped]", "m.pp", 3, "ensure", "stopped")
	g.Add("Service[booltrue]", "m.pp", 4, "ensure", true)
	res := result(p("/etc/a.conf",
		a("File[/etc/a.conf]", "p", 1),
		a(interp.UnitBlock("seen.service"), "c", 2),
		a(interp.UnitBlock("failed.service"), "c", 4),
		a(interp.UnitBlock("booltrue.service"), "c", 5),
	),
		// systemd reads the unit file for its unit also when it skips
		// the start: no process of the unit ran.
		p("/etc/systemd/system/unitfile.service", a(interp.UnitBlock("unitfile.service"), "c", 6)),
	)
	in := &CoverageInput{
		UnmetConditions: map[string]string{"cond.service": "ConditionPathExists=/x"},
		Failed:          map[string]string{"failed.service": "its start failed (result exit-code, exit status 1)"},
		Resources: []catalog.ResourceStatus{{Ref: "File[/etc/a.conf]", Changed: true}, {Ref: "Exec[x]", Failed: true},
			{Ref: "Service[puppetskipped]", Skipped: true}},
	}
	rep := Detect(res, g, Options{Units: &Units{}, Coverage: in})
	// Lines names only the Services not observed.
	want := []string{
		"observed 2 of 7 services that Puppet keeps running",
		"not observed: Service[cond] — cond.service: ConditionPathExists=/x not met in the container: systemd skipped its start",
		"not observed: Service[failed] — failed.service: its start failed (result exit-code, exit status 1)",
		"not observed: Service[none] — no process of its unit ran in the traced apply (systemd did not start it, or it started after the trace ended)",
		"not observed: Service[puppetskipped] — Puppet skipped it: a dependency failed",
		"not observed: Service[unitfile] — no process of its unit ran in the traced apply (systemd did not start it, or it started after the trace ended)",
		"Puppet applied 1 resource(s)",
		"not checked: 1 resource(s) Puppet skipped for a failed dependency: Service[puppetskipped]",
		"not checked: 1 resource(s) that failed: Exec[x]",
	}
	lines := strings.Join(rep.Coverage.Lines(), "\n")
	if lines != strings.Join(want, "\n") {
		t.Errorf("coverage:\n%s\nwant:\n%s", lines, strings.Join(want, "\n"))
	}
	if n := len(rep.Coverage.Unobserved()); n != 5 {
		t.Errorf("%d unobserved, want 5: %+v", n, rep.Coverage.Unobserved())
	}
	if rep := Detect(res, g, Options{Coverage: in}); len(rep.Coverage.Services) != 0 || rep.Coverage.Applied != 1 {
		t.Errorf("without systemd's units: services %v, applied %d; want none, 1", rep.Coverage.Services, rep.Coverage.Applied)
	}
	if rep := Detect(res, g, Options{Units: &Units{}}); rep.Coverage != nil || rep.Coverage.Lines() != nil {
		t.Errorf("without a coverage input: %+v", rep.Coverage)
	}
}

// TestCoverageLifted: a Service started despite a lifted condition is
// observed when its unit's block is in the trace, even when its start then
// failed, and Puppet's failure of it is expected (not a resource that
// failed); one lifted that Puppet failed while its unit did not fail is
// still a failure; one lifted whose unit failed before any of its
// processes read a file is not observed, with why.
func TestCoverageLifted(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/a.conf]", "m.pp", 1, "content", "x")
	for _, s := range []string{"chrony", "ntp", "quiet"} {
		g.Add("Service["+s+"]", "m.pp", 2, "ensure", "running")
	}
	res := result(p("/etc/a.conf",
		a("File[/etc/a.conf]", "p", 1),
		a(interp.UnitBlock("chrony.service"), "c", 2),
		a(interp.UnitBlock("ntp.service"), "c", 3),
	))
	cap := "ConditionCapability=CAP_SYS_TIME"
	in := &CoverageInput{
		Lifted: map[string]string{"chrony.service": cap, "ntp.service": cap, "quiet.service": cap},
		Failed: map[string]string{"chrony.service": "its start failed", "quiet.service": "its start failed"},
		Resources: []catalog.ResourceStatus{{Ref: "File[/etc/a.conf]", Changed: true},
			{Ref: "Service[chrony]", Failed: true}, {Ref: "Service[ntp]", Failed: true}, {Ref: "Service[quiet]", Failed: true}},
	}
	rep := Detect(res, g, Options{Units: &Units{}, Coverage: in})
	want := []string{
		"observed 2 of 3 services that Puppet keeps running",
		"observed: Service[chrony] — started despite ConditionCapability=CAP_SYS_TIME, not met in a container: its later failure is expected",
		"observed: Service[ntp] — started despite ConditionCapability=CAP_SYS_TIME, not met in a container",
		"not observed: Service[quiet] — started despite ConditionCapability=CAP_SYS_TIME, but no process of quiet.service read a file before it failed: its start failed",
		"Puppet applied 3 resource(s)",
		"not checked: 1 resource(s) that failed: Service[ntp]",
	}
	if lines := strings.Join(rep.Coverage.Lines(), "\n"); lines != strings.Join(want, "\n") {
		t.Errorf("coverage:\n%s\nwant:\n%s", lines, strings.Join(want, "\n"))
	}
}

// TestExpectedFailures: Puppet's failures count as the lift's doing only
// when every one is a Service whose unit, by any of systemd's names for it,
// was lifted and failed. The runner decides the run's status with it.
func TestExpectedFailures(t *testing.T) {
	g := newFake()
	for _, s := range []string{"chrony", "ntp", "haproxy"} {
		g.Add("Service["+s+"]", "m.pp", 1, "ensure", "running")
	}
	g.Add("File[/etc/x]", "m.pp", 2, "content", "x")
	cap := "ConditionCapability=CAP_SYS_TIME"
	lifted := map[string]string{"chrony.service": cap, "ntp.service": cap}
	failed := map[string]string{"chrony.service": "its start failed", "haproxy.service": "its start failed"}
	st := func(refs ...string) []catalog.ResourceStatus {
		var sts []catalog.ResourceStatus
		for _, r := range refs {
			sts = append(sts, catalog.ResourceStatus{Ref: r, Failed: true})
		}
		return append(sts, catalog.ResourceStatus{Ref: "File[/etc/x]", Changed: true})
	}
	for _, c := range []struct {
		name     string
		statuses []catalog.ResourceStatus
		units    *Units
		lifted   map[string]string
		want     []string
	}{
		{"lifted and failed", st("Service[chrony]"), &Units{}, lifted, []string{"Service[chrony]"}},
		{"one lifted that did not fail", st("Service[chrony]", "Service[ntp]"), &Units{}, lifted, nil},
		{"one failed that was not lifted", st("Service[chrony]", "Service[haproxy]"), &Units{}, lifted, nil},
		{"a File failed too", st("Service[chrony]", "File[/etc/x]"), &Units{}, lifted, nil},
		{"nothing failed", st(), &Units{}, lifted, nil},
		// systemd lifted the unit under its alias: the same unit.
		{"by an alias", st("Service[chrony]"), &Units{names: map[string][]string{"chronyd.service": {"chrony.service"}}},
			map[string]string{"chronyd.service": cap}, []string{"Service[chrony]"}},
	} {
		if got := ExpectedFailures(c.statuses, g, c.units, c.lifted, failed); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
