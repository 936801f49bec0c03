package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/confirm"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// confirmHelp is fsmove confirm's help; how each kind is tested is in
// README.md ("Confirming findings").
var confirmHelp = help{
	synopsis: `fsmove confirm [flags] --out DIR
fsmove confirm [flags] MODULE`,
	description: `
Confirm the findings of an earlier "fsmove run" by applying its module again,
untraced, in fresh containers. DIR is that run's --out; MODULE, as given to
"fsmove run" without --out, names its default place (one per suite: --suite
names it when the run's suite was given, not chosen). The trace is analyzed
again (give the report flags the run had: --filter, --waivers, --all, ...) and
every finding it reports is tested: confirmed, refuted or unknown, with the
evidence. Each apply's artifacts are kept in DIR/confirm/.`,
	examples: []example{
		{"fsmove confirm ./mymodule", "test the findings of its last run"},
		{"fsmove confirm --suite trixie ./mymodule", "those of its last run on trixie"},
		{"fsmove confirm --workers 1 --out DIR", "one container at a time"},
		{"fsmove confirm --all --format json --out DIR", "the held-back pairs too, as JSON"},
	},
	groups: []flagGroup{
		{"Common flags", []string{"out", "suite", "workers", "confirm-timeout", "quiet"}},
		{"Report output", reportOutputFlags},
		{"Filters", filterFlags},
		{"Debugging", []string{"stats", "strict"}},
	},
	exit: exitStatusHelp,
	more: `More: README.md ("Confirming findings").`,
}

// confirmFlags are the flags of re-applying findings to test them, shared
// by fsmove run --confirm and fsmove confirm.
type confirmFlags struct {
	workers int
	timeout time.Duration
}

func addConfirmFlags(fs *pflag.FlagSet) *confirmFlags {
	cf := &confirmFlags{}
	fs.IntVar(&cf.workers, "workers", 2, "confirming applies at once, each in a container")
	fs.DurationVar(&cf.timeout, "confirm-timeout", 15*time.Minute, "limit of each confirming apply (over it: unknown)")
	return cf
}

func (cf *confirmFlags) check() error {
	if cf.workers < 1 {
		return fmt.Errorf("--workers %d: want at least 1", cf.workers)
	}
	if cf.timeout <= 0 {
		return fmt.Errorf("--confirm-timeout %s: want a duration above 0", cf.timeout)
	}
	return nil
}

// confirmHook re-applies the findings of a report in containers made with
// opts (the run's); the applies' artifacts go to outDir/confirm.
func confirmHook(eng *container.Engine, opts runner.Options, outDir string, cf *confirmFlags, all bool, stderr io.Writer) func(context.Context, *detector.Report) {
	return func(ctx context.Context, rep *detector.Report) {
		var findings []*detector.Finding
		for i := range rep.Findings {
			f := &rep.Findings[i]
			if f.Reported() || (all && f.HeldBack && !f.Waived) {
				findings = append(findings, f)
			}
		}
		if len(findings) == 0 {
			return
		}
		progress := opts.Progress
		if progress == nil {
			progress = runner.NewProgress(stderr, true)
		}
		step := progress.Start("confirm", fmt.Sprintf("re-applying to test %d finding(s), %d at once", len(findings), cf.workers))
		stats, err := confirm.Run(ctx, eng, findings, confirm.Options{
			Run:     opts,
			OutDir:  filepath.Join(outDir, runner.ConfirmDir),
			Workers: cf.workers,
			Timeout: cf.timeout,
			Log:     progress.Writer(stderr),
		})
		rep.Confirm = &stats
		if err != nil {
			// Interrupted (confirm.Run's only error): the verdicts so
			// far are reported, the rest say why they are unknown; the
			// caller says the run stopped.
			_, why := runner.StoppedStatus(ctx)
			step.Fail(why)
			return
		}
		step.Done(fmt.Sprintf("%d confirmed, %d refuted, %d unknown", stats.Confirmed, stats.Refuted, stats.Unknown))
	}
}

func newConfirmCmd(c *cli) *cobra.Command {
	var out, suite string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "confirm",
		Short: "confirm an earlier run's findings by re-applying its module in fresh containers",
	}
	fs := cmd.Flags()
	fs.StringVar(&out, "out", "", "the `DIR` of an earlier fsmove run (its --out)")
	enumVar(fs, &suite, "suite", "", container.SuiteNames(), "with MODULE: its run on this Debian `release` (default: as fsmove run chooses)")
	fs.BoolVar(&quiet, "quiet", false, "no progress output (for CI)")
	cf := addConfirmFlags(fs)
	rf := addReportFlags(fs)
	setHelp(cmd, confirmHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runConfirm(cmd.Context(), c.stdout, c.stderr, args, out, suite, quiet, cf, rf)
	}
	return cmd
}

func runConfirm(ctx context.Context, stdout, stderr io.Writer, args []string, out, suite string, quiet bool, cf *confirmFlags, rf *reportFlags) error {
	switch {
	case len(args) == 1 && out == "":
		// The module's default place, as fsmove run without --out used it:
		// of the suite given, or the one its requirements choose. The
		// choice's warnings were said by that run.
		spec, err := runner.ParseModuleSpec(args[0])
		if err != nil {
			return usageError{err}
		}
		choice, err := runner.ChooseSuite(suite, spec)
		if err != nil {
			return usageError{err}
		}
		if out, err = runner.DefaultOutDir(spec, runner.Entry{}, choice.Suite); err != nil {
			return usageError{err}
		}
	case len(args) > 0:
		return usagef("unexpected arguments %s: give the run's directory with --out DIR, or the module", strings.Join(args, " "))
	case out == "":
		return usagef("give the directory of an earlier fsmove run with --out DIR, or the module it ran")
	case suite != "":
		return usagef("--suite names the run of MODULE; with --out DIR the run is DIR's")
	}
	if err := rf.check(); err != nil {
		return usageError{err}
	}
	if err := cf.check(); err != nil {
		return usageError{err}
	}
	opts, err := runner.RerunOptions(out)
	if err != nil {
		return usageError{err}
	}
	opts.Progress = runner.NewProgress(stderr, quiet)
	eng, err := container.Connect(ctx)
	if err != nil {
		return runError{err}
	}
	defer eng.Close()
	tracePath := filepath.Join(out, runner.TraceFile)
	catalogPath := filepath.Join(out, runner.CatalogFile)
	err = analyzeArtifacts(ctx, stdout, stderr, tracePath, catalogPath, rf, reportHooks{
		confirm: confirmHook(eng, opts, out, cf, rf.all, stderr),
	})
	if err == nil || errors.Is(err, errFindings) {
		if ctx.Err() != nil {
			_, why := runner.StoppedStatus(ctx)
			return runError{fmt.Errorf("%s while confirming", why)}
		}
	}
	return err
}
