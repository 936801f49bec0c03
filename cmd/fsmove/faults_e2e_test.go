package main

// End-to-end tests of faults fsmove must come through, with the fsmove
// binary as a child process, a real Docker Engine and a real puppet apply:
// SIGKILL of fsmove run at each phase and of fsmove bench (nothing of
// fsmove's can act on it: its session's reaper, puppet/container/reaper.go,
// must remove its containers, and the next fsmove must keep what the killed
// one captured, under a name that says it was interrupted), the engine's
// socket cut mid-apply, and a full output disk. Each checks the exit
// status, the one line that says the cause, that no container is left and
// that nothing captured is lost.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsmove/fsmove/internal/testenv"
	"github.com/fsmove/fsmove/puppet/runner"
)

func TestE2ERunKilled(t *testing.T) {
	bin, module := fsmoveAndFixture(t, "clean")
	hold := "include clean\nexec { 'fsmove-test-hold': command => '/bin/sleep 600', timeout => 0 }"
	cases := []killCase{
		{name: "container start", waitFor: "fsmove: container starting"},
		{name: "apply", args: []string{"-e", hold}, waitFor: "fsmove: apply     puppet apply", delay: 3 * time.Second, captured: true},
		{name: "copy", env: []string{"FSMOVE_TEST_HOLD=copy:60s"}, waitFor: "fsmove: copy      copying", captured: true},
		{name: "analysis", env: []string{"FSMOVE_TEST_HOLD=analyze:60s"}, waitFor: "fsmove: analyze   analyzing", captured: true, settled: true},
	}
	// Under eBPF, the default, whose trace is on the host as it is
	// written: strace's and ptrace's is in the container until the copy,
	// and goes with the container when fsmove is killed before it.
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) { testKilled(t, bin, module, c) })
	}
}

// killCase is one phase of fsmove run that TestE2ERunKilled kills.
type killCase struct {
	name    string
	args    []string
	env     []string
	waitFor string
	delay   time.Duration
	// captured: the killed run had its catalog and some trace out;
	// settled: and it was in the run's place already (the analysis step
	// comes after the copy has put it there).
	captured, settled bool
}

func testKilled(t *testing.T, bin, module string, c killCase) {
	state := t.TempDir()
	env := append(os.Environ(), "XDG_STATE_HOME="+state)
	args := append([]string{"run", "--init", "none"}, c.args...)
	cmd := exec.Command(bin, append(args, module)...)
	cmd.Env = append(env, c.env...)
	child := startChild(t, cmd)
	pid := cmd.Process.Pid
	defer removeContainersOf(t, pid)
	waitStderr(t, child.text, c.waitFor)
	time.Sleep(c.delay)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed := time.Now()

	// The reaper removes the killed run's containers; within a minute is
	// the promise, and it is at once here.
	if left := waitContainersGone(t, pid, killed); len(left) > 0 {
		t.Fatalf("containers of the killed fsmove (pid %d) left a minute later: %v; stderr:\n%s", pid, left, child.text())
	}
	t.Logf("%s: no container left %.1fs after SIGKILL", c.name, time.Since(killed).Seconds())

	// The next fsmove keeps what the killed one captured.
	runs := filepath.Join(state, "fsmove", "runs")
	time.Sleep(time.Until(killed.Add(6 * time.Second))) // runner's grace for a staging directory
	gc := exec.Command(bin, "gc")
	gc.Env = env
	out, err := gc.CombinedOutput()
	if err != nil {
		t.Fatalf("fsmove gc: %v\n%s", err, out)
	}
	kept, _ := filepath.Glob(filepath.Join(runs, "*"+runner.InterruptedInfix+"*"))
	staging, _ := filepath.Glob(filepath.Join(runs, "*"+runner.StagingInfix+"*"))
	if len(staging) > 0 {
		t.Errorf("staging directories left as if live: %v", staging)
	}
	if !c.captured {
		return
	}
	dir := ""
	if c.settled {
		places, _ := filepath.Glob(filepath.Join(runs, "clean-*"))
		if len(kept) != 0 || len(places) != 1 {
			t.Fatalf("runs directory holds %v, want the run's place only", places)
		}
		dir = places[0]
	} else {
		if len(kept) != 1 || !strings.Contains(string(out), kept[0]) {
			t.Fatalf("interrupted runs kept: %v; fsmove gc said:\n%s", kept, out)
		}
		dir = kept[0]
		if rec, err := runner.ReadRecord(dir); err != nil || rec.Status != runner.StatusInterrupted {
			t.Errorf("run.json of the killed run: %v, %+v", err, rec)
		}
	}
	for _, name := range []string{runner.CatalogFile, runner.TraceFile} {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.Size() == 0 {
			t.Errorf("%s of the killed run not kept: %v", name, err)
		}
	}
}

