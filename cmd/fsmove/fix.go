package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/puppet/analyze"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/fix"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/fsmove/fsmove/report"
	"github.com/spf13/cobra"
)

// fixHelp is fsmove fix's help; the edits it writes are in README.md
// ("Fixing findings") and docs/DESIGN.md ("fsmove fix").
var fixHelp = help{
	synopsis: `fsmove fix [flags] RUN-DIR|MODULE`,
	description: `
Write the edit that removes each finding of a run: the require or notify a
maintainer would add, on the resource where the module declares it, in the
file's own style, or ~> on the chain the module already writes between the
two. RUN-DIR is the directory of an earlier "fsmove run" (its --out, which
holds run.json); a MODULE directory is run first, as "fsmove run MODULE"
would (its report goes to standard error). The edits are printed as a
unified diff, paths relative to the module (for git apply); --write makes
them in the module's files. --verify applies the edited module again, as
the run did, and says of each finding whether it is gone. Findings inside
dependencies, held back or waived are not edited. Where each declaration
lies comes from Puppet's own parser, in the run's image.`,
	examples: []example{
		{"fsmove fix ./mymodule", "run it, then print the edits as a diff"},
		{"fsmove fix RUN-DIR | git -C mymodule apply", "the edits of an earlier run, applied by git"},
		{"fsmove fix --write --verify ./mymodule", "edit the files, then check the faults are gone"},
	},
	groups: []flagGroup{
		{"Common flags", []string{"write", "verify", "quiet"}},
		{"Filters", filterFlags},
		{"Input", []string{"config", "no-config"}},
	},
	exit: `Exit status:
  0  every finding has its edit (with --verify: each is gone, and nothing new appeared)
  1  a finding has no edit, or (--verify) one is still there or a new one appeared
  2  usage or input error: nothing was edited
  3  a run (the first, or the verifying one) failed or was stopped
`,
	more: `More: README.md ("Fixing findings").`,
}

// fixFlags are fsmove fix's own flags.
type fixFlags struct {
	write  bool
	verify bool
	quiet  bool
}

func newFixCmd(c *cli) *cobra.Command {
	var ff fixFlags
	cmd := &cobra.Command{
		Use:   "fix",
		Short: "write (and verify) the require or notify that removes each finding",
	}
	fs := cmd.Flags()
	fs.BoolVar(&ff.write, "write", false, "edit the module's files in place (else only print the diff)")
	fs.BoolVar(&ff.verify, "verify", false, "apply the edited module again and check each finding is gone")
	fs.BoolVar(&ff.quiet, "quiet", false, "no progress output (for CI)")
	rf := &reportFlags{scope: "module"}
	addFilterFlags(fs, rf)
	cfg := addConfigFlags(fs)
	setHelp(cmd, fixHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) (err error) {
		return runFix(cmd.Context(), c, cmd, args, &ff, rf, cfg)
	}
	return cmd
}

