package strace

import (
	"os"
	"testing"
)

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
