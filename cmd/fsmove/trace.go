package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/ptrace"
	"github.com/fsmove/fsmove/tracer/strace"
	"github.com/spf13/cobra"
)

// traceHelp is fsmove trace's help; the details are in README.md
// ("fsmove trace").
var traceHelp = help{
	synopsis: `fsmove trace [flags] -- CMD [ARG...]
fsmove trace --attach PID[,PID...] [flags] -- CMD [ARG...]`,
	description: `
Run CMD under fsmove's native tracer (ptrace with a seccomp-bpf filter) and save
the trace in strace's text form, which "fsmove analyze" and "fsmove lower" read.
--attach also follows running processes (in a systemd container, PID 1) until
CMD exits. Tracing ends when CMD exits. Needs ptrace and seccomp (in Docker:
--cap-add SYS_PTRACE, as fsmove run gives its container for --tracer ptrace;
Docker's default seccomp profile allows the rest).`,
	examples: []example{
		{"fsmove trace -- puppet apply --evaltrace site.pp", "trace an apply into trace.log"},
		{"fsmove trace --attach 1 --out t.log -- puppet apply …", "PID 1's services too"},
	},
	groups: []flagGroup{
		{"Flags", []string{"out", "attach", "failed", "no-new-privs", "no-predict", "all-cpus", "stats"}},
	},
	exit: `Exit status: CMD's (128+N if killed by signal N), or 125 when the tracer failed.
`,
	more: `More: README.md ("fsmove trace").`,
}

// failedFlagHelp is the help of --failed, the one spelling of
// tracer.Failed in the tracers' own commands (fsmove ebpf, fsmove trace).
const failedFlagHelp = "print every failed call, its arguments decoded (slower); by default only the failed lookups, all the analysis uses"

// failedCalls is the tracer.Failed that --failed chooses.
func failedCalls(all bool) tracer.Failed {
	if all {
		return tracer.FailedAll
	}
	return tracer.FailedLookups
}

// traceFailed is the exit status of fsmove trace when the tracer failed.
const traceFailed = 125

// traceFlags are fsmove trace's flags.
type traceFlags struct {
	out       string
	failed    bool
	nnp       bool
	noPredict bool
	allCPUs   bool
	stats     bool
	attach    string
}

func newTraceCmd(c *cli) *cobra.Command {
	var tf traceFlags
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "run a command under the native ptrace tracer, saving an strace-form trace",
	}
	fs := cmd.Flags()
	fs.StringVar(&tf.out, "out", runner.TraceFile, "write the trace to `FILE`")
	fs.BoolVar(&tf.failed, "failed", false, failedFlagHelp)
	fs.BoolVar(&tf.nnp, "no-new-privs", false, "always set no-new-privs (otherwise only when loading the filter needs it)")
	fs.BoolVar(&tf.noPredict, "no-predict", false, "stop every readlink, stat, open and close at its exit too, Puppet's realpath lookups included (slower)")
	fs.BoolVar(&tf.allCPUs, "all-cpus", false, "let CMD run on every CPU (by default it shares the tracer's one CPU: far cheaper stops, no parallelism)")
	fs.BoolVar(&tf.stats, "stats", false, "print the tracer's counts (stops, events, predicted failures) on stderr")
	fs.StringVar(&tf.attach, "attach", "", "also follow the running processes `PID[,PID...]` (and what they start) until CMD exits, e.g. 1")
	setHelp(cmd, traceHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runTrace(cmd.Context(), c.stderr, args, &tf)
	}
	return cmd
}

// traceError is a failure of fsmove trace itself: exit 125, which the
// traced command's own statuses do not use.
func traceError(err error) error { return statusError{traceFailed, err} }

// runTrace is fsmove trace: it returns the traced command's exit status as
// a statusError (nil for 0). Ctrl-C and SIGTERM reach the command (same
// process group) and end the trace with it; ctx's end also kills the
// command if it ignores them.
func runTrace(ctx context.Context, stderr io.Writer, args []string, tf *traceFlags) (err error) {
	if len(args) == 0 {
		return usagef("want a command; see fsmove trace --help")
	}
	pids, err := parsePids(tf.attach)
	if err != nil {
		return usagef("--attach: %w", err)
	}
	f, err := os.Create(tf.out)
	if err != nil {
		return traceError(err)
	}
	tr, err := ptrace.Start(ctx, args, ptrace.Options{Failed: failedCalls(tf.failed), NoNewPrivs: tf.nnp, NoPredict: tf.noPredict, AllCPUs: tf.allCPUs, Stdin: os.Stdin, Attach: pids})
	if err != nil {
		f.Close() // the error that matters is Start's
		return traceError(err)
	}
	_, writeErr := tracer.Drain(tr, strace.NewWriter(f))
	code, err := tr.Wait()
	if tf.stats {
		st := tr.Stats()
		fmt.Fprintf(stderr, "fsmove trace: %d stops, %d events, %d readlink failures, %d stats, %d open failures and %d closes predicted, %d programs given the full filter (%d failed)\n",
			st.Stops, st.Events, st.Predicted, st.PredictedStats, st.PredictedOpens, st.PredictedCloses, st.Strict, st.StrictFailed)
	}
	if n := tr.Stats().StrictFailed; n > 0 {
		fmt.Fprintf(stderr, "fsmove trace: warning: %d programs ran without the full filter: their realpath lookups (readlink with a 1023-byte buffer) are not in the trace (--no-predict stops them all)\n", n)
	}
	if closeErr := f.Close(); writeErr == nil {
		writeErr = closeErr
	}
	if err == nil {
		err = writeErr
	}
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		return traceError(err)
	case code != 0:
		return statusError{code: code}
	}
	return nil
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
