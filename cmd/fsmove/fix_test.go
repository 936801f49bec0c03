package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/puppet/fix"
)

// TestFixUsage: fsmove fix refuses, before any run or container, what it
// cannot fix: no argument, two, a module that is not there, a run of a
// module that is no directory of this machine.
func TestFixUsage(t *testing.T) {
	debRun := t.TempDir()
	if err := os.WriteFile(filepath.Join(debRun, "run.json"), []byte(`{"module":{"spec":"deb:puppet-module-x","kind":"deb","name":"x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fix"}, "want the directory of a run, or a module"},
		{[]string{"fix", "a", "b"}, "want the directory of a run, or a module"},
		{[]string{"fix", filepath.Join(t.TempDir(), "nothere")}, "not found"},
		{[]string{"fix", debRun}, "fsmove fix edits a module's own files"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(&stdout, &stderr, c.args); code != exitUsage || !strings.Contains(stderr.String(), c.want) || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want %d and %q", c.args, code, stderr.String(), stdout.String(), exitUsage, c.want)
		}
	}
}

// TestDependencyCycles reads Puppet's report of cycles as Puppet 7 writes
// it (colours, the hint after a literal \n), and nothing from a log
// without one.
func TestDependencyCycles(t *testing.T) {
	log := "\x1b[mNotice: Compiled catalog for x in environment production in 0.05 seconds\x1b[0m\n" +
		"\x1b[1;31mError: Found 1 dependency cycle:\n" +
		"(File[/tmp/a b] => Service[s] => Exec[x (y)] => File[/tmp/a b])\\nTry the '--graph' option and opening the resulting '.dot' file in OmniGraffle or GraphViz\x1b[0m\n" +
		"\x1b[1;31mError: Failed to apply catalog: One or more resource dependency cycles detected in graph\x1b[0m\n"
	refs, first := dependencyCycles(log)
	if len(refs) != 3 || !refs["File[/tmp/a b]"] || !refs["Service[s]"] || !refs["Exec[x (y)]"] {
		t.Errorf("refs %v", refs)
	}
	if first != "(File[/tmp/a b] => Service[s] => Exec[x (y)] => File[/tmp/a b])" {
		t.Errorf("first %q", first)
	}
	if refs, _ := dependencyCycles("Error: Could not find dependency File[/a] for Exec[b]\n(not a cycle)\n"); refs != nil {
		t.Errorf("a log without a cycle: %v", refs)
	}
}

// TestCycleWithdrawals: of the edited findings inside a cycle, the MNs
// are withdrawn; without an MN, all of them; a finding outside the cycle,
// or without an edit, never.
func TestCycleWithdrawals(t *testing.T) {
	r := func(ref string) *catalog.Resource {
		typ, title, _ := strings.Cut(strings.TrimSuffix(ref, "]"), "[")
		return &catalog.Resource{Type: typ, Title: title}
	}
	targets := []fix.Target{
		{Number: 1, Kind: "MOR", Producer: r("Exec[x]"), Consumer: r("Exec[y]")},
		{Number: 2, Kind: "MN", Producer: r("Exec[y]"), Consumer: r("Service[s]")},
		{Number: 3, Kind: "MOR", Producer: r("File[/out]"), Consumer: r("Exec[y]")},
		{Number: 4, Kind: "MN", Producer: r("Exec[x]"), Consumer: r("Service[s]")}, // no edit
	}
	plan := fix.Plan{Edits: []fix.Edit{{Findings: []int{1}}, {Findings: []int{2, 3}}}}
	cycle := map[string]bool{"Service[s]": true, "Exec[x]": true, "Exec[y]": true}
	if got := cycleWithdrawals(targets, plan, cycle); !slices.Equal(got, []int{2}) {
		t.Errorf("withdrawn %v, want the MN in the cycle, [2]", got)
	}
	if got := cycleWithdrawals(targets[:1], plan, cycle); !slices.Equal(got, []int{1}) {
		t.Errorf("without an MN: withdrawn %v, want [1]", got)
	}
	if got := cycleWithdrawals(targets, plan, nil); got != nil {
		t.Errorf("no cycle: withdrawn %v", got)
	}
}
