package runner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptures: every tracer has a row; only the ptrace backends get
// CAP_SYS_PTRACE, only the in-container native tracer gets the binary, and
// each command runs Puppet with the runner's apply arguments.
func TestCaptures(t *testing.T) {
	want := map[string]struct{ ptrace, binary, host bool }{
		"strace": {true, false, false},
		"ptrace": {true, true, false},
		"ebpf":   {false, false, true},
	}
	if got := Tracers(); len(got) != len(want) {
		t.Fatalf("tracers %v, want %d", got, len(want))
	}
	mp := []string{"/fsmove/modules"}
	for name, w := range want {
		c, err := captureFor(name)
		if err != nil {
			t.Fatal(err)
		}
		if c.ptrace != w.ptrace || c.binary != w.binary || c.host != w.host {
			t.Errorf("%s: ptrace=%v binary=%v host=%v, want %+v", name, c.ptrace, c.binary, c.host, w)
		}
		cmd := strings.Join(c.command(Options{SeccompBPF: true}, PuppetApplyArgs(mp)), " ")
		if !strings.Contains(cmd, "--modulepath") || !strings.Contains(cmd, sitePP) {
			t.Errorf("%s: command %q does not apply site.pp with the module path", name, cmd)
		}
		if c.binary && !strings.Contains(cmd, fsmoveInContainer+" trace --out "+tracePath) {
			t.Errorf("%s: command %q does not run fsmove trace into trace.log", name, cmd)
		}
	}
	if _, err := captureFor("dtrace"); err == nil || !strings.Contains(err.Error(), "strace, ptrace, ebpf") {
		t.Errorf("unknown tracer: %v", err)
	}
}

// TestPlainApplyRecordsPuppetStatus runs the script the ptrace and ebpf
// backends exec, with a fake puppet, and checks the files it leaves.
func TestPlainApplyRecordsPuppetStatus(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "puppet"), []byte("#!/bin/sh\necho applying \"$@\"\nexit 4\n"), 0o755)
	cmd := plainApply(nil, PuppetApplyArgs([]string{"/m"}))
	script := strings.ReplaceAll(cmd[2], workDir, dir)
	c := exec.Command(cmd[0], cmd[1], script, cmd[3])
	c.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	exit, _ := os.ReadFile(filepath.Join(dir, "puppet.exit"))
	log, _ := os.ReadFile(filepath.Join(dir, "puppet.log"))
	pid, _ := os.ReadFile(filepath.Join(dir, "puppet.pid"))
	if strings.TrimSpace(string(exit)) != "4" || !strings.Contains(string(log), "applying apply --debug") || len(pid) == 0 {
		t.Errorf("puppet.exit %q, puppet.log %q, puppet.pid %q", exit, log, pid)
	}
}

// capWriter keeps the first left bytes, says it cut, and never fails the
// writer upstream for what it drops.
func TestCapWriter(t *testing.T) {
	var buf bytes.Buffer
	c := &capWriter{w: &buf, left: 5}
	for _, p := range []string{"abc", "", "defg", "hij"} {
		if n, err := c.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if buf.String() != "abcde" || !c.cut || c.left != 0 {
		t.Errorf("kept %q, cut %v, left %d: want abcde, cut, 0", buf.String(), c.cut, c.left)
	}
	exact := &capWriter{w: &bytes.Buffer{}, left: 3}
	if exact.Write([]byte("abc")); exact.cut {
		t.Error("a write that fits exactly was said cut")
	}
}
