package detector

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// confidenceReport has one finding of each confidence, in the order
// metadata, content, observed by compareFindings (the producers' files
// sort q.pp, r.pp, s.pp).
func confidenceReport(t *testing.T) *Report {
	t.Helper()
	g := newFake()
	g.add("Exec[check]", "q.pp", 1)
	g.add("Exec[probe]", "q.pp", 2)
	g.add("File[/etc/y]", "r.pp", 1, "content", "y")
	g.add("Exec[use]", "r.pp", 2)
	g.add("Exec[make]", "s.pp", 1)
	g.add("Exec[wait]", "s.pp", 2)
	res := result(
		p("/etc/y", a("File[/etc/y]", "p", 10), a("Exec[use]", "c", 11)),
		p("/srv/flag", a("Exec[check]", "p", 20), a("Exec[probe]", "s", 21)),
		p("/srv/ready", at("Exec[wait]", "m:openat@30"), a("Exec[make]", "p", 31)),
	)
	rep := Detect(failed(res, "Exec[wait]", "Error: Exec[wait] failed"), g, Options{})
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Producer.Ref()+" "+f.Confidence.String())
	}
	if want := []string{"Exec[check] metadata", "File[/etc/y] content", "Exec[make] observed"}; !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	return rep
}

// TestConfidenceInText: each finding says its confidence, and a section
// lists them observed, content, metadata.
func TestConfidenceInText(t *testing.T) {
	var buf bytes.Buffer
	if err := confidenceReport(t).WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	heads := regexp.MustCompile(`(?m)^MOR \d+\. (\S+) .*\n  confidence: (\w+)`).FindAllStringSubmatch(text, -1)
	var got []string
	for _, h := range heads {
		got = append(got, h[1]+" "+h[2])
	}
	if want := []string{"Exec[make] observed", "File[/etc/y] content", "Exec[check] metadata"}; !slices.Equal(got, want) {
		t.Errorf("text order %v, want %v:\n%s", got, want, text)
	}
	if !strings.Contains(text, "    /srv/flag (consumes; only metadata or a lookup)\n") {
		t.Errorf("the metadata path is not marked:\n%s", text)
	}
	if strings.Contains(text, "/etc/y (consumes;") {
		t.Errorf("a content path is marked as metadata:\n%s", text)
	}
}

// TestConfidenceInJSON: "confidence" on each finding, "metadata" and
// "held_reason" on each path, in compareFindings' order (not ranked).
func TestConfidenceInJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := confidenceReport(t).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings []struct {
			Confidence *string `json:"confidence"`
			Paths      []struct {
				Path       string  `json:"path"`
				Metadata   *bool   `json:"metadata"`
				HeldReason *string `json:"held_reason"`
			} `json:"paths"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range doc.Findings {
		if f.Confidence == nil {
			t.Fatalf("a finding without confidence:\n%s", buf.String())
		}
		for _, pc := range f.Paths {
			if pc.Metadata == nil || pc.HeldReason == nil {
				t.Fatalf("a path without metadata or held_reason:\n%s", buf.String())
			}
			got = append(got, *f.Confidence+" "+pc.Path+" "+map[bool]string{true: "metadata", false: "content"}[*pc.Metadata])
		}
	}
	want := []string{"metadata /srv/flag metadata", "content /etc/y content", "observed /srv/ready content"}
	if !slices.Equal(got, want) {
		t.Errorf("JSON %v, want %v", got, want)
	}
}

// TestConfidenceInSARIF: the level follows the confidence (metadata is a
// warning), a refuted confirmation still makes a note, and the property
// bag carries the confidence.
func TestConfidenceInSARIF(t *testing.T) {
	rep := confidenceReport(t)
	levels := func() []string {
		var buf bytes.Buffer
		if err := rep.WriteSARIF(&buf); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, res := range checkSARIF(t, buf.Bytes()) {
			props, _ := res["properties"].(map[string]any)
			out = append(out, res["level"].(string)+" "+props["confidence"].(string))
		}
		return out
	}
	if got, want := levels(), []string{"warning metadata", "error content", "error observed"}; !slices.Equal(got, want) {
		t.Errorf("SARIF levels %v, want %v", got, want)
	}
	rep.Findings[1].Confirmation = &Confirmation{Verdict: Refuted, Why: "same state"}
	rep.Findings[2].Confirmation = &Confirmation{Verdict: Confirmed, Why: "it fails"}
	if got, want := levels(), []string{"warning metadata", "note content", "error observed"}; !slices.Equal(got, want) {
		t.Errorf("SARIF levels with confirmations %v, want %v", got, want)
	}
}

// TestHeldPathReasonsInText: with --all, a finding held back path by path
// gives each path's reason under the path; with one path, its reason once.
func TestHeldPathReasonsInText(t *testing.T) {
	g := newFake()
	g.add("File[/etc/app.conf]", "app.pp", 5, "content", "x")
	g.add("Service[app]", "app.pp", 20)
	g.edge("File[/etc/app.conf]", "Service[app]", before)
	two := result(
		p("/etc/app.conf", a("File[/etc/app.conf]", "p", 10), a("Service[app]", "s", 20)),
		p("/etc/app.conf.d", a("File[/etc/app.conf]", "p", 11), a("Service[app]", "s", 21)),
	)
	rep := Detect(two, g, Options{})
	if len(rep.Findings) != 1 || !rep.Findings[0].HeldBack || rep.Findings[0].Paths[1].HeldReason == "" {
		t.Fatalf("want one finding held back path by path: %+v", rep.Findings)
	}
	rep.ShowHeldBack = true
	var buf bytes.Buffer
	if err := rep.WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"  held back: every path, for the reason under it\n",
		"    /etc/app.conf (consumes; only metadata or a lookup)\n",
		"      held back: Service['app'] only looked /etc/app.conf up (stat, access)",
		"      held back: Service['app'] only looked /etc/app.conf.d up (stat, access)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}

	one := result(p("/etc/app.conf", a("File[/etc/app.conf]", "p", 10), a("Service[app]", "s", 20)))
	rep = Detect(one, g, Options{})
	rep.ShowHeldBack = true
	buf.Reset()
	if err := rep.WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "only looked /etc/app.conf up"); n != 1 {
		t.Errorf("one path's reason printed %d times:\n%s", n, buf.String())
	}
}
