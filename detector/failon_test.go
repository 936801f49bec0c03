package detector

import "testing"

func TestParseFailOn(t *testing.T) {
	for _, s := range []string{"", "MOR", "MN", "NI", "ni,observed", "mn,CONTENT", "observed", "MOR,MN,metadata", " MN , content ", "guarded"} {
		fo, err := ParseFailOn(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		back, err := ParseFailOn(fo.String())
		if err != nil || back != fo {
			t.Errorf("%q: String %q reads back as %+v (%v), want %+v", s, fo.String(), back, err, fo)
		}
	}
	for _, s := range []string{"MORE", "content,metadata", "strong", "MN;content"} {
		if _, err := ParseFailOn(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestFailOn(t *testing.T) {
	findings := []Finding{
		{Kind: MOR, Confidence: Observed},
		{Kind: MOR, Confidence: Metadata},
		{Kind: MN, Confidence: Content},
		{Kind: MN, Confidence: Metadata},
		{Kind: MN, Confidence: Observed, Waived: true},
		{Kind: MOR, Confidence: Observed, HeldBack: true},
		{Kind: MOR, Confidence: Guarded},
	}
	rep := &Report{Findings: findings}
	cases := map[string]int{
		"":                 5, // every reported finding
		"MOR":              3,
		"MN":               2,
		"MN,content":       1,
		"observed":         1,
		"content":          2,
		"metadata":         4,
		"guarded":          5,
		"MOR,guarded":      3,
		"MOR,MN,content":   2,
		"MOR,metadata":     2,
		"MOR,MN,observed":  1,
		"MN,observed":      0,
		"mor,mn":           5,
		"content,MOR,MN ,": 2,
	}
	for s, want := range cases {
		fo, err := ParseFailOn(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := rep.Failing(fo); got != want {
			t.Errorf("--fail-on %q: %d failing, want %d", s, got, want)
		}
	}
}
