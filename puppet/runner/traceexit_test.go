package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A trace as the tracers write it: the apply wrapper's shell, Puppet
// exec'd by it, a puppet of an Exec's own later, and their ends.
const exitTrace = `100 execve("/bin/sh", ["sh", "-c", "echo $$ > puppet.pid && exec puppet apply \"$@\""], 0x7ffd /* 9 vars */) = 0
101 execve("/usr/local/bin/puppet", ["puppet", "apply"], 0x7ffd /* 9 vars */) = -1 ENOENT (No such file or directory)
101 execve("/usr/bin/puppet", ["puppet", "apply", "--detailed-exitcodes"], 0x7ffd /* 9 vars */) = 0
102 execve("/usr/bin/puppet", ["puppet", "--version"], 0x7ffd /* 9 vars */) = 0
102 +++ exited with 0 +++
101 +++ exited with 6 +++
100 +++ exited with 6 +++
`

func TestPuppetExitInTrace(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, trace string
		want        TraceExit
		ok          bool
	}{
		{"exited", exitTrace, TraceExit{Status: 6}, true},
		{"killed", strings.Replace(exitTrace, "101 +++ exited with 6 +++", "101 +++ killed by SIGKILL +++", 1), TraceExit{Signal: "SIGKILL", SignalNo: 9}, true},
		// Cut before Puppet's end; and no Puppet at all.
		{"cut", exitTrace[:strings.Index(exitTrace, "101 +++")], TraceExit{}, false},
		{"none", "100 execve(\"/bin/true\", [\"true\"], 0x7ffd /* 9 vars */) = 0\n100 +++ exited with 0 +++\n", TraceExit{}, false},
	} {
		path := filepath.Join(dir, c.name+".log")
		if err := os.WriteFile(path, []byte(c.trace), 0o644); err != nil {
			t.Fatal(err)
		}
		got, ok, err := puppetExitInTrace(path)
		if err != nil || ok != c.ok || got != c.want {
			t.Errorf("%s: %+v, %v, %v; want %+v, %v", c.name, got, ok, err, c.want, c.ok)
		}
	}
}

// TestCheckPuppetExit: puppet.exit that the trace contradicts is
// tampering, and the trace's status is kept; one that agrees, or a
// killed Puppet's 128+signal, is not.
func TestCheckPuppetExit(t *testing.T) {
	for _, c := range []struct {
		name     string
		trace    string
		file     *int
		want     *int
		tampered bool
	}{
		{"agrees", exitTrace, intPtr(6), intPtr(6), false},
		{"forged", exitTrace, intPtr(0), intPtr(6), true},
		{"missing", exitTrace, nil, intPtr(6), false},
		{"killed", strings.Replace(exitTrace, "101 +++ exited with 6 +++", "101 +++ killed by SIGKILL +++", 1), intPtr(137), intPtr(137), false},
		{"killed-forged", strings.Replace(exitTrace, "101 +++ exited with 6 +++", "101 +++ killed by SIGKILL +++", 1), intPtr(2), intPtr(137), true},
		{"no-end", exitTrace[:strings.Index(exitTrace, "101 +++")], intPtr(2), intPtr(2), false},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, TraceFile), []byte(c.trace), 0o644); err != nil {
			t.Fatal(err)
		}
		// Every tracer's exit lines carry the status (eBPF's since the
		// BPF program reads exit_code): one rule for all.
		r := &run{opts: Options{OutDir: dir}, rec: &RunRecord{PuppetExit: c.file}, capt: ebpfCapture{}}
		r.checkPuppetExit()
		got := r.rec.PuppetExit
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) || (len(r.tampered) > 0) != c.tampered {
			t.Errorf("%s: puppet exit %v, tampered %v; want %v, %v", c.name, deref(got), r.tampered, deref(c.want), c.tampered)
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
