package report

import (
	"bytes"
	"encoding/json"
	"html"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/detector/detectortest"
)

// confidenceReport has one finding of each confidence, in the order
// metadata, content, observed by compareFindings (the producers' files
// sort q.pp, r.pp, s.pp).
func confidenceReport(t *testing.T) *detector.Report {
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
	rep := detector.Detect(failed(res, "Exec[wait]", "Error: Exec[wait] failed"), g, detector.Options{})
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
	if err := Text(&buf, confidenceReport(t), false); err != nil {
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
	if err := JSON(&buf, confidenceReport(t)); err != nil {
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
		if err := SARIF(&buf, rep); err != nil {
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
	rep.Findings[1].Confirmation = &detector.Confirmation{Verdict: detector.Refuted, Why: "same state"}
	rep.Findings[2].Confirmation = &detector.Confirmation{Verdict: detector.Confirmed, Why: "it fails"}
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
	rep := detector.Detect(two, g, detector.Options{})
	if len(rep.Findings) != 1 || !rep.Findings[0].HeldBack || rep.Findings[0].Paths[1].HeldReason == "" {
		t.Fatalf("want one finding held back path by path: %+v", rep.Findings)
	}
	rep.ShowHeldBack = true
	var buf bytes.Buffer
	if err := Text(&buf, rep, false); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"  held back: every path, for the reason under it\n",
		"    /etc/app.conf (consumes; only metadata or a lookup)\n",
		"      held back (only-looked-up): Service['app'] only looked /etc/app.conf up (stat, access)",
		"      held back (only-looked-up): Service['app'] only looked /etc/app.conf.d up (stat, access)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}

	one := result(p("/etc/app.conf", a("File[/etc/app.conf]", "p", 10), a("Service[app]", "s", 20)))
	rep = detector.Detect(one, g, detector.Options{})
	rep.ShowHeldBack = true
	buf.Reset()
	if err := Text(&buf, rep, false); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "only looked /etc/app.conf up"); n != 1 {
		t.Errorf("one path's reason printed %d times:\n%s", n, buf.String())
	}
}

// groupReport: File[/etc/services] makes what five Execs read, none of
// them ordered after it; and Exec[lone] reads what File[/etc/other] makes.
func groupReport(t *testing.T) *detector.Report {
	t.Helper()
	g := newFake()
	g.Add("File[/etc/services]", "init.pp", 3, "content", "x")
	accs := []detectortest.AccessSpec{a("File[/etc/services]", "p", 10)}
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
	rep := detector.Detect(res, g, detector.Options{})
	if len(rep.Findings) != 6 {
		t.Fatalf("findings %v", summary(rep))
	}
	return rep
}

// TestGroupInText: a group is one item with three examples and the one
// fix; the counts stay findings, with the number of items.
func TestGroupInText(t *testing.T) {
	var buf bytes.Buffer
	if err := Text(&buf, groupReport(t), false); err != nil {
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
	if err := JSON(&buf, rep); err != nil {
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
	if err := SARIF(&buf, groupReport(t)); err != nil {
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
	rep := &detector.Report{}
	for _, p := range []string{"File[/etc/a]", "File[/etc/b]"} {
		f := mkFinding(res, p, "Service[s\x1b[2Jx]", "/etc/s.conf\x1b]0;t\x07", "/etc/s.d")
		f.Kind = detector.MN
		rep.Findings = append(rep.Findings, f)
	}
	var buf bytes.Buffer
	if err := Text(&buf, rep, false); err != nil {
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
	rep := detector.Detect(result(p("/etc/x", a("File[/etc/x]", "p", 1), a("Exec[use]", "c", 2))), g, detector.Options{})
	rep.BasePath, rep.Module, rep.ToolVersion = "/repo", "profile", "1.2.3"
	var buf bytes.Buffer
	if err := JSON(&buf, rep); err != nil {
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

// TestBadReport: a hand-built report whose finding has no resources is an
// error of the writers, not a panic.
func TestBadReport(t *testing.T) {
	bad := &detector.Report{Findings: []detector.Finding{{Kind: detector.MOR}}}
	var buf bytes.Buffer
	if Text(&buf, bad, false) == nil || JSON(&buf, bad) == nil || SARIF(&buf, bad) == nil {
		t.Error("a finding without resources was written")
	}
}

// TestTextCoverageOnlyWithGaps: the text report shows the coverage only
// when something went unchecked or a condition was lifted; JSON has it
// always.
func TestTextCoverageOnlyWithGaps(t *testing.T) {
	for _, c := range []struct {
		name string
		cov  *detector.Coverage
		want bool
	}{
		{"all observed", &detector.Coverage{Services: []detector.ServiceCoverage{{Service: "Service[a]", Observed: true}}, Observed: 1, Applied: 3}, false},
		{"no service", &detector.Coverage{Applied: 2}, false},
		{"one not observed", &detector.Coverage{Services: []detector.ServiceCoverage{{Service: "Service[a]", Why: "no process of its unit ran"}}, Applied: 3}, true},
		{"one skipped", &detector.Coverage{Applied: 2, Skipped: []string{"File[/x]"}}, true},
		// Said too: a daemon that ran only because a condition was lifted.
		{"lifted", &detector.Coverage{Services: []detector.ServiceCoverage{{Service: "Service[a]", Observed: true, Lifted: "started despite X"}}, Observed: 1, Applied: 3}, true},
	} {
		rep := &detector.Report{Coverage: c.cov}
		var text, js bytes.Buffer
		if err := Text(&text, rep, false); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(text.String(), "Coverage:"); got != c.want {
			t.Errorf("%s: text has the coverage: %v, want %v\n%s", c.name, got, c.want, text.String())
		}
		if err := JSON(&js, rep); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(js.String(), `"coverage"`) {
			t.Errorf("%s: JSON lacks the coverage", c.name)
		}
	}
}

// TestHeldBackOnlyWithAll: a pair held back (here by rule 6, the account
// databases) is counted in the text report's summary, and listed only
// with --all (ShowHeldBack).
func TestHeldBackOnlyWithAll(t *testing.T) {
	g := newFake()
	g.Add("File[/var/log/app]", "app.pp", 14, "ensure", "directory", "owner", "app")
	g.Add("User[app]", "app.pp", 22)
	res := result(
		p("/etc/group", a("User[app]", "p", 10), a("File[/var/log/app]", "c", 20)),
		p("/etc/passwd", a("User[app]", "p", 11), a("File[/var/log/app]", "c", 21)),
	)
	rep := detector.Detect(res, g, detector.Options{})
	if len(rep.Findings) != 1 || !rep.Findings[0].HeldBack {
		t.Fatalf("want one held-back finding: %v", summary(rep))
	}
	var text strings.Builder
	if err := Text(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "User[app]") || !strings.Contains(text.String(), "1 held back") {
		t.Errorf("text without --all:\n%s", text.String())
	}
	rep.ShowHeldBack = true
	text.Reset()
	if err := Text(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "User[app] -> File[/var/log/app]") {
		t.Errorf("text with --all:\n%s", text.String())
	}
}

// TestCleanSummaryWithHeldNI: a report whose only NI is held back says so
// in its clean summary, and --all gives the reason.
func TestCleanSummaryWithHeldNI(t *testing.T) {
	in := &detector.Idempotence{Second: []catalog.ResourceStatus{
		changed("Service[daemon]", catalog.ResourceEvent{Property: "ensure", Previous: "stopped", Desired: "running"})},
		UnmetConditions: map[string]string{"daemon.service": "ConditionCapability=CAP_SYS_TIME"}}
	rep := detector.Detect(result(), niGraph(), detector.Options{Idempotence: in})
	if got := cleanSummary(rep); !strings.HasSuffix(got, "the second apply changed nothing but what is held back") {
		t.Errorf("summary %q", got)
	}
	rep.ShowHeldBack = true
	var text strings.Builder
	if err := Text(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "held back (container-condition): systemd skipped the start of daemon.service because ConditionCapability=CAP_SYS_TIME is not met") {
		t.Errorf("--all text has no reason:\n%s", text.String())
	}
	rep = detector.Detect(result(), niGraph(), detector.Options{Idempotence: &detector.Idempotence{}})
	if got := cleanSummary(rep); !strings.HasSuffix(got, "the second apply changed nothing") {
		t.Errorf("summary %q", got)
	}
}

// TestDependencyNote: a finding set aside as wholly inside a dependency
// (Options.Scope) is not listed, and the text and HTML summaries say how
// many there are.
func TestDependencyNote(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/mine]", "/src/mymod/manifests/init.pp", 3)
	g.Add("Exec[mine]", "/src/mymod/manifests/init.pp", 9)
	g.Add("File[/etc/apt/x]", "/usr/share/puppet/modules/apt/manifests/init.pp", 30)
	g.Add("Exec[apt_update]", "/usr/share/puppet/modules/apt/manifests/update.pp", 12)
	res := result(
		p("/etc/mine", a("File[/etc/mine]", "p", 10), a("Exec[mine]", "c", 20)),
		p("/etc/apt/x", a("File[/etc/apt/x]", "p", 30), a("Exec[apt_update]", "c", 40)),
	)
	rep := detector.Detect(res, g, detector.Options{Scope: &detector.Scope{Roots: []string{"/src/mymod"}}})
	if rep.Faults() != 1 || rep.DependencyFaults() != 1 {
		t.Fatalf("faults %d, in dependencies %d; want 1, 1", rep.Faults(), rep.DependencyFaults())
	}
	var text bytes.Buffer
	if err := Text(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	if want := "1 finding in dependencies, not counted (--scope all lists them)"; !strings.Contains(text.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, text.String())
	}
	if strings.Contains(text.String(), "Exec[apt_update]") {
		t.Errorf("text report lists the dependency's finding:\n%s", text.String())
	}
	if want, page := "1 finding in dependencies, not counted", writeHTML(t, rep, HTMLInputs{}); !strings.Contains(page, want) {
		t.Errorf("HTML report lacks %q", want)
	}
}

// TestSuppressedInReports: a finding an inline comment suppresses is
// counted in the text report's summary and listed, with its reason and
// where the comment is, only with --show-suppressed; SARIF then has it as
// an inSource suppression, and counts it.
func TestSuppressedInReports(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/a]", "site.pp", 3)
	g.Add("Exec[use-a]", "site.pp", 4)
	g.Add("File[/etc/b]", "site.pp", 7)
	g.Add("Exec[use-b]", "site.pp", 8)
	const manifest = `# a: suppressed with a reason
# fsmove:ignore MOR written once at install
file { '/etc/a': ensure => file }
exec { 'use-a': command => '/bin/cat /etc/a' }

# b: nothing says anything
file { '/etc/b': ensure => file }
exec { 'use-b': command => '/bin/cat /etc/b' }
`
	read := func(file string) ([]byte, error) {
		if file != "site.pp" {
			return nil, fs.ErrNotExist
		}
		return []byte(manifest), nil
	}
	res := result(
		p("/etc/a", a("File[/etc/a]", "p", 10), a("Exec[use-a]", "c", 11)),
		p("/etc/b", a("File[/etc/b]", "p", 12), a("Exec[use-b]", "c", 13)),
	)
	rep := detector.Detect(res, g, detector.Options{ReadManifest: read})
	if rep.Stats.Suppressed != 1 {
		t.Fatalf("suppressed %d, want 1: %v", rep.Stats.Suppressed, summary(rep))
	}
	var buf bytes.Buffer
	if err := Text(&buf, rep, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "(1 suppressed)") || strings.Contains(buf.String(), "written once at install") {
		t.Errorf("text report without --show-suppressed:\n%s", buf.String())
	}
	buf.Reset()
	rep.ShowSuppressed = true
	if err := Text(&buf, rep, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "suppressed: written once at install (site.pp:2)") {
		t.Errorf("text report with --show-suppressed:\n%s", buf.String())
	}
	buf.Reset()
	if err := SARIF(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"kind": "inSource"`) || !strings.Contains(buf.String(), `"suppressed": 1`) {
		t.Errorf("SARIF with --show-suppressed has no inSource suppression or count:\n%s", buf.String())
	}
}

// TestWaivedLeavesReports: a waived finding leaves the text report, whose
// summary is then clean and counts it, and SARIF.
func TestWaivedLeavesReports(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/x]", "site.pp", 1)
	g.Add("Exec[use-conf]", "site.pp", 5)
	res := result(
		p("/etc/x", a("File[/etc/x]", "p", 10), a("Exec[use-conf]", "c", 20)),
		p("/etc/x.bak", a("File[/etc/x]", "p", 11), a("Exec[use-conf]", "c", 21)),
	)
	w, err := detector.NewWaiver("Exec[use-conf]", "File[/etc/x]", "", "ok")
	if err != nil {
		t.Fatal(err)
	}
	rep := detector.Detect(res, g, detector.Options{Waivers: []detector.Waiver{w}})
	var text, sarif strings.Builder
	if err := Text(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	if err := SARIF(&sarif, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "/etc/x.bak") || !strings.Contains(text.String(), "No missing ordering relationships or notifiers among 2 resources (2 blocks, 2 paths, 1 related resource pair checked); 1 waived") {
		t.Errorf("text report shows a waived finding:\n%s", text.String())
	}
	if strings.Contains(sarif.String(), `"ruleId"`) {
		t.Errorf("SARIF has a result for a waived finding:\n%s", sarif.String())
	}
}

// A path of relation names (detector rule 26: a refreshonly Exec that did
// not run, and whose command names the path) has no trace line for the
// consumer: the text and HTML reports say why instead.
func TestNamesPathInText(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/app.staged]", "app.pp", 5, "content", "x")
	g.Add("Exec[install]", "app.pp", 9, "command", "/bin/cp /etc/app.staged /etc/app.conf", "refreshonly", true)
	rep := detector.Detect(result(p("/etc/app.staged", a("File[/etc/app.staged]", "p", 10))), g, detector.Options{})
	if len(rep.Findings) != 1 || rep.Findings[0].Paths[0].Relation != detector.Names {
		t.Fatalf("want one finding on a named path: %+v", rep.Findings)
	}
	var text bytes.Buffer
	if err := Text(&text, rep, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"    /etc/app.staged (names: " + namesNote + ")\n", "      consumed by Exec[install]\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var page bytes.Buffer
	if err := HTML(&page, rep, HTMLInputs{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), html.EscapeString(namesNote)) || strings.Contains(page.String(), "no trace line recorded") {
		t.Errorf("the HTML report does not say why the consumer has no trace line")
	}
}
