package ebpf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/fsmove/fsmove/internal/testenv"
	"github.com/fsmove/fsmove/tracer"
)

// capture reads a tracer's events (copied) until the end, in a goroutine.
type capture struct {
	evs  []tracer.Event
	err  error
	done chan struct{}
}

func startCapture(tr *Tracer) *capture {
	c := &capture{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			ev, err := tr.Next()
			if err != nil {
				if err != io.EOF {
					c.err = err
				}
				return
			}
			e := *ev
			e.Args = append([]tracer.Arg(nil), ev.Args...)
			c.evs = append(c.evs, e)
		}
	}()
	return c
}

// nsRun is a workload traced as the init of a new pid namespace.
type nsRun struct {
	evs     []tracer.Event
	outside uint64 // Tracer.Outside at the end
	hostPid int    // the host pid of the namespace's init (pid 1 in it)
	out     string
}

// traceInNewPidNS starts work (sh -c) as the init of a new pid namespace,
// in a fresh cgroup (clone3 with CLONE_NEWPID and CLONE_INTO_CGROUP: no task
// of the cgroup is ever outside the namespace, as in a container), traces
// it with Options.PidNS set to that namespace, and returns its events. The
// shell waits on its standard input until the tracer runs, as a container
// is running before the tracer learns its init's pid.
func traceInNewPidNS(t *testing.T, opts Options, work string) nsRun {
	t.Helper()
	cg := newCgroup(t)
	cmd := exec.Command("/bin/sh", "-c", "read go; "+work)
	cg.Place(cmd)
	cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWPID
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the workload in a new pid namespace: %v", err)
	}
	defer cmd.Process.Kill() // on Fatal
	ns, err := PidNamespace(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	self, err := PidNamespace(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if ns == self || ns.IsZero() {
		t.Fatalf("the workload's pid namespace %+v is not a new one (ours %+v)", ns, self)
	}
	opts.CgroupPath = cg.Path
	opts.PidNS = ns
	tr, err := Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer tr.Close()
	c := startCapture(tr)
	io.WriteString(stdin, "go\n")
	stdin.Close()
	runErr := cmd.Wait()
	stopErr := tr.Stop()
	<-c.done
	if runErr != nil {
		t.Fatalf("workload: %v: %s", runErr, out.String())
	}
	if stopErr != nil {
		t.Fatalf("Stop: %v", stopErr)
	}
	if c.err != nil {
		t.Fatalf("Next: %v", c.err)
	}
	return nsRun{evs: c.evs, outside: tr.Outside(), hostPid: cmd.Process.Pid, out: out.String()}
}

// A process of the container's pid namespace that leaves the container's
// cgroup is traced all the same, and its calls are counted (Outside): a
// container that could do that could hide from the trace.
func TestOutsideCgroupSeen(t *testing.T) {
	needEBPF(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "opened-after-leaving")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := cgroup2Mount()
	if err != nil {
		t.Fatal(err)
	}
	// The child moves itself to the cgroup2 root, then opens the file.
	r := traceInNewPidNS(t, Options{}, fmt.Sprintf("sh -c 'echo $$ > %s/cgroup.procs && cat %s >/dev/null'", root, file))
	seen := false
	for _, ev := range r.evs {
		seen = seen || strings.HasPrefix(ev.Syscall, "open") && !ev.Failed() && ev.Arg(1).Str == file && ev.Pid < 100
	}
	if !seen {
		t.Errorf("the open of %s after leaving the cgroup is not in the trace (with a namespace pid)", file)
	}
	if r.outside == 0 {
		t.Error("Outside() = 0: the calls made outside the cgroup were not counted")
	}

	// A workload that stays in its cgroup counts nothing.
	if r := traceInNewPidNS(t, Options{}, "cat "+file+" >/dev/null"); r.outside != 0 {
		t.Errorf("Outside() = %d for a workload that never left its cgroup", r.outside)
	}
}

func isFork(ev *tracer.Event) bool {
	switch ev.Syscall {
	case "clone", "clone3", "fork", "vfork":
		return ev.Ret > 0
	}
	return false
}

// With Options.PidNS, events carry the pids of the container's namespace:
// the pid clone returns to the parent is the pid of the child's own events,
// so that the analysis links them.
func TestPidNamespace(t *testing.T) {
	needEBPF(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "opened-by-child")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first child prints its host pid (/proc is the host's here), the
	// second opens the file.
	r := traceInNewPidNS(t, Options{}, fmt.Sprintf("readlink /proc/self; cat %s >/dev/null", file))
	hostChild, err := strconv.Atoi(strings.TrimSpace(r.out))
	if err != nil {
		t.Fatalf("the child printed %q, not its host pid", r.out)
	}

	forks := map[int]int{} // child pid (clone's return) → parent pid
	for i := range r.evs {
		if ev := &r.evs[i]; isFork(ev) {
			forks[int(ev.Ret)] = ev.Pid
		}
	}
	pids := map[int]bool{}
	openerPid, readlinkPid := 0, 0
	for i := range r.evs {
		ev := &r.evs[i]
		pids[ev.Pid] = true
		switch {
		case strings.HasPrefix(ev.Syscall, "open") && !ev.Failed() && ev.Arg(1).Str == file:
			openerPid = ev.Pid
		case strings.HasPrefix(ev.Syscall, "readlink") && !ev.Failed():
			if a := ev.Arg(0); a.Str == "/proc/self" || ev.Arg(1).Str == "/proc/self" {
				readlinkPid = ev.Pid
			}
		}
	}
	if !pids[1] {
		t.Errorf("no event of pid 1 (the namespace's init, host pid %d); pids seen %v", r.hostPid, pids)
	}
	if pids[r.hostPid] && r.hostPid != 1 {
		t.Errorf("an event carries the init's host pid %d", r.hostPid)
	}
	for pid := range pids {
		if pid != 1 && forks[pid] == 0 {
			t.Errorf("pid %d has events but no clone returned it (clones %v)", pid, forks)
		}
		if pid > 100 {
			t.Errorf("pid %d is not a pid of the new namespace", pid)
		}
	}
	if openerPid == 0 {
		t.Fatalf("no open of %s", file)
	}
	if forks[openerPid] != 1 {
		t.Errorf("the open of the file is by pid %d, which pid 1 did not clone (clones %v)", openerPid, forks)
	}
	if readlinkPid == 0 {
		t.Fatal("no readlink of /proc/self")
	}
	if forks[readlinkPid] != 1 || readlinkPid == hostChild {
		t.Errorf("readlink by pid %d (host pid %d), clones %v: want a namespace pid pid 1 cloned", readlinkPid, hostChild, forks)
	}
}

// A thread other than the leader that execs, in a pid namespace: the exec
// is reported under the leader's namespace pid.
func TestExecFromThreadInPidNamespace(t *testing.T) {
	needEBPF(t)
	python := testenv.LookPath(t, "python3") // starts a thread that execs
	r := traceInNewPidNS(t, Options{}, python+" -c '"+threadExecScript+"'")
	pythonPid, truePid := 0, 0
	for _, ev := range r.evs {
		if ev.Syscall == "execve" && !ev.Failed() {
			switch ev.Arg(0).Str {
			case python:
				pythonPid = ev.Pid
			case "/bin/true":
				truePid = ev.Pid
			}
		}
	}
	if pythonPid == 0 || truePid == 0 {
		t.Fatalf("execve of python3 by pid %d, of /bin/true by pid %d: one is missing", pythonPid, truePid)
	}
	if truePid != pythonPid || pythonPid > 100 {
		t.Errorf("/bin/true exec'd under pid %d, python3 under %d: want the same namespace pid", truePid, pythonPid)
	}
}

// Tasks of the cgroup outside Options.PidNS cannot be named in it: their
// calls are dropped and counted, never sent under a wrong pid.
func TestOutsidePidNamespaceCountsAsDropped(t *testing.T) {
	needEBPF(t)
	// A pid namespace no task of the cgroup is in. Its one process is in
	// the namespace but outside the cgroup, so its calls would be traced
	// (and counted as outside): it says when it has started, and then
	// makes no call the program traces (it waits in read) until killed.
	other := exec.Command("/bin/sh", "-c", "echo ready; read x")
	other.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
	stdin, err := other.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := other.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(); err != nil {
		testenv.Missing(t, "cannot make a pid namespace: %v", err)
	}
	defer other.Wait()
	defer other.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the namespace's process did not start: %q, %v", line, err)
	}
	ns, err := PidNamespace(other.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}

	cg := newCgroup(t)
	tr, err := Start(Options{CgroupPath: cg.Path, PidNS: ns})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer tr.Close()
	c := startCapture(tr)
	cmd := exec.Command("/bin/sh", "-c", "cat /etc/hostname >/dev/null")
	cg.Place(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("workload: %v: %s", err, out)
	}
	var dropped *ErrDropped
	if err := tr.Stop(); !errors.As(err, &dropped) || dropped.Count == 0 {
		t.Errorf("Stop = %v, want an ErrDropped", err)
	}
	<-c.done
	if len(c.evs) != 0 {
		t.Errorf("%d events of tasks outside the pid namespace were sent, e.g. %+v", len(c.evs), c.evs[0])
	}
}

func TestPidNamespaceOfSelf(t *testing.T) {
	ns, err := PidNamespace(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/pid", &st); err != nil {
		t.Fatal(err)
	}
	if ns.IsZero() || ns.Ino != st.Ino || ns.Dev != st.Dev {
		t.Errorf("PidNamespace(self) = %+v, stat says dev %d ino %d", ns, st.Dev, st.Ino)
	}
	if _, err := PidNamespace(-1); err == nil {
		t.Error("PidNamespace(-1) did not fail")
	}
	// The kernel's dev_t: major<<20 | minor.
	if got := (PidNS{Dev: 0x10304, Ino: 1}).kernelDev(); got != (0x103<<20 | 4) {
		t.Errorf("kernelDev = %#x", got)
	}
}