// runFix is fsmove fix.
func runFix(ctx context.Context, c *cli, cmd *cobra.Command, args []string, ff *fixFlags, rf *reportFlags, cfg *configFlags) error {
	if len(args) != 1 {
		return usagef("want the directory of a run, or a module; see fsmove fix --help")
	}
	dir := args[0]
	if _, err := os.Stat(filepath.Join(dir, runner.RunJSON)); err != nil {
		// A module: run it first, as fsmove run would, into its default
		// place; its report goes to standard error (standard output is
		// the diff's).
		if dir, err = runForFix(ctx, c, args[0], ff.quiet); err != nil {
			return err
		}
	}
	rec, err := runner.ReadRecord(dir)
	if err != nil {
		return usagef("%s holds no run of fsmove run: %v", dir, err)
	}
	if rec.Module.Kind != runner.SourceDir || rec.Module.Dir == "" {
		return usagef("the run of %s applied no module directory of this machine (%s): fsmove fix edits a module's own files", dir, rec.Module.Kind)
	}
	if rf.project, err = cfg.load(cmd, rec.Module.Dir); err != nil {
		return err
	}
	if err := rf.check(); err != nil {
		return usageError{err}
	}
	progress := runner.NewProgress(c.stderr, ff.quiet)
	rep, err := analyzeRunDir(ctx, dir, rec, rf)
	if err != nil {
		return err
	}
	targets, notEdited := fixTargets(rep)
	for _, s := range notEdited {
		fmt.Fprintf(c.stderr, "fsmove fix: not edited: %s\n", s)
	}
	if len(targets) == 0 {
		fmt.Fprintln(c.stderr, "fsmove fix: no finding of the module to fix")
		return nil
	}
	eng, err := container.Connect(ctx)
	if err != nil {
		return runError{err}
	}
	defer eng.Close()
	loc, err := locateForFix(ctx, c.stderr, eng, dir, rec, progress)
	if err != nil {
		return err
	}
	sources := loc.Sources()
	plan := fix.Make(targets, sources)
	rel := func(file string) string {
		if r, err := filepath.Rel(rec.Module.Dir, file); err == nil {
			return filepath.ToSlash(r)
		}
		return file
	}
	edited, err := fix.Apply(plan.Edits, sources)
	if err != nil {
		return runError{err}
	}
	// --verify applies the edited copy first, so that what is printed and
	// written is what was verified: when Puppet finds a dependency cycle
	// the edits make together, the edits in it are withdrawn (the MNs
	// first) and the rest applied again, once.
	verified := true
	if ff.verify && len(plan.Edits) > 0 {
		for attempt := 1; ; attempt++ {
			v, err := verifyFix(ctx, c.stderr, eng, dir, rec, rf, rep, edited, plan, progress)
			if err != nil {
				return err
			}
			verified = v.ok
			drop := cycleWithdrawals(targets, plan, v.cycle)
			if attempt == 2 || len(drop) == 0 {
				break
			}
			why := fmt.Sprintf("with the other edits Puppet found a dependency cycle, %s, so the edit is withdrawn; which order the module wants is its maintainer's call", v.cycleText)
			plan = withdraw(targets, drop, why, sources)
			if edited, err = fix.Apply(plan.Edits, sources); err != nil {
				return runError{err}
			}
			fmt.Fprintf(c.stderr, "fsmove fix: verify: withdrawn: the edit of %s, which makes a dependency cycle with the others; the rest applied again\n", findingList(drop))
			if len(plan.Edits) == 0 {
				verified = true // nothing left to verify: the withdrawn are said below
				break
			}
		}
	}
	io.WriteString(c.stdout, fix.Diff(sources, edited, rel))
	for _, e := range plan.Edits {
		if e.Says != "" { // "": a part of another edit, which says it
			fmt.Fprintf(c.stderr, "fsmove fix: %s: %s\n", findingList(e.Findings), e.Says)
		}
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(c.stderr, "fsmove fix: note: %s\n", n)
	}
	for _, s := range plan.Skipped {
		for _, t := range targets {
			if t.Number == s.Finding {
				fmt.Fprintf(c.stderr, "fsmove fix: finding %d (%s %s → %s): no edit: %s\n", s.Finding, t.Kind, t.Producer.Ref(), t.Consumer.Ref(), s.Why)
			}
		}
	}
	if ff.write {
		for _, f := range slices.Sorted(maps.Keys(edited)) {
			if err := replaceFile(f, edited[f]); err != nil {
				return runError{fmt.Errorf("writing %s: %w", f, err)}
			}
		}
		fmt.Fprintf(c.stderr, "fsmove fix: %d file(s) edited in %s\n", len(edited), rec.Module.Dir)
	}
	if len(plan.Skipped) > 0 || !verified {
		return errFindings
	}
	return nil
}

// withdraw is the plan of targets without the findings drop, which are
// skipped with why.
func withdraw(targets []fix.Target, drop []int, why string, sources map[string]*fix.Source) fix.Plan {
	var rest []fix.Target
	for _, t := range targets {
		if !slices.Contains(drop, t.Number) {
			rest = append(rest, t)
		}
	}
	plan := fix.Make(rest, sources)
	for _, n := range drop {
		plan.Skipped = append(plan.Skipped, fix.Skip{Finding: n, Why: why})
	}
	slices.SortFunc(plan.Skipped, func(a, b fix.Skip) int { return a.Finding - b.Finding })
	return plan
}

// cycleWithdrawals are the findings whose edits to withdraw for the
// resources of a dependency cycle (nil: none): of the findings an edit of
// plan fixes whose two resources are both in the cycle, the MNs (a
// notification is what runs against an order the module wrote), or all
// of them when none is an MN.
func cycleWithdrawals(targets []fix.Target, plan fix.Plan, cycle map[string]bool) []int {
	if len(cycle) == 0 {
		return nil
	}
	edited := map[int]bool{}
	for _, e := range plan.Edits {
		for _, n := range e.Findings {
			edited[n] = true
		}
	}
	var mns, all []int
	for _, t := range targets {
		if !edited[t.Number] || !cycle[t.Producer.Ref()] || !cycle[t.Consumer.Ref()] {
			continue
		}
		all = append(all, t.Number)
		if t.Kind == "MN" {
			mns = append(mns, t.Number)
		}
	}
	if len(mns) > 0 {
		return mns
	}
	return all
}

