package main

import (
	"path/filepath"

	"github.com/fsmove/fsmove/puppet/analyze"
	"github.com/fsmove/fsmove/puppet/runner"
)

// withSecondRun adds to in the second apply that run.json records (fsmove
// run --idempotence), so that the run's report and a later fsmove analyze
// of its directory both have the NI findings. A run without one is left
// as it is.
func withSecondRun(in analyze.Input, rec *runner.RunRecord) analyze.Input {
	sec := rec.Second
	if sec == nil || sec.Skipped != "" || in.SecondReport != "" {
		return in
	}
	dir := filepath.Dir(in.Trace)
	if rec.Tracer != runner.Untraced {
		// As the first trace, it may have been compressed since; a
		// missing one is said by the analysis.
		var ok bool
		if in.SecondTrace, ok = findTrace(filepath.Join(dir, sec.Dir)); !ok {
			in.SecondTrace = filepath.Join(dir, sec.Dir, runner.TraceFile)
		}
	}
	in.SecondReport = filepath.Join(dir, sec.Dir, runner.PuppetReportFile)
	if rec.Report != "" {
		in.FirstReport = filepath.Join(dir, rec.Report)
	}
	return in
}
