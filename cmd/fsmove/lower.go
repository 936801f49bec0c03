package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/fsmove/fsmove/detector/analyze"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/puppet"
	"github.com/fsmove/fsmove/tracer/strace"
)

const lowerUsage = `Usage:
  fsmove lower [flags] TRACE

Print the FStrace program of a trace: the statements each system call lowers
to, grouped in the begin/end blocks of Puppet's resources, in the textual form
"fsmove analyze --fstrace" reads back. TRACE is as for "fsmove analyze".

Flags:
`

func runLower(stdout, stderr io.Writer, args []string) int {
	fs := newFlagSet("lower", lowerUsage, stderr)
	strict := fs.Bool("strict", false, "make the first malformed trace line fatal")
	args, code, ok := parseFlags(fs, args, stdout)
	if !ok {
		return code
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "fsmove lower: want one TRACE; see fsmove lower --help")
		return exitUsage
	}
	r, err := strace.Open(args[0], analyze.ReaderOptions(*strict))
	if err != nil {
		fmt.Fprintln(stderr, "fsmove lower:", err)
		return exitUsage
	}
	defer r.Close()
	out := bufio.NewWriterSize(stdout, 1<<16)
	low := fstrace.NewLowerer(puppet.Marker{})
	var stmts []fstrace.Statement
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			out.Flush()
			fmt.Fprintln(stderr, "fsmove lower:", err)
			return exitUsage
		}
		stmts = low.Lower(ev, stmts)
	}
	if err := fstrace.Print(out, stmts); err != nil {
		fmt.Fprintln(stderr, "fsmove lower:", err)
		return exitUsage
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(stderr, "fsmove lower:", err)
		return exitUsage
	}
	if n := r.Malformed(); n > 0 {
		fmt.Fprintf(stderr, "warning: %d malformed trace line(s) skipped\n", n)
	}
	return exitOK
}
