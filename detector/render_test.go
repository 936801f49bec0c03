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
	g.Add("Exec[check]", "q.pp", 1)
	g.Add("Exec[probe]", "q.pp", 2)
	g.Add("File[/etc/y]", "r.pp", 1, "content", "y")
	g.Add("Exec[use]", "r.pp", 2)
	g.Add("Exec[make]", "s.pp", 1)
	g.Add("Exec[wait]", "s.pp", 2)
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
	g.Add("File[/etc/app.conf]", "app.pp", 5, "content", "x")
	g.Add("Service[app]", "app.pp", 20)
	g.Edge("File[/etc/app.conf]", "Service[app]", before)
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

// groupReport: File[/etc/services] makes what five Execs read, none of
// them ordered after it; and Exec[lone] reads what File[/etc/other] makes.
func groupReport(t *testing.T) *Report {
	t.Helper()
	g := newFake()
	g.Add("File[/etc/services]", "init.pp", 3, "content", "x")
	accs := []acc{a("File[/etc/services]", "p", 10)}
	for i, n := range []string{"a", "b", "c", "d", "e"} {
		g.Add("Exec["+n+"]", "init.pp", 10+i)
		accs = append(accs, a("Exec["+n+"]", "c", int64(20+i)))
	}
	g.Add("File[/etc/other]", "other.pp", 1, "content", "y")
	g.Add("Exec[lone]", "other.pp", 2)
	res := result(
		p("/etc/other", a("File[/etc/other]", "p", 30), a("Exec[lone]", "c", 31)),
		p("/etc/services", accs...),
	)
	rep := Detect(res, g, Options{})
	if len(rep.Findings) != 6 {
		t.Fatalf("findings %v", summary(rep))
	}
	return rep
}

// TestGroupInText: a group is one item with three examples and the one
// fix; the counts stay findings, with the number of items.
func TestGroupInText(t *testing.T) {
	var buf bytes.Buffer
	if err := groupReport(t).WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"Missing ordering relationships (MOR): 6, shown as 2 items\n",
		"MOR 1-5. File[/etc/services] -> 5 resources (same path: /etc/services)\n  confidence: content",
		"  producer: File[/etc/services] at init.pp:3\n",
		"    /etc/services (consumes)\n      produced by File[/etc/services] (openat, trace line 10)\n  consumers (5), for example:\n",
		"    1. Exec[a] at init.pp:10: consumed (openat, trace line 20)\n",
		"    3. Exec[c] at init.pp:12: consumed (openat, trace line 22)\n    … and 2 more\n",
		"  fix: File['/etc/services'] must come before each of them: add before => [Exec['a'], Exec['b'], Exec['c'], Exec['d'], Exec['e']] to File['/etc/services'] (init.pp:3)",
		"MOR 6. File[/etc/other] -> Exec[lone]\n",
		"Faults found: 6 MOR, 0 MN (shown as 2 items)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Exec[d] at") {
		t.Errorf("a fourth example:\n%s", text)
	}
}

