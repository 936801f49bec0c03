package confirm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/runner"
)

// localShell runs scripts with the host's /bin/sh: the probe and the
// out-of-band change are plain shell, so they are tested for real here.
type localShell struct{}

func (localShell) Shell(ctx context.Context, script string, args ...string) (string, int, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, "fsmove-shell"}, args...)...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode(), nil
	}
	return string(out), 0, err
}

func TestProbe(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a file\twith a tab")
	if err := os.WriteFile(file, []byte("one\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o750); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("sub", link); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	paths := []string{file, sub, link, missing}
	states, err := probe(context.Background(), localShell{}, paths)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]PathState{
		file:    {Kind: "file", Mode: "640"},
		sub:     {Kind: "dir", Mode: "750"},
		link:    {Kind: "link", Mode: "777"},
		missing: {Kind: "missing"},
	} {
		got := states[p]
		if got.Kind != want.Kind || got.Mode != want.Mode {
			t.Errorf("%s: got %+v, want kind %s mode %s", p, got, want.Kind, want.Mode)
		}
		if want.Kind != "missing" && (len(got.Content) != 64 || got.MTime == "" || got.CTime == "") {
			t.Errorf("%s: no hash or times: %+v", p, got)
		}
	}
	before := states[file]
	// Content, mode and a directory's entries each change the state; the
	// times alone do not.
	if err := os.WriteFile(file, []byte("two\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "new"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := probe(context.Background(), localShell{}, paths)
	if err != nil {
		t.Fatal(err)
	}
	if after[file].Same(before) {
		t.Errorf("new content, same state: %v", after[file])
	}
	if after[sub].Same(states[sub]) {
		t.Errorf("new entry, same directory state: %v", after[sub])
	}
	if !after[link].Same(states[link]) || !after[missing].Same(states[missing]) {
		t.Errorf("unchanged paths differ: %v %v", after[link], after[missing])
	}
	if got := after[file].Lines; len(got) != 2 || got[0] != "two\n" || got[1] != "" {
		t.Errorf("lines of a small text file: %q", got)
	}
	if after[sub].Lines != nil {
		t.Errorf("a directory has lines: %q", after[sub].Lines)
	}
	if _, _, err := parseProbe("file\t644\n", []string{file}); err == nil {
		t.Error("a short line was accepted")
	}
	if _, _, err := parseProbe("missing\n", []string{file, sub}); err == nil {
		t.Error("one line for two paths was accepted")
	}
}

func res(typ, title string) *catalog.Resource { return &catalog.Resource{Type: typ, Title: title} }

func TestForcedOrder(t *testing.T) {
	got := ForcedOrder(res("Exec", `it's a \ test`), res("Apt::Source", "x"))
	want := `Exec['it\'s a \\ test'] -> Apt::Source['x']`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	f := &detector.Finding{Kind: detector.MOR, Producer: res("File", "/p"), Consumer: res("Exec", "c")}
	a, err := morApply("mor-1", f, runner.Entry{Class: "m"})
	if err != nil || a.entry.Append != "Exec['c'] -> File['/p']" || a.entry.Class != "m" {
		t.Errorf("reverse order: %+v, %v", a, err)
	}
	f.Observed = true // the run already had the consumer first
	if a, _ := morApply("mor-1", f, runner.Entry{}); a.entry.Append != "File['/p'] -> Exec['c']" {
		t.Errorf("observed: %s", a.entry.Append)
	}
}

// withLines is o with path a text file of those lines (its hash made of
// them).
func withLines(o outcome, path string, lines ...string) outcome {
	states := map[string]PathState{}
	for k, v := range o.states {
		states[k] = v
	}
	s := states[path]
	s.Lines, s.Content = lines, strings.Join(lines, "")
	states[path] = s
	o.states = states
	return o
}

func TestMORVerdict(t *testing.T) {
	f := &detector.Finding{Kind: detector.MOR, Paths: []detector.PathConflict{{Path: "/a", Relation: detector.Modifies}, {Path: "/b", Relation: detector.Overwrites}}}
	st := func(content string) PathState {
		return PathState{Kind: "file", Mode: "644", Owner: "root:root", Content: content}
	}
	base := outcome{status: runner.StatusOK, states: map[string]PathState{"/a": st("1"), "/b": st("2")}}
	with := func(mod func(o *outcome)) outcome {
		o := base
		o.states = map[string]PathState{}
		for k, v := range base.states {
			o.states[k] = v
		}
		mod(&o)
		return o
	}
	runErr := os.ErrDeadlineExceeded
	for _, tc := range []struct {
		name         string
		b1, b2, o    outcome
		want         detector.Verdict
		evidenceWord string
	}{
		{"same", base, base, base, detector.Refuted, ""},
		{"new failure", base, base, with(func(o *outcome) {
			o.status = runner.StatusPuppetFailed
			o.errors = []string{"Error: /Stage[main]/M/Exec[c]/returns: change from 'notrun' to ['0'] failed: No such file"}
		}), detector.Confirmed, "new failure"},
		{"failure gone", with(func(o *outcome) { o.errors = []string{"Error: /Stage[main]/M/Exec[c]/returns: failed at 10:01"} }),
			with(func(o *outcome) { o.errors = []string{"Error: /Stage[main]/M/Exec[c]/returns: failed at 10:02"} }),
			base, detector.Confirmed, "failure gone"},
		{"same failure in all", with(func(o *outcome) { o.errors = []string{"Error: /Stage[main]/M/Exec[c]/returns: x"} }),
			with(func(o *outcome) { o.errors = []string{"Error: /Stage[main]/M/Exec[c]/returns: y"} }),
			with(func(o *outcome) { o.errors = []string{"Error: /Stage[main]/M/Exec[c]/returns: z"} }), detector.Refuted, ""},
		{"a failure in one baseline only", base, with(func(o *outcome) { o.errors = []string{"Error: flaky"} }),
			base, detector.Refuted, ""},
		{"state differs", base, base, with(func(o *outcome) { o.states["/b"] = PathState{Kind: "missing"} }), detector.Confirmed, "/b"},
		{"mode differs", base, base, with(func(o *outcome) { s := o.states["/a"]; s.Mode = "600"; o.states["/a"] = s }), detector.Confirmed, "/a"},
		{"only times differ", base, base, with(func(o *outcome) { s := o.states["/a"]; s.MTime = "9"; o.states["/a"] = s }), detector.Refuted, ""},
		{"unstable path not compared", base, with(func(o *outcome) { o.states["/a"] = st("other") }),
			with(func(o *outcome) { o.states["/a"] = st("third") }), detector.Refuted, "unstable"},
		{"a timestamp line differs: compared on the others", withLines(base, "/a", "# at 10:01\n", "x=1\n"),
			withLines(base, "/a", "# at 10:02\n", "x=1\n"), withLines(base, "/a", "# at 10:03\n", "x=1\n"), detector.Refuted, "compared without them"},
		{"a timestamp line differs and another too", withLines(base, "/a", "# at 10:01\n", "x=1\n"),
			withLines(base, "/a", "# at 10:02\n", "x=1\n"), withLines(base, "/a", "# at 10:03\n", "x=2\n"), detector.Confirmed, "line 2"},
		{"a timestamp line differs, the other order adds a line", withLines(base, "/a", "# at 10:01\n", "x=1\n"),
			withLines(base, "/a", "# at 10:02\n", "x=1\n"), withLines(base, "/a", "# at 10:03\n", "x=1\n", "y=2\n"), detector.Confirmed, "2 lines, then 3"},
		{"every path unstable", base, with(func(o *outcome) { o.states["/a"], o.states["/b"] = st("x"), st("y") }),
			base, detector.Unknown, "unstable"},
		{"cycle", base, base, outcome{status: runner.StatusCompileFailed,
			errors: []string{"Error: Found 1 dependency cycle:"}}, detector.Unknown, "cycle"},
		{"not found", base, base, outcome{status: runner.StatusCompileFailed,
			errors: []string{"Error: Could not find resource 'Exec[c]' for relationship"}}, detector.Unknown, "Could not find"},
		{"apply failed", base, base, outcome{err: runErr}, detector.Unknown, ""},
		{"baseline failed", outcome{err: runErr}, base, base, detector.Unknown, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := morVerdict(f, "X -> Y", tc.b1, tc.b2, tc.o)
			if c.Verdict != tc.want {
				t.Fatalf("verdict %s (%s), want %s", c.Verdict, c.Why, tc.want)
			}
			all := c.Why + "\n" + strings.Join(c.Evidence, "\n")
			if tc.evidenceWord != "" && !strings.Contains(all, tc.evidenceWord) {
				t.Errorf("no %q in %s", tc.evidenceWord, all)
			}
			if c.Forced != "X -> Y" {
				t.Errorf("forced %q", c.Forced)
			}
		})
	}
}

// A path the consumer only reads is not compared: another writer that the
// forced order moves decides its state, not this pair. A failure counts.
func TestMORVerdictReader(t *testing.T) {
	reader := &detector.Finding{Kind: detector.MOR, Paths: []detector.PathConflict{{Path: "/a", Relation: detector.Consumes}}}
	base := outcome{status: runner.StatusOK, states: map[string]PathState{"/a": {Kind: "file", Content: "1"}}}
	other := outcome{status: runner.StatusOK, states: map[string]PathState{"/a": {Kind: "file", Content: "2"}}}
	if c := morVerdict(reader, "X -> Y", base, base, other); c.Verdict != detector.Refuted || !strings.Contains(c.Why, "only reads") {
		t.Errorf("a read path in another state: %s (%s)", c.Verdict, c.Why)
	}
	other.errors = []string{"Error: /Stage[main]/M/Exec[c]/returns: failed"}
	if c := morVerdict(reader, "X -> Y", base, base, other); c.Verdict != detector.Confirmed {
		t.Errorf("a reader that fails in the other order: %s (%s)", c.Verdict, c.Why)
	}
	// A consumer that went on without the path (an onlyif test) does
	// something else in the other order, not on the finding's paths: not
	// refuted by those paths alike.
	other.errors = nil
	missed := &detector.Finding{Kind: detector.MOR, Paths: []detector.PathConflict{{Path: "/a", Relation: detector.Missed}}}
	if c := morVerdict(missed, "X -> Y", base, base, other); c.Verdict != detector.Unknown || !strings.Contains(c.Why, "went on without") {
		t.Errorf("a missed path: %s (%s)", c.Verdict, c.Why)
	}
}

// fakeNode is a node whose paths are the host's (a temporary directory)
// and whose systemd and Puppet are simulated: Apply restores the file as
// Puppet would, and restarts the service when notify is set.
type fakeNode struct {
	localShell
	file, content string
	active        string
	restore       bool // Puppet manages the content
	notify        bool // Puppet restarts the service when it changes the file
	invocation    int
	started       string
}

func (n *fakeNode) Shell(ctx context.Context, script string, args ...string) (string, int, error) {
	if strings.HasPrefix(script, "systemctl show") {
		return "Id=cron.service\nActiveState=" + n.active + "\nInvocationID=" + strings.Repeat("ab", 15) + string(rune('0'+n.invocation)) +
			"\nExecMainStartTimestamp=" + n.started + "\n", 0, nil
	}
	return n.localShell.Shell(ctx, script, args...)
}

func (n *fakeNode) Apply(ctx context.Context) (int, string, error) {
	if n.restore {
		if err := os.WriteFile(n.file, []byte(n.content), 0o644); err != nil {
			return 0, "", err
		}
		if n.notify {
			n.invocation++
			n.started = "Thu 2026-11-26 03:40:02.000000 UTC"
		}
	}
	return 2, "Notice: content changed\n", nil
}

func (n *fakeNode) Systemd() bool { return true }

func TestStaleService(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		active                  string
		restore, notify, nofile bool
		want                    detector.Verdict
		why                     string
	}{
		{"stale", "active", true, false, false, detector.Confirmed, "did not restart"},
		{"restarted", "active", true, true, false, detector.Refuted, "restarted"},
		{"not restored", "active", false, false, false, detector.Unknown, "did not restore"},
		{"not running", "failed", true, false, false, detector.Unknown, "not running"},
		{"no file", "active", true, false, true, detector.Unknown, "no path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "cron.conf")
			n := &fakeNode{file: file, content: "x=1\n", active: tc.active, restore: tc.restore, notify: tc.notify,
				started: "Thu 2026-11-26 03:40:00.000000 UTC"}
			if !tc.nofile {
				if err := os.WriteFile(file, []byte(n.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f := &detector.Finding{Kind: detector.MN, Producer: res("File", file), Consumer: res("Service", "cron")}
			c, err := staleService(context.Background(), n, f, []string{file})
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict != tc.want || !strings.Contains(c.Why, tc.why) {
				t.Errorf("got %s (%s), want %s with %q; evidence:\n%s", c.Verdict, c.Why, tc.want, tc.why, strings.Join(c.Evidence, "\n"))
			}
			if !tc.nofile && tc.active == "active" && len(c.Evidence) < 4 {
				t.Errorf("evidence: %q", c.Evidence)
			}
		})
	}
	// A package producer is said to be out of reach at once.
	f := &detector.Finding{Kind: detector.MN, Producer: res("Package", "cron"), Consumer: res("Service", "cron"),
		Paths: []detector.PathConflict{{Path: "/etc/cron"}}}
	if a, c := mnApply("mn-1", f, runner.Entry{}); a != nil || c == nil || c.Verdict != detector.Unknown || !strings.Contains(c.Why, "not confirmable") {
		t.Errorf("package producer: %+v %+v", a, c)
	}
}

func TestTimes(t *testing.T) {
	start, ok := startedAt("Thu 2026-11-26 03:40:01.123456 UTC")
	if !ok || start.Nanosecond() != 123456000 {
		t.Errorf("startedAt: %v %v", start, ok)
	}
	m, ok := epochTime("1795662932.07")
	if !ok || m.Unix() != 1795662932 || m.Nanosecond() != 70000000 {
		t.Errorf("epochTime: %v %v", m, ok)
	}
	if _, ok := epochTime("x"); ok {
		t.Error("epochTime accepted x")
	}
}
