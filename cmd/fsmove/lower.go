package main

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/fsmove/fsmove/detector/analyze"
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
	out := bufio.NewWriterSize(stdout, 1<<16)
	tr, err := analyze.Lower(context.Background(), args[0], *strict, out)
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		fmt.Fprintln(stderr, "fsmove lower:", err)
		return exitUsage
	}
	if tr.Malformed > 0 {
		fmt.Fprintf(stderr, "warning: %d malformed trace line(s) skipped\n", tr.Malformed)
	}
	return exitOK
}
