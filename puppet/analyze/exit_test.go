package analyze

import (
	"testing"

	"github.com/fsmove/fsmove/detector"
)

// TestExitStatus: failing findings exit 1, complete or not; a report
// without them exits 4 when the analysis is incomplete (0 when allowed),
// else 0. A finding that --fail-on leaves out, or a waived one, does not
// fail.
func TestExitStatus(t *testing.T) {
	onlyMN, err := detector.ParseFailOn("MN")
	if err != nil {
		t.Fatal(err)
	}
	mor := []detector.Finding{{Kind: detector.MOR}}
	waived := []detector.Finding{{Kind: detector.MOR, Waived: true}}
	cut := []string{"the trace ends early"}
	for _, c := range []struct {
		name       string
		findings   []detector.Finding
		incomplete []string
		failOn     detector.FailOn
		allow      bool
		want       int
	}{
		{"clean", nil, nil, detector.FailOn{}, false, ExitClean},
		{"findings", mor, nil, detector.FailOn{}, false, ExitFindings},
		{"findings, incomplete", mor, cut, detector.FailOn{}, false, ExitFindings},
		{"incomplete", nil, cut, detector.FailOn{}, false, ExitIncomplete},
		{"incomplete, allowed", nil, cut, detector.FailOn{}, true, ExitClean},
		{"not --fail-on", mor, nil, onlyMN, false, ExitClean},
		{"not --fail-on, incomplete", mor, cut, onlyMN, false, ExitIncomplete},
		{"waived", waived, nil, detector.FailOn{}, false, ExitClean},
	} {
		rep := &detector.Report{Findings: c.findings, Incomplete: c.incomplete}
		if got := ExitStatus(rep, c.failOn, c.allow); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
