package main

import (
	"strings"
	"testing"
)

// TestParseFix: each line fsmove fix writes of a finding becomes its row,
// a withdrawn edit is told from another without an edit, a failed
// verifying apply is noted on what it left unfixed, and a module whose run
// shows nothing is one "clean" row.
func TestParseFix(t *testing.T) {
	stderr := strings.Join([]string{
		"fsmove fix: not edited: MOR Package[a] → File[/etc/b]: inside a dependency (/dep/manifests/init.pp)",
		"fsmove fix: finding 1: the chain Class['m::config'] -> Class['m::service'] (line 9) becomes ~>",
		"fsmove fix: finding 3 (MN File[/etc/c] → Service[s]): no edit: Service[s] is ordered before File[/etc/c] today: a notification would make a dependency cycle, so the edit is withdrawn; remove that ordering first",
		"fsmove fix: finding 4 (MOR Exec[x] → Exec[y]): no edit: no declaration of Exec[y] at m.pp:3 (a resource made by a function, or a collector)",
		"fsmove fix: verify: the edited module's apply failed (puppet-failed): Error: boom",
		"fsmove fix: verify: finding 1 (MN File[/etc/m.conf] → Service[m]): fixed",
		"fsmove fix: verify: finding 2 (MOR File[/etc/d] → Exec[e]): not fixed",
		"fsmove fix: verify: new: MOR File[/etc/n] → Exec[o]",
	}, "\n")
	got := parseFix("m", stderr)
	want := []row{
		{"m", "MOR", "Package[a]", "File[/etc/b]", "not-edited", "inside a dependency (/dep/manifests/init.pp)"},
		{"m", "MN", "File[/etc/c]", "Service[s]", "withdrawn", ""},
		{"m", "MOR", "Exec[x]", "Exec[y]", "no-edit", ""},
		{"m", "MN", "File[/etc/m.conf]", "Service[m]", "fixed", "finding 1"},
		{"m", "MOR", "File[/etc/d]", "Exec[e]", "not-fixed", "finding 2; the edited module's apply failed (puppet-failed): Error: boom"},
		{"m", "MOR", "File[/etc/n]", "Exec[o]", "new", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Module != w.Module || g.Kind != w.Kind || g.Producer != w.Producer || g.Consumer != w.Consumer || g.Outcome != w.Outcome || w.Note != "" && g.Note != w.Note {
			t.Errorf("row %d: %+v, want %+v", i, g, w)
		}
	}
	if rows := parseFix("c", "fsmove fix: no finding of the module to fix\n"); len(rows) != 1 || rows[0].Outcome != "clean" {
		t.Errorf("a module without findings: %+v", rows)
	}
	sum := summarize(got)
	if !strings.Contains(sum, "1 modules; 4 findings of the modules' own: **1 fixed**, 1 not fixed, 1 without an edit, 1 withdrawn; 1 new findings after the edits; 1 inside dependencies") {
		t.Errorf("summary:\n%s", sum)
	}
}

// TestCSVRoundTrip: what writeCSV writes, readCSV reads back (-keep).
func TestCSVRoundTrip(t *testing.T) {
	rows := []row{{"m", "MN", "File[/a,b]", "Service[\"s\"]", "fixed", "finding 1"}, {"n", "", "", "", "clean", ""}}
	p := t.TempDir() + "/t.csv"
	if err := writeCSV(p, rows); err != nil {
		t.Fatal(err)
	}
	got, err := readCSV(p)
	if err != nil || len(got) != 2 || got[0] != rows[0] || got[1] != rows[1] {
		t.Errorf("read back %+v, %v", got, err)
	}
}
