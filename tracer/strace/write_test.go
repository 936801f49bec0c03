package strace

import (
	"bytes"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
)

// readBack reads every event of a trace text, copying each one.
func readBack(t *testing.T, text string) []tracer.Event {
	t.Helper()
	r := NewReader(strings.NewReader(text), Options{Strict: true, Failed: tracer.FailedAll})
	var out []tracer.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("reading back:\n%s\nerror: %v", text, err)
		}
		c := *ev
		c.Args = append([]tracer.Arg(nil), ev.Args...)
		for i := range c.Args {
			c.Args[i].Ints = append([]int64(nil), c.Args[i].Ints...)
			if len(c.Args[i].Ints) == 0 {
				c.Args[i].Ints = nil
			}
		}
		c.Line = 0
		out = append(out, c)
	}
}

func writeAll(t *testing.T, evs []tracer.Event) string {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestWriterShapes(t *testing.T) {
	evs := []tracer.Event{
		{Pid: 7, Syscall: "openat", Args: []tracer.Arg{
			{Kind: tracer.ArgInt, Int: -100}, {Kind: tracer.ArgStr, Str: "/etc/a \"b\"\n"},
			{Kind: tracer.ArgInt, Int: 0x80241}, {Kind: tracer.ArgInt, Int: 0644}}, Ret: 3},
		{Pid: 7, Syscall: "stat", Args: []tracer.Arg{{Kind: tracer.ArgStr, Str: "/nope"}, {Kind: tracer.ArgPtr, Int: 0x1f0}}, Ret: -1, Errno: "ENOENT"},
		{Pid: 8, Syscall: "clone", Args: []tracer.Arg{{Name: "child_stack", Kind: tracer.ArgNull},
			{Name: "flags", Kind: tracer.ArgInt, Int: 0x1200011}}, Ret: 9},
		{Pid: 8, Syscall: "exit_group", Args: []tracer.Arg{{Kind: tracer.ArgInt}}, Errno: "?"},
		{Kind: tracer.KindExit, Pid: 9, Ret: 3},
		{Kind: tracer.KindExit, Pid: 10, Ret: -9, Args: []tracer.Arg{{Kind: tracer.ArgInt, Int: 9, Str: "SIGKILL"}}},
	}
	text := writeAll(t, evs)
	want := `7 openat(AT_FDCWD, "/etc/a \"b\"\n", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 3
7 stat("/nope", 0x0000001f0) = -1 ENOENT (No such file or directory)
8 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD) = 9
8 exit_group(0) = ?
9 +++ exited with 3 +++
10 +++ killed by SIGKILL +++
`
	if text != want {
		t.Fatalf("got:\n%s\nwant:\n%s", text, want)
	}
	got := readBack(t, text)
	if !reflect.DeepEqual(got, evs) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, evs)
	}
}

// TestWriterRoundTripRandom writes random events and requires Reader to
// give them back equal (Line aside).
func TestWriterRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 2000; round++ {
		evs := make([]tracer.Event, 1+rng.IntN(20))
		for i := range evs {
			evs[i] = randomEvent(rng)
		}
		text := writeAll(t, evs)
		got := readBack(t, text)
		if !reflect.DeepEqual(got, evs) {
			for i := range evs {
				if i >= len(got) || !reflect.DeepEqual(got[i], evs[i]) {
					var g tracer.Event
					if i < len(got) {
						g = got[i]
					}
					t.Fatalf("event %d differs after a round trip through\n%s\n got %+v\nwant %+v", i, text, g, evs[i])
				}
			}
			t.Fatalf("got %d events, want %d", len(got), len(evs))
		}
	}
}

// randomNames are calls of every argument format (argFormats).
var randomNames = []string{"openat", "write", "clone3", "rename", "pipe2", "writev", "execve", "fcntl",
	"open", "openat2", "mkdir", "mknodat", "unlinkat", "renameat2", "clone", "fchmodat", "fchownat",
	"linkat", "dup3", "socket", "statx", "faccessat2", "access", "eventfd2", "close_range", "setxattr"}
var randomErrnos = []string{"ENOENT", "EACCES", "EEXIST", "?", "ERESTARTSYS", "E999"}

