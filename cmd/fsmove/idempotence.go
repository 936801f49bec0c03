package main

import (
	"os"
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
	if rec.Tracer != runner.Untraced {
		// As the first trace, it may have been compressed since.
		in.SecondTrace = filepath.Join(dir, sec.Dir, runner.TraceFile)
		for _, ext := range []string{".zst", ".gz"} {
			if _, err := os.Stat(in.SecondTrace + ext); err == nil {
				in.SecondTrace += ext
				break
			}
		}
	}
	in.SecondReport = filepath.Join(dir, sec.Dir, runner.PuppetReportFile)
	if rec.Report != "" {
		in.FirstReport = filepath.Join(dir, rec.Report)
	}
	return in
}
