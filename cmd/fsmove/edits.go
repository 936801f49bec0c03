package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/fix"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/fsmove/fsmove/report"
)

// The reports carry each finding's edit (fsmove fix's) when the module's
// manifests were located with Puppet's parser: fsmove run locates them when
// it has a finding to report and saves them in the run's directory
// (runner.ManifestsFile), where fsmove analyze and fsmove fix read them.

// fixTarget is a finding as fix.Make takes it.
func fixTarget(f *detector.Finding, number int) fix.Target {
	return fix.Target{Number: number, Kind: f.Kind.String(), Producer: f.Producer, Consumer: f.Consumer, Reversed: f.Reversed}
}

// editable says whether a finding gets an edit: a reported MOR or MN (an
// NI has no relationship to add).
func editable(f *detector.Finding) bool {
	return f.Reported() && f.Kind != detector.NI
}

// attachEdits sets the Edit of each editable finding of rep, and of each
// group of them, from the located manifests: a finding's edit fixes it
// alone (the plan of its one target), a group's all its members at once.
func attachEdits(rep *detector.Report, loc *fix.Located) error {
	sources := loc.Sources()
	name := func(file string) string {
		if r, err := filepath.Rel(loc.ModuleDir, file); err == nil {
			return filepath.ToSlash(r)
		}
		return file
	}
	nums := report.Numbers(rep)
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if !editable(f) {
			continue
		}
		e, err := fix.Make([]fix.Target{fixTarget(f, nums[i])}, sources).ForReport(sources, name)
		if err != nil {
			return err
		}
		f.Edit = e
	}
	for _, g := range detector.GroupFindings(rep.Findings) {
		var targets []fix.Target
		for _, m := range g.Members {
			if f := &rep.Findings[m]; editable(f) {
				targets = append(targets, fixTarget(f, nums[m]))
			}
		}
		if len(targets) == 0 {
			continue
		}
		e, err := fix.Make(targets, sources).ForReport(sources, name)
		if err != nil {
			return err
		}
		if rep.GroupEdits == nil {
			rep.GroupEdits = map[int]*detector.Edit{}
		}
		rep.GroupEdits[g.Members[0]] = e
	}
	return nil
}

// savedLocation reads the manifests a run located, from its directory;
// nil when it located none.
func savedLocation(runDir string, stderr io.Writer) *fix.Located {
	loc, err := fix.ReadLocated(filepath.Join(runDir, runner.ManifestsFile))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "fsmove analyze: the run's located manifests (no edits in the report): %v\n", err)
		}
		return nil
	}
	return loc
}

// locateHook is fsmove run's: when the report has a finding to edit and
// the module is a directory of this machine, the module's manifests are
// located with the Puppet of the run's image (a container of their own,
// without network) and saved in the run's directory. A failure costs the
// report its edits, not the run: it is said, and the report goes on.
func locateHook(eng *container.Engine, opts runner.Options, rec *runner.RunRecord, stderr io.Writer) func(context.Context, *detector.Report) *fix.Located {
	return func(ctx context.Context, rep *detector.Report) *fix.Located {
		if rec.Module.Kind != runner.SourceDir || rec.Module.Dir == "" {
			return nil
		}
		some := false
		for i := range rep.Findings {
			some = some || editable(&rep.Findings[i])
		}
		if !some {
			return nil
		}
		progress := opts.Progress
		if progress == nil {
			progress = runner.NewProgress(stderr, true)
		}
		loc, err := locateModule(ctx, eng, rec, progress)
		if err == nil {
			err = loc.Write(filepath.Join(opts.OutDir, runner.ManifestsFile))
		}
		if err != nil {
			fmt.Fprintf(stderr, "fsmove run: locating the declarations for the edits (no edits in the report): %v\n", err)
			return nil
		}
		return loc
	}
}

// locateModule reads the manifests of the run's module directory (refused
// when one changed after the run began: a usageError) and locates them
// with the Puppet of the run's image (a runError when that fails).
func locateModule(ctx context.Context, eng *container.Engine, rec *runner.RunRecord, progress *runner.Progress) (*fix.Located, error) {
	texts, err := fix.ModuleManifests(rec.Module.Dir, rec.Started)
	if err != nil {
		return nil, usageError{err}
	}
	image := rec.Image.ID
	if image == "" {
		image = rec.Image.Tag
	}
	step := progress.Start("locate", fmt.Sprintf("reading %d manifest(s) with Puppet's parser, for the edits", len(texts)))
	found, err := fix.Locate(ctx, eng, image, texts)
	if err != nil {
		step.Fail(err.Error())
		return nil, runError{err}
	}
	step.Done(fmt.Sprintf("%d manifest(s)", len(found)))
	return fix.NewLocated(rec.Module.Dir, texts, found), nil
}
