package main

// The hostile-module suite: testdata/hostile/hostile tries, class by class,
// every way out of fsmove's container that a module of the Forge could try
// (docs/DESIGN.md, "The container"), and prints what came of each as
// "RESULT <attack>: <outcome>" lines in Puppet's log. Each run must keep it
// in: nothing of the host read or written, no host cgroup changed, no
// priority or limit beyond what it was given, no host service reached,
// nothing oversized copied out, no terminal escape printed, and nothing it
// did missing from the trace unless the run says it is incomplete. It runs
// in both init modes with every tracer, and fails (never skips) in CI.

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

// hostileHost is what the attacks aim at on this host, made by the test.
type hostileHost struct {
	canary, secret string
	token          string
	port           int
	ips            []string
	reached        *atomic.Int64 // connections the listener took
	// releaseAgents are the host's release_agent files and their content.
	releaseAgents map[string]string
}

func newHostileHost(t *testing.T) *hostileHost {
	t.Helper()
	h := &hostileHost{token: randomWord(t), secret: "secret-" + randomWord(t), reached: new(atomic.Int64)}
	// Not t.TempDir: a directory the test's cleanup could not remove if
	// an attack changed it would fail the test for the wrong reason.
	h.canary = filepath.Join(os.TempDir(), "fsmove-canary-"+h.token)
	if err := os.MkdirAll(h.canary, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(h.canary) })
	if err := os.WriteFile(filepath.Join(h.canary, "secret"), []byte(h.secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	h.port = ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.reached.Add(1)
			c.Close()
		}
	}()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
			h.ips = append(h.ips, ipn.IP.String())
		}
	}
	// Another run's cgroup subtree, in every hierarchy: the container must
	// not see its name (hostile::cgroup).
	hierarchies, _ := filepath.Glob("/sys/fs/cgroup/*/cgroup.procs")
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.procs"); err == nil {
		hierarchies = append(hierarchies, "/sys/fs/cgroup/cgroup.procs")
	}
	for _, procs := range hierarchies {
		decoy := filepath.Join(filepath.Dir(procs), "fsmove", "fsmove-decoy-"+h.token)
		if err := os.MkdirAll(decoy, 0o755); err != nil {
			t.Fatalf("another run's cgroup: %v", err)
		}
		t.Cleanup(func() { os.Remove(decoy) })
	}
	h.releaseAgents = map[string]string{}
	matches, _ := filepath.Glob("/sys/fs/cgroup/*/release_agent")
	for _, m := range matches {
		data, _ := os.ReadFile(m)
		h.releaseAgents[m] = string(data)
	}
	return h
}

func randomWord(t *testing.T) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// TestE2EHostileModule applies the hostile module with every tracer, in
// both init modes, and checks that each attack was contained.
func TestE2EHostileModule(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	useBuiltBinary(t)
	h := newHostileHost(t)
	for _, init := range container.Inits {
		for _, tracer := range runner.Tracers() {
			t.Run(string(init)+"/"+tracer, func(t *testing.T) {
				t.Parallel()
				testHostile(t, h, tracer, init)
			})
		}
	}
}

// hostileLimits are the run's limits: small enough that the attacks reach
// them quickly.
var hostileLimits = []string{"--pids-limit", "200", "--memory", "768M"}