// dependencyCycles reads the cycles Puppet's log reports: after "Found N
// dependency cycle(s):", a line "(A => B => A)" each (Puppet writes the
// hint that follows on the same line, after a literal \n). It returns the
// resources in them and the first cycle as Puppet wrote it.
func dependencyCycles(log string) (refs map[string]bool, first string) {
	found := false
	for _, l := range strings.Split(runner.StripANSI(log), "\n") {
		if strings.Contains(l, "dependency cycle") && strings.Contains(l, "Found ") {
			found = true
			continue
		}
		if !found || !strings.HasPrefix(l, "(") {
			continue
		}
		body := l[1:]
		if i := strings.Index(body, `)\n`); i >= 0 {
			body = body[:i]
		} else {
			body = strings.TrimSuffix(strings.TrimSpace(body), ")")
		}
		parts := strings.Split(body, " => ")
		if len(parts) < 2 {
			continue
		}
		if refs == nil {
			refs, first = map[string]bool{}, "("+body+")"
		}
		for _, r := range parts {
			refs[r] = true
		}
	}
	return refs, first
}

// runForFix runs module as "fsmove run MODULE" would and returns its
// output directory. Findings are what fix is for: exit 1 is no failure.
func runForFix(ctx context.Context, c *cli, module string, quiet bool) (string, error) {
	spec, err := runner.ParseModuleSpec(module)
	if err != nil {
		return "", usageError{err}
	}
	if spec.Kind != runner.SourceDir {
		return "", usagef("%s is not a module directory of this machine: fsmove fix edits a module's own files", module)
	}
	choice, err := runner.ChooseSuite("", spec)
	if err != nil {
		return "", usageError{err}
	}
	out, err := runner.DefaultOutDir(spec, runner.Entry{}, choice.Suite)
	if err != nil {
		return "", usageError{err}
	}
	sub := &cli{stdout: c.stderr, stderr: c.stderr, abort: c.abort}
	run := newRunCmd(sub)
	args := []string{"--force", module}
	if quiet {
		args = append([]string{"--quiet"}, args...)
	}
	run.SetArgs(args)
	run.SetOut(c.stderr)
	run.SetErr(c.stderr)
	run.SilenceErrors, run.SilenceUsage = true, true
	began := time.Now()
	if err := run.ExecuteContext(ctx); err != nil {
		// Findings (1) are what fix is for; an incomplete analysis (4) was
		// said by the run's report, and fix edits what it did find.
		var typed interface{ exitStatus() int }
		findings := errors.Is(err, errFindings) || errors.As(err, &typed) && (typed.exitStatus() == exitFindings || typed.exitStatus() == exitIncomplete)
		// An apply that failed, analyzed: a resource may have failed for
		// the very order a finding says is missing (fix it, and --verify
		// shows the apply pass).
		if rec, recErr := runner.ReadRecord(out); !findings && (recErr != nil || rec.Status != runner.StatusPuppetFailed || rec.Started.Before(began)) {
			return "", err
		}
	}
	return out, nil
}

// locateForFix is the module's manifests as the run applied them, located:
// those the run saved, or (a run that saved none) the module's files,
// located now and saved in the run's directory. Either way a file whose
// text is no longer the run's is refused: the edits are placed in the
// run's text, by the catalog's lines.
func locateForFix(ctx context.Context, stderr io.Writer, eng *container.Engine, dir string, rec *runner.RunRecord, progress *runner.Progress) (*fix.Located, error) {
	saved := filepath.Join(dir, runner.ManifestsFile)
	loc, err := fix.ReadLocated(saved)
	switch {
	case err == nil:
		if changed := loc.Changed(); len(changed) > 0 {
			return nil, usagef("%s changed since the run: run the module again (fsmove fix MODULE does)", strings.Join(changed, ", "))
		}
		return loc, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, usageError{err}
	}
	if loc, err = locateModule(ctx, eng, rec, progress); err != nil {
		return nil, err
	}
	if err := loc.Write(saved); err != nil {
		fmt.Fprintf(stderr, "fsmove fix: saving %s: %v\n", saved, err)
	}
	return loc, nil
}

