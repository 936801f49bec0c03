package strace

import (
	"errors"
	"fmt"
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
	for _, name := range []string{"f.log", "stderr.log", "ytt.log.gz", "xraw.log.gz", "xverbose.log.zst", "ff", "single.log", "ik.log.gz"} {
		t.Run(name, func(t *testing.T) {
			r, err := Open(filepath.Join("..", "..", "testdata", "strace", name), Options{Failed: tracer.FailedAll})
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
			oneProcess := name == "single.log" || name == "ik.log.gz"
			wantExits := 1
			if !oneProcess {
				wantExits = 6 // sh, cat, mkdir, mv, echo's subshell, cat
			}
			if exits != wantExits {
				t.Errorf("exits = %d, want %d", exits, wantExits)
			}
			if opens == 0 {
				t.Errorf("no openat events")
			}
			if !oneProcess && renames == 0 {
				t.Errorf("no renameat2 event")
			}
		})
	}
}

// TestCapturesAgree compares the same command traced with symbolic output
// (default -X abbrev), with numbers only (-X raw), with both (-X verbose)
// and with -yy annotations: the decoded calls must be the same multiset. This
// checks the constant table against strace's own numbers.
func TestCapturesAgree(t *testing.T) {
	calls := map[string]bool{"openat": true, "fcntl": true, "renameat2": true, "mkdir": true, "pipe2": true, "dup2": true, "close": true, "clone": true, "execve": true}
	describe := func(name string) map[string]int {
		r, err := Open(filepath.Join("..", "..", "testdata", "strace", name), Options{Want: func(s string) bool { return calls[s] }})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		set := map[string]int{}
		for _, ev := range readAll(t, r) {
			if ev.Kind != tracer.KindSyscall {
				continue
			}
			key := fmt.Sprintf("%s errno=%s", ev.Syscall, ev.Errno)
			if ev.Syscall != "clone" { // clone returns a pid, different in each run
				key += fmt.Sprintf(" ret=%d", ev.Ret)
			}
			for _, a := range ev.Args {
				switch a.Kind {
				case tracer.ArgInt:
					key += fmt.Sprintf(" %s%d", a.Name, a.Int)
				case tracer.ArgStr, tracer.ArgArray:
					// Only f.log was made with -s 300: compare what -s 32 keeps.
					str := a.Str
					if len(str) > 20 {
						str = str[:20]
					}
					key += fmt.Sprintf(" %s%q%v", a.Name, str, a.Ints)
				default: // pointers differ between runs
					key += fmt.Sprintf(" %s<%d>", a.Name, a.Kind)
				}
			}
			set[key]++
		}
		return set
	}
	want := describe("f.log")
	if len(want) < 10 {
		t.Fatalf("only %d distinct calls in f.log", len(want))
	}
	for _, name := range []string{"xraw.log.gz", "xverbose.log.zst", "ytt.log.gz"} {
		got := describe(name)
		for k, n := range want {
			if got[k] != n {
				t.Errorf("%s: %q appears %d times, f.log has %d", name, k, got[k], n)
			}
		}
		for k, n := range got {
			if want[k] == 0 {
				t.Errorf("%s: %q (%d times) not in f.log", name, k, n)
			}
		}
	}
}

// TestModernCalls reads openat2, close_range, dup3 and renameat2 as strace
// prints them symbolically and with -X raw: the decoded values must be the
// kernel's.
func TestModernCalls(t *testing.T) {
	for _, name := range []string{"modern.log", "modern-raw.log"} {
		r, err := Open(filepath.Join("..", "..", "testdata", "strace", name), Options{Failed: tracer.FailedAll})
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string][]tracer.Event{}
		for _, ev := range readAll(t, r) {
			byName[ev.Syscall] = append(byName[ev.Syscall], ev)
		}
		r.Close()
		if r.WarningCount() != 0 {
			t.Fatalf("%s: warnings %+v", name, r.Warnings())
		}
		o := byName["openat2"]
		if len(o) != 1 || o[0].Arg(0).Int != -100 || o[0].Arg(1).Str != "/etc/hostname" ||
			o[0].Arg(2).Kind != tracer.ArgStruct || o[0].Arg(2).Int != 02000000 || o[0].Ret != 3 {
			t.Errorf("%s: openat2 %+v", name, o)
		}
		c := byName["close_range"]
		if len(c) != 2 || c[0].Arg(0).Int != 3 || c[0].Arg(1).Int != 4294967295 || c[0].Arg(2).Int != 4 ||
			c[1].Arg(0).Int != 5 || c[1].Arg(1).Int != 10 || c[1].Arg(2).Int != 0 {
			t.Errorf("%s: close_range %+v", name, c)
		}
		d := byName["dup3"]
		if len(d) != 1 || d[0].Arg(0).Int != 3 || d[0].Arg(1).Int != 9 || d[0].Arg(2).Int != 02000000 || d[0].Ret != 9 {
			t.Errorf("%s: dup3 %+v", name, d)
		}
		n := byName["renameat2"]
		if len(n) != 1 || n[0].Arg(4).Int != 2 || n[0].Errno != "ENOENT" || n[0].Ret != -1 || n[0].Arg(3).Str != "/nonexist/b" {
			t.Errorf("%s: renameat2 %+v", name, n)
		}
	}
}

// TestThreadCapture reads a Python thread start (glibc's clone3 with its
// "=> {parent_tid=[N]}" out-part) and the thread's own calls.
func TestThreadCapture(t *testing.T) {
	r, err := Open(filepath.Join("..", "..", "testdata", "strace", "threads.log"), Options{Failed: tracer.FailedAll})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	evs := readAll(t, r)
	if r.WarningCount() != 0 {
		t.Fatalf("warnings %+v", r.Warnings())
	}
	const threadFlags = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x80000 | 0x100000 | 0x200000
	var tid int64
	for _, ev := range evs {
		if ev.Syscall == "clone3" {
			if a := ev.Arg(0); a.Kind != tracer.ArgStruct || a.Int != threadFlags || ev.Ret <= 0 || ev.Arg(1).Int != 88 {
				t.Fatalf("clone3 %+v", ev)
			}
			tid = ev.Ret
		}
		if ev.Syscall == "openat" && ev.Arg(1).Str == "/etc/hostname" {
			if tid == 0 || int64(ev.Pid) != tid || ev.Failed() {
				t.Fatalf("hostname opened by %d (thread %d): %+v", ev.Pid, tid, ev)
			}
			return
		}
	}
	t.Fatalf("no thread opened /etc/hostname (clone3 returned %d)", tid)
}