func testHostile(t *testing.T, h *hostileHost, tracer string, init container.Init) {
	out := runDir(t)
	var stdout, stderr bytes.Buffer
	args := append([]string{"run", "--quiet", "--tracer", tracer, "--trusted", "--init", string(init), "--out", out, "--format", "json"}, hostileLimits...)
	args = append(args, "--param", "hostile::canary="+h.canary, "--param", "hostile::token="+h.token,
		"--param", fmt.Sprintf("hostile::port=%d", h.port), "--param", "hostile::host_ips='"+strings.Join(h.ips, " ")+"'",
		filepath.Join("..", "..", "testdata", "hostile", "hostile"))
	code := run(&stdout, &stderr, args)
	rec, err := runner.ReadRecord(out)
	if err != nil {
		t.Fatalf("exit %d, no run.json: %v\n%s", code, err, stderr.String())
	}
	// The module tampers with an artifact: the run analyzes what it could
	// copy and fails.
	if code != exitRun || rec.Status != runner.StatusTampered || !strings.Contains(rec.Error, "expanded_relationships.dot") {
		t.Errorf("exit %d, status %q, error %q: want exit %d, status %q naming the linked graph",
			code, rec.Status, rec.Error, exitRun, runner.StatusTampered)
	}
	if rec.AnalyzeExit == nil {
		t.Errorf("the run was not analyzed\n%s", stderr.String())
	}
	results := hostileResults(t, filepath.Join(out, runner.PuppetLogFile))
	t.Logf("results: %q", results)
	want := func(attack string, ok func(outcome string) bool, why string) {
		t.Helper()
		outcomes := results[attack]
		if len(outcomes) == 0 {
			t.Errorf("%s: no RESULT line: the attack did not run", attack)
		}
		for _, o := range outcomes {
			if !ok(o) {
				t.Errorf("%s: %s (%s)", attack, o, why)
			}
		}
	}
	denied := func(o string) bool { return strings.HasPrefix(o, "denied") }

	// open_by_handle_at on a bind-mounted file.
	want("handle", denied, "the host's root opened by handle")
	if data, err := os.ReadFile(filepath.Join(h.canary, "secret")); err != nil || string(data) != h.secret+"\n" {
		t.Errorf("the canary changed: %q, %v", data, err)
	}
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(h.secret)) {
				t.Errorf("%s holds the host's secret", p)
			}
		}
		return nil
	})

	// The host's cgroups: only the subtree the container was given.
	if rec.Sandbox == nil {
		t.Fatal("run.json has no sandbox")
	}
	inWritable := func(dir string) bool {
		for _, w := range rec.Sandbox.CgroupWritable {
			if dir == w || strings.HasPrefix(dir, w+"/") {
				return true
			}
		}
		return false
	}
	moved := func(o string) bool {
		dir, ok := strings.CutPrefix(o, "MOVED ")
		return denied(o) || ok && inWritable(dir)
	}
	want("cgroup-move", moved, "moved into a cgroup outside the container's subtree")
	want("cgroup-mkdir", denied, "made a cgroup at a hierarchy's root")
	want("cgroup-userns", denied, "a user namespace of its own made the host's cgroups writable")
	want("cgroup-list", func(o string) bool { return o == "hidden" }, "another run's cgroup is visible")
	if init == container.InitSystemd {
		want("cgroup-release-agent", denied, "wrote a host release_agent")
	}
	for p, before := range h.releaseAgents {
		if after, _ := os.ReadFile(p); string(after) != before {
			t.Errorf("%s changed: %q, was %q", p, after, before)
		}
	}
	if left, _ := filepath.Glob("/sys/fs/cgroup/*/fsmove-evil-" + h.token); len(left) > 0 {
		t.Errorf("cgroups made at the host's roots: %v", left)
	}

	// The trace: what a process did after trying to leave its cgroup is
	// in it; what it did in a pid namespace of its own is, or the run
	// says the capture is incomplete.
	trace, err := os.ReadFile(filepath.Join(out, runner.TraceFile))
	if err != nil {
		t.Fatal(err)
	}
	if !created(trace, "/root/hostile-after-cgroup-"+h.token) {
		t.Errorf("the file made after the cgroup attacks is not in the trace (outside calls %d, dropped %d)",
			rec.OutsideCalls, rec.DroppedEvents)
	}
	if init == container.InitSystemd {
		// systemd sandboxes units in namespaces: the profile lets the
		// module make them too, and the trace must not lose it.
		want("pidns-marker", func(o string) bool { return strings.HasPrefix(o, "made") }, "no pid namespace made")
		if !created(trace, "/root/hostile-pidns-"+h.token) &&
			(rec.DroppedEvents == 0 || !strings.Contains(rec.Error, "incomplete")) {
			t.Errorf("the file made in a nested pid namespace is not in the trace, and the run does not say it is incomplete (%q)", rec.Error)
		}
	} else {
		// Nothing needs namespaces without systemd: Docker's conditions stay.
		want("pidns-marker", func(o string) bool { return o == "unshare failed" }, "a user and pid namespace made without systemd")
	}

	// Priorities and limits.
	want("nice-fifo", denied, "real-time scheduling granted")
	want("nice-renice", denied, "a raised priority granted")
	want("pids", func(o string) bool { return strings.HasPrefix(o, "stopped after") }, "the pids limit did not hold")
	want("memory", func(o string) bool { return strings.HasPrefix(o, "stopped") }, "the memory limit did not hold")
	if !strings.Contains(rec.Sandbox.Limits, "pids 200") || !strings.Contains(rec.Sandbox.Limits, "memory 768.0 MB") {
		t.Errorf("run.json limits %q: want the flags' pids 200 and memory 768 MB", rec.Sandbox.Limits)
	}
	wantCaps := []string{}
	if tracer != "ebpf" {
		wantCaps = []string{"SYS_PTRACE"} // the tracer in the container
	}
	if !slices.Equal(rec.Sandbox.Capabilities, wantCaps) {
		t.Errorf("capabilities added %q, want %q", rec.Sandbox.Capabilities, wantCaps)
	}

	// The network: no service of the host.
	want("network", func(o string) bool { return strings.HasPrefix(o, "blocked") }, "reached the host's service")
	// No engine's socket: the session's reaper holds it in a container
	// of its own.
	want("engine", func(o string) bool { return o == "no engine socket" }, "an engine's socket is in the container")

	// Copy-out: the sparse file left out, the linked artifact and the one
	// made a directory too.
	want("copyout-huge", func(o string) bool { return strings.HasPrefix(o, "made") }, "")
	var size int64
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			size += info.Size()
		}
		return nil
	})
	if size > 300<<20 || !slices.ContainsFunc(rec.OverBudget, func(s string) bool { return strings.Contains(s, "resources.dot") }) {
		t.Errorf("--out holds %d bytes, over_budget %q: want the 2 GiB graph left out and said", size, rec.OverBudget)
	}
	// The graph the analysis reads was compiled before the apply: the
	// one the module made a link is only compared with it, and left out.
	if info, err := os.Lstat(filepath.Join(out, runner.GraphsDir, "expanded_relationships.dot")); err != nil || !info.Mode().IsRegular() {
		t.Errorf("the compiled graph is not kept as a file: %v", err)
	}
	want("copyout-dir", func(o string) bool { return strings.HasPrefix(o, "made") }, "")
	if info, err := os.Lstat(filepath.Join(out, runner.GraphsDir, "relationships.dot")); err != nil || !info.Mode().IsRegular() || !strings.Contains(rec.Error, "relationships.dot is a directory") {
		t.Errorf("the graph made a directory replaced the compiled one (%v), or the run does not say so (%q)", err, rec.Error)
	}

	// Verdicts the module tries to forge (issue 43): each plants a real
	// missing ordering that must be found, or make the analysis
	// incomplete, never pass as clean.
	report := readE2EReport(t, stdout.Bytes())
	findings := e2eFindings(t, stdout.Bytes())
	wrote := func(o string) bool { return strings.HasPrefix(o, "wrote") }
	// Fake Puppet markers around an Exec's write: only Puppet's process
	// writes markers, so the write stays the Exec's.
	want("forge", wrote, "")
	if !slices.Contains(findings, "MOR Exec[hostile-forge] Exec[forge-read]") {
		t.Errorf("the write between fake markers is not found as a missing ordering: %q", findings)
	}
	if !slices.ContainsFunc(report.Warnings, func(w e2eWarning) bool {
		return strings.HasPrefix(w.Kind, "marker-like lines written by other processes") && w.Count >= 4
	}) {
		t.Errorf("the fake markers are not reported: %+v", report.Warnings)
	}
	// A file made through /proc/self/fd/N/name is placed through the fd.
	want("unplaced-procfd", wrote, "")
	if !slices.Contains(findings, "MOR Exec[hostile-unplaced] Exec[unplaced-read-procfd]") {
		t.Errorf("the write through /proc/self/fd/N is not found as a missing ordering: %q", findings)
	}
	// A relative open after a chroot, a create through a directory fd
	// received over SCM_RIGHTS, and (systemd mode, where open_tree is
	// allowed) one through an fd from open_tree cannot be placed: each is
	// counted, and the analysis is incomplete.
	want("unplaced-chroot", wrote, "")
	want("scm-rights", wrote, "")
	unplaced := 2
	if init == container.InitSystemd {
		want("open-tree", wrote, "")
		unplaced = 3
	} else {
		want("open-tree", func(o string) bool { return strings.HasPrefix(o, "denied") }, "open_tree allowed without systemd")
	}
	if !slices.ContainsFunc(report.Incomplete, func(why string) bool {
		var n int
		fmt.Sscanf(why, "%d file change(s) inside resource blocks through an fd or path fsmove cannot resolve", &n)
		return n >= unplaced
	}) {
		t.Errorf("the writes after a chroot, through a received fd and through an open_tree fd do not all make the analysis incomplete (want %d): %q", unplaced, report.Incomplete)
	}
	// A write through the image's /var/run → /run link and a read of
	// /run: one file.
	if !slices.Contains(findings, "MOR Exec[hostile-varrun] Exec[varrun-read]") {
		t.Errorf("the write through /var/run is not found as a missing ordering with the read of /run: %q", findings)
	}
	// A write whose path is rewritten while the open waits on a lease
	// (hostile::pathrace): fsmove's profile refuses leases, so the open
	// does not wait, the write is seen with its path and the missing
	// ordering found.
	want("path-race", func(o string) bool { return strings.HasPrefix(o, "wrote") }, "")
	if !slices.Contains(findings, "MOR Exec[hostile-pathrace] Exec[pathrace-read]") {
		t.Errorf("the write through a path rewritten during the open is not found as a missing ordering: %q", findings)
	}
	if !slices.ContainsFunc(results["path-race"], func(o string) bool { return strings.Contains(o, "lease refused") }) {
		t.Errorf("the module got a lease: %q", results["path-race"])
	}
	// A file changed in place through a shared mapping, with no write
	// call (hostile::inplace): its open for writing counts as a change.
	want("inplace", wrote, "")
	if !slices.Contains(findings, "MOR Exec[hostile-inplace] Exec[inplace-read]") {
		t.Errorf("the change through a shared mapping is not found as a missing ordering: %q", findings)
	}
	// The catalog in Puppet's cache rewritten with the missing ordering
	// (hostile::catalog): the analysis reads the catalog compiled before
	// the apply, and the run says what changed.
	want("catalog", func(o string) bool { return strings.HasPrefix(o, "wrote") && !strings.HasSuffix(o, "forged 0 files") }, "nothing forged")
	if !slices.Contains(findings, "MOR Exec[hostile-catalog] Exec[catalog-read]") {
		t.Errorf("the missing ordering added to Puppet's cached catalog is not found: %q", findings)
	}
	if !strings.Contains(rec.Error, `differs from the one compiled before it: resource changed "Exec[catalog-read]"`) {
		t.Errorf("the run does not say the cached catalog was changed: %q", rec.Error)
	}
	if data, _ := os.ReadFile(filepath.Join(out, runner.CatalogFile)); bytes.Contains(data, []byte(`"Exec[hostile-catalog]"]`)) {
		t.Error("catalog.json is the forged one")
	}
	// Puppet's exit status rewritten after Puppet (hostile::exitstatus):
	// the writer runs, and may outlive the apply and write 0 to
	// puppet.exit. Every tracer's trace has how Puppet ended, which wins:
	// failures (4, or 6 with changes).
	want("exit-forge", func(o string) bool { return strings.HasPrefix(o, "writer left behind") }, "")
	if rec.PuppetExit == nil || *rec.PuppetExit != 4 && *rec.PuppetExit != 6 {
		t.Errorf("Puppet's exit %v, want the failure the trace has (4 or 6); error %q", rec.PuppetExit, rec.Error)
	}
	// The same writer rewrites Puppet's report, where it outlives the
	// apply, so that the failed Exec reads as applied: the trace's
	// failure is kept, and the disagreement said.
	if !slices.ContainsFunc(report.Incomplete, func(why string) bool {
		return strings.Contains(why, "Puppet failed were not checked") && strings.Contains(why, "Exec[exitstatus-fails]")
	}) {
		t.Errorf("the failed Exec is not said to be unchecked: %q", report.Incomplete)
	}
	if data, err := os.ReadFile(filepath.Join(out, runner.PuppetReportFile)); err == nil && !bytes.Contains(data, []byte("    failed: true")) {
		t.Logf("the report was rewritten")
		if !slices.ContainsFunc(report.Warnings, func(w e2eWarning) bool {
			return strings.HasPrefix(w.Kind, "resources Puppet's report and the trace disagree on")
		}) {
			t.Errorf("the rewritten report is not said to disagree with the trace: %+v", report.Warnings)
		}
	}

	// Escapes: none printed raw, by the run or by a text report of its
	// artifacts; the findings name the titles, escaped.
	if bytes.ContainsAny(stderr.Bytes(), "\x1b\x07") {
		t.Errorf("the run printed a raw escape on stderr:\n%q", stderr.String())
	}
	if !slices.ContainsFunc(e2eFindings(t, stdout.Bytes()), func(f string) bool { return strings.Contains(f, "\x1b]0;pwned\x07") }) {
		t.Errorf("no finding names the escaped title (JSON keeps it exact): %q", e2eFindings(t, stdout.Bytes()))
	}
	var text, textErr bytes.Buffer
	run(&text, &textErr, []string{"analyze", filepath.Join(out, runner.TraceFile), filepath.Join(out, runner.CatalogFile)})
	if bytes.ContainsAny(text.Bytes(), "\x1b\x07") || bytes.ContainsAny(textErr.Bytes(), "\x1b\x07") {
		t.Errorf("the text report prints a raw escape:\n%q", text.String())
	}
	if !bytes.Contains(text.Bytes(), []byte(`\x1b]0;pwned\x07`)) {
		t.Errorf("the text report does not show the title, escaped:\n%s", text.String())
	}
}

