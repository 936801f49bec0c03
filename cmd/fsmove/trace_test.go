package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/internal/testenv"
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

// TestTraceAttach: --attach follows a process that runs before the trace
// (as PID 1 in a container): the processes it creates are in the trace,
// linked to it by its clone return values, and it is left running,
// untraced, when the command ends.
func TestTraceAttach(t *testing.T) {
	testenv.Root(t, "attaching to a running process")
	pid, wait := testenv.StartReadLoop(t, 3)
	out := filepath.Join(t.TempDir(), "trace.log")
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, append([]string{"trace", "--attach", strconv.Itoa(pid), "--out", out, "--"}, wait...))
	if code != 0 {
		t.Fatalf("exit %d, want the command's 0; stderr: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	clone := regexp.MustCompile(`^` + strconv.Itoa(pid) + ` (?:clone|clone3|fork|vfork)\(.*\) = ([0-9]+)$`)
	open := regexp.MustCompile(`^([0-9]+) openat\(.*"/etc/hostname".*\) = [0-9]+$`)
	children := map[string]bool{}
	var opened []string
	for _, line := range strings.Split(string(b), "\n") {
		if m := clone.FindStringSubmatch(line); m != nil {
			children[m[1]] = true
		}
		if m := open.FindStringSubmatch(line); m != nil {
			if !children[m[1]] {
				t.Errorf("%s opened /etc/hostname, not a child of the loop %d created before: %q", m[1], pid, line)
			}
			opened = append(opened, m[1])
		}
	}
	if len(opened) < 2 {
		t.Errorf("%d opens of /etc/hostname by the loop's children (%d created), want several; trace:\n%s", len(opened), len(children), b)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("the loop %d is gone: %v", pid, err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch {
		case k == "TracerPid" && v != "0":
			t.Errorf("the loop is still traced: %s", line)
		case k == "State" && (strings.HasPrefix(v, "t") || strings.HasPrefix(v, "T") || strings.HasPrefix(v, "Z")):
			t.Errorf("the loop is left %s", v)
		}
	}
}

// TestTraceAttachErrors: a bad --attach is a usage error; a pid that
// cannot be attached fails the trace, naming it, before the command runs.
func TestTraceAttachErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "t")
	if code := run(&stdout, &stderr, []string{"trace", "--attach", "1,x", "--out", out, "--", "true"}); code != exitUsage {
		t.Errorf("--attach 1,x: exit %d, want %d", code, exitUsage)
	}
	testenv.Root(t, "attaching to a process")
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	gone := strconv.Itoa(done.Process.Pid)
	ran := filepath.Join(t.TempDir(), "ran")
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"trace", "--attach", gone, "--out", out, "--", "touch", ran}); code != traceFailed {
		t.Errorf("--attach of a finished process: exit %d, want %d", code, traceFailed)
	}
	if !strings.Contains(stderr.String(), "pid "+gone) {
		t.Errorf("the error does not name pid %s: %q", gone, stderr.String())
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the command ran although the attach failed")
	}
}

// TestTraceShortWrite: a write of at most 32 bytes to a file is saved
// with its data, as strace prints it; a longer one is not saved.
func TestTraceShortWrite(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.log")
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"trace", "--out", out, "--", "sh", "-c",
		"echo 57 | tee " + dir + "/procs >/dev/null; head -c 100 /dev/zero | tr '\\0' y | tee " + dir + "/long >/dev/null"})
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// tee's file is the lowest free fd: 3, or more when the test inherits
	// one (flock's lock file).
	const fileFd = `([3-9]|[1-9][0-9]+)`
	if !regexp.MustCompile(`(?m)^[0-9]+ write\(` + fileFd + `, "57\\n", 3\) = 3$`).Match(b) {
		t.Errorf("no write(FD, \"57\\n\", 3) = 3 line to tee's file in the trace:\n%s", b)
	}
	if regexp.MustCompile(`(?m)^[0-9]+ write\(` + fileFd + `, "y`).Match(b) {
		t.Errorf("the 100-byte write to tee's file is in the trace:\n%s", b)
	}
	if !regexp.MustCompile(`(?m)^[0-9]+ write\(1, "y{100}", 100\) = 100$`).Match(b) {
		t.Errorf("the 100-byte write to fd 1 is missing:\n%s", b)
	}
}
