package main

// End-to-end tests of an interrupted "fsmove run": the fsmove binary runs
// as a child process with a real Docker Engine and a real puppet apply, and
// gets SIGINT (or SIGTERM) at each step, or a --timeout too short for the
// run. Each case checks the exit status (3), run.json (status and
// stopped_step), that no container of the child is left, that a trace
// captured before the signal is kept, and what the child said on stderr.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

// interruptCase is one interrupted run.
type interruptCase struct {
	name string
	// args come before --out and the module (clean, with --init none).
	args []string
	// tracer is --tracer: strace unless set. The apply's cases want
	// strace, whose partial trace is in the container and is copied out
	// after the signal; the cases of the steps after a whole apply take
	// eBPF, whose apply costs CI less than half (they run alone).
	tracer string
	env    []string
	// waitFor is a text of a stderr line; once it appears, the child gets
	// signals after delay (none: a --timeout case).
	waitFor string
	delay   time.Duration
	signals []syscall.Signal
	// out names the output directory, to run a case into the directory of
	// an earlier one ("" a new one).
	out string

	wantStatus string
	wantStep   string
	wantTrace  bool
	// check, when set, checks more once the child has exited.
	check func(t *testing.T, out string, stderr string)
}

// TestE2ERunInterrupted interrupts "fsmove run" at every step, in sequence.
func TestE2ERunInterrupted(t *testing.T) {
	bin, module := fsmoveAndFixture(t, "clean")
	outs := map[string]string{}
	buildTmp := t.TempDir()
	tag := "fsmove-test/interrupt:" + randomHex(t)
	t.Cleanup(func() { exec.Command("docker", "rmi", "-f", tag).Run() })

	cases := []interruptCase{
		{
			name: "image build", args: []string{"--image", tag}, env: []string{"TMPDIR=" + buildTmp},
			waitFor: "fsmove: image     debootstrap", delay: 5 * time.Second, signals: []syscall.Signal{syscall.SIGINT},
			wantStatus: runner.StatusInterrupted, wantStep: "image",
			check: func(t *testing.T, out, stderr string) {
				checkNoBuildLeft(t, buildTmp, tag)
				if !strings.Contains(stderr, "no container had been created") {
					t.Errorf("stderr does not say that no container was created")
				}
			},
		},
		{
			name: "container create", waitFor: "fsmove: container starting", signals: []syscall.Signal{syscall.SIGINT},
			wantStatus: runner.StatusInterrupted, wantStep: "container",
		},
		{
			// systemd boots in well under a second here: the signal
			// goes at once.
			name: "systemd boot", args: []string{"--init", "systemd"},
			waitFor: "fsmove: container waiting for systemd to boot", signals: []syscall.Signal{syscall.SIGINT},
			wantStatus: runner.StatusInterrupted, wantStep: "container",
		},
		{
			name: "module copy", env: []string{"FSMOVE_TEST_HOLD=modules:60s"},
			waitFor: "fsmove: modules   putting", signals: []syscall.Signal{syscall.SIGINT},
			wantStatus: runner.StatusInterrupted, wantStep: "modules",
		},
		{
			name: "setup", args: []string{"--setup", "echo preparing; sleep 60"}, out: "setup",
			waitFor: "fsmove: setup     running", delay: time.Second, signals: []syscall.Signal{syscall.SIGINT},
			wantStatus: runner.StatusInterrupted, wantStep: "setup",
			check: func(t *testing.T, out, stderr string) {
				if data, err := os.ReadFile(filepath.Join(out, runner.SetupLogFile)); err != nil || !strings.Contains(string(data), "preparing") {
					t.Errorf("setup.log: %q, %v", data, err)
				}
			},
		},
		{
			// Into the setup case's directory: --force replaces that run.
			name: "apply, into an earlier run with --force", args: []string{"--force"}, out: "setup",
			waitFor: "fsmove: apply     puppet apply", delay: 3 * time.Second, signals: []syscall.Signal{syscall.SIGINT},
			wantStatus: runner.StatusInterrupted, wantStep: "apply", wantTrace: true,
			check: func(t *testing.T, out, stderr string) {
				if _, err := os.Stat(filepath.Join(out, runner.SetupLogFile)); err == nil {
					t.Error("the earlier run's setup.log is still in --out after --force")
				}
				if !strings.Contains(stderr, "copying out what was captured") {
					t.Error("stderr does not say that the partial trace is being saved")
				}
			},
		},
		{
			name: "apply, SIGTERM", waitFor: "fsmove: apply     puppet apply", delay: 3 * time.Second, signals: []syscall.Signal{syscall.SIGTERM},
			wantStatus: runner.StatusInterrupted, wantStep: "apply", wantTrace: true,
			check: func(t *testing.T, out, stderr string) {
				if !strings.Contains(stderr, "interrupted by SIGTERM during the apply step") {
					t.Error("stderr does not name SIGTERM and the step")
				}
			},
		},
		{
			// A second signal stops the copy of the partial trace at once.
			name: "apply, twice", waitFor: "fsmove: apply     puppet apply", delay: 3 * time.Second,
			signals:    []syscall.Signal{syscall.SIGINT, syscall.SIGINT},
			wantStatus: runner.StatusInterrupted, wantStep: "apply",
		},
		{
			// The copy (held for 3 s, as if the trace were large) goes
			// on after one signal: a complete trace is not thrown away.
			name: "copy", tracer: "ebpf", env: []string{"FSMOVE_TEST_HOLD=copy:3s"},
			waitFor: "fsmove: copy      copying", signals: []syscall.Signal{syscall.SIGINT},
			wantStatus: runner.StatusInterrupted, wantStep: "copy", wantTrace: true,
			check: func(t *testing.T, out, stderr string) {
				rec, _ := runner.ReadRecord(out)
				if rec == nil || rec.PuppetExit == nil || !files.Exists(filepath.Join(out, runner.CatalogFile)) {
					t.Errorf("the copy after a complete apply did not save the catalog and Puppet's status: %+v", rec)
				}
				if !strings.Contains(stderr, "fsmove: copy      done") {
					t.Error("the copy did not finish after one signal")
				}
			},
		},
		{
			// A second signal ends the copy at once.
			name: "copy, twice", tracer: "ebpf", env: []string{"FSMOVE_TEST_HOLD=copy:60s"},
			waitFor: "fsmove: copy      copying", signals: []syscall.Signal{syscall.SIGINT, syscall.SIGINT},
			wantStatus: runner.StatusInterrupted, wantStep: "copy",
			check: func(t *testing.T, out, stderr string) {
				if !strings.Contains(stderr, "fsmove: copy      FAILED") || !strings.Contains(stderr, "interrupted by SIGINT") {
					t.Errorf("the copy was not stopped by the second signal; stderr:\n%s", stderr)
				}
				// What the stopped copy left out follows from the
				// interrupt, which is said: no warning blames the image.
				if strings.Contains(stderr, "not saved") {
					t.Errorf("a warning blames the image for what the interrupt left out:\n%s", stderr)
				}
			},
		},
		{
			name: "analysis", tracer: "ebpf", env: []string{"FSMOVE_TEST_HOLD=analyze:60s"},
			waitFor: "fsmove: analyze   analyzing", signals: []syscall.Signal{syscall.SIGINT},
			wantStatus: runner.StatusInterrupted, wantStep: "analyze", wantTrace: true,
		},
		{
			// The apply step outlasts the timeout whatever the machine's
			// speed: the module's class, then an Exec that waits. The
			// steps before it (the compile among them) take 8-10 s here:
			// the timeout leaves room for a loaded machine.
			name: "timeout", tracer: "ebpf", args: []string{"--timeout", "30s",
				"-e", "include clean\nexec { 'fsmove-test-hold': command => '/bin/sleep 600', timeout => 0 }"},
			wantStatus: runner.StatusTimeout, wantStep: "apply", wantTrace: true,
			check: func(t *testing.T, out, stderr string) {
				if !strings.Contains(stderr, "the run took longer than --timeout 30s during the apply step") {
					t.Error("stderr does not say which step timed out")
				}
			},
		},
	}
	for _, c := range cases {
		// A directory that cases share is the parent test's: a subtest's
		// own is removed when that subtest ends, and the next case would
		// make it again where no cleanup removes it.
		out := outs[c.out]
		if out == "" && c.out != "" {
			out = filepath.Join(t.TempDir(), "out")
			outs[c.out] = out
		}
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if out == "" {
				out = filepath.Join(t.TempDir(), "out")
			}
			testInterrupt(t, bin, module, out, c)
		})
	}
}

