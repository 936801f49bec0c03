package analyze

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestUnpairedMarkersMakeIncomplete edits a copy of a real trace so that
// Puppet's block markers no longer pair up, as when a tracer loses them,
// and checks that the analysis says it is incomplete, with the count; the
// trace as captured stays complete.
func TestUnpairedMarkersMakeIncomplete(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "runs", "mor_exec_reads_file")
	compressed, err := os.ReadFile(filepath.Join(dir, "trace.log.zst"))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(compressed, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	const begin, end = "Starting to evaluate the resource", "Evaluated in "

	// keepIf copies the trace without the marker lines drop says to drop
	// (the n-th line holding marker), and returns how many it dropped.
	keepIf := func(marker string, drop func(n int) bool) (string, int64) {
		var b strings.Builder
		n, dropped := 0, int64(0)
		for _, l := range lines {
			if strings.Contains(l, marker) {
				n++
				if drop(n) {
					dropped++
					continue
				}
			}
			b.WriteString(l)
		}
		return b.String(), dropped
	}
	everyBeginButOne, lostBegins := keepIf(begin, func(n int) bool { return n > 1 })
	oneEnd, lostEnds := keepIf(end, func(n int) bool { return n == 3 })

	cases := []struct {
		name              string
		trace             string
		unmatched, inside int64
	}{
		{"as captured", string(raw), 0, 0},
		{"every Begin but the first lost", everyBeginButOne, lostBegins, 0},
		{"the third End lost", oneEnd, 0, lostEnds},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, _, err := Run(context.Background(), Input{Trace: writeTrace(t, c.trace), Catalog: filepath.Join(dir, "catalog.json")}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.unmatched+c.inside == 0 {
				if !rep.Complete() {
					t.Fatalf("the real trace is incomplete: %q", rep.Incomplete)
				}
				return
			}
			if rep.Stats.Interp.UnmatchedEnds != c.unmatched || rep.Stats.ImplicitEnds != c.inside {
				t.Errorf("unmatched ends %d, begins inside a block %d; want %d, %d",
					rep.Stats.Interp.UnmatchedEnds, rep.Stats.ImplicitEnds, c.unmatched, c.inside)
			}
			want := fmt.Sprintf("%d of Puppet's block markers do not pair up (%d ", c.unmatched+c.inside, c.unmatched)
			found := false
			for _, why := range rep.Incomplete {
				found = found || strings.HasPrefix(why, want)
			}
			if !found {
				t.Errorf("incomplete %q, want a reason starting %q", rep.Incomplete, want)
			}
		})
	}
}