// TestE2ERunKeep: a container kept with --keep outlives its session (its
// reaper leaves it), and fsmove gc leaves it too.
func TestE2ERunKeep(t *testing.T) {
	bin, module := fsmoveAndFixture(t, "clean")
	cmd := exec.Command(bin, "run", "--init", "none", "--keep", "--out", filepath.Join(t.TempDir(), "out"), module)
	out, err := cmd.CombinedOutput()
	pid := cmd.ProcessState.Pid()
	defer removeContainersOf(t, pid)
	if err != nil {
		t.Fatalf("fsmove run --keep: %v\n%s", err, out)
	}
	_, name, ok := strings.Cut(string(out), "fsmove: kept container ")
	name, _, _ = strings.Cut(name, " ")
	if !ok || !strings.HasPrefix(name, "fsmove-kept-") {
		t.Fatalf("no kept container named fsmove-kept-… in the output:\n%s", out)
	}
	// The run's cgroup subtree (named by the run, not by the kept name)
	// made older than a sweep's age limit: the sweep of every later run
	// and gc's leave it, as the container is still there. (It took the
	// kept container's subtree for a dead run's, and each later run
	// waited on its busy cgroups: three minutes a run for a kept systemd
	// container.)
	run := "fsmove-" + strings.TrimPrefix(name, "fsmove-kept-")
	subtrees, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", "fsmove", run))
	more, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "fsmove", run))
	subtrees = append(subtrees, more...)
	if len(subtrees) == 0 {
		t.Errorf("no cgroup subtree %s of the kept container", run)
	}
	old := time.Now().Add(-time.Hour)
	for _, dir := range subtrees {
		if err := os.Chtimes(dir, old, old); err != nil {
			t.Fatal(err)
		}
	}
	dry := exec.Command(bin, "gc", "--dry-run")
	if out, err := dry.CombinedOutput(); err != nil || strings.Contains(string(out), run) {
		t.Errorf("fsmove gc --dry-run would remove the kept container's cgroups (%v):\n%s", err, out)
	}
	gc := exec.Command(bin, "gc")
	if out, err := gc.CombinedOutput(); err != nil || strings.Contains(string(out), name) || strings.Contains(string(out), run) {
		t.Errorf("fsmove gc: %v\n%s", err, out)
	}
	for _, dir := range subtrees {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("the kept container's cgroup %s is gone: %v", dir, err)
		}
	}
	time.Sleep(2 * time.Second) // the reaper had the session's end when fsmove exited
	if left := containersOf(t, pid); len(left) != 1 {
		t.Errorf("containers of the run after it ended: %v, want the kept one", left)
	}
}

// TestE2EBenchKilled: fsmove bench killed with SIGKILL while its workers'
// containers run leaves none of them, and --resume then makes the whole
// table.
func TestE2EBenchKilled(t *testing.T) {
	requireDocker(t)
	useBuiltBinary(t)
	bin := os.Getenv("FSMOVE_BINARY")
	modules, err := filepath.Abs(filepath.Join("..", "..", "testdata", "modules"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	corpusFile := filepath.Join(tmp, "corpus.txt")
	if err := os.WriteFile(corpusFile, []byte(modules+"/clean\n"+modules+"/mor_exec_reads_file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	cmd := exec.Command(bin, "bench", "--out", out, "--workers", "2", "--untraced", "--init", "none", corpusFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer removeContainersOf(t, pid)
	for deadline := time.Now().Add(3 * time.Minute); len(containersOf(t, pid)) == 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the bench started no container in 3 minutes")
		}
	}
	time.Sleep(2 * time.Second)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	killed := time.Now()
	if left := waitContainersGone(t, pid, killed); len(left) > 0 {
		t.Fatalf("containers of the killed bench left a minute later: %v", left)
	}
	t.Logf("no container left %.1fs after SIGKILL", time.Since(killed).Seconds())

	resume := exec.Command(bin, "bench", "--out", out, "--workers", "2", "--untraced", "--init", "none", "--resume", "--quiet", corpusFile)
	if stdout, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("bench --resume: %v\n%s", err, stdout)
	}
	data, err := os.ReadFile(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"clean", "mor_exec_reads_file"} {
		if !strings.Contains(string(data), "\n"+m+",") {
			t.Errorf("results.csv after --resume has no row for %s:\n%s", m, data)
		}
	}
}

// child is a started fsmove whose stderr is read as it comes.
type child struct {
	mu     sync.Mutex
	stderr strings.Builder
	done   chan struct{} // stderr ended
}

// startChild starts cmd, reading its stderr into the child.
func startChild(t *testing.T, cmd *exec.Cmd) *child {
	t.Helper()
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			c.mu.Lock()
			c.stderr.WriteString(sc.Text() + "\n")
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *child) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

// waitContainersGone waits until no container of the fsmove process pid
// is left, at most a minute from since, and returns those left then.
func waitContainersGone(t *testing.T, pid int, since time.Time) []string {
	t.Helper()
	for deadline := since.Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
		if left := containersOf(t, pid); len(left) == 0 || time.Now().After(deadline) {
			return left
		}
	}
}

