package ebpf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tracer follows the whole subtree of its cgroup, also cgroups made in
// it after Start: systemd in a container makes
// <container>/system.slice/foo.service and moves a service's process there
// by writing its pid to cgroup.procs.
func TestCgroupCreatedAfterStartIsTraced(t *testing.T) {
	needEBPF(t)
	cg := newCgroup(t)
	leaf := filepath.Join(cg.Path, "system.slice", "fsmove-test.service")
	t.Cleanup(func() { // before cg.Close (cleanups run last first)
		removeCgroup(leaf)
		removeCgroup(filepath.Dir(leaf))
	})
	tr, err := Start(Options{CgroupPath: cg.Path})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer tr.Close()
	c := startCapture(tr)

	dir := t.TempDir()
	file := filepath.Join(dir, "opened-in-the-leaf")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	where := filepath.Join(dir, "cgroup")
	// The service's process moves itself into the new cgroup, then says
	// where it is and opens the file from there.
	work := fmt.Sprintf(`mkdir -p %[1]s && sh -c 'echo $$ > %[1]s/cgroup.procs && cat /proc/self/cgroup > %[2]s && cat %[3]s' >/dev/null`, leaf, where, file)
	cmd := exec.Command("/bin/sh", "-c", work)
	cg.Place(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("workload: %v: %s", err, out)
	}
	if err := tr.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	<-c.done
	if c.err != nil {
		t.Fatal(c.err)
	}
	in, err := os.ReadFile(where)
	if err != nil {
		t.Fatal(err)
	}
	rel := strings.TrimPrefix(leaf, cg.Path)
	if !strings.Contains(string(in), rel+"\n") {
		t.Fatalf("the process was in %q, not in the new cgroup %s", in, rel)
	}
	opened := false
	for i := range c.evs {
		ev := &c.evs[i]
		if strings.HasPrefix(ev.Syscall, "open") && !ev.Failed() && ev.Arg(1).Str == file {
			opened = true
		}
	}
	if !opened {
		t.Errorf("the open of %s by a process in %s (made after Start) was not traced", file, rel)
	}
}
