package detector

import (
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
)

func TestLoadWaivers(t *testing.T) {
	in := `# known and accepted
File[/etc/x] Exec[use-conf] -- generated at build time

Exec[echo [a] b] Notify[hi there] /tmp/a b -- titles with spaces and brackets
File['/etc/q'] Service["x"] -- quoted, as fixes print them
apt::source['a]'] exec[b] -- type names in any case, brackets inside quotes
`
	ws, err := LoadWaivers(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Waiver{
		{Ref1: mustRef("File[/etc/x]"), Ref2: mustRef("Exec[use-conf]"), Reason: "generated at build time", Line: 2},
		{Ref1: mustRef("Exec[echo [a] b]"), Ref2: mustRef("Notify[hi there]"), Path: "/tmp/a b", Reason: "titles with spaces and brackets", Line: 4},
		{Ref1: mustRef("File[/etc/q]"), Ref2: mustRef("Service[x]"), Reason: "quoted, as fixes print them", Line: 5},
		{Ref1: mustRef("Apt::Source[a]]"), Ref2: mustRef("Exec[b]"), Reason: "type names in any case, brackets inside quotes", Line: 6},
	}
	if len(ws) != len(want) {
		t.Fatalf("got %d waivers: %+v", len(ws), ws)
	}
	for i := range want {
		if ws[i] != want[i] {
			t.Errorf("waiver %d:\n got  %+v\n want %+v", i, ws[i], want[i])
		}
	}
}

func TestLoadWaiversErrors(t *testing.T) {
	cases := map[string]string{
		"no reason":       "File[/a] Exec[b] --",
		"no separator":    "File[/a] Exec[b] /tmp/x",
		"one ref":         "File[/a] -- why",
		"unbalanced":      "File[/a Exec[b] -- why",
		"relative path":   "File[/a] Exec[b] tmp/x -- why",
		"junk after ref":  "File[/a]x Exec[b] -- why",
		"not a reference": "hello world -- why",
		"reason glued on": "File[/a] Exec[b] --why",
	}
	for name, line := range cases {
		_, err := LoadWaivers(strings.NewReader("# header\n" + line + "\n"))
		if err == nil {
			t.Errorf("%s: %q accepted", name, line)
			continue
		}
		if !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%s: error %q does not name line 2", name, err)
		}
	}
}

func TestWaiversInDetect(t *testing.T) {
	res := result(
		p("/etc/x", a("File[/etc/x]", "p", 10), a("Exec[use-conf]", "c", 20)),
		p("/etc/x.bak", a("File[/etc/x]", "p", 11), a("Exec[use-conf]", "c", 21)),
	)
	const finding = "MOR File[/etc/x]->Exec[use-conf] /etc/x,/etc/x.bak"

	// Pair, written in the other order.
	rep := Detect(res, confExec(), Options{Waivers: []Waiver{{Ref1: mustRef("Exec[use-conf]"), Ref2: mustRef("File[/etc/x]"), Reason: "ok"}}})
	expect(t, rep, finding+" waived(ok)")
	if rep.Faults() != 0 || rep.Stats.Waived != 1 || rep.Stats.MOR != 1 {
		t.Errorf("faults %d stats %+v", rep.Faults(), rep.Stats)
	}

	// Pair + one path: the finding stays, that path is waived.
	rep = Detect(res, confExec(), Options{Waivers: []Waiver{{Ref1: mustRef("File[/etc/x]"), Ref2: mustRef("Exec[use-conf]"), Path: "/etc/x.bak", Reason: "backup"}}})
	expect(t, rep, finding)
	if !rep.Findings[0].Paths[1].Waived || rep.Findings[0].Paths[0].Waived || rep.Faults() != 1 {
		t.Errorf("path waiver not applied to the right path: %+v", rep.Findings[0].Paths)
	}

	// Every path waived: the finding is waived, reasons joined in path order.
	rep = Detect(res, confExec(), Options{Waivers: []Waiver{
		{Ref1: mustRef("File[/etc/x]"), Ref2: mustRef("Exec[use-conf]"), Path: "/etc/x.bak", Reason: "backup"},
		{Ref1: mustRef("file[/etc/x]"), Ref2: mustRef("exec[use-conf]"), Path: "/etc/x", Reason: "main"},
	}})
	expect(t, rep, finding+" waived(main; backup)")

	// A waiver for another pair is unused and reported.
	rep = Detect(res, confExec(), Options{Waivers: []Waiver{{Ref1: mustRef("File[/etc/y]"), Ref2: mustRef("Exec[use-conf]"), Reason: "stale", Line: 3}}})
	expect(t, rep, finding)
	if len(rep.UnusedWaivers) != 1 || rep.UnusedWaivers[0].Line != 3 || rep.Stats.UnusedWaivers != 1 {
		t.Errorf("unused waivers %+v", rep.UnusedWaivers)
	}

	// A path waiver on a pair whose path does not occur is unused.
	rep = Detect(res, confExec(), Options{Waivers: []Waiver{{Ref1: mustRef("File[/etc/x]"), Ref2: mustRef("Exec[use-conf]"), Path: "/nope", Reason: "r"}}})
	if len(rep.UnusedWaivers) != 1 || rep.Faults() != 1 {
		t.Errorf("path waiver for a missing path: unused %v faults %d", rep.UnusedWaivers, rep.Faults())
	}

}

// FuzzLoadWaivers: any input gives waivers or an error, never a panic, and
// every waiver has two references and a reason.
func FuzzLoadWaivers(f *testing.F) {
	f.Add("File[/a] Exec[b] -- r\n")
	f.Add("Exec[echo [a] b] Notify[hi there] /tmp/a b -- r\n# c\n")
	f.Add("File['/e\\'q'] Service[\"x\"] -- quoted\n")
	f.Add("File[[[ -- x")
	f.Fuzz(func(t *testing.T, in string) {
		ws, err := LoadWaivers(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, w := range ws {
			if w.Reason == "" || w.Ref1.Type == "" || w.Ref1.Title == "" || w.Ref2.Type == "" || w.Ref2.Title == "" {
				t.Errorf("bad waiver %+v from %q", w, in)
			}
		}
	})
}

func FuzzParseFilters(f *testing.F) {
	f.Add("/a\n# c\n/b/ # x\n")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ParseFilters(strings.NewReader(in))
		if err != nil {
			return
		}
		flt := NewFilter(ps...)
		for _, p := range ps {
			if !flt.Match(p) || !flt.Match(p+"/x") {
				t.Errorf("filter %q does not match itself", p)
			}
		}
	})
}

// mustRef is a waiver reference written in a test.
func mustRef(s string) catalog.Ref {
	r, err := catalog.ParseRef(s)
	if err != nil {
		panic(err)
	}
	return r
}
