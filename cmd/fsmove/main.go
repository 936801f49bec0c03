// Command fsmove finds missing ordering relationships and missing notifiers
// in Puppet modules from one traced run. See README.md.
//
// main is thin: every subcommand is a function run(stdout, stderr, args) that
// returns an exit status, so tests call them directly.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit statuses, one mapping for every subcommand (SPEC "Outputs"): a CI
// gate reads 0 as "clean", so 0 needs a complete analysis.
const (
	exitOK       = 0 // a complete analysis found nothing
	exitFindings = 1 // findings reported (also when the analysis is incomplete)
	exitUsage    = 2 // usage or input error, or an incomplete analysis without findings
	exitRun      = 3 // the run itself failed (Docker, Puppet, tracer), timed out or was interrupted
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(stdout, stderr io.Writer, args []string) int
}

// commands lists the subcommands in the order --help shows them.
var commands []command

func init() {
	commands = []command{
		{"run", "apply a module in a fresh Docker container, traced, and analyze it", runRun},
		{"analyze", "analyze a captured trace against a catalog", runAnalyze},
		{"lower", "print the FStrace program of a trace", runLower},
		{"trace", "run a command under the native ptrace tracer, saving an strace-form trace", runTrace},
		{"image", "build the Docker image fsmove runs Puppet in", runImage},
		{"bench", "run a corpus of modules and tabulate and plot the results", runBench},
		{"ebpf", "trace a command or a container with eBPF, printing strace's text form (debugging)", runEBPF},
		{"version", "print fsmove's version", runVersion},
	}
}

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

func run(stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return exitOK
	case "-version", "--version":
		return runVersion(stdout, stderr, nil)
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(stdout, stderr, args[1:])
		}
	}
	fmt.Fprintf(stderr, "fsmove: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `fsmove finds missing ordering relationships (MOR) and missing notifiers (MN)
in Puppet code by tracing one real "puppet apply".

Usage:
  fsmove <command> [flags] [arguments]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "fsmove <command> --help" for a command's flags.

Exit status (every command):
  0  the analysis is complete and found nothing
  1  findings (also when the analysis is incomplete: the report says so)
  2  usage or input error, or an incomplete analysis without findings (the
     trace ends early, no resource block recognised, another run's catalog;
     --allow-incomplete makes that 0)
  3  the run itself failed (Docker, Puppet, the tracer), timed out, or was
     interrupted (SIGINT or SIGTERM); what was captured is kept in --out
`)
}
