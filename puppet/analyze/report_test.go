package analyze

import (
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// reportCatalog: a class holding three Execs and an instance of a defined
// type, as Puppet caches a catalog.
const reportCatalog = `{"resources":[
 {"type":"Stage","title":"main"},
 {"type":"Class","title":"main"},
 {"type":"Exec","title":"a","file":"/m.pp","line":1},
 {"type":"Exec","title":"b","file":"/m.pp","line":2},
 {"type":"Exec","title":"c","file":"/m.pp","line":3},
 {"type":"Foo::Bar","title":"x","file":"/m.pp","line":4},
 {"type":"Sshkey","title":"node_rsa","file":"/m.pp","line":5,"exported":true},
 {"type":"Notify","title":"two\nlines","file":"/m.pp","line":6}],
 "edges":[{"source":"Stage[main]","target":"Class[main]"},{"source":"Class[main]","target":"Exec[a]"},
 {"source":"Class[main]","target":"Exec[b]"},{"source":"Class[main]","target":"Exec[c]"},{"source":"Class[main]","target":"Foo::Bar[x]"},
 {"source":"Class[main]","target":"Sshkey[node_rsa]"},{"source":"Class[main]","target":"Notify[two\nlines]"}]}`

func TestReconcileReport(t *testing.T) {
	cat, err := catalog.Read(strings.NewReader(reportCatalog))
	if err != nil {
		t.Fatal(err)
	}
	g, err := cat.Graph()
	if err != nil {
		t.Fatal(err)
	}
	// The trace: Puppet evaluated Exec[a] and Exec[b], and Exec[b] failed;
	// Exec[c] was skipped (its dependency failed), so it has no block.
	res := &interp.Result{Blocks: []string{"Class[Main]", "Exec[a]", "Exec[b]"}, Failures: []interp.BlockFailure{{Block: 2}}}
	status := func(sts []catalog.ResourceStatus, ref string) string {
		i := slices.IndexFunc(sts, func(s catalog.ResourceStatus) bool { return s.Ref == ref })
		switch {
		case i < 0:
			return "absent"
		case sts[i].Failed:
			return "failed"
		case sts[i].Skipped:
			return "skipped"
		}
		return "applied"
	}
	cases := []struct {
		name     string
		report   []catalog.ResourceStatus
		want     map[string]string
		disagree int
	}{
		// An exported resource is not applied; a title with a line break
		// has no block Puppet's markers can name (mongodb's Notify).
		{"the report as Puppet wrote it", []catalog.ResourceStatus{
			{Ref: "Exec[a]"}, {Ref: "Exec[b]", Failed: true}, {Ref: "Exec[c]", Skipped: true}, {Ref: "Schedule[daily]"}, {Ref: "Notify[two\nlines]"},
		}, map[string]string{"Exec[a]": "applied", "Exec[b]": "failed", "Exec[c]": "skipped", "Schedule[daily]": "applied", "Foo::Bar[x]": "absent",
			"Sshkey[node_rsa]": "absent", "Notify[two\nlines]": "applied"}, 0},
		{"rewritten: all applied", []catalog.ResourceStatus{
			{Ref: "Exec[a]"}, {Ref: "Exec[b]"}, {Ref: "Exec[c]"},
		}, map[string]string{"Exec[a]": "applied", "Exec[b]": "failed", "Exec[c]": "skipped"}, 2},
		{"rewritten: the skipped entry removed", []catalog.ResourceStatus{
			{Ref: "Exec[a]"}, {Ref: "Exec[b]", Failed: true},
		}, map[string]string{"Exec[c]": "skipped"}, 1},
		{"no report: the trace alone", nil,
			map[string]string{"Exec[a]": "absent", "Exec[b]": "failed", "Exec[c]": "skipped", "Foo::Bar[x]": "absent"}, 0},
	}
	for _, c := range cases {
		got, disagree := reconcileReport(c.report, res, g)
		for ref, want := range c.want {
			if s := status(got, ref); s != want {
				t.Errorf("%s: %s is %s, want %s", c.name, ref, s, want)
			}
		}
		if len(disagree) != c.disagree {
			t.Errorf("%s: disagreements %q, want %d", c.name, disagree, c.disagree)
		}
	}
}