func randomString(rng *rand.Rand) string {
	n := rng.IntN(40)
	b := make([]byte, n)
	for i := range b {
		switch rng.IntN(4) {
		case 0:
			b[i] = byte(rng.IntN(256))
		default:
			b[i] = "abc/._- \"\\\n\t0123"[rng.IntN(16)]
		}
	}
	return string(b)
}

func randomEvent(rng *rand.Rand) tracer.Event {
	pid := 1 + rng.IntN(100000)
	switch rng.IntN(10) {
	case 0:
		return tracer.Event{Kind: tracer.KindExit, Pid: pid, Ret: int64(rng.IntN(256))}
	case 1:
		sig := 1 + rng.IntN(31)
		return tracer.Event{Kind: tracer.KindExit, Pid: pid, Ret: -int64(sig),
			Args: []tracer.Arg{{Kind: tracer.ArgInt, Int: int64(sig), Str: SignalName(sig)}}}
	case 2:
		sig := 1 + rng.IntN(31)
		return tracer.Event{Kind: tracer.KindSignal, Pid: pid,
			Args: []tracer.Arg{{Kind: tracer.ArgInt, Int: int64(sig), Str: SignalName(sig)}}}
	}
	ev := tracer.Event{Pid: pid, Syscall: randomNames[rng.IntN(len(randomNames))]}
	for range rng.IntN(6) {
		var a tracer.Arg
		if rng.IntN(5) == 0 {
			a.Name = []string{"flags", "child_stack", "resolve"}[rng.IntN(3)]
		}
		switch rng.IntN(7) {
		case 0:
			a.Kind, a.Int = tracer.ArgInt, rng.Int64()-rng.Int64()
		case 6: // small values: flags and modes that have names
			a.Kind, a.Int = tracer.ArgInt, int64(rng.IntN(1<<24))-200
		case 1:
			a.Kind, a.Int = tracer.ArgPtr, int64(rng.Uint64()>>1)
		case 2:
			a.Kind = tracer.ArgNull
		case 3:
			a.Kind, a.Str, a.Truncated = tracer.ArgStr, randomString(rng), rng.IntN(4) == 0
		case 4:
			a.Kind, a.Int, a.Str, a.Truncated = tracer.ArgStruct, int64(rng.Uint32()), randomString(rng), rng.IntN(4) == 0
		case 5:
			a.Kind = tracer.ArgArray
			for range rng.IntN(3) {
				a.Ints = append(a.Ints, int64(rng.IntN(1000))-10)
			}
			a.Str, a.Truncated = randomString(rng), rng.IntN(4) == 0
		}
		ev.Args = append(ev.Args, a)
	}
	if rng.IntN(3) == 0 {
		ev.Errno = randomErrnos[rng.IntN(len(randomErrnos))]
		if ev.Errno != "?" && !linux.IsRestart(ev.Errno) { // "= ?": no Ret
			ev.Ret = -1
		}
	} else {
		ev.Ret = int64(rng.IntN(1 << 20))
	}
	return ev
}

// BenchmarkWriter prints typical events (an openat, a failed readlink, a
// marker write); MB/s is the text produced.
func BenchmarkWriter(b *testing.B) {
	evs := []tracer.Event{
		{Pid: 1234, Syscall: "openat", Args: []tracer.Arg{{Kind: tracer.ArgInt, Int: -100},
			{Kind: tracer.ArgStr, Str: "/usr/lib/ruby/vendor_ruby/puppet/type/file.rb"}, {Kind: tracer.ArgInt, Int: 0x80000}, {Kind: tracer.ArgInt}}, Ret: 7},
		{Pid: 1234, Syscall: "readlink", Ret: -1, Errno: "EINVAL"},
		{Pid: 1234, Syscall: "write", Args: []tracer.Arg{{Kind: tracer.ArgInt, Int: 1},
			{Kind: tracer.ArgStr, Str: "\x1b[0;36mDebug: /Stage[main]/Foo/File[/etc/foo.conf]: Starting to evaluate the resource (1 of 7)\x1b[0m\n"}, {Kind: tracer.ArgInt, Int: 97}}, Ret: 97},
	}
	var cw countingWriter
	w := NewWriter(&cw)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		w.Write(&evs[i%len(evs)])
	}
	w.Flush()
	b.SetBytes(cw.n / int64(max(b.N, 1)))
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
