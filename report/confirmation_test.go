package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/detector"
)

// TestConfirmationInReports: a confirmation set on findings reaches the
// text, JSON and SARIF reports, and a refuted finding is a SARIF note.
func TestConfirmationInReports(t *testing.T) {
	rep := goldenReport(t)
	var reported []*detector.Finding
	for i := range rep.Findings {
		if rep.Findings[i].Reported() {
			reported = append(reported, &rep.Findings[i])
		}
	}
	if len(reported) < 2 {
		t.Fatalf("the golden report has %d reported findings", len(reported))
	}
	reported[0].Confirmation = &detector.Confirmation{Verdict: detector.Confirmed, Why: "with X -> Y Puppet's failures change",
		Forced: "Exec['one'] -> Exec['two']", Evidence: []string{"new failure: Error: /Stage[main]/Exec[one]/returns: failed"}, Seconds: 12}
	reported[1].Confirmation = &detector.Confirmation{Verdict: detector.Refuted, Why: "same state", Seconds: 3}
	rep.Confirm = &detector.ConfirmStats{Confirmed: 1, Refuted: 1, Applies: 4, Seconds: 20, ContainerSeconds: 35}

	var text bytes.Buffer
	if err := Text(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"confirmation: confirmed: with X -> Y Puppet's failures change (12s)",
		"forced: Exec['one'] -> Exec['two']",
		"new failure: Error: /Stage[main]/Exec[one]/returns: failed",
		"confirmation: refuted: same state (3s)",
		"Confirmed by re-applying: 1 confirmed, 1 refuted, 0 unknown (4 applies, 20s, 35s of container time)",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}

	var js bytes.Buffer
	if err := JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings []struct {
			Confirmation *struct {
				Verdict  string   `json:"verdict"`
				Forced   string   `json:"forced"`
				Evidence []string `json:"evidence"`
			} `json:"confirmation"`
		} `json:"findings"`
		Confirm *struct {
			Confirmed, Refuted, Applies int
		} `json:"confirm"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]int{}
	for _, f := range doc.Findings {
		if f.Confirmation != nil {
			verdicts[f.Confirmation.Verdict]++
			if f.Confirmation.Evidence == nil {
				t.Errorf("evidence is null, want []")
			}
		}
	}
	if verdicts["confirmed"] != 1 || verdicts["refuted"] != 1 || doc.Confirm == nil || doc.Confirm.Applies != 4 || doc.Confirm.Refuted != 1 {
		t.Errorf("JSON: verdicts %v, confirm %+v", verdicts, doc.Confirm)
	}

	var sarif bytes.Buffer
	if err := SARIF(&sarif, rep); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Level      string                `json:"level"`
				Message    struct{ Text string } `json:"message"`
				Properties *struct {
					Confirmation string `json:"confirmation"`
				} `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	levels := map[string]string{}
	for _, r := range log.Runs[0].Results {
		if r.Properties != nil && r.Properties.Confirmation != "" {
			levels[r.Properties.Confirmation] = r.Level
			if !strings.Contains(r.Message.Text, "Re-applied to test it: "+r.Properties.Confirmation) {
				t.Errorf("SARIF message lacks the verdict: %s", r.Message.Text)
			}
		}
	}
	if levels["confirmed"] != "error" || levels["refuted"] != "note" {
		t.Errorf("SARIF levels by verdict: %v", levels)
	}

	// Without confirmations, nothing of them appears.
	plain := goldenReport(t)
	js.Reset()
	if err := JSON(&js, plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), "confirm") {
		t.Error("a report without confirmations mentions them")
	}
}
