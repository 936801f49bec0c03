package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/detector"
)

// failedRunReport is a report of a run whose Puppet failed, without
// findings and with a complete analysis.
func failedRunReport() *detector.Report {
	return &detector.Report{RunFailure: &detector.RunFailure{Status: "puppet-failed", Error: "Puppet exited with 6 (changes and failures)"}}
}

// TestRunFailureInFormats: every format says that the run failed, with
// why, though the analysis is complete and found nothing.
func TestRunFailureInFormats(t *testing.T) {
	rep := failedRunReport()
	if !rep.Complete() {
		t.Fatal("a run failure made the analysis incomplete (the exit status follows Complete)")
	}
	const why = "Puppet exited with 6 (changes and failures)"

	var js bytes.Buffer
	if err := JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Complete   bool
		RunFailure *struct{ Status, Error string } `json:"run_failure"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Complete || doc.RunFailure == nil || doc.RunFailure.Status != "puppet-failed" || doc.RunFailure.Error != why {
		t.Errorf("JSON: complete %v, run_failure %+v:\n%s", doc.Complete, doc.RunFailure, js.String())
	}

	var sarif bytes.Buffer
	if err := SARIF(&sarif, rep); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct {
					Level   string
					Message struct{ Text string }
				}
			}
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	inv := log.Runs[0].Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 ||
		inv.ToolExecutionNotifications[0].Level != "error" || !strings.Contains(inv.ToolExecutionNotifications[0].Message.Text, why) {
		t.Errorf("SARIF invocation %+v", inv)
	}

	var junit bytes.Buffer
	if err := JUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests  int `xml:"tests,attr"`
		Errors int `xml:"errors,attr"`
		Suites []struct {
			Cases []struct {
				ClassName string `xml:"classname,attr"`
				Error     *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Errors != 1 || suites.Tests != 1 || len(suites.Suites[0].Cases) != 1 {
		t.Fatalf("JUnit: %d tests, %d errors, want one in error (no passing testcase):\n%s", suites.Tests, suites.Errors, junit.String())
	}
	if c := suites.Suites[0].Cases[0]; c.ClassName != "fsmove.run" || c.Error == nil || c.Error.Type != "puppet-failed" || !strings.Contains(c.Error.Message, why) {
		t.Errorf("JUnit testcase %+v", c)
	}

	var cq bytes.Buffer
	if err := CodeQuality(&cq, rep); err != nil {
		t.Fatal(err)
	}
	var issues []codeQualityIssue
	if err := json.Unmarshal(cq.Bytes(), &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != 1 || issues[0].Severity != "blocker" || !strings.Contains(issues[0].Description, why) ||
		issues[0].Location.Path == "" || issues[0].Location.Lines.Begin != 1 {
		t.Errorf("Code Quality: %s", cq.String())
	}

	var text bytes.Buffer
	if err := Text(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"RUN FAILED: " + why + " (run.json: status puppet-failed); the analysis covers only what the run did\n",
		"No faults found, but the run FAILED (see above), so this is not a clean result"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}

	page := writeHTML(t, rep, HTMLInputs{})
	if !strings.Contains(page, "<h3>Run failed</h3>") || !strings.Contains(page, why) || !strings.Contains(page, "the run FAILED") {
		t.Errorf("the page does not say the run failed")
	}
}

// TestIncompleteInCodeQuality: an incomplete analysis is an issue too,
// so that an empty array means a clean result; with findings, after them.
func TestIncompleteInCodeQuality(t *testing.T) {
	rep := groupReport(t)
	rep.Incomplete = []string{"the trace ends inside a block", "no marker"}
	var cq bytes.Buffer
	if err := CodeQuality(&cq, rep); err != nil {
		t.Fatal(err)
	}
	var issues []codeQualityIssue
	if err := json.Unmarshal(cq.Bytes(), &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != len(rep.Findings)+1 {
		t.Fatalf("%d issues, want %d", len(issues), len(rep.Findings)+1)
	}
	last := issues[len(issues)-1]
	if last.CheckName != "fsmove IncompleteAnalysis" || !strings.Contains(last.Description, "the trace ends inside a block; no marker") {
		t.Errorf("last issue %+v", last)
	}
}
