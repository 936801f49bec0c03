package strace

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/tracer"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// writePerPid writes an -ff style directory: one file per pid.
func writePerPid(t *testing.T, files map[string][]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, lines := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// paths lists "pid:path" of the events (the first string argument, or the
// kind for exits).
func paths(evs []tracer.Event) []string {
	var out []string
	for _, ev := range evs {
		s := ev.Arg(1).Str
		if ev.Kind == tracer.KindExit {
			s = "exit"
		}
		out = append(out, strconv.Itoa(ev.Pid)+":"+s)
	}
	return out
}

func TestPerPidMergeByTime(t *testing.T) {
	dir := writePerPid(t, map[string][]string{
		// -tt times that pass midnight: order is A B C D, not C D A B.
		"trace.10": {
			`23:59:59.100000 openat(AT_FDCWD, "/A", O_RDONLY) = 3`,
			`00:00:00.300000 openat(AT_FDCWD, "/C", O_RDONLY) = 3`,
			`00:00:00.500000 +++ exited with 0 +++`,
		},
		"trace.11": {
			`23:59:59.200000 openat(AT_FDCWD, "/B", O_RDONLY <unfinished ...>`,
			`00:00:00.400000 <... openat resumed>) = 4`,
		},
		"notes.txt": {"not a trace file"},
	})
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	evs := readAll(t, r)
	if len(r.Warnings()) != 0 {
		t.Fatalf("warnings %+v", r.Warnings())
	}
	for _, f := range r.src.(*perPidSource).files {
		if f.src != nil {
			t.Errorf("%s still open at the end", f.name)
		}
	}
	want := []string{"10:/A", "10:/C", "11:/B", "10:exit"}
	if got := paths(evs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("order %v, want %v", got, want)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Line <= evs[i-1].Line {
			t.Errorf("line numbers do not increase: %d then %d", evs[i-1].Line, evs[i].Line)
		}
	}
	if r.Lines() != 5 {
		t.Errorf("lines %d", r.Lines())
	}
}

func TestPerPidEpochTimes(t *testing.T) {
	dir := writePerPid(t, map[string][]string{
		"t.200": {`1700000000.000300 chdir("/two") = 0`},
		"t.100": {`1700000000.000100 chdir("/one") = 0`, `1700000000.000400 chdir("/three") = 0`},
	})
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	evs := readAll(t, r)
	var got []string
	for _, ev := range evs {
		got = append(got, strconv.Itoa(ev.Pid)+":"+ev.Arg(0).Str)
	}
	if want := "100:/one 200:/two 100:/three"; strings.Join(got, " ") != want {
		t.Fatalf("order %v, want %s", got, want)
	}
}

func TestPerPidWithoutTimes(t *testing.T) {
	dir := writePerPid(t, map[string][]string{
		"trace.30": {`openat(AT_FDCWD, "/late", O_RDONLY) = 3`},
		"trace.4":  {`openat(AT_FDCWD, "/early", O_RDONLY) = 3`, `+++ exited with 0 +++`},
	})
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	evs := readAll(t, r)
	want := []string{"4:/early", "4:exit", "30:/late"}
	if got := paths(evs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("order %v, want %v", got, want)
	}
	ws := r.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0].Message, "order") || r.Malformed() != 0 {
		t.Fatalf("warnings %+v", ws)
	}
}

func TestPerPidRealCapture(t *testing.T) {
	r, err := Open(filepath.Join("..", "..", "testdata", "strace", "ffnots"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	evs := readAll(t, r)
	if r.Malformed() != 0 || len(r.Warnings()) != 1 {
		t.Fatalf("malformed %d, warnings %+v", r.Malformed(), r.Warnings())
	}
	pids := map[int]bool{}
	for _, ev := range evs {
		pids[ev.Pid] = true
	}
	if len(pids) != 6 || pids[0] {
		t.Fatalf("pids %v: want the 6 file pids", pids)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "missing"), Options{}); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := Open(t.TempDir(), Options{}); err == nil {
		t.Error("empty directory: no error")
	}
	// A gzip magic number followed by garbage is an error, not a panic.
	r := NewReader(strings.NewReader("\x1f\x8bnot really gzip"), Options{})
	if _, err := r.Next(); err == nil {
		t.Error("bad gzip: no error")
	}
}

func TestCompressedStreams(t *testing.T) {
	const text = "1 openat(AT_FDCWD, \"/etc/x\", O_RDONLY) = 3\n1 +++ exited with 0 +++\n"
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(text))
	gw.Close()
	zw, err := zstd.NewWriter(&zs)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write([]byte(text))
	zw.Close()
	for name, input := range map[string][]byte{"plain": []byte(text), "gzip": gz.Bytes(), "zstd": zs.Bytes()} {
		r := NewReader(bytes.NewReader(input), Options{})
		evs := readAll(t, r)
		if len(evs) != 2 || evs[0].Arg(1).Str != "/etc/x" || r.Bytes() != int64(len(text)) || r.Lines() != 2 {
			t.Errorf("%s: events %+v, bytes %d, lines %d", name, evs, r.Bytes(), r.Lines())
		}
		if err := r.Close(); err != nil {
			t.Errorf("%s: close: %v", name, err)
		}
	}
}

// TestSupersededExecve: a thread's execve continues under the leader's pid.
// strace ends the thread's first half in one of two ways: "<unfinished ...>"
// or, when it learns of the new pid before it prints, "<pid changed to N ...>"
// (seen under load).
func TestSupersededExecve(t *testing.T) {
	for _, firstHalf := range []string{"<unfinished ...>", "<pid changed to 100 ...>"} {
		trace := strings.Join([]string{
			`[pid 101] execve("/bin/true", ["true"], 0x7ffd /* 3 vars */ ` + firstHalf,
			`[pid 100] +++ superseded by execve in pid 101 +++`,
			`[pid 100] <... execve resumed>) = 0`,
		}, "\n")
		r := NewReader(strings.NewReader(trace), Options{})
		evs := readAll(t, r)
		if len(r.Warnings()) != 0 || len(evs) != 2 {
			t.Fatalf("%s: events %+v warnings %+v", firstHalf, evs, r.Warnings())
		}
		if evs[0].Kind != tracer.KindExit || evs[0].Pid != 101 {
			t.Errorf("%s: first event %+v, want the exit of thread 101", firstHalf, evs[0])
		}
		if evs[1].Syscall != "execve" || evs[1].Pid != 100 || evs[1].Arg(0).Str != "/bin/true" {
			t.Errorf("%s: second event %+v, want execve by the leader 100", firstHalf, evs[1])
		}
	}
}

// TestPerPidStartedAfterMidnight: a process whose file starts after midnight
// comes after the lines before midnight of the other processes.
func TestPerPidStartedAfterMidnight(t *testing.T) {
	dir := writePerPid(t, map[string][]string{
		"t.50": {`23:59:58.000000 chdir("/first") = 0`, `00:00:02.000000 chdir("/third") = 0`},
		"t.60": {`00:00:01.000000 chdir("/second") = 0`},
		"t.40": {`23:59:57.000000 chdir("/zeroth") = 0`},
	})
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for _, ev := range readAll(t, r) {
		got = append(got, ev.Arg(0).Str)
	}
	if want := "/zeroth /first /second /third"; strings.Join(got, " ") != want {
		t.Fatalf("order %v, want %s", got, want)
	}
}
