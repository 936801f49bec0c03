package strace

import (
	"os"
	"testing"
)

// TestDumpFile checks a capture of your own: DUMP=trace.log go test -run
// TestDumpFile -v ./tracer/strace prints the event, line and warning counts
// and every kept warning. It is skipped when DUMP is not set.
func TestDumpFile(t *testing.T) {
	path := os.Getenv("DUMP")
	if path == "" {
		t.Skip("set DUMP to a trace file or -ff directory")
	}
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	evs := readAll(t, r)
	t.Logf("events %d lines %d bytes %d malformed %d warnings %d", len(evs), r.Lines(), r.Bytes(), r.Malformed(), r.WarningCount())
	for _, w := range r.Warnings() {
		t.Logf("line %d: %s: %s", w.Line, w.Message, w.Text)
	}
}

// TestOpenStdin reads "-" from standard input.
func TestOpenStdin(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("7 unlink(\"/tmp/x\") = 0\n")
	f.Seek(0, 0)
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved; f.Close() }()
	r, err := Open("-", Options{})
	if err != nil {
		t.Fatal(err)
	}
	evs := readAll(t, r)
	if len(evs) != 1 || evs[0].Syscall != "unlink" || evs[0].Pid != 7 || evs[0].Arg(0).Str != "/tmp/x" {
		t.Fatalf("events %+v", evs)
	}
}
