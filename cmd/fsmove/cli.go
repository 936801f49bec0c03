package main

import (
	"errors"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cli is what every subcommand shares.
type cli struct {
	stdout, stderr io.Writer
	// abort is closed by a second interrupt: it ends what fsmove run still
	// saves after the first (nil: never).
	abort <-chan struct{}
}

// newRootCmd builds the command line: cobra for GNU flags (--long, -s,
// interspersed with the arguments, "--" ending them), help generated from
// each command's text and flags, and shell completion (fsmove completion
// bash). Errors are not printed here: exitCode says them once.
func newRootCmd(c *cli) *cobra.Command {
	cobra.EnableCommandSorting = false // --help lists the commands in the order added: the common ones first
	root := &cobra.Command{
		Use:           "fsmove",
		Short:         "find missing ordering relationships and notifiers in Puppet code",
		Args:          cobra.ArbitraryArgs, // an unknown command is said by RunE, with the usage
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	showVersion := root.Flags().Bool("version", false, "print fsmove's version")
	root.RunE = func(cmd *cobra.Command, args []string) error {
		switch {
		case *showVersion:
			return runVersion(c.stdout, false)
		case len(args) == 0:
			rootUsage(c.stderr, root)
			return usageError{errSaid}
		}
		return unknownCommand(root, args[0])
	}
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) {
		if cmd == root {
			rootUsage(cmd.OutOrStdout(), root)
			return
		}
		commandHelp(cmd.OutOrStdout(), cmd)
	})
	root.AddCommand(
		newRunCmd(c),
		newAnalyzeCmd(c),
		newConfirmCmd(c),
		newFixCmd(c),
		newLowerCmd(c),
		newTraceCmd(c),
		newImageCmd(c),
		newBenchCmd(c),
		newEBPFCmd(c),
		newGCCmd(c),
		newVersionCmd(c),
	)
	return root
}

// stringsFlag is a repeatable string flag (--filter, --modulepath):
// each occurrence adds one value, commas included.
func stringsFlag(fs *pflag.FlagSet, p *[]string, name, usage string) {
	fs.StringArrayVar(p, name, nil, usage)
}

// noArgs is cobra.NoArgs as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

// closeFile closes f, a file fsmove wrote, and adds a failed close to *err
// as a usageError naming what was written: a close can fail (a full disk,
// NFS) and lose what was written. It outweighs errFindings: a report that
// was not saved whole must not pass for one with findings.
func closeFile(f *os.File, what string, err *error) {
	cerr := f.Close()
	if cerr == nil {
		return
	}
	cerr = usagef("%s: %w", what, cerr)
	if *err == nil || errors.Is(*err, errFindings) {
		*err = cerr
		return
	}
	*err = errors.Join(*err, cerr)
}
