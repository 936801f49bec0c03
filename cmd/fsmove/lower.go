package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fsmove/fsmove/puppet/analyze"
	"github.com/spf13/cobra"
)

var lowerHelp = help{
	synopsis: `fsmove lower [flags] TRACE`,
	description: `
Print the FStrace program of a trace: the statements each system call lowers
to, grouped in the begin/end blocks of Puppet's resources, in the textual form
"fsmove analyze --fstrace" reads back. TRACE is as for "fsmove analyze".`,
	examples: []example{
		{"fsmove lower fsmove-out/mymodule/trace.log", "the program of a run's trace"},
		{"fsmove lower trace.log > prog.fst", "to edit it and analyze it with --fstrace"},
	},
	groups: []flagGroup{{"Flags", []string{"strict"}}},
}

func newLowerCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lower",
		Short: "print the FStrace program of a trace",
	}
	strict := cmd.Flags().Bool("strict", false, "make the first malformed trace line fatal")
	setHelp(cmd, lowerHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runLower(cmd.Context(), c.stdout, c.stderr, args, *strict)
	}
	return cmd
}

func runLower(ctx context.Context, stdout, stderr io.Writer, args []string, strict bool) error {
	if len(args) != 1 {
		return usagef("want one TRACE; see fsmove lower --help")
	}
	out := bufio.NewWriterSize(stdout, 1<<16)
	tr, err := analyze.Lower(ctx, args[0], strict, out)
	if err == nil {
		err = out.Flush()
	}
	switch {
	case errors.Is(err, context.Canceled):
		return runError{errors.New("interrupted")}
	case err != nil:
		return usageError{err}
	}
	if tr.Malformed > 0 {
		fmt.Fprintf(stderr, "warning: %d malformed trace line(s) skipped\n", tr.Malformed)
	}
	return nil
}