// engineProxy forwards a unix socket (or a TCP port) to the Docker
// engine's, so that a test can cut fsmove from the engine without stopping
// the engine (cut closes every connection and refuses new ones until
// restore), or reach the engine as a remote one. url is DOCKER_HOST's
// value for it.
type engineProxy struct {
	path, engine string
	url          string
	ln           net.Listener
	mu           sync.Mutex
	conns        []net.Conn
	refuse       bool
}

func startEngineProxy(t *testing.T, network string) *engineProxy {
	t.Helper()
	engine := "/var/run/docker.sock"
	if h, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://"); ok {
		engine = h
	}
	p := &engineProxy{path: filepath.Join(t.TempDir(), "engine.sock"), engine: engine}
	if network == "tcp" {
		p.path = "127.0.0.1:0"
	}
	ln, err := net.Listen(network, p.path)
	if err != nil {
		t.Fatal(err)
	}
	p.ln, p.url = ln, "unix://"+p.path
	if network == "tcp" {
		p.url = "tcp://" + ln.Addr().String()
	}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			refuse := p.refuse
			p.mu.Unlock()
			if refuse {
				c.Close()
				continue
			}
			up, err := net.Dial("unix", engine)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *engineProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *engineProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = false
}

// TestE2EEngineGone: the engine's socket closes during the apply. fsmove
// exits 3 with one line that says so, blames nothing else (no warning about
// the image, no shell script), keeps the trace it had, and its container
// is removed by the reaper once the engine answers again.
func TestE2EEngineGone(t *testing.T) {
	bin, module := fsmoveAndFixture(t, "clean")
	proxy := startEngineProxy(t, "unix")
	out := filepath.Join(t.TempDir(), "out")
	hold := "include clean\nexec { 'fsmove-test-hold': command => '/bin/sleep 600', timeout => 0 }"
	cmd := exec.Command(bin, "run", "--init", "none", "-e", hold, "--out", out, module)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+proxy.url)
	child := startChild(t, cmd)
	pid := cmd.Process.Pid
	defer removeContainersOf(t, pid)
	text := child.text
	waitStderr(t, text, "fsmove: apply     puppet apply")
	time.Sleep(3 * time.Second)
	proxy.cut()
	cut := time.Now()
	<-child.done
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != exitRun {
		t.Errorf("exit: %v, want %d; stderr:\n%s", err, exitRun, text())
	}
	t.Logf("fsmove exited %.1fs after the cut; stderr:\n%s", time.Since(cut).Seconds(), text())
	errText := text()
	want := "the Docker engine at " + proxy.url + " went away during the apply step"
	if !strings.Contains(errText, want) {
		t.Errorf("stderr does not say %q:\n%s", want, errText)
	}
	for _, blame := range []string{"/bin/sh -c", "not saved", "no dpkg", "not known", "not copied"} {
		if strings.Contains(errText, blame) {
			t.Errorf("stderr says %q, which follows from the engine going away:\n%s", blame, errText)
		}
	}
	rec, err := runner.ReadRecord(out)
	if err != nil || rec.Error != want || rec.ErrorChain == "" {
		t.Errorf("run.json: %v; error %q, error_chain %q", err, rec.Error, rec.ErrorChain)
	}
	if info, err := os.Stat(filepath.Join(out, runner.CatalogFile)); err != nil || info.Size() == 0 {
		t.Errorf("the catalog compiled before the apply is not kept: %v", err)
	}

	proxy.restore()
	if left := waitContainersGone(t, pid, cut); len(left) > 0 {
		t.Errorf("containers of the cut-off fsmove left a minute later: %v", left)
	}
	t.Logf("no container left %.1fs after the cut", time.Since(cut).Seconds())
}