// analyzeRunDir analyzes a run's directory as fsmove analyze would.
func analyzeRunDir(ctx context.Context, dir string, rec *runner.RunRecord, rf *reportFlags) (*detector.Report, error) {
	dopts, err := rf.detectorOptions()
	if err != nil {
		return nil, usageError{err}
	}
	in, _ := analyze.WithRunRecord(analyze.Input{Trace: filepath.Join(dir, runner.TraceFile), Catalog: filepath.Join(dir, runner.CatalogFile)})
	rep, _, err := runAnalysis(ctx, in, rec, dopts, rf)
	return rep, err
}

// fixTargets are the reported MORs and MNs (not held back, not waived) as
// targets, and what is not edited: those inside dependencies.
func fixTargets(rep *detector.Report) ([]fix.Target, []string) {
	var targets []fix.Target
	nums := report.Numbers(rep)
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if !editable(f) {
			continue
		}
		targets = append(targets, fixTarget(f, nums[i]))
	}
	var notEdited []string
	for _, f := range rep.InDependencies {
		if !editable(&f) {
			continue // held back or waived: not a finding to speak of
		}
		notEdited = append(notEdited, fmt.Sprintf("%s %s → %s: inside a dependency (%s)", f.Kind, f.Producer.Ref(), f.Consumer.Ref(), f.Producer.File))
	}
	return targets, notEdited
}

// findingList names findings: "finding 3", "findings 1, 4".
func findingList(n []int) string {
	var s []string
	for _, x := range slices.Compact(slices.Sorted(slices.Values(n))) {
		s = append(s, fmt.Sprint(x))
	}
	if len(s) == 1 {
		return "finding " + s[0]
	}
	return "findings " + strings.Join(s, ", ")
}

// replaceFile writes data to path through a temporary file beside it and
// a rename, keeping path's mode: a failure leaves the old file whole.
func replaceFile(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return files.Replace(path, data, info.Mode().Perm())
}

