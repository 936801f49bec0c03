package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/puppet/fix"
)

// The relationships between a module's own resources, each way round, a
// notification of what a refresh changes (a Service, an Exec with a check)
// also weakened to an ordering; a notification of a File or of an Exec
// without a check plants an ordering; near misses: a class, and a
// resource of another module.
func TestRelationships(t *testing.T) {
	c, err := catalog.Read(strings.NewReader(`{"resources": [
	  {"type": "Class", "title": "M", "file": "/fsmove/modules/m/manifests/init.pp", "line": 1},
	  {"type": "File", "title": "/etc/a", "file": "/fsmove/modules/m/manifests/init.pp", "line": 2,
	   "parameters": {"require": "Package[p]", "notify": ["Service[s]", "Class[M]", "File[/other]", "File[/etc/b]", "Exec[guarded]", "Exec[always]"]}},
	  {"type": "File", "title": "/etc/b", "file": "/fsmove/modules/m/manifests/init.pp", "line": 9},
	  {"type": "Exec", "title": "guarded", "file": "/fsmove/modules/m/manifests/init.pp", "line": 11, "parameters": {"creates": "/x"}},
	  {"type": "Exec", "title": "always", "file": "/fsmove/modules/m/manifests/init.pp", "line": 13, "parameters": {"refreshonly": false}},
	  {"type": "Package", "title": "p", "file": "/fsmove/modules/m/manifests/init.pp", "line": 16},
	  {"type": "Service", "title": "s", "file": "/fsmove/modules/m/manifests/service.pp", "line": 3},
	  {"type": "File", "title": "/other", "file": "/fsmove/modules/dep/manifests/init.pp", "line": 3}
	], "edges": []}`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Graph()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range relationships(c, g, "/fsmove/modules/m") {
		got = append(got, r.Kind()+" "+r.Before+" "+r.After+" "+r.File+" "+r.Planting.String())
	}
	want := "MN File[/etc/a] Service[s] manifests/init.pp remove|MN File[/etc/a] Service[s] manifests/init.pp weaken|" +
		"MOR File[/etc/a] File[/etc/b] manifests/init.pp remove|" +
		"MN File[/etc/a] Exec[guarded] manifests/init.pp remove|MN File[/etc/a] Exec[guarded] manifests/init.pp weaken|" +
		"MOR File[/etc/a] Exec[always] manifests/init.pp remove|MOR Package[p] File[/etc/a] manifests/init.pp remove"
	if strings.Join(got, "|") != want {
		t.Errorf("relationships:\n got  %q\n want %q", strings.Join(got, "|"), want)
	}
}

// A pair held back is read with the rule that held it, which the table's
// note then names; a shown finding is read by kind, either way round.
func TestReported(t *testing.T) {
	run := filepath.Join(t.TempDir(), "m")
	report := `{"findings": [
	{"kind": "MOR", "held_back": true, "held_rule": "only-looked-up", "held_reason": "it only looked",
	 "producer": {"ref": "File[/a]"}, "consumer": {"ref": "Service[s]"}},
	{"kind": "MN", "unordered": true, "producer": {"ref": "File[/b]"}, "consumer": {"ref": "Service[s]"}}]}`
	if err := os.WriteFile(findingsOf(run), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	kinds, held, err := reported(run, "Service[s]", "File[/a]")
	if err != nil || len(kinds) != 0 || held != "only-looked-up: it only looked" {
		t.Errorf("held pair: kinds %q, held %q, %v", kinds, held, err)
	}
	kinds, held, err = reported(run, "File[/b]", "Service[s]")
	if err != nil || !slices.Equal(kinds, []string{"MN", "MOR"}) || held != "" {
		t.Errorf("shown pair: kinds %q, held %q, %v", kinds, held, err)
	}
}

// The table counts a weakened notification apart from a removed one, and
// a removal left ordered another way as planted nowhere.
func TestSummarize(t *testing.T) {
	mn := relationship{Holder: "File[/a]", Other: "Service[s]", Param: "notify", Notify: true, Refreshes: true}
	weak := mn
	weak.Planting = fix.Weaken
	mor := relationship{Holder: "File[/a]", Other: "Package[p]", Param: "require"}
	got := summarize([]row{{Module: "m", Relationship: mn, Outcome: "missed"}, {Module: "m", Relationship: weak, Outcome: "found"},
		{Module: "m", Relationship: mor, Outcome: "still-ordered"}})
	for _, want := range []string{"| MOR | 0 | 0 | 0 | 0 | 0 |\n", "| MN | 1 | 0 | 0 | 0 | 1 |\n", "| MN, weakened to an ordering | 1 | 1 | 0 | 0 | 0 |\n",
		"| all | 2 | 1 | 0 | 0 | 1 |\n", "still ordered (or notified) another way: 1;", "- m: File[/a] notify => Service[s] (:0): missed"} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
}
