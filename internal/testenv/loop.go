package testenv

import (
	"fmt"
	"os"
	"os/exec"
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
