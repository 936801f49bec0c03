package catalog

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The reports were written by Puppet 7 (bookworm) applying
// testdata/report/site.pp, then the catalog it compiled again
// (puppet apply --catalog): first_run_report.yaml, last_run_report.yaml.
func TestParseReportSecondRun(t *testing.T) {
	data, err := os.ReadFile("testdata/report/last_run_report.yaml")
	if err != nil {
		t.Fatal(err)
	}
	report, err := ParseReport(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if report.Status != "failed" {
		t.Errorf("status %q, want failed (Exec[second-fail])", report.Status)
	}
	statuses := report.Resources
	byRef := map[string]ResourceStatus{}
	for _, s := range statuses {
		byRef[s.Ref] = s
	}
	changed := map[string]bool{}
	failed := map[string]bool{}
	for _, s := range statuses {
		if s.Changed {
			changed[s.Ref] = true
		}
		if s.Failed {
			failed[s.Ref] = true
		}
	}
	wantChanged := []string{"Exec[fight]", "Exec[unguarded]", "File[/var/tmp/fight]", "File[/var/tmp/stamp]"}
	if len(changed) != len(wantChanged) {
		t.Errorf("changed = %v, want %v", changed, wantChanged)
	}
	for _, ref := range wantChanged {
		if !changed[ref] {
			t.Errorf("%s not changed", ref)
		}
	}
	if len(failed) != 1 || !failed["Exec[second-fail]"] {
		t.Errorf("failed = %v, want Exec[second-fail] only", failed)
	}
	stamp := byRef["File[/var/tmp/stamp]"]
	if stamp.Type != "File" || stamp.Title != "/var/tmp/stamp" || stamp.Line != 5 || !strings.HasSuffix(stamp.File, "site.pp") {
		t.Errorf("stamp = %+v", stamp)
	}
	// The desired checksum is base64 in the file: read as the checksum.
	if len(stamp.Events) != 1 || stamp.Events[0].Property != "content" ||
		!strings.HasPrefix(stamp.Events[0].Previous, "{sha256}") || !strings.HasPrefix(stamp.Events[0].Desired, "{sha256}") ||
		stamp.Events[0].Previous == stamp.Events[0].Desired {
		t.Errorf("stamp events = %+v", stamp.Events)
	}
	if g := byRef["Exec[guarded]"]; g.Changed || g.Failed || len(g.Events) != 0 {
		t.Errorf("guarded = %+v", g)
	}
	ev := byRef["Exec[unguarded]"].Events
	if len(ev) != 1 || ev[0].Property != "returns" || ev[0].Previous != "notrun" || ev[0].Desired != "0" {
		t.Errorf("unguarded events = %+v", ev)
	}
}

func TestParseReportFirstRun(t *testing.T) {
	f, err := os.Open("testdata/report/first_run_report.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	report, err := ParseReport(f)
	if err != nil {
		t.Fatal(err)
	}
	statuses := report.Resources
	if report.Status != "changed" {
		t.Errorf("status %q, want changed", report.Status)
	}
	for _, s := range statuses {
		if s.Failed {
			t.Errorf("%s failed in the first run", s.Ref)
		}
	}
	if len(statuses) < 8 {
		t.Errorf("%d statuses, want the site's 8 resources at least", len(statuses))
	}
}

func TestParseReportBad(t *testing.T) {
	for _, in := range []string{"", "- a\n- b\n", "foo: bar\n", "resource_statuses: [1]\n", "{{{"} {
		if _, err := ParseReport(strings.NewReader(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	if s, err := ParseReport(strings.NewReader("status: unchanged\nresource_statuses: {}\n")); err != nil || s.Status != "unchanged" || len(s.Resources) != 0 {
		t.Errorf("empty statuses: %v, %v", s, err)
	}
}

func FuzzParseReport(f *testing.F) {
	if data, err := os.ReadFile("testdata/report/last_run_report.yaml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("resource_statuses:\n  X[y]:\n    events: [{property: a}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		report, err := ParseReport(bytes.NewReader(data))
		if (err != nil) == (report != nil) {
			t.Fatalf("report %v and error %v", report, err)
		}
	})
}

func TestChecksumText(t *testing.T) {
	for in, want := range map[string]string{
		"e3NoYTI1Nn0xMjM0YWJjZA==": "{sha256}1234abcd",
		"{md5}0123456789abcdef":    "{md5}0123456789abcdef",
		"notrun":                   "notrun",
		"aGVsbG8gd29ybGQgaGVsbG8=": "aGVsbG8gd29ybGQgaGVsbG8=", // base64 of text, not a checksum
	} {
		if got := checksumText(in); got != want {
			t.Errorf("checksumText(%q) = %q, want %q", in, got, want)
		}
	}
}
