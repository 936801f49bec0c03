package detector

import (
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/fstrace/interp"
)

// What systemctl show prints for UnitsScript (a unit twice: loaded, and
// named by its unit file), with a line it does not know.
const unitsText = `Id=mariadb.service
Names=mariadb.service mysqld.service mysql.service
PartOf=

Id=postfix@-.service
Names=postfix@-.service
PartOf=postfix.service

Id=postfix.service
Names=postfix.service
PartOf=

garbage
Id=mariadb.service
Names=mariadb.service mysql.service
PartOf=
`

func TestParseUnits(t *testing.T) {
	u, bad, err := ParseUnits(strings.NewReader(unitsText))
	if err != nil || bad != 1 {
		t.Fatalf("ParseUnits: bad %d, %v; want 1 bad line", bad, err)
	}
	for unit, want := range map[string][]string{
		"mariadb.service":   {"mariadb.service", "mysqld.service", "mysql.service"},
		"postfix@-.service": {"postfix@-.service", "postfix.service"},
		"postfix.service":   {"postfix.service"},
		"other.service":     {"other.service"},
	} {
		if got := u.namesOf(unit); !slices.Equal(got, want) {
			t.Errorf("namesOf(%q) = %q, want %q", unit, got, want)
		}
	}
	var none *Units
	if got := none.namesOf("a.service"); !slices.Equal(got, []string{"a.service"}) {
		t.Errorf("nil Units: namesOf = %q", got)
	}
}

// The work of a unit goes to the Service that names it by an alias, or
// names a unit it is part of; near misses: without systemd's view, or for
// a unit that is neither, its work is no one's (counted, not checked).
func TestUnitServiceByAliasAndPartOf(t *testing.T) {
	units, _, err := ParseUnits(strings.NewReader(unitsText + "\nId=other.service\nNames=other.service\nPartOf=lonely.service\n"))
	if err != nil {
		t.Fatal(err)
	}
	g := newFake()
	g.Add("File[/etc/mysql/my.cnf]", "m.pp", 1, "content", "x")
	g.Add("Service[mysql]", "m.pp", 2)
	g.Add("File[/etc/postfix/main.cf]", "m.pp", 3, "content", "x")
	g.Add("Service[postfix]", "m.pp", 4)
	g.Add("File[/etc/other.conf]", "m.pp", 5, "content", "x")
	g.Edge("File[/etc/mysql/my.cnf]", "Service[mysql]", before)
	g.Edge("File[/etc/postfix/main.cf]", "Service[postfix]", before)
	res := result(
		p("/etc/mysql/my.cnf", a("File[/etc/mysql/my.cnf]", "p", 10), a(interp.UnitBlock("mariadb.service"), "c", 20)),
		p("/etc/postfix/main.cf", a("File[/etc/postfix/main.cf]", "p", 11), a(interp.UnitBlock("postfix@-.service"), "c", 21)),
		p("/etc/other.conf", a("File[/etc/other.conf]", "p", 12), a(interp.UnitBlock("other.service"), "c", 22)),
	)
	want := []string{
		"MN File[/etc/mysql/my.cnf]->Service[mysql] /etc/mysql/my.cnf",
		"MN File[/etc/postfix/main.cf]->Service[postfix] /etc/postfix/main.cf",
	}
	rep := Detect(res, g, Options{Units: units})
	if got := summary(rep); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("with systemd's units:\n got  %q\n want %q", got, want)
	}
	if rep.Stats.UnitBlocks != 2 || rep.Stats.UnclaimedUnits != 1 {
		t.Errorf("unit blocks %d, unclaimed %d; want 2 and 1 (other.service)", rep.Stats.UnitBlocks, rep.Stats.UnclaimedUnits)
	}
	rep = Detect(res, g, Options{})
	if got := summary(rep); len(got) != 0 || rep.Stats.UnclaimedUnits != 3 {
		t.Errorf("without systemd's units: %q, %d unclaimed; want none and 3", got, rep.Stats.UnclaimedUnits)
	}
}

