package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// StartLoop starts `sh -c script`, a loop of commands, and returns its
// pid once the loop runs (the shell has started a program or written:
// before its script it does neither): a process that runs before a trace,
// for the tests that attach to one. It is killed and reaped at the end of
// the test, with the commands it was running: they are in its own process
// group, and the cleanup waits until the group is gone, so that none still
// writes in a directory the test's cleanup then removes.
func StartLoop(t testing.TB, script string) int {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pgid := cmd.Process.Pid
		syscall.Kill(-pgid, syscall.SIGKILL)
		cmd.Wait()
		// The loop's running command, orphaned, is reaped by init.
		for deadline := time.Now().Add(5 * time.Second); syscall.Kill(-pgid, 0) == nil && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	})
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(5 * time.Second); !looping(t, pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("loop %d neither started a program nor wrote in 5 s: sh -c %q", pid, script)
		}
	}
	return pid
}

// looping reports whether the shell pid has a child or has made a write
// call (/proc/PID/io's syscw).
func looping(t testing.TB, pid int) bool {
	t.Helper()
	children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		t.Fatalf("loop %d: %v", pid, err)
	}
	if strings.TrimSpace(string(children)) != "" {
		return true
	}
	io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		t.Fatalf("loop %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, "syscw: "); ok {
			return v != "0"
		}
	}
	t.Fatalf("loop %d: no syscw in /proc/%d/io", pid, pid)
	return false
}

// StartReadLoop starts a loop that reads /etc/hostname with cat and then
// appends a line to a file of its own, over and over, and returns the
// loop's pid (as StartLoop) and a command that ends once the loop has
// appended n lines more than when the command started.
//
// A trace that attaches to the loop and then runs that command sees at
// least n-1 cat processes that the loop created after the attach, and their
// opens, however busy the machine: the first line may come from a cat
// started before the attach, every later one from a cat started after the
// command. A fixed sleep instead saw none on a loaded CI machine.
func StartReadLoop(t testing.TB, n int) (pid int, wait []string) {
	t.Helper()
	ticks := filepath.Join(t.TempDir(), "ticks")
	if err := os.WriteFile(ticks, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pid = StartLoop(t, fmt.Sprintf("while :; do cat /etc/hostname >/dev/null; echo >>%s; sleep 0.1; done", ticks))
	wait = []string{"sh", "-c", fmt.Sprintf("n=$(($(wc -l <%[1]s) + %[2]d)); while [ $(wc -l <%[1]s) -lt $n ]; do sleep 0.05; done", ticks, n)}
	return pid, wait
}