func testInterrupt(t *testing.T, bin, module, out string, c interruptCase) {
	tracer := c.tracer
	if tracer == "" {
		tracer = "strace"
	}
	args := append([]string{"run", "--init", "none", "--tracer", tracer, "--trusted", "--format", "json"}, c.args...)
	args = append(args, "--out", out, module)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), c.env...)
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer removeContainersOf(t, pid)

	var mu sync.Mutex
	var stderr strings.Builder
	seen := make(chan struct{})
	var once sync.Once
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderrPipe)
		for sc.Scan() {
			mu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if c.waitFor != "" && strings.Contains(sc.Text(), c.waitFor) {
				once.Do(func() { close(seen) })
			}
		}
	}()
	exited := make(chan error, 1)
	go func() {
		<-read
		exited <- cmd.Wait()
	}()
	text := func() string {
		mu.Lock()
		defer mu.Unlock()
		return stderr.String()
	}

	var signalled time.Time
	var waitErr error
	done := false
	if c.waitFor != "" {
		select {
		case <-seen:
		case waitErr = <-exited:
			t.Fatalf("fsmove exited (%v) before %q; stderr:\n%s", waitErr, c.waitFor, text())
		case <-time.After(3 * time.Minute):
			cmd.Process.Kill()
			t.Fatalf("no %q after 3 minutes; stderr:\n%s", c.waitFor, text())
		}
		if c.delay > 0 {
			select {
			case waitErr = <-exited:
				done = true
				t.Errorf("fsmove exited (%v) before the signal; stderr:\n%s", waitErr, text())
			case <-time.After(c.delay):
			}
		}
		signalled = time.Now()
		for i, sig := range c.signals {
			if i > 0 {
				// A signal sent before fsmove has taken the one before
				// merges into it (in the kernel or in Go's runtime): the
				// next is sent once fsmove says it took the first.
				waitStderr(t, text, "interrupt again to stop now")
			}
			if err := cmd.Process.Signal(sig); err != nil && !done {
				t.Errorf("signal %v: %v", sig, err)
			}
		}
	}
	if !done {
		select {
		case waitErr = <-exited:
		case <-time.After(3 * time.Minute):
			cmd.Process.Kill()
			t.Fatalf("fsmove still running 3 minutes after the signal; stderr:\n%s", text())
		}
	}
	end := time.Now()
	code := -1
	var exitErr *exec.ExitError
	if waitErr == nil {
		code = 0
	} else if errors.As(waitErr, &exitErr) {
		code = exitErr.ExitCode()
	}
	if signalled.IsZero() {
		t.Logf("%s: exit %d after %.1fs", c.name, code, end.Sub(start).Seconds())
	} else {
		t.Logf("%s: exit %d after %.1fs, %.2fs after the signal", c.name, code, end.Sub(start).Seconds(), end.Sub(signalled).Seconds())
	}
	errText := text()
	if code != exitRun {
		t.Errorf("exit %d (%v), want %d; stderr:\n%s", code, waitErr, exitRun, errText)
	}

	rec, err := runner.ReadRecord(out)
	if err != nil {
		t.Fatalf("run.json: %v; stderr:\n%s", err, errText)
	}
	t.Logf("%s: run.json status %q, stopped_step %q, container %q, system_state %q, trace_bytes %d",
		c.name, rec.Status, rec.StoppedStep, rec.Container, rec.SystemState, rec.TraceBytes)
	if rec.Status != c.wantStatus || rec.StoppedStep != c.wantStep {
		t.Errorf("run.json: status %q, stopped_step %q, error %q; want %q in %q; stderr:\n%s",
			rec.Status, rec.StoppedStep, rec.Error, c.wantStatus, c.wantStep, errText)
	}
	if want := "during the " + c.wantStep + " step"; !strings.Contains(errText, want) {
		t.Errorf("stderr does not say %q:\n%s", want, errText)
	}
	if rec.ContainerID != "" {
		if rec.Container != runner.ContainerRemoved || !strings.Contains(errText, "was removed") {
			t.Errorf("run.json: container %q; stderr:\n%s", rec.Container, errText)
		}
	} else if strings.Contains(errText, "was removed") {
		t.Errorf("stderr says a container was removed, but none was created:\n%s", errText)
	}
	if c.wantTrace {
		info, err := os.Stat(filepath.Join(out, runner.TraceFile))
		if err != nil || info.Size() == 0 || rec.TraceBytes != info.Size() {
			t.Errorf("trace kept: %v, run.json trace_bytes %d", err, rec.TraceBytes)
		}
		if !strings.Contains(errText, "what was captured (trace.log") {
			t.Errorf("stderr does not say where the trace is:\n%s", errText)
		}
	}
	if !strings.Contains(errText, "in "+out) {
		t.Errorf("stderr does not name --out:\n%s", errText)
	}
	if left := containersOf(t, pid); len(left) > 0 {
		t.Errorf("containers of the interrupted fsmove (pid %d) left: %v", pid, left)
	}
	if c.check != nil {
		c.check(t, out, errText)
	}
}

