package main

import (
	"path/filepath"

	"github.com/fsmove/fsmove/detector/analyze"
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
	in.SecondTrace = filepath.Join(dir, sec.Dir, runner.TraceFile)
	if rec.Tracer == "none" {
		in.SecondTrace = ""
	}
	in.SecondReport = filepath.Join(dir, sec.Dir, runner.ReportFile)
	if rec.Report != "" {
		in.FirstReport = filepath.Join(dir, rec.Report)
	}
	return in
}
