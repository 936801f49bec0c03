package analyze

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/runner"
)

// RunDirInput is the input of an analysis of dir, the directory of an
// fsmove run: its trace and its catalog (runner's layout); WithRunRecord
// then finds the rest (run.json, graphs, packages, the second apply) beside
// the trace, as for a run's own analysis.
func RunDirInput(dir string) (Input, error) {
	info, err := os.Stat(dir)
	switch {
	case err != nil:
		return Input{}, err
	case !info.IsDir():
		return Input{}, fmt.Errorf("%s is a file: give TRACE and CATALOG, or the directory of an fsmove run; see fsmove analyze --help", dir)
	}
	catalog := filepath.Join(dir, runner.CatalogFile)
	if _, err := os.Stat(catalog); err != nil {
		return Input{}, fmt.Errorf("%s is not the directory of an fsmove run that Puppet compiled: no %s in it (see its puppet.log)", dir, runner.CatalogFile)
	}
	if trace, ok := runner.FindTrace(dir); ok {
		return Input{Trace: trace, Catalog: catalog}, nil
	}
	return Input{}, fmt.Errorf("%s is not the directory of an fsmove run: no %s in it", dir, runner.TraceFile)
}

// WithRunRecord completes in from the run.json that fsmove run leaves beside
// the trace, if any: the module directories as the user has them, so that a
// run's report and a later analyze of its artifacts both point at the
// user's files, and are the same; Puppet's graphs, dpkg's database and the
// second apply when the run saved them. It also returns the run's record
// (nil without run.json).
func WithRunRecord(in Input) (Input, *runner.RunRecord) {
	if in.Trace == "" || in.Trace == "-" {
		return in, nil
	}
	dir := filepath.Dir(in.Trace)
	rec, err := runner.ReadRecord(dir)
	if err != nil {
		return in, nil
	}
	if in.PathMap == nil {
		in.PathMap = rec.HostPathMap(dir)
	}
	graphs := filepath.Join(dir, runner.GraphsDir)
	if _, err := os.Stat(filepath.Join(graphs, runner.ExpandedGraph)); in.PuppetGraphs == "" && err == nil {
		in.PuppetGraphs = graphs
	}
	// What the run saved of the node, each when it is there and not given.
	for _, f := range []struct {
		name  string
		input *string
	}{{runner.PackagesFile, &in.Packages}, {runner.UnitsFile, &in.Units}, {runner.AccountsFile, &in.Accounts}} {
		path := filepath.Join(dir, f.name)
		if _, err := os.Stat(path); *f.input == "" && err == nil {
			*f.input = path
		}
	}
	if rec.Report != "" && in.FirstReport == "" {
		in.FirstReport = filepath.Join(dir, rec.Report)
	}
	if in.Links == nil {
		in.Links = rec.ImageLinks
	}
	// Every traced run accounts for what Puppet failed and skipped; only
	// systemd's (units.txt) for its Services.
	if rec.Tracer != runner.Untraced && in.Coverage == nil {
		in.Coverage = &detector.CoverageInput{UnmetConditions: rec.UnmetConditions, Failed: rec.FailedUnits, Lifted: rec.LiftedConditions}
	}
	return withSecondRun(in, rec), rec
}

// withSecondRun adds to in the second apply that run.json records (fsmove
// run --idempotence), so that the run's report and a later fsmove analyze
// of its directory both have the NI findings. A run without one is left
// as it is.
func withSecondRun(in Input, rec *runner.RunRecord) Input {
	sec := rec.Second
	if sec == nil || sec.Skipped != "" || in.SecondReport != "" {
		return in
	}
	dir := filepath.Dir(in.Trace)
	if rec.Tracer != runner.Untraced {
		// As the first trace, it may have been compressed since; a
		// missing one is said by the analysis.
		var ok bool
		if in.SecondTrace, ok = runner.FindTrace(filepath.Join(dir, sec.Dir)); !ok {
			in.SecondTrace = filepath.Join(dir, sec.Dir, runner.TraceFile)
		}
	}
	in.SecondReport = filepath.Join(dir, sec.Dir, runner.PuppetReportFile)
	in.UnmetConditions = sec.UnmetConditions
	return in
}
