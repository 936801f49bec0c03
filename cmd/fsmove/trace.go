package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/ptrace"
	"github.com/fsmove/fsmove/tracer/strace"
)

const traceUsage = `Usage:
  fsmove trace [flags] -- CMD [ARG...]
  fsmove trace --attach PID[,PID...] [flags] -- CMD [ARG...]

Run CMD under fsmove's native tracer (ptrace with a seccomp-bpf filter: only
the system calls the analysis needs stop the command) and save the trace in
strace's text form, which "fsmove analyze" and "fsmove lower" read.

Writes are recorded with their data on fds 1 and 2 (Puppet's log), and on
other fds when they write at most 32 bytes (a pid written to a cgroup.procs
file); longer writes to other fds are not recorded.

--attach also follows processes that are already running, with all their
threads and every process they create until CMD exits: in a container booted
with systemd, "--attach 1" follows PID 1, which starts the services that
Puppet asks for. They are attached before CMD starts (an error if one cannot
be: gone, or not permitted), stopped at every system call (they have no
filter: slower than CMD's processes), recorded in the same form, and detached
when CMD exits; they keep running.

Tracing ends when CMD exits: processes it left running (daemons) are
detached and keep running. The exit status is CMD's (128+N if killed by
signal N), or 125 when the tracer itself failed, so that a script can run
"fsmove trace -- puppet apply ..." in place of "puppet apply ...".

Needs ptrace and seccomp (in Docker: --cap-add SYS_PTRACE --security-opt
seccomp=unconfined). Without CAP_SYS_ADMIN the filter is loaded with
no-new-privs, so setuid programs (sudo, su) run without their privileges.

Flags:
`

// traceFailed is the exit status of fsmove trace when the tracer failed.
const traceFailed = 125

func runTrace(stdout, stderr io.Writer, args []string) int {
	fs := newFlagSet("trace", traceUsage, stderr)
	out := fs.String("out", "trace.log", "write the trace to `FILE`")
	failedArgs := fs.Bool("failed-args", false, "decode the arguments of failed calls too (slower; the analysis ignores them)")
	nnp := fs.Bool("no-new-privs", false, "always set no-new-privs (otherwise only when loading the filter needs it)")
	noPredict := fs.Bool("no-predict", false, "stop and record every readlink, also those the tracer sees fail")
	stats := fs.Bool("stats", false, "print the tracer's counts (stops, events, predicted failures) on stderr")
	attach := fs.String("attach", "", "also follow the running processes `PID[,PID...]` (and what they start) until CMD exits, e.g. 1")
	args, code, ok := parseFlags(fs, args, stdout)
	if !ok {
		return code
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "fsmove trace: want a command; see fsmove trace --help")
		return exitUsage
	}
	pids, err := parsePids(*attach)
	if err != nil {
		fmt.Fprintln(stderr, "fsmove trace: --attach:", err)
		return exitUsage
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(stderr, "fsmove trace:", err)
		return traceFailed
	}
	defer f.Close()

	// Ctrl-C and SIGTERM reach the command (same process group) and end
	// the trace with it; cancelling also kills the command if it ignores
	// them.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tr, err := ptrace.Start(ctx, args, ptrace.Options{FailedArgs: *failedArgs, NoNewPrivs: *nnp, NoPredict: *noPredict, Stdin: os.Stdin, Attach: pids})
	if err != nil {
		fmt.Fprintln(stderr, "fsmove trace:", err)
		return traceFailed
	}
	_, writeErr := tracer.Drain(tr, strace.NewWriter(f))
	code, err = tr.Wait()
	if *stats {
		st := tr.Stats()
		fmt.Fprintf(stderr, "fsmove trace: %d stops, %d events, %d readlink failures predicted\n", st.Stops, st.Events, st.Predicted)
	}
	if writeErr == nil {
		writeErr = f.Close()
	}
	if err == nil {
		err = writeErr
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "fsmove trace:", err)
		return traceFailed
	}
	return code
}

// parsePids reads --attach's comma-separated process ids ("" for none).
func parsePids(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var pids []int
	for _, f := range strings.Split(s, ",") {
		pid, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("%q is not a process id", f)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}
