package analyze

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/puppet"
	"github.com/fsmove/fsmove/report"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/strace"
)

// badArgTrace holds a call whose path is a pointer (a bad argument) and a
// malformed line.
const badArgTrace = `100 openat(AT_FDCWD, "/etc/foo", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
100 openat(AT_FDCWD, 0x7ffd1234, O_RDONLY) = 4
this is not strace output
100 exit_group(0)                     = ?
100 +++ exited with 0 +++
`

func writeTrace(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.log")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLower(t *testing.T) {
	var out bytes.Buffer
	tr, err := Lower(context.Background(), writeTrace(t, badArgTrace), false, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`100 hpath AT_FDCWD "/etc/foo" produced @1 openat`, "100 newfd 4 = anon @2 openat", "100 exit @5"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("program lacks %q:\n%s", want, out.String())
		}
	}
	if tr.Malformed != 1 || tr.Lowering.BadArgs != 1 || tr.Events != 3 {
		t.Errorf("counts: malformed %d, bad args %d, events %d; want 1, 1, 3 (exit_group is not read)", tr.Malformed, tr.Lowering.BadArgs, tr.Events)
	}
}

func TestLowerErrors(t *testing.T) {
	var out bytes.Buffer
	_, err := Lower(context.Background(), writeTrace(t, badArgTrace), true, &out)
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Errorf("strict, malformed line: err = %v, want an InputError", err)
	}
	if _, err := Lower(context.Background(), filepath.Join(t.TempDir(), "nope.log"), false, &out); !errors.As(err, &ie) {
		t.Errorf("missing trace: err = %v, want an InputError", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Lower(ctx, writeTrace(t, badArgTrace), false, &out); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
	if out.Len() != 0 {
		t.Errorf("a failed Lower printed:\n%s", out.String())
	}
}

// TestBadArgReachesReports checks that the lowering's count of bad
// arguments reaches every report format: the text report's warning line,
// JSON's stats and warnings, SARIF's notification and property bag.
func TestBadArgReachesReports(t *testing.T) {
	rep, _, err := Run(context.Background(), Input{Trace: writeTrace(t, badArgTrace), Catalog: "../../detector/testdata/catalog.json"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stats.BadArgs != 1 {
		t.Fatalf("Stats.BadArgs = %d, want 1", rep.Stats.BadArgs)
	}
	var text, js, sarif bytes.Buffer
	if err := report.Text(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	if want := "warning: 1 calls whose path or fd argument could not be read"; !strings.Contains(text.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, text.String())
	}
	if err := report.JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Stats struct {
			BadArgs int64 `json:"bad_args"`
		}
		Warnings []struct {
			Kind  string
			Count int64
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Stats.BadArgs != 1 {
		t.Errorf("JSON stats.bad_args = %d, want 1", doc.Stats.BadArgs)
	}
	found := false
	for _, w := range doc.Warnings {
		found = found || (strings.Contains(w.Kind, "path or fd argument could not be read") && w.Count == 1)
	}
	if !found {
		t.Errorf("JSON warnings lack the bad argument: %+v", doc.Warnings)
	}
	if err := report.SARIF(&sarif, rep); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Invocations []struct {
				Notes []struct {
					Message struct{ Text string }
				} `json:"toolExecutionNotifications"`
				Properties struct{ BadArgs int64 } `json:"properties"`
			}
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	inv := log.Runs[0].Invocations[0]
	if inv.Properties.BadArgs != 1 {
		t.Errorf("SARIF properties.badArgs = %d, want 1", inv.Properties.BadArgs)
	}
	found = false
	for _, n := range inv.Notes {
		found = found || strings.HasPrefix(n.Message.Text, "1 calls whose path or fd argument could not be read")
	}
	if !found {
		t.Errorf("SARIF notifications lack the bad argument: %+v", inv.Notes)
	}
}

// TestReaderShortcuts: what the analysis's reader leaves out
// (tracer.FailedLookups: failed calls that lower to nothing, counted; ShortWrites: the data of long writes to fds other than 1
// and 2; MarkerData: the long writes to fds 1 and 2 that hold no marker;
// DropDataless: the writes left without data, counted) changes no
// statement and no count of a real trace's analysis, and it does leave
// calls out there.
func TestReaderShortcuts(t *testing.T) {
	// Markers too long to count as short writes, next to long writes that
	// need no decoding.
	title := "/etc/" + strings.Repeat("long", 40)
	longMarks := writeTrace(t, strings.Join([]string{
		`100 write(1, "\33[0;32mInfo: /Stage[main]/Main/File[` + title + `]: Starting to evaluate the resource (1 of 2)\33[0m\n", 250) = 250`,
		`100 openat(AT_FDCWD, "` + title + `", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 3`,
		`100 write(3, "` + strings.Repeat(`\0\1`, 100) + `", 200) = 200`,
		`100 write(1, "Debug: ` + strings.Repeat("y", 300) + `\n", 308) = 308`,
		`100 close(3) = 0`,
		`100 write(1, "\33[0;32mInfo: /Stage[main]/Main/File[` + title + `]: Evaluated in 0.01 seconds\33[0m\n", 230) = 230`,
		`100 write(2, "\33[1;31mError: /Stage[main]/Main/Exec[` + strings.Repeat("x", 150) + `]/returns: change from 'notrun' to ['0'] failed: boom\33[0m\n", 260) = 260`,
		`100 exit_group(0) = ?`,
		`100 +++ exited with 0 +++`, ""}, "\n"))
	paths := []string{longMarks}
	for _, run := range []string{"clean", "mor_generate_use", "mn_config_service"} {
		paths = append(paths, filepath.Join("..", "..", "testdata", "runs", run, "trace.log.zst"))
	}
	for _, path := range paths {
		run := filepath.Base(filepath.Dir(path))
		read := func(shortcuts bool) (program string, tr TraceCounts, summary string, dropped, writes int64) {
			opts := ReaderOptions(false)
			opts.ShortWrites, opts.DropDataless = shortcuts, shortcuts
			if !shortcuts {
				opts.Failed, opts.MarkerData = tracer.FailedAll, nil
			}
			for _, interpret := range []bool{false, true} {
				r, err := strace.Open(path, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !interpret {
					// The program as `fsmove lower` prints it.
					low := fstrace.NewLowerer(puppet.Marker{})
					stmts, events, err := lowerEvents(context.Background(), r, low, nil, func(b []fstrace.Statement) []fstrace.Statement { return b })
					if err != nil {
						t.Fatal(err)
					}
					countDropped(r, &events, low)
					var out bytes.Buffer
					if err := fstrace.Print(&out, stmts); err != nil {
						t.Fatal(err)
					}
					program = fmt.Sprintf("%s\nevents %d, %+v", out.String(), events, low.Stats)
				} else {
					res, err := Interpret(context.Background(), r, &tr, nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					tr.ReadLower, tr.Interpret = 0, 0
					js, err := json.Marshal(res.Stats)
					if err != nil {
						t.Fatal(err)
					}
					summary, dropped, writes = string(js), r.DroppedFailed(), r.DroppedWrites()
				}
				r.Close()
			}
			return program, tr, summary, dropped, writes
		}
		allProg, all, allRes, none, noWrites := read(false)
		cutProg, cut, cutRes, n, writes := read(true)
		if path == longMarks {
			for _, want := range []string{`begin "File[` + title + `]"`, `end "File[` + title + `]"`, `fail "Exec[`} {
				if !strings.Contains(cutProg, want) {
					t.Errorf("the long markers' program lacks %q:\n%s", want, cutProg)
				}
			}
		} else if none != 0 || n == 0 || n >= all.Events {
			t.Errorf("%s: dropped %d of %d events (%d with FailedAll); want some, not all", run, n, all.Events, none)
		} else if noWrites != 0 || writes == 0 || writes >= all.Events {
			t.Errorf("%s: dropped %d writes of %d events (%d without DropDataless); want some, not all", run, writes, all.Events, noWrites)
		}
		if allProg != cutProg {
			t.Errorf("%s: the programs differ (%d and %d bytes)", run, len(allProg), len(cutProg))
		}
		if fmt.Sprintf("%+v", all) != fmt.Sprintf("%+v", cut) {
			t.Errorf("%s: counts differ:\nall:       %+v\nshortcuts: %+v", run, all, cut)
		}
		if allRes != cutRes {
			t.Errorf("%s: results differ:\nall:       %s\nshortcuts: %s", run, allRes, cutRes)
		}
	}
}