// A timer's service, which no Service manages, works for the Service of
// its timer (TriggeredBy=): systemd's read of its unit file, and what its
// process reads, order the timer after their producers. But a restart of
// the timer does not restart the service, which reads its configuration
// anew each time it is triggered: no MN, even when the producer is
// ordered and does not notify. Near misses: a Service that manages the
// triggered unit itself gets its work, with MN; without TriggeredBy= the
// work is no one's.
func TestTriggeredUnitWorksForItsTrigger(t *testing.T) {
	units, bad, err := ParseUnits(strings.NewReader("Id=tick.service\nNames=tick.service\nPartOf=\nTriggeredBy=tick.timer\n\n" +
		"Id=tick.timer\nNames=tick.timer\nPartOf=\nTriggeredBy=\n"))
	if err != nil || bad != 0 {
		t.Fatalf("ParseUnits: %d bad, %v", bad, err)
	}
	g := newFake()
	g.Add("File[/etc/systemd/system/tick.service]", "m.pp", 1, "content", "x")
	g.Add("File[/etc/tick.conf]", "m.pp", 2, "content", "x")
	g.Add("File[/etc/systemd/system/tick.timer]", "m.pp", 3, "content", "x")
	g.Add("Service[tick.timer]", "m.pp", 4)
	g.Edge("File[/etc/tick.conf]", "Service[tick.timer]", before)
	g.Edge("File[/etc/systemd/system/tick.timer]", "Service[tick.timer]", before)
	res := result(
		p("/etc/systemd/system/tick.service", a("File[/etc/systemd/system/tick.service]", "p", 10), a(interp.UnitBlock("tick.service"), "c", 30)),
		p("/etc/tick.conf", a("File[/etc/tick.conf]", "p", 11), a(interp.UnitBlock("tick.service"), "c", 31)),
		p("/etc/systemd/system/tick.timer", a("File[/etc/systemd/system/tick.timer]", "p", 12), a(interp.UnitBlock("tick.timer"), "c", 29)),
	)
	want := []string{
		"MOR File[/etc/systemd/system/tick.service]->Service[tick.timer] /etc/systemd/system/tick.service",
		"MN File[/etc/systemd/system/tick.timer]->Service[tick.timer] /etc/systemd/system/tick.timer",
	}
	rep := Detect(res, g, Options{Units: units})
	if got := summary(rep); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("a timer's service:\n got  %q\n want %q", got, want)
	}
	if rep.Stats.UnitBlocks != 2 || rep.Stats.UnclaimedUnits != 0 {
		t.Errorf("unit blocks %d, unclaimed %d; want 2 and 0", rep.Stats.UnitBlocks, rep.Stats.UnclaimedUnits)
	}
	// A Service of the service itself takes its work, and is notified.
	g.Add("Service[tick]", "m.pp", 5)
	g.Edge("File[/etc/tick.conf]", "Service[tick]", before)
	got := strings.Join(summary(Detect(res, g, Options{Units: units})), "\n")
	if !strings.Contains(got, "MN File[/etc/tick.conf]->Service[tick] ") {
		t.Errorf("with Service[tick]: %q, want its MN", got)
	}
	units, _, _ = ParseUnits(strings.NewReader("Id=tick.service\nNames=tick.service\nPartOf=\n"))
	if rep := Detect(res, newFakeTimerOnly(), Options{Units: units}); rep.Stats.UnclaimedUnits != 1 {
		t.Errorf("without TriggeredBy: %d unclaimed, want 1 (tick.service)", rep.Stats.UnclaimedUnits)
	}
}

func newFakeTimerOnly() *fakeGraph {
	g := newFake()
	g.Add("Service[tick.timer]", "m.pp", 4)
	return g
}

// FuzzParseUnits: any listing is read without a panic; a unit's names
// start with its id and hold no empty or repeated name, and every other
// line is counted.
func FuzzParseUnits(f *testing.F) {
	f.Add(unitsText)
	f.Add("Id=a.service\nNames=a.service a.service b.service\nPartOf=a.service c.service\n\nId=\nNames=x\n")
	f.Add("Names=orphan.service\nPartOf=\n=\nId=b\n")
	f.Add("Id=t.service\nTriggeredBy=t.timer t.timer t.service\n\nId=t.timer\nTriggeredBy=\n")
	f.Fuzz(func(t *testing.T, listing string) {
		u, bad, err := ParseUnits(strings.NewReader(listing))
		if err != nil {
			return // a line longer than the scanner takes
		}
		lines := strings.Count(listing, "\n") + 1
		if bad < 0 || bad > lines {
			t.Fatalf("%d bad lines of %d", bad, lines)
		}
		for id, ts := range u.triggeredBy {
			for i, tr := range ts {
				if tr == "" || tr == id || slices.Contains(ts[:i], tr) {
					t.Fatalf("triggers of %q: %q", id, ts)
				}
			}
		}
		for id := range u.names {
			names := u.namesOf(id)
			if names[0] != id {
				t.Fatalf("namesOf(%q) = %q", id, names)
			}
			for i, n := range u.names[id] {
				if n == "" || n == id || slices.Contains(u.names[id][:i], n) {
					t.Fatalf("names of %q: %q", id, u.names[id])
				}
			}
		}
	})
}