// TestGroupInJSON: every finding stays, with its group's index (-1 when
// none), and "groups" lists the group with its members.
func TestGroupInJSON(t *testing.T) {
	rep := groupReport(t)
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings []struct {
			Consumer struct{ Ref string }
			Group    *int `json:"group"`
		} `json:"findings"`
		Groups []struct {
			Kind, By, Confidence, Fix string
			HeldBack                  bool `json:"held_back"`
			Resource                  struct{ Ref string }
			Paths                     []string
			Members                   []int
		} `json:"groups"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Findings) != 6 || len(doc.Groups) != 1 {
		t.Fatalf("%d findings, %d groups:\n%s", len(doc.Findings), len(doc.Groups), buf.String())
	}
	g := doc.Groups[0]
	if g.Kind != "MOR" || g.By != "producer" || g.Resource.Ref != "File[/etc/services]" || !slices.Equal(g.Paths, []string{"/etc/services"}) ||
		g.Confidence != "content" || g.HeldBack || !strings.Contains(g.Fix, "before => [Exec['a']") {
		t.Errorf("group %+v", g)
	}
	if len(g.Members) != 5 {
		t.Fatalf("members %v", g.Members)
	}
	for i, f := range doc.Findings {
		want := -1
		if slices.Contains(g.Members, i) {
			want = 0
		}
		if f.Group == nil || *f.Group != want {
			t.Errorf("finding %d (%s): group %v, want %d", i, f.Consumer.Ref, f.Group, want)
		}
	}
}

// TestGroupInSARIF: one result for the group, at the producer's line, the
// consumers as related locations, the members in the property bag.
func TestGroupInSARIF(t *testing.T) {
	var buf bytes.Buffer
	if err := groupReport(t).WriteSARIF(&buf); err != nil {
		t.Fatal(err)
	}
	results := checkSARIF(t, buf.Bytes())
	if len(results) != 2 {
		t.Fatalf("%d results:\n%s", len(results), buf.String())
	}
	var grp map[string]any
	for _, r := range results {
		if props := r["properties"].(map[string]any); props["groupSize"] != nil {
			grp = r
		}
	}
	if grp == nil {
		t.Fatalf("no group result:\n%s", buf.String())
	}
	props := grp["properties"].(map[string]any)
	if props["groupSize"].(float64) != 5 || props["groupBy"] != "producer" || props["confidence"] != "content" || len(props["groupMembers"].([]any)) != 5 {
		t.Errorf("group properties %v", props)
	}
	loc := asList(grp["locations"])[0].(map[string]any)["physicalLocation"].(map[string]any)
	if loc["artifactLocation"].(map[string]any)["uri"] != "init.pp" || loc["region"].(map[string]any)["startLine"].(float64) != 3 {
		t.Errorf("group location %v", loc)
	}
	if n := len(asList(grp["relatedLocations"])); n != 5 {
		t.Errorf("%d related locations", n)
	}
	msg := grp["message"].(map[string]any)["text"].(string)
	if !strings.HasPrefix(msg, "File[/etc/services] writes files that 5 resources use, and none of them is ordered after it: Exec[a], Exec[b], Exec[c], Exec[d], Exec[e].") {
		t.Errorf("message %s", msg)
	}
	if fp := grp["partialFingerprints"].(map[string]any); fp["fsmoveGroup/v1"] != "MOR:producer:File[/etc/services]|/etc/services" {
		t.Errorf("fingerprints %v", fp)
	}
}

// TestGroupByConsumerText: one consumer, many producers; a group's
// module-controlled text goes through printable like a finding's.
func TestGroupByConsumerText(t *testing.T) {
	res := groupRes("Service[s\x1b[2Jx]", "File[/etc/a]", "File[/etc/b]")
	rep := &Report{}
	for _, p := range []string{"File[/etc/a]", "File[/etc/b]"} {
		f := mkFinding(res, p, "Service[s\x1b[2Jx]", "/etc/s.conf\x1b]0;t\x07", "/etc/s.d")
		f.Kind = MN
		rep.Findings = append(rep.Findings, f)
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if strings.ContainsAny(text, "\x1b\x07") {
		t.Errorf("control characters in the text report:\n%q", text)
	}
	for _, want := range []string{
		"MN 1-2. 2 resources ~> Service[s",
		"(same paths: /etc/s.conf",
		"  consumer: Service[s",
		"  producers (2), for example:\n    1. File[/etc/a] at m.pp:2:\n      /etc/s.conf\\x1b]0;t\\x07: produced (rename, trace line 1)\n      /etc/s.d: produced (rename, trace line 1)\n",
		"    /etc/s.d (consumes)\n      consumed by Service[s\\x1b[2Jx] (openat, trace line 2)\n",
		"  fix: Service['s",
		"must be notified by each of them: add subscribe => [File['/etc/a'], File['/etc/b']]",
		"Faults found: 0 MOR, 2 MN (shown as 1 item)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestJSONBasePath: with a base path, resources' files under it and the
// fixes' positions are relative; files outside it stay absolute; the tool,
// its version and the module are at the top.
func TestJSONBasePath(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/x]", "/repo/site/profile/manifests/init.pp", 3)
	g.Add("Exec[use]", "/elsewhere/use.pp", 5)
	rep := Detect(result(p("/etc/x", a("File[/etc/x]", "p", 1), a("Exec[use]", "c", 2))), g, Options{})
	rep.BasePath, rep.Module, rep.ToolVersion = "/repo", "profile", "1.2.3"
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tool     struct{ Name, Version string }
		Module   string
		BasePath string `json:"base_path"`
		Findings []struct {
			Fix                string
			Producer, Consumer struct{ File string }
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tool.Name != "fsmove" || doc.Tool.Version != "1.2.3" || doc.Module != "profile" || doc.BasePath != "/repo" {
		t.Errorf("top: tool %+v, module %q, base %q", doc.Tool, doc.Module, doc.BasePath)
	}
	if len(doc.Findings) != 1 {
		t.Fatalf("%d findings", len(doc.Findings))
	}
	f := doc.Findings[0]
	if f.Producer.File != "site/profile/manifests/init.pp" || f.Consumer.File != "/elsewhere/use.pp" {
		t.Errorf("files %q, %q", f.Producer.File, f.Consumer.File)
	}
	if strings.Contains(f.Fix, "/repo/") {
		t.Errorf("fix names the base: %s", f.Fix)
	}
}