// resultLine is a RESULT line of the hostile module, as Puppet logs an
// Exec's output ("Notice: /Stage[main]/…/returns: RESULT attack: outcome").
var resultLine = regexp.MustCompile(`RESULT ([a-z-]+): (.*?)(\x1b\[0m)?$`)

// hostileResults reads the RESULT lines of Puppet's log: attack → outcomes.
func hostileResults(t *testing.T, log string) map[string][]string {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	results := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := resultLine.FindStringSubmatch(sc.Text()); m != nil {
			results[m[1]] = append(results[m[1]], m[2])
		}
	}
	return results
}

// created says whether the trace shows path opened to be created (touch).
func created(trace []byte, path string) bool {
	for _, line := range bytes.Split(trace, []byte("\n")) {
		if bytes.Contains(line, []byte(`"`+path+`"`)) && bytes.Contains(line, []byte("O_CREAT")) && !bytes.Contains(line, []byte("= -1")) {
			return true
		}
	}
	return false
}

// TestE2EDiskBudget: a module that fills its container's disk (class
// hostile::disk: 1.5 GiB) is stopped at --max-disk 1G, in both init modes:
// exit 3, status over-budget, the reason in run.json, and what was
// captured copied out. Before the budget, the run waited for the Exec and
// was clean.
func TestE2EDiskBudget(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	useBuiltBinary(t)
	for _, init := range container.Inits {
		t.Run(string(init), func(t *testing.T) {
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, []string{"run", "--quiet", "--init", string(init), "--max-disk", "1G", "--out", out,
				"--class", "hostile::disk", filepath.Join("..", "..", "testdata", "hostile", "hostile")})
			rec, err := runner.ReadRecord(out)
			if err != nil {
				t.Fatalf("exit %d, no run.json: %v\n%s", code, err, stderr.String())
			}
			if code != exitRun || rec.Status != runner.StatusOverBudget || !strings.Contains(stderr.String(), "over the budget of 1.0 GB (--max-disk)") {
				t.Errorf("exit %d, status %q: want exit %d, status %q, and the budget said\n%s", code, rec.Status, exitRun, runner.StatusOverBudget, stderr.String())
			}
			if !slices.ContainsFunc(rec.OverBudget, func(s string) bool { return strings.HasPrefix(s, "the container's disk: ") }) {
				t.Errorf("over_budget %q does not name the disk", rec.OverBudget)
			}
			if rec.StoppedStep != runner.StepApply || rec.TraceBytes == 0 {
				t.Errorf("stopped in step %q with a trace of %d bytes: want the apply stopped and its trace kept", rec.StoppedStep, rec.TraceBytes)
			}
		})
	}
}
