package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/detector"
)

// TestNumbersAgree: the text report, the HTML page, JSON and SARIF give a
// finding the same number. groupReport has a group of five findings and a
// sixth alone: the text report shows two items, which used to be "MOR 1."
// and "MOR 2." where the page numbered the lone finding "MOR 6.".
func TestNumbersAgree(t *testing.T) {
	rep := groupReport(t)
	want := map[string]int{ // consumer → number
		"Exec[a]": 1, "Exec[b]": 2, "Exec[c]": 3, "Exec[d]": 4, "Exec[e]": 5, "Exec[lone]": 6,
	}

	var text bytes.Buffer
	if err := Text(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"MOR 1-5. File[/etc/services] -> 5 resources",
		"    1. Exec[a] at init.pp:10:",
		"MOR 6. File[/etc/other] -> Exec[lone]\n",
	} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}

	page := writeHTML(t, rep, HTMLInputs{})
	for consumer, n := range want {
		producer := "File[/etc/services]"
		if consumer == "Exec[lone]" {
			producer = "File[/etc/other]"
		}
		s := fmt.Sprintf("MOR %d.</a> <code>%s -&gt; %s</code>", n, producer, consumer)
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}

	var js bytes.Buffer
	if err := JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings []struct {
			Number   int
			Consumer struct{ Ref string }
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range doc.Findings {
		if f.Number != want[f.Consumer.Ref] {
			t.Errorf("JSON: %s is number %d, want %d", f.Consumer.Ref, f.Number, want[f.Consumer.Ref])
		}
	}

	var sarif bytes.Buffer
	if err := SARIF(&sarif, rep); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Properties struct{ Numbers []int }
			}
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, res := range log.Runs[0].Results {
		got = append(got, fmt.Sprint(res.Properties.Numbers))
	}
	if s := strings.Join(got, " "); s != "[1 2 3 4 5] [6]" {
		t.Errorf("SARIF results' numbers %s, want [1 2 3 4 5] [6]", s)
	}
}

// TestNumbersHeldBackAndWaived: held-back findings are numbered after the
// reported ones whether or not the report lists them (--all), so a
// reported finding keeps its number; a waived one has none.
func TestNumbersHeldBackAndWaived(t *testing.T) {
	rep := groupReport(t)
	lone := -1
	for i := range rep.Findings {
		if rep.Findings[i].Consumer.Ref() == "Exec[lone]" {
			lone = i
		}
	}
	rep.Findings[0].HeldBack, rep.Findings[0].HeldReason = true, "a rule"
	rep.Findings[1].Waived = true
	nums := numbers(rep, detector.GroupFindings(rep.Findings))
	if nums[1] != 0 {
		t.Errorf("the waived finding is number %d", nums[1])
	}
	if nums[0] != len(rep.Findings)-1 {
		t.Errorf("the held-back finding is number %d, want %d (last)", nums[0], len(rep.Findings)-1)
	}
	seen := map[int]bool{}
	for i, n := range nums {
		if i != 1 && (n < 1 || seen[n]) {
			t.Errorf("finding %d: number %d (numbers %v)", i, n, nums)
		}
		seen[n] = true
	}
	for _, all := range []bool{false, true} {
		rep.ShowHeldBack = all
		var text bytes.Buffer
		if err := Text(&text, rep, false); err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprintf("MOR %d. File[/etc/other] -> Exec[lone]\n", nums[lone]); !strings.Contains(text.String(), s) {
			t.Errorf("--all %v: text lacks %q:\n%s", all, s, text.String())
		}
	}
}