// TestE2EOutputDiskFull: --out is on a disk that fills during the apply
// (a 2 MiB tmpfs; the trace outgrows it). fsmove exits 3 with one line that
// names the disk, blames nothing else, keeps the catalog, the trace so far
// and run.json, and leaves no container. With --debug it adds the whole
// error chain after that line, and marks the warnings that follow from it.
func TestE2EOutputDiskFull(t *testing.T) {
	bin, module := fsmoveAndFixture(t, "clean")
	for _, debug := range []bool{false, true} {
		t.Run(fmt.Sprintf("debug=%v", debug), func(t *testing.T) {
			testOutputDiskFull(t, bin, module, debug)
		})
	}
}

func testOutputDiskFull(t *testing.T, bin, module string, debug bool) {
	disk := t.TempDir()
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=2m"); err != nil {
		if testenv.Required() {
			t.Fatalf("a small tmpfs for --out: %v (the test needs root)", err)
		}
		t.Skipf("a small tmpfs for --out: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(disk, syscall.MNT_DETACH) })
	out := filepath.Join(disk, "out")
	args := []string{"run", "--init", "none", "--out", out, module}
	if debug {
		args = append(args, "--debug")
	}
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	pid := cmd.ProcessState.Pid()
	defer removeContainersOf(t, pid)
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != exitRun {
		t.Errorf("exit: %v, want %d; stderr:\n%s", err, exitRun, stderr.String())
	}
	want := "fsmove run: the disk holding " + out + " is full"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		for _, blame := range []string{"not saved", "no dpkg", "not known", "not copied"} {
			if strings.Contains(line, blame) && !(debug && strings.HasSuffix(line, "[debug: follows from the failure]")) {
				t.Errorf("stderr says %q, which follows from the full disk:\n%s", blame, stderr.String())
			}
		}
	}
	rec, err := runner.ReadRecord(out)
	if err != nil {
		t.Fatalf("run.json: %v", err)
	}
	if !strings.HasPrefix(rec.Error, strings.TrimPrefix(want, "fsmove run: ")) || !strings.Contains(rec.ErrorChain, "no space left on device") {
		t.Errorf("run.json: error %q, error_chain %q", rec.Error, rec.ErrorChain)
	}
	// The chain, right after the line that says the cause: only with --debug.
	_, after, _ := strings.Cut(stderr.String(), want)
	chain := "\nerror chain: "
	if got := strings.Contains(after, chain) && strings.Contains(after, "no space left on device"); got != debug {
		t.Errorf("--debug %v, and the error chain printed after the cause: %v\n%s", debug, got, stderr.String())
	}
	for _, name := range []string{runner.CatalogFile, runner.TraceFile} {
		if info, err := os.Stat(filepath.Join(out, name)); err != nil || info.Size() == 0 {
			t.Errorf("%s not kept: %v", name, err)
		}
	}
	if left := containersOf(t, pid); len(left) > 0 {
		t.Errorf("containers left: %v", left)
	}
}

// TestE2EConcurrentRunsOneState: three runs of one module at once, with one
// state directory (the default --out place). Each gives the module's
// verdict; none takes another's live staging directory for a dead run's;
// the place ends holding one whole run and nothing is left beside it.
func TestE2EConcurrentRunsOneState(t *testing.T) {
	bin, module := fsmoveAndFixture(t, "mor_exec_reads_file")
	state := t.TempDir()
	const n = 3
	var wg sync.WaitGroup
	codes := make([]int, n)
	outputs := make([]string, n)
	pids := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "run", "--init", "none", "--format", "json", module)
			cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
			out, err := cmd.CombinedOutput()
			outputs[i] = string(out)
			pids[i] = cmd.ProcessState.Pid()
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				codes[i] = exitErr.ExitCode()
			} else if err != nil {
				codes[i] = -1
			}
		}()
	}
	wg.Wait()
	for i := range n {
		defer removeContainersOf(t, pids[i])
		if codes[i] != exitFindings {
			t.Errorf("run %d: exit %d, want %d (its MOR):\n%s", i, codes[i], exitFindings, outputs[i])
		}
		if left := containersOf(t, pids[i]); len(left) > 0 {
			t.Errorf("run %d left containers %v", i, left)
		}
	}
	entries, err := os.ReadDir(filepath.Join(state, "fsmove", "runs"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || !strings.HasPrefix(names[0], "mor_exec_reads_file-") || strings.Contains(names[0], ".") {
		t.Fatalf("the runs directory holds %v, want the module's place only", names)
	}
	rec, err := runner.ReadRecord(filepath.Join(state, "fsmove", "runs", names[0]))
	if err != nil || rec.Status != runner.StatusOK {
		t.Errorf("the place's run.json: %v, %+v", err, rec)
	}
}
