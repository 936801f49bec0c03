package runner

// Puppet's exit status as the trace has it. puppet.exit, which the apply
// wrapper writes in the container, is the module's to rewrite (a process
// it left behind can overwrite it after Puppet exits); the trace says how
// the process that first exec'd Puppet ended, as the tracer saw it. When
// the two differ, the trace's status is kept and the run is tampered.
// Every tracer's exit lines carry the status (strace's and ptrace's from
// waitpid, eBPF's from the task's exit_code).

import (
	"fmt"
	"io"
	"os"

	"github.com/fsmove/fsmove/puppet"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/strace"
)

// TraceExit is how the trace says Puppet ended: Status its exit status,
// or Signal (and its number, SignalNo) the signal that killed it.
type TraceExit struct {
	Status   int
	Signal   string
	SignalNo int
}

func (e TraceExit) String() string {
	if e.Signal != "" {
		return "killed by " + e.Signal
	}
	return fmt.Sprintf("exited with %d", e.Status)
}

// puppetExitInTrace reads the trace at path (plain or compressed) for the
// end of the first process that exec'd Puppet (puppet.Marker's program,
// as the analysis finds the process whose writes are markers); ok is
// false when the trace has no such exec or no such end (a cut trace).
func puppetExitInTrace(path string) (exit TraceExit, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return TraceExit{}, false, err
	}
	defer f.Close()
	rd := strace.NewReader(f, strace.Options{
		Want: func(name string) bool { return name == "execve" || name == "execveat" },
		// A failed exec is not Puppet's: its path is not needed.
		LookupArgs: func(*tracer.Event) bool { return false },
	})
	defer rd.Close()
	pid := 0
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return TraceExit{}, false, nil
		}
		if err != nil {
			return TraceExit{}, false, err
		}
		switch {
		case pid == 0 && ev.Kind == tracer.KindSyscall && !ev.Failed() && isExec(ev):
			if p := execPath(ev); (puppet.Marker{}).MarkerProgram(p) {
				pid = ev.Pid
			}
		case pid != 0 && ev.Kind == tracer.KindExit && ev.Pid == pid:
			if ev.Ret < 0 {
				return TraceExit{Signal: ev.Arg(0).Str, SignalNo: int(-ev.Ret)}, true, nil
			}
			return TraceExit{Status: int(ev.Ret)}, true, nil
		}
	}
}

func isExec(ev *tracer.Event) bool { return ev.Syscall == "execve" || ev.Syscall == "execveat" }

// execPath is the program an exec names: execve's first argument,
// execveat's second.
func execPath(ev *tracer.Event) string {
	if ev.Syscall == "execveat" {
		return ev.Arg(1).Str
	}
	return ev.Arg(0).Str
}

// checkPuppetExit compares puppet.exit (PuppetExit, as read) with the
// trace's end of Puppet, keeps the trace's, and counts a difference as
// tampering. A killed Puppet is 128+signal to the shell that writes
// puppet.exit after it (apply.sh writes "killed", read as none), which
// is kept. A trace
// without Puppet's end (cut, or Puppet never ran) leaves PuppetExit as it
// was, and so does a missing puppet.exit (a wrapper stopped by a timeout).
func (r *run) checkPuppetExit() {
	path, ok := FindTrace(r.opts.OutDir)
	if !ok {
		return
	}
	exit, ok, err := puppetExitInTrace(path)
	if err != nil || !ok {
		return
	}
	if exit.Signal != "" {
		if r.rec.PuppetExit != nil && *r.rec.PuppetExit != 128+exit.SignalNo {
			r.tampered = append(r.tampered, fmt.Errorf("puppet.exit says %d, but the trace has Puppet %s", *r.rec.PuppetExit, exit))
			r.rec.PuppetExit, r.rec.PuppetOutcome = intPtr(128+exit.SignalNo), PuppetOutcome(128+exit.SignalNo)
		}
		return
	}
	if r.rec.PuppetExit != nil && *r.rec.PuppetExit != exit.Status {
		r.tampered = append(r.tampered, fmt.Errorf("puppet.exit says %d, but the trace has Puppet %s", *r.rec.PuppetExit, exit))
	}
	r.rec.PuppetExit, r.rec.PuppetOutcome = intPtr(exit.Status), PuppetOutcome(exit.Status)
}