// verifyFix applies a copy of the module with the edits, as the run did
// (runner.RerunOptions), into RUN-DIR/fix/, and says of each edited
// finding whether it is gone, and of each finding the edited run reports
// that the first did not, that it is new. It is ok when every edited
// finding is gone and nothing is new. An apply of the edited module that
// fails where the first did not (a dependency cycle the edits made, which
// Puppet refuses, and which it returns; a resource that fails now) is a
// verdict too: not fixed. One that fails as the first did, no resource
// more, is compared as any other (a fixture may fail on purpose).
func verifyFix(ctx context.Context, stderr io.Writer, eng *container.Engine, dir string, rec *runner.RunRecord, rf *reportFlags,
	rep *detector.Report, edited map[string][]byte, plan fix.Plan, progress *runner.Progress) (verification, error) {
	opts, err := runner.RerunOptions(dir)
	if err != nil {
		return verification{}, usageError{err}
	}
	work := filepath.Join(dir, runner.FixDir)
	if err := os.RemoveAll(work); err != nil {
		return verification{}, runError{err}
	}
	copyDir := filepath.Join(work, "module", filepath.Base(rec.Module.Dir))
	if err := copyTree(rec.Module.Dir, copyDir); err != nil {
		return verification{}, runError{fmt.Errorf("copying the module to verify the edits: %w", err)}
	}
	for f, data := range edited {
		rel, err := filepath.Rel(rec.Module.Dir, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			return verification{}, runError{fmt.Errorf("edited file %s is outside the module", f)}
		}
		if err := replaceFile(filepath.Join(copyDir, rel), data); err != nil {
			return verification{}, runError{err}
		}
	}
	opts.Module.Dir = copyDir
	opts.OutDir = filepath.Join(work, "run")
	opts.Progress = progress
	rec2, err := runner.Run(ctx, eng, opts)
	if rec2 == nil || err != nil && ctx.Err() != nil {
		if err == nil {
			err = errors.New("no run record")
		}
		return verification{}, runError{fmt.Errorf("verifying: %w", err)}
	}
	ok := true
	if rec2.Status != runner.StatusOK {
		// The edits made an apply fail that did not (a dependency cycle
		// Puppet refuses, a resource that fails now), or it failed as
		// the first did: the resources that fail say which.
		failedBefore, _ := failedResources(dir)
		failedAfter, known := failedResources(opts.OutDir)
		var worse []string
		for _, r := range failedAfter {
			if !slices.Contains(failedBefore, r) {
				worse = append(worse, r)
			}
		}
		if !known || len(worse) > 0 || rec.Status == runner.StatusOK {
			why := rec2.Error
			if log, err := os.Open(filepath.Join(opts.OutDir, runner.PuppetLogFile)); err == nil {
				if errs := runner.PuppetErrors(log, 3); len(errs) > 0 {
					why = strings.Join(errs, "; ")
				}
				log.Close()
			}
			fmt.Fprintf(stderr, "fsmove fix: verify: the edited module's apply failed (%s): %s\n", rec2.Status, why)
			if len(worse) > 0 {
				fmt.Fprintf(stderr, "fsmove fix: verify: failed only with the edits: %s\n", strings.Join(worse, ", "))
			}
			fmt.Fprintf(stderr, "fsmove fix: verify: its run is %s\n", opts.OutDir)
			// A dependency cycle: Puppet applied nothing (its report lists
			// every resource as failed), so there is nothing to compare.
			var v verification
			if log, err := os.ReadFile(filepath.Join(opts.OutDir, runner.PuppetLogFile)); err == nil {
				v.cycle, v.cycleText = dependencyCycles(string(log))
			}
			if !known || v.cycle != nil {
				return v, nil
			}
			ok = false
		} else {
			fmt.Fprintf(stderr, "fsmove fix: verify: the edited module's apply failed as the first did (%s), no resource more\n", strings.Join(failedAfter, ", "))
		}
	}
	rep2, err := analyzeRunDir(ctx, opts.OutDir, rec2, rf)
	if err != nil {
		return verification{}, err
	}
	key := func(f *detector.Finding) string {
		return f.Kind.String() + " " + f.Producer.Ref() + " " + f.Consumer.Ref()
	}
	before, after := map[string]bool{}, map[string]bool{}
	for i := range rep.Findings {
		if rep.Findings[i].Reported() {
			before[key(&rep.Findings[i])] = true
		}
	}
	for i := range rep2.Findings {
		if rep2.Findings[i].Reported() {
			after[key(&rep2.Findings[i])] = true
		}
	}
	editedNums := map[int]bool{}
	for _, e := range plan.Edits {
		for _, n := range e.Findings {
			editedNums[n] = true
		}
	}
	nums := report.Numbers(rep)
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if !f.Reported() || !editedNums[nums[i]] {
			continue
		}
		verdict := "fixed"
		if after[key(f)] {
			verdict, ok = "not fixed", false
		}
		fmt.Fprintf(stderr, "fsmove fix: verify: finding %d (%s %s → %s): %s\n", nums[i], f.Kind, f.Producer.Ref(), f.Consumer.Ref(), verdict)
	}
	for i := range rep2.Findings {
		f := &rep2.Findings[i]
		if f.Reported() && !before[key(f)] {
			ok = false
			fmt.Fprintf(stderr, "fsmove fix: verify: new: %s %s → %s\n", f.Kind, f.Producer.Ref(), f.Consumer.Ref())
		}
	}
	fmt.Fprintf(stderr, "fsmove fix: verify: the edited module's run is %s\n", opts.OutDir)
	return verification{ok: ok}, nil
}

// verification is what verifyFix found: ok when every edited finding is
// gone and nothing is new; else, when Puppet refused the edited module
// for a dependency cycle, the cycle's resources and Puppet's words of it.
type verification struct {
	ok        bool
	cycle     map[string]bool
	cycleText string
}

// failedResources are the resources Puppet's report of a run says failed;
// known is false when there is no report to read (Puppet stopped before
// applying anything: a dependency cycle, a compile error).
func failedResources(dir string) (failed []string, known bool) {
	f, err := os.Open(filepath.Join(dir, runner.PuppetReportFile))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	rep, err := catalog.ParseReport(f)
	if err != nil || len(rep.Resources) == 0 {
		return nil, false
	}
	for _, r := range rep.Resources {
		if r.Failed {
			failed = append(failed, r.Ref)
		}
	}
	return failed, true
}

// copyTree copies the module at src to dst: directories, regular files
// (with their modes) and symlinks; .git is left out.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && d.Name() == ".git" && path != src:
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, info.Mode().Perm())
		}
		return nil // sockets, devices: not a module's
	})
}
