package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/detector/detectortest"
	"github.com/fsmove/fsmove/fstrace/interp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenReport is a report with every feature the writers show: MOR and MN,
// a pair with paths both ways, a waived finding, a partly waived one, an
// unknown block, an unused waiver, a resource without a manifest position,
// findings of each confidence (one observed in the run, one made only by a
// lookup), and fixed stats.
func goldenReport(t *testing.T) *detector.Report {
	g, res := orderGraph()
	g.Add("Service[nginx]", "/etc/puppet/code/environments/production/modules/nginx/manifests/service.pp", 4)
	g.Add("File[/etc/nginx/sites-enabled/my site]", "/etc/puppet/code/environments/production/modules/nginx/manifests/site.pp", 17, "ensure", "link", "target", "/etc/nginx/sites-available/my site")
	g.Add("Exec[apt-get update]", "", 0)
	g.Add("Nginx::Site[my site]", "/etc/puppet/code/environments/production/modules/nginx/manifests/site.pp", 30)
	g.Add("Exec[check]", "a.pp", 3)
	g.Add("Exec[probe]", "c.pp", 8)
	g.Add("Exec[wait]", "c.pp", 12)
	more := result(
		p("/etc/apt/sources.list", a("Exec[two]", "p", 30), a("Exec[apt-get update]", "c", 31)),
		p("/etc/nginx/sites-enabled/my site", a("File[/etc/nginx/sites-enabled/my site]", "c", 40), a("Service[nginx]", "c", 41)),
		p("/etc/nginx/sites-enabled/my site.bak", a("File[/etc/nginx/sites-enabled/my site]", "p", 42), a("Nginx::Site[my site]", "c", 43)),
		p("/run/lock/x", a("Schedule[daily]", "p", 50), a("Exec[one]", "c", 51)),
		p("/run/lock/y", a("Custom_type[z]", "p", 52), a("Exec[one]", "c", 53)),
		// Exec[probe] only stats what Exec[check] made: metadata.
		p("/srv/flag", a("Exec[check]", "p", 60), at("Exec[probe]", "s:newfstatat@61")),
		// Exec[wait] failed: it looked for what Exec[check] made later.
		p("/srv/ready", at("Exec[wait]", "m:openat@62"), a("Exec[check]", "p", 63)),
	)
	res = failed(merge(res, more), "Exec[wait]", "Error: /Stage[main]/Main/Exec[wait]/returns: change from 'notrun' to ['0'] failed: test -e /srv/ready returned 1")
	waivers, err := detector.LoadWaivers(bytes.NewBufferString(
		"Exec[two] Exec[one] /var/y -- /var/y is a lock file, order does not matter\n" +
			"Exec['apt-get update'] Exec[two] -- apt-get update tolerates a half-written list\n" +
			"File[/nowhere] Exec[one] -- stale\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep := detector.Detect(res, g, detector.Options{Waivers: waivers})
	rep.ToolVersion = "0.1.0-test"
	rep.Stats.TraceBytes, rep.Stats.TraceLines, rep.Stats.Events, rep.Stats.MalformedLines = 35_000_000, 352_803, 300_000, 2
	rep.Stats.BadArgs, rep.Stats.UnknownCalls, rep.Stats.CutMarks, rep.Stats.ImplicitEnds, rep.Stats.SelfClones = 7, 11, 1, 3, 2
	rep.Stats.Interp.Statements = 410_000
	rep.Stats.Phases = []detector.Phase{{Name: "parse", Duration: 80 * time.Millisecond}, {Name: "interpret", Duration: 120 * time.Millisecond}, {Name: "detect", Duration: 3 * time.Millisecond}}
	// Edits as fsmove fix writes them (the command sets them from the
	// located manifests): one on the MN of the nginx site, a skipped one,
	// and the first group's.
	inGroup := groupIndex(detector.GroupFindings(rep.Findings), len(rep.Findings))
	skipped := false
	for i := range rep.Findings {
		f := &rep.Findings[i]
		switch {
		case !f.Reported():
		case f.Kind == detector.MN && f.Consumer.Ref() == "Service[nginx]":
			site := "/etc/puppet/code/environments/production/modules/nginx/manifests/site.pp"
			f.Edit = &detector.Edit{
				Says: "notify => Service['nginx'] added to File['/etc/nginx/sites-enabled/my site'] (line 17)",
				Diff: "--- a/manifests/site.pp\n+++ b/manifests/site.pp\n@@ -18,2 +18,3 @@\n     target => \"/etc/nginx/sites-available/${name}\",\n+    notify => Service['nginx'],\n   }\n",
				Changes: []detector.Change{{File: site, Offset: 402, Length: 0, StartLine: 19, StartCol: 1, EndLine: 19, EndCol: 1,
					Text: "    notify => Service['nginx'],\n"}},
			}
		case f.Kind == detector.MOR && inGroup[i] < 0 && !skipped:
			f.Edit = &detector.Edit{Skipped: f.Producer.Ref() + " is not declared in the module (no file in the catalog)"}
			skipped = true
		}
	}
	if groups := detector.GroupFindings(rep.Findings); len(groups) > 0 {
		rep.GroupEdits = map[int]*detector.Edit{groups[0].Members[0]: {
			Says: "before => [...] added to the shared resource (line 30)",
			Diff: "--- a/p.pp\n+++ b/p.pp\n@@ -30 +30,2 @@\n exec { 'x':\n+  before => [Exec['a'], Exec['b']],\n",
			Changes: []detector.Change{{File: "p.pp", Offset: 10, StartLine: 31, StartCol: 1, EndLine: 31, EndCol: 1,
				Text: "  before => [Exec['a'], Exec['b']],\n"}},
		}}
	}
	return rep
}

// merge appends b's paths to a, renumbering b's blocks; paths stay sorted.
func merge(a, b *interp.Result) *interp.Result {
	ids := map[string]int{}
	for i, n := range a.Blocks {
		ids[n] = i
	}
	for _, pa := range b.Paths {
		for i := range pa.Accesses {
			name := b.Blocks[pa.Accesses[i].Block]
			id, ok := ids[name]
			if !ok {
				id = len(a.Blocks)
				ids[name] = id
				a.Blocks = append(a.Blocks, name)
			}
			pa.Accesses[i].Block = interp.BlockID(id)
		}
		a.Paths = append(a.Paths, pa)
	}
	detectortest.SortPaths(a)
	return a
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./report -update rewrites it):\n--- got\n%s", name, got)
	}
}

func TestGoldenText(t *testing.T) {
	rep := goldenReport(t)
	var plain, color bytes.Buffer
	if err := Text(&plain, rep, false); err != nil {
		t.Fatal(err)
	}
	if err := Text(&color, rep, true); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report.txt", plain.Bytes())
	checkGolden(t, "report.color.txt", color.Bytes())
	if bytes.Contains(plain.Bytes(), []byte("\x1b[")) {
		t.Error("colour codes without colour")
	}
	var stats bytes.Buffer
	if err := Stats(&stats, rep); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "stats.txt", stats.Bytes())
}

func TestGoldenJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, goldenReport(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report.json", buf.Bytes())
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("JSON does not parse: %v", err)
	}
}

func TestGoldenSARIF(t *testing.T) {
	var buf bytes.Buffer
	if err := SARIF(&buf, goldenReport(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report.sarif", buf.Bytes())
}
