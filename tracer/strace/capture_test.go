package strace

import (
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/fsmove/fsmove/tracer"
)

// readAll drains a Reader, copying every event (the Reader reuses its Event).
func readAll(t testing.TB, r *Reader) []tracer.Event {
	t.Helper()
	var out []tracer.Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		cp := *ev
		cp.Args = append([]tracer.Arg(nil), ev.Args...)
		out = append(out, cp)
	}
}

// TestRealCaptures reads small traces made by strace 6.1 on this machine
// (see testdata/strace/README) and checks that every line parses and that
// the calls we know the traced shell made are there, decoded.
func TestRealCaptures(t *testing.T) {
	const weirdPath = `/tmp/st/d (1)/a b,c"q[1].txt`
	for _, name := range []string{"f.log", "stderr.log", "ytt.log.gz", "xraw.log.gz", "xverbose.log.zst", "ff", "single.log"} {
		t.Run(name, func(t *testing.T) {
			r, err := Open(filepath.Join("..", "..", "testdata", "strace", name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			events := readAll(t, r)
			if r.Malformed() != 0 || len(r.Warnings()) != 0 {
				t.Fatalf("malformed=%d warnings=%v", r.Malformed(), r.Warnings())
			}
			if r.Lines() == 0 || r.Bytes() == 0 {
				t.Fatalf("lines=%d bytes=%d", r.Lines(), r.Bytes())
			}
			var exits, opens, renames int
			lastLine := int64(0)
			for _, ev := range events {
				if ev.Line <= lastLine {
					t.Fatalf("line numbers do not increase: %d after %d", ev.Line, lastLine)
				}
				lastLine = ev.Line
				switch {
				case ev.Kind == tracer.KindExit:
					exits++
				case ev.Syscall == "openat":
					opens++
					if d := ev.Arg(0); d.Kind != tracer.ArgInt || d.Int != -100 && d.Int < 0 {
						t.Errorf("line %d: openat dirfd %+v", ev.Line, d)
					}
					if p := ev.Arg(1); p.Kind != tracer.ArgStr || p.Str == "" {
						t.Errorf("line %d: openat path %+v", ev.Line, p)
					}
					if ev.Errno == "" && ev.Ret < 0 {
						t.Errorf("line %d: openat success with ret %d", ev.Line, ev.Ret)
					}
				case ev.Syscall == "renameat2" || ev.Syscall == "rename":
					renames++
					if p := ev.Arg(3); p.Str != weirdPath {
						t.Errorf("line %d: renameat2 new path = %q, want %q", ev.Line, p.Str, weirdPath)
					}
					if ev.Arg(4).Int != 1 { // RENAME_NOREPLACE
						t.Errorf("line %d: renameat2 flags = %+v", ev.Line, ev.Arg(4))
					}
				}
			}
			wantExits := 1
			if name != "single.log" {
				wantExits = 6 // sh, cat, mkdir, mv, echo's subshell, cat
			}
			if exits != wantExits {
				t.Errorf("exits = %d, want %d", exits, wantExits)
			}
			if opens == 0 {
				t.Errorf("no openat events")
			}
			if name != "single.log" && renames == 0 {
				t.Errorf("no renameat2 event")
			}
		})
	}
}