// fsmoveAndFixture makes sure of Docker and fsmove's image, builds fsmove
// (useBuiltBinary) and returns it with the absolute path of the fixture
// module name, for tests that run fsmove as a child process.
func fsmoveAndFixture(t *testing.T, name string) (bin, module string) {
	t.Helper()
	requireDocker(t)
	eng, err := container.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.EnsureImage(context.Background(), container.ImageOptions{}); err != nil {
		eng.Close()
		t.Fatalf("image: %v", err)
	}
	eng.Close()
	useBuiltBinary(t)
	module, err = filepath.Abs(filepath.Join("..", "..", "testdata", "modules", name))
	if err != nil {
		t.Fatal(err)
	}
	return os.Getenv("FSMOVE_BINARY"), module
}

// containersOf lists the containers, running or not, that the fsmove
// process pid created (fsmove labels each with its pid).
func containersOf(t *testing.T, pid int) []string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-a", "-q", "--filter", fmt.Sprintf("label=%s=%d", container.PidLabel, pid),
		"--filter", "label="+container.LabelKey+"="+container.LabelValue).Output() // not its reaper
	if err != nil {
		t.Fatalf("docker ps: %v", err)
	}
	return strings.Fields(string(out))
}

func removeContainersOf(t *testing.T, pid int) {
	for _, id := range containersOf(t, pid) {
		exec.Command("docker", "rm", "-f", id).Run()
	}
}

// checkNoBuildLeft checks that an interrupted image build left nothing: no
// rootfs directory in its TMPDIR, nothing mounted there, no process
// (debootstrap, wget, dpkg, chroot) working there, and no image.
func checkNoBuildLeft(t *testing.T, tmp, tag string) {
	t.Helper()
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		t.Errorf("left in TMPDIR: %s", e.Name())
	}
	if info, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		if m := container.MountsUnder(string(info), tmp); len(m) > 0 {
			t.Errorf("still mounted: %v", m)
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), tmp) {
			t.Errorf("process still working in the build directory: %s", strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
	if err := exec.Command("docker", "image", "inspect", tag).Run(); err == nil {
		t.Errorf("image %s exists after an interrupted build", tag)
	}
}

func randomHex(t *testing.T) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// waitStderr waits (up to 3 minutes) until the stderr read so far, which
// text returns, holds want.
func waitStderr(t *testing.T, text func() string, want string) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); !strings.Contains(text(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q after 3 minutes; stderr:\n%s", want, text())
		}
	}
}
