package crosscheck

import (
	"bytes"
	"context"
	"github.com/fsmove/fsmove/puppet/analyze"
	"sort"
	"testing"

	"github.com/fsmove/fsmove/bench/gen"
	"github.com/fsmove/fsmove/tracer/strace"
)

// TestPipelineRelations runs a generated trace through the analysis pipeline
// (strace reader, lowering with puppet.Marker, interpreter), and checks that the
// must-precede relations between resources (a path produced by one block
// and consumed or expunged by another that does not produce it) are exactly
// the planned conflicts.
func TestPipelineRelations(t *testing.T) {
	p := gen.Params{Size: 12 << 20, Blocks: 120, Conflicts: 7, Seed: 13}
	var buf bytes.Buffer
	if err := gen.Generate(&buf, p); err != nil {
		t.Fatal(err)
	}
	var tr analyze.TraceCounts
	res, err := analyze.Interpret(context.Background(), strace.NewReader(&buf, analyze.ReaderOptions(true)), &tr, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stats: %+v", res.Stats)

	type rel struct{ from, to, path string }
	var got []rel
	for _, pa := range res.Paths {
		for _, a := range pa.Accesses {
			if !a.Produced {
				continue
			}
			for _, b := range pa.Accesses {
				if b.Block != a.Block && !b.Produced && (b.Consumed || b.Expunged) {
					got = append(got, rel{res.Blocks[a.Block], res.Blocks[b.Block], pa.Path})
				}
			}
		}
	}
	cs, err := gen.Conflicts(p)
	if err != nil {
		t.Fatal(err)
	}
	var want []rel
	for _, c := range cs {
		want = append(want, rel{c.Producer, c.Consumer, c.Path})
	}
	less := func(x []rel) func(i, j int) bool {
		return func(i, j int) bool {
			if x[i].path != x[j].path {
				return x[i].path < x[j].path
			}
			if x[i].from != x[j].from {
				return x[i].from < x[j].from
			}
			return x[i].to < x[j].to
		}
	}
	sort.Slice(got, less(got))
	sort.Slice(want, less(want))
	if len(got) != len(want) {
		t.Errorf("%d relations, want %d", len(got), len(want))
	}
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w rel
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("relation %d: got %v, want %v", i, g, w)
		}
	}
}
