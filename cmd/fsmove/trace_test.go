package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceCommand runs fsmove trace on a shell command: the exit status is
// the command's, and the saved trace is strace text that fsmove lower reads.
func TestTraceCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.log")
	made := filepath.Join(dir, "made")
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"trace", "--out", out, "--stats", "--", "sh", "-c", "echo x > " + made + "; exit 3"})
	if code != 3 {
		t.Fatalf("exit %d, want the command's 3; stderr: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stops") {
		t.Errorf("--stats printed nothing: %q", stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"`+made+`"`) || !strings.Contains(string(b), "+++ exited with 3 +++") {
		t.Errorf("trace lacks the open of %s or the exit:\n%s", made, b)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"lower", out}); code != exitOK {
		t.Fatalf("fsmove lower on the saved trace: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"`+made+`" produced`) {
		t.Errorf("lowered trace does not produce %s:\n%s", made, stdout.String())
	}
}

func TestTraceUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"trace"}); code != exitUsage {
		t.Errorf("no command: exit %d, want %d", code, exitUsage)
	}
	if code := run(&stdout, &stderr, []string{"trace", "--out", filepath.Join(t.TempDir(), "t"), "--", "/nonexistent/cmd"}); code != traceFailed {
		t.Errorf("missing command: exit %d, want %d", code, traceFailed)
	}
}
