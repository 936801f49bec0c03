package runner

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/tracer/ebpf"
)

// TestCaptures: every tracer has a row; only the backends whose tracer
// runs in the container get CAP_SYS_PTRACE, only the native one gets the
// binary, only eBPF runs on the host, only strace records its filter, and
// each command runs Puppet with the runner's apply arguments.
func TestCaptures(t *testing.T) {
	type want struct {
		ptrace, binary bool
		site           TraceSite
		filter         bool
	}
	wants := map[string]want{
		"strace": {true, false, InContainer, true},
		"ptrace": {true, true, InContainer, false},
		"ebpf":   {false, false, OnHost, false},
		Untraced: {false, false, NoTrace, false},
	}
	if got := Tracers(); len(got) != len(wants)-1 {
		t.Fatalf("tracers %v, want %d", got, len(wants)-1)
	}
	bin := filepath.Join(t.TempDir(), "fsmove")
	os.WriteFile(bin, []byte("binary"), 0o755)
	opts := Options{SeccompBPF: true, TracerBinary: bin}
	mp := []string{"/fsmove/modules"}
	for _, c := range append(append([]Capture(nil), captures...), untraced) {
		w, ok := wants[c.Name()]
		if !ok {
			t.Errorf("capture %q: not in the test", c.Name())
			continue
		}
		files, err := c.Files(opts)
		if err != nil {
			t.Fatal(err)
		}
		binary := len(files) == 1 && files[0].Path == fsmoveInContainer && string(files[0].Data) == "binary"
		if c.NeedsPtrace() != w.ptrace || binary != w.binary || c.Trace() != w.site || (c.Filter() != "") != w.filter {
			t.Errorf("%s: ptrace=%v binary=%v site=%v filter=%q, want %+v", c.Name(), c.NeedsPtrace(), binary, c.Trace(), c.Filter(), w)
		}
		cmd := strings.Join(c.Command(opts, PuppetApplyArgs(mp)), " ")
		if !strings.Contains(cmd, "--modulepath") || !strings.Contains(cmd, sitePP) {
			t.Errorf("%s: command %q does not apply site.pp with the module path", c.Name(), cmd)
		}
		if w.binary && !strings.Contains(cmd, fsmoveInContainer+" trace --out "+tracePath) {
			t.Errorf("%s: command %q does not run fsmove trace into trace.log", c.Name(), cmd)
		}
		if w.site != OnHost {
			if h, err := c.StartHost(context.Background(), nil, t.TempDir(), 1); h != nil || err != nil {
				t.Errorf("%s: a host tracer (%v, %v) for a tracer that runs in the container", c.Name(), h, err)
			}
		}
	}
	if _, err := (ptraceCapture{}).Files(Options{}); err == nil {
		t.Error("ptrace without the fsmove binary: no error")
	}
}

// TestChooseTracer: the default is the first backend this host allows,
// with a note when that is not the first; a named one is checked; an
// unknown one is an error that lists the known ones; the tracers inside the
// container only for a trusted module.
func TestChooseTracer(t *testing.T) {
	c, note, err := ChooseTracer("", true)
	if err != nil {
		t.Fatal(err)
	}
	ebpfErr := ebpf.Check()
	if want := map[bool]string{true: "ebpf", false: "strace"}[ebpfErr == nil]; c.Name() != want {
		t.Errorf("default %s, want %s (ebpf.Check: %v)", c.Name(), want, ebpfErr)
	}
	if (note == "") != (ebpfErr == nil) || ebpfErr != nil && !strings.Contains(note, ebpfErr.Error()) {
		t.Errorf("note %q with ebpf.Check %v", note, ebpfErr)
	}
	c, _, err = ChooseTracer("ebpf", false)
	if (err == nil) != (ebpfErr == nil) || err == nil && c.Name() != "ebpf" {
		t.Errorf("ChooseTracer(ebpf) = %v, %v with ebpf.Check %v", c, err, ebpfErr)
	}
	for _, name := range []string{"strace", "ptrace"} {
		if c, note, err := ChooseTracer(name, true); err != nil || c.Name() != name || note != "" {
			t.Errorf("ChooseTracer(%s, trusted) = %v, %q, %v", name, c, note, err)
		}
		if _, _, err := ChooseTracer(name, false); err == nil || !strings.Contains(err.Error(), "give --trusted") {
			t.Errorf("ChooseTracer(%s) for a module not trusted: %v, want a refusal that names --trusted", name, err)
		}
	}
	// The default for a module not trusted: eBPF, or nothing.
	c, _, err = ChooseTracer("", false)
	if ebpfErr == nil && (err != nil || c.Name() != "ebpf") || ebpfErr != nil && (err == nil || !strings.Contains(err.Error(), "give --trusted")) {
		t.Errorf("default for a module not trusted: %v, %v with ebpf.Check %v", c, err, ebpfErr)
	}
	if _, _, err := ChooseTracer("dtrace", false); err == nil || !strings.Contains(err.Error(), strings.Join(Tracers(), ", ")) {
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
	script := strings.ReplaceAll(cmd[2], applyDir, dir)
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
