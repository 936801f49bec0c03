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

// Exit statuses (SPEC "Outputs").
const (
	exitOK       = 0 // no findings
	exitFindings = 1 // findings reported
	exitUsage    = 2 // usage or input error
	exitRun      = 3 // the run itself failed (Docker, Puppet, tracer)
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
		{"image", "build or inspect the Docker image fsmove runs Puppet in", runImage},
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

Exit status: 0 no findings, 1 findings, 2 usage or input error,
3 the run itself failed (Docker, Puppet, tracer).
`)
}
