package ebpf

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/strace"
)

// helperEnv makes the test binary a workload instead of running the tests
// (TestMain): its value names the helper, its arguments follow.
const helperEnv = "FSMOVE_EBPF_TEST_HELPER"

func TestMain(m *testing.M) {
	if h := os.Getenv(helperEnv); h != "" {
		os.Exit(runHelper(h, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func runHelper(name string, args []string) int {
	switch name {
	case "writes":
		if err := shortAndLongWrites(args[0]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
	return 2
}

// The writes of the helper "writes": each kind of write call, short (≤ 32
// bytes: sent with its data) and long (not sent), to a file (fd ≥ 3).
var (
	shortWrites = []struct{ call, data string }{
		{"write", "57\n"},
		{"write", strings.Repeat("s", shortWriteMax)}, // exactly the limit
		{"writev", "58\n"},                            // as "58" and "\n"
		{"pwrite64", "59\n"},
	}
	longWrites = []string{
		strings.Repeat("L", shortWriteMax+1),       // write
		strings.Repeat("V", shortWriteMax+1),       // writev, as 20 + 13 bytes
		strings.Repeat("P", 4096),                  // pwrite64
		"long write one byte over the limit: 01\n", // write
	}
)

// shortWriteMax is SHORT_WRITE in fsmove.bpf.c.
const shortWriteMax = 32

func shortAndLongWrites(path string) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	for _, err := range []error{
		write(fd, shortWrites[0].data),
		write(fd, longWrites[0]),
		write(fd, shortWrites[1].data),
		writev(fd, "58", "\n"),
		writev(fd, longWrites[1][:20], longWrites[1][20:]),
		pwrite(fd, shortWrites[3].data, 100),
		pwrite(fd, longWrites[2], 200),
		write(fd, longWrites[3]),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

func write(fd int, s string) error {
	_, err := unix.Write(fd, []byte(s))
	return err
}

func writev(fd int, parts ...string) error {
	iovs := make([][]byte, len(parts))
	for i, p := range parts {
		iovs[i] = []byte(p)
	}
	_, err := unix.Writev(fd, iovs)
	return err
}

func pwrite(fd int, s string, off int64) error {
	_, err := unix.Pwrite(fd, []byte(s), off)
	return err
}

// A short write to any fd is sent with all its data, as strace shows it (a
// pid written to cgroup.procs); a long one to an fd other than 1 and 2 is
// not sent at all.
func TestShortWritesCarryData(t *testing.T) {
	needEBPF(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cgroup.procs")
	evs := traceWorkload(t, fmt.Sprintf("%s=writes '%s' '%s'", helperEnv, self, file))

	fd := int64(-1)
	for i := range evs {
		ev := &evs[i]
		if strings.HasPrefix(ev.Syscall, "open") && !ev.Failed() && (ev.Arg(1).Str == file || ev.Arg(0).Str == file) {
			fd = ev.Ret
		}
	}
	if fd < 3 {
		t.Fatalf("no open of %s", file)
	}
	type write struct{ call, data string }
	var got []write
	var lines bytes.Buffer
	w := strace.NewWriter(&lines)
	for i := range evs {
		ev := &evs[i]
		if !strings.HasPrefix(ev.Syscall, "write") && ev.Syscall != "pwrite64" || ev.Arg(0).Int != fd {
			continue
		}
		a := ev.Arg(1)
		if a.Kind != tracer.ArgStr && a.Kind != tracer.ArgArray || a.Truncated {
			t.Errorf("%s to fd %d without its whole data: %+v", ev.Syscall, fd, a)
		}
		got = append(got, write{ev.Syscall, a.Str})
		if ev.Syscall == "write" {
			w.Write(ev)
		}
	}
	var want []write
	for _, s := range shortWrites {
		want = append(want, write(s))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("writes to fd %d:\n got %q\nwant %q", fd, got, want)
	}
	// In trace.log, as strace prints it.
	w.Flush()
	wantLine := fmt.Sprintf(`write(%d, "57\n", 3) = 3`, fd)
	if first, _, _ := strings.Cut(lines.String(), "\n"); !strings.HasSuffix(first, " "+wantLine) {
		t.Errorf("trace line %q, want PID %s", first, wantLine)
	}
}

// The decoder keeps a short write's data whatever the fd, and the strace
// form is strace's.
func TestDecodeShortWrite(t *testing.T) {
	ev := decodeOne(t, record{kind: evSyscall, tid: 57, nr: unix.SYS_WRITE, ret: 3, args: [6]uint64{3, 0x7ffd0000, 3}, data: "57\n"})
	if a := ev.Arg(1); a.Kind != tracer.ArgStr || a.Str != "57\n" || a.Truncated {
		t.Fatalf("write data %+v", a)
	}
	var b bytes.Buffer
	w := strace.NewWriter(&b)
	w.Write(ev)
	w.Flush()
	if got, want := b.String(), "57 write(3, \"57\\n\", 3) = 3\n"; got != want {
		t.Errorf("strace form %q, want %q", got, want)
	}
}
