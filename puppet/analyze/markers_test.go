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
	raw := readZst(t, filepath.Join(dir, "trace.log.zst"))
	lines := strings.SplitAfter(raw, "\n")
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
		{"as captured", raw, 0, 0},
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

// TestForeignMarkersIgnored adds to a real trace marker lines written by a
// process other than Puppet's (a module's command forging the end of its
// block and the start of another's): they are ignored and counted, and the
// report is the one of the trace as captured, complete.
func TestForeignMarkersIgnored(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "runs", "mor_exec_reads_file")
	raw := readZst(t, filepath.Join(dir, "trace.log.zst"))
	const forged = `99999 write(1, "\33[0;32mInfo: Stage[main]: Evaluated in 0.01 seconds\33[0m\nInfo: /Stage[main]/Main/File[/x]: Starting to evaluate the resource (3 of 17)\n", 120) = 120` + "\n"
	first := strings.Index(raw, "Starting to evaluate the resource")
	cut := first + strings.IndexByte(raw[first:], '\n') + 1
	in := Input{Catalog: filepath.Join(dir, "catalog.json")}
	in.Trace = writeTrace(t, raw)
	want, _, err := Run(context.Background(), in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in.Trace = writeTrace(t, raw[:cut]+forged+raw[cut:])
	got, _, err := Run(context.Background(), in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Complete() || got.Faults() != want.Faults() || got.Faults() == 0 || got.Stats.Blocks != want.Stats.Blocks {
		t.Errorf("with forged markers: complete %v, %d faults, %d blocks; as captured %d faults, %d blocks",
			got.Complete(), got.Faults(), got.Stats.Blocks, want.Faults(), want.Stats.Blocks)
	}
	found := false
	for _, w := range got.Warnings {
		if strings.HasPrefix(w.Kind, "marker-like lines written by other processes") {
			found = w.Count == 2 && w.ChangesReport() && strings.HasPrefix(w.Example, "line ")
		}
	}
	if !found {
		t.Errorf("no warning of 2 foreign markers: %+v", got.Warnings)
	}
}

// readZst returns the text of a zstd-compressed file.
func readZst(t *testing.T, name string) string {
	t.Helper()
	compressed, err := os.ReadFile(name)
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
	return string(raw)
}
