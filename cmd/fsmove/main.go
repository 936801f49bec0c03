// Command fsmove finds missing ordering relationships and missing notifiers
// in Puppet modules from one traced run. See README.md.
//
// main is thin: it makes the interrupt context, runs the command line
// through cobra, and maps the error a subcommand returned to the exit
// status, in one place (exitCode). Every subcommand is a function
// run…(ctx, stdout, stderr, …) error, so tests call them, or run, directly.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/fsmove/fsmove/internal/printable"
	"github.com/fsmove/fsmove/puppet/analyze"
)

// Exit statuses, one mapping for every subcommand (docs/DESIGN.md, "Exit
// status"): a CI gate reads 0 as "clean", so 0 needs a complete analysis;
// each other kind of outcome has a status of its own, so that a script can
// branch on it. Those of an analysis are the pipeline's (analyze.ExitStatus
// decides them); 3 is the command line's.
const (
	exitOK         = analyze.ExitClean      // a complete analysis found nothing
	exitFindings   = analyze.ExitFindings   // findings reported (also when the analysis is incomplete)
	exitUsage      = analyze.ExitInput      // usage or input error (a typo, a bad value, an unreadable file, a refused --out)
	exitRun        = 3                      // the run itself failed (Docker, setup, Puppet, tracer), timed out or was interrupted
	exitIncomplete = analyze.ExitIncomplete // no findings, but the analysis is incomplete (--allow-incomplete makes it 0)
)

// exitStatusTable is the table of exitOK… that fsmove --help and each
// analysing command's help print (README.md "Exit status" has the same).
const exitStatusTable = `  0  the analysis is complete and found nothing
  1  findings (also when the analysis is incomplete: the report says so)
  2  usage or input error (a typo, a bad value, a refused --out): nothing ran
  3  the run failed (Docker, setup, Puppet, tracer), timed out or was stopped
  4  no findings, but the analysis is incomplete: not a clean result (--allow-incomplete: 0)
`

// errFindings is what a subcommand returns when its report has findings:
// the report said it, so nothing more is printed (exit 1).
var errFindings = errors.New("findings reported")

// errSaid marks an error whose message the subcommand has already printed
// (several lines, in order with others): exitCode prints nothing more.
var errSaid = errors.New("see above")

// usageError is a mistake in the command line or in the input the user
// gave (a flag, an argument, a file that cannot be read or parsed, an
// --out that is refused): exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef is a usageError with a formatted message.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// runError is a failure of the work itself (Docker, Puppet, the tracer),
// a timeout or an interrupt: exit 3.
type runError struct{ err error }

func (e runError) Error() string { return e.err.Error() }
func (e runError) Unwrap() error { return e.err }

// incompleteError is an analysis that found nothing but is incomplete, so
// that its silence does not mean "clean": exit 4.
type incompleteError struct{ err error }

func (e incompleteError) Error() string { return e.err.Error() }
func (e incompleteError) Unwrap() error { return e.err }

// statusError is an exit status of its own: fsmove trace exits with the
// traced command's status (err nil: nothing went wrong in fsmove), or 125
// when the tracer failed (err says why); fsmove run with its analysis's
// status (err nil: what the analysis had to say is said).
type statusError struct {
	code int
	err  error
}

func (e statusError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e statusError) Unwrap() error { return e.err }

// exitStatus is implemented by the typed errors: the exit status each
// stands for.
func (usageError) exitStatus() int      { return exitUsage }
func (runError) exitStatus() int        { return exitRun }
func (incompleteError) exitStatus() int { return exitIncomplete }
func (e statusError) exitStatus() int   { return e.code }

// exitCode maps the error a subcommand (cmd, e.g. "fsmove analyze")
// returned to the exit status, printing its message on stderr. The first
// typed error found (errors.As: the error, then what it wraps or joins, in
// order) sets the status; errFindings is exit 1, silent; errors cobra
// itself returns (an unknown flag) are made usage errors by flagError, so
// an untyped error is a failure of the run.
func exitCode(stderr io.Writer, cmd string, err error) int {
	var typed interface{ exitStatus() int }
	var status statusError
	code := exitRun
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &typed):
		code = typed.exitStatus()
	case errors.Is(err, errFindings):
		return exitFindings
	}
	if errors.As(err, &status) && status.err == nil {
		return code // the traced command's, or the analysis's (said)
	}
	if msg := unsaid(err); msg != "" {
		fmt.Fprintf(stderr, "%s: %s\n", cmd, printable.Lines(msg))
	}
	return code
}

// unsaid is err's message without the parts already said (errSaid): of
// joined errors, the others' messages.
func unsaid(err error) string {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var parts []string
		for _, e := range joined.Unwrap() {
			if m := unsaid(e); m != "" {
				parts = append(parts, m)
			}
		}
		return strings.Join(parts, "\n")
	}
	if errors.Is(err, errSaid) {
		return ""
	}
	return err.Error()
}

func main() {
	ctx, abort, stop := interruptContext()
	code := execute(ctx, abort, os.Stdout, os.Stderr, os.Args[1:])
	stop()
	os.Exit(code)
}

// execute runs one command line and returns its exit status. abort, when
// closed, ends at once what fsmove run still saves after ctx is done.
func execute(ctx context.Context, abort <-chan struct{}, stdout, stderr io.Writer, args []string) int {
	root := newRootCmd(&cli{stdout: stdout, stderr: stderr, abort: abort})
	// The standard flag package's single-dash spellings, which fsmove
	// once accepted for these two.
	if len(args) > 0 && (args[0] == "-help" || args[0] == "-version") {
		args = append([]string{"-" + args[0]}, args[1:]...)
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	name := "fsmove"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	return exitCode(stderr, name, err)
}

// interruptContext returns a context that the first SIGINT or SIGTERM
// cancels, with a cause that names the signal (run.json and the messages
// say "interrupted by SIGINT"), and a channel that the second one closes
// (it ends what fsmove run still saves after the first). Later signals are
// caught too, so that a run's container is still removed (that takes at
// most runner's short deadline). stop releases the signals.
func interruptContext() (ctx context.Context, abort <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	aborted := make(chan struct{})
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case sig := <-sigs:
				n++
				switch n {
				case 1:
					cancel(interruptedError{sig})
				case 2:
					close(aborted)
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, aborted, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// interruptedError is the cause of an interrupted command's context.
type interruptedError struct{ sig os.Signal }

func (e interruptedError) Error() string {
	name := e.sig.String()
	switch e.sig {
	case os.Interrupt:
		name = "SIGINT"
	case syscall.SIGTERM:
		name = "SIGTERM"
	}
	return "interrupted by " + name
}

func (e interruptedError) Unwrap() error { return context.Canceled }
