package analyze

import "github.com/fsmove/fsmove/detector"

// The exit statuses of an analysis (docs/DESIGN.md, "Exit status"): how
// fsmove analyze exits, what run.json's analyze_exit records. They are the
// command line's own (cmd/fsmove), which adds 3 for a run that failed, an
// interrupt or a timeout.
const (
	ExitClean      = 0 // a complete analysis found nothing
	ExitFindings   = 1 // findings that fail (--fail-on), also when the analysis is incomplete
	ExitInput      = 2 // the input cannot be read or parsed (InputError)
	ExitIncomplete = 4 // no failing findings, but the analysis is incomplete
)

// ExitStatus is the one place where an analysis's outcome becomes its exit
// status: findings that fail (failOn) are ExitFindings, complete or not,
// since findings are real whatever was missed; then an incomplete analysis
// is ExitIncomplete, unless allowIncomplete, so that a CI gate never reads
// evidence that was not analyzed as clean; else ExitClean.
func ExitStatus(rep *detector.Report, failOn detector.FailOn, allowIncomplete bool) int {
	switch {
	case rep.Failing(failOn) > 0:
		return ExitFindings
	case rep.Complete() || allowIncomplete:
		return ExitClean
	}
	return ExitIncomplete
}
