package main

import (
	"context"
	"fmt"
	"io"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/spf13/cobra"
)

var gcHelp = help{
	synopsis: `fsmove gc [--dry-run]`,
	description: `
Remove what fsmove processes that are gone left behind: containers of a
session whose reaper no longer runs (a Docker engine restarted under it), the
cgroup subtrees of runs whose container is gone, and staging directories of
runs whose fsmove was killed (those are renamed <place>.interrupted-N: what
they captured is kept, never removed). Every fsmove run does the same for what
it finds; gc does it now, and --dry-run only lists. Live runs are never
touched. See docs/DESIGN.md, "Nothing left running".`,
	examples: []example{
		{"fsmove gc --dry-run", "list what would be removed"},
		{"fsmove gc", "remove it"},
	},
	groups: []flagGroup{{"Flags", []string{"dry-run"}}},
}

func newGCCmd(c *cli) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "remove what killed fsmove processes left behind",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGC(cmd.Context(), c.stdout, dryRun)
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "only list what would be removed")
	setHelp(cmd, gcHelp)
	return cmd
}

// runGC removes (dryRun: lists) the leftovers of dead fsmove processes,
// one line each on stdout.
func runGC(ctx context.Context, stdout io.Writer, dryRun bool) error {
	eng, err := container.Connect(ctx)
	if err != nil {
		return runError{err}
	}
	defer eng.Close()
	verb := func(done string) string {
		if dryRun {
			return "would be removed"
		}
		return done
	}
	n := 0
	left, err := eng.DeadSessions(ctx)
	if err != nil {
		return runError{err}
	}
	for _, l := range left {
		what := fmt.Sprintf("container %s (%s, session %s)", l.Name, l.State, l.Session)
		if !dryRun {
			if err := eng.RemoveLeftover(ctx, l); err != nil {
				return runError{err}
			}
		}
		fmt.Fprintf(stdout, "%s: %s\n", what, verb("removed"))
		n++
	}
	for _, dir := range eng.StaleCgroups(ctx, dryRun) {
		fmt.Fprintf(stdout, "cgroup %s: %s\n", dir, verb("removed"))
		n++
	}
	if runs, err := runner.RunsDir(); err == nil {
		swept, err := runner.SweepStaging(runs, dryRun)
		for _, dir := range swept {
			if dryRun {
				fmt.Fprintf(stdout, "run directory %s: an interrupted run's, would be renamed %s…\n", dir, runner.InterruptedInfix)
			} else {
				fmt.Fprintf(stdout, "run directory %s: an interrupted run's, kept under this name\n", dir)
			}
			n++
		}
		if err != nil {
			return runError{err}
		}
	}
	if n == 0 {
		fmt.Fprintln(stdout, "nothing left behind")
	}
	return nil
}
