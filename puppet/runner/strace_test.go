package runner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsmove/fsmove/internal/testenv"
	"github.com/fsmove/fsmove/tracer/linux"
)

// TestTraceFilterCoversTable: the filter lists every call of
// linux.Syscalls once, and nothing else; calls newer than the generated
// kernel list are optional ("?").
func TestTraceFilterCoversTable(t *testing.T) {
	listed := map[string]bool{}
	for _, name := range strings.Split(TraceFilter(), ",") {
		optional := strings.HasPrefix(name, "?")
		name = strings.TrimPrefix(name, "?")
		if listed[name] {
			t.Errorf("%s listed twice", name)
		}
		listed[name] = true
		row := linux.Lookup(name)
		if row == nil {
			t.Errorf("%s is not in linux.Syscalls", name)
			continue
		}
		newer := true
		for _, k := range linux.KernelSyscalls {
			if k.Name == name {
				newer = false
			}
		}
		if optional != newer {
			t.Errorf("%s: optional %v, newer than the headers %v", name, optional, newer)
		}
	}
	for _, s := range linux.Syscalls {
		if !listed[s.Name] {
			t.Errorf("trace filter lacks %s", s.Name)
		}
	}
	// Bulk calls that the lowering ignores stay out.
	for _, name := range []string{"read", "mmap", "poll", "futex", "lseek"} {
		if listed[name] {
			t.Errorf("trace filter has %s", name)
		}
	}
}

// TestTraceFilterAcceptedByStrace: the installed strace takes the list.
func TestTraceFilterAcceptedByStrace(t *testing.T) {
	testenv.LookPath(t, "strace")
	out, err := exec.Command("strace", "-f", "-o", os.DevNull, "-e", "trace="+TraceFilter(), "true").CombinedOutput()
	if err != nil {
		t.Fatalf("strace refuses the filter: %v: %s", err, out)
	}
}

func TestApplyCommand(t *testing.T) {
	cmd := ApplyCommand(true, false, PuppetApplyArgs([]string{"/fsmove/modules", "/usr/share/puppet/modules"}))
	joined := strings.Join(cmd, " ")
	for _, want := range []string{
		"/bin/sh /fsmove/apply/apply.sh -f -s 300 -o /fsmove/apply/trace.log --seccomp-bpf -e trace=open,",
		" -- --debug --evaltrace --detailed-exitcodes --graph --graphdir /fsmove/apply/graphs --catalog_cache_terminus json",
		"--modulepath /fsmove/modules:/usr/share/puppet/modules /fsmove/site.pp",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("command %q lacks %q", joined, want)
		}
	}
	if strings.Contains(strings.Join(ApplyCommand(false, false, PuppetApplyArgs(nil)), " "), "--seccomp-bpf") {
		t.Error("--seccomp-bpf given although not asked for")
	}
	if !strings.Contains(strings.Join(ApplyCommand(true, true, PuppetApplyArgs(nil)), " "), " --seccomp-bpf -p 1 -e ") {
		t.Error("systemd mode does not follow PID 1")
	}
}

func TestPuppetOutcome(t *testing.T) {
	for exit, want := range map[int]string{0: "no-changes", 2: "changes", 4: "failures", 6: "changes-and-failures", 1: "failed", 3: "unknown"} {
		if got := PuppetOutcome(exit); got != want {
			t.Errorf("PuppetOutcome(%d) = %s, want %s", exit, got, want)
		}
	}
	if !PuppetSucceeded(2) || PuppetSucceeded(4) || PuppetSucceeded(1) {
		t.Error("PuppetSucceeded wrong")
	}
}

// TestApplyScriptReleasesDaemon runs apply.sh on this machine with a fake
// "puppet" that starts a daemon and exits 2: the script must return soon
// after the fake Puppet exits, with its status, while the daemon (followed
// by strace -f) is still alive.
func TestApplyScriptReleasesDaemon(t *testing.T) {
	testenv.LookPath(t, "strace")
	work := t.TempDir()
	bin := filepath.Join(work, "bin")
	os.Mkdir(bin, 0o755)
	fakePuppet := "#!/bin/sh\n" +
		"sleep 300 </dev/null >/dev/null 2>&1 &\n" +
		"echo $! > " + filepath.Join(work, "daemon.pid") + "\n" +
		"printf 'Info: fake puppet %s\\n' \"$*\"\n" +
		"exit 2\n"
	if err := os.WriteFile(filepath.Join(bin, "puppet"), []byte(fakePuppet), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(work, "apply.sh")
	if err := os.WriteFile(script, applySh, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", script, "-f", "-o", filepath.Join(work, "trace.log"), "--", "--debug", "site.pp")
	cmd.Env = append(os.Environ(), "FSMOVE_WORKDIR="+work, "PATH="+bin+":"+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	defer killDaemon(t, filepath.Join(work, "daemon.pid"))
	select {
	case err := <-done:
		if cmd.ProcessState.ExitCode() == 125 {
			testenv.Missing(t, "strace cannot trace here: %s", out.String())
		}
		if err != nil {
			t.Fatalf("apply.sh: %v\n%s", err, out.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("apply.sh still waits 60 s after the fake Puppet exited: the daemon kept strace alive\n%s", out.String())
	}
	exitText, err := os.ReadFile(filepath.Join(work, "puppet.exit"))
	if err != nil || strings.TrimSpace(string(exitText)) != "2" {
		t.Errorf("puppet.exit = %q (%v), want 2", exitText, err)
	}
	log, _ := os.ReadFile(filepath.Join(work, "puppet.log"))
	if !strings.Contains(string(log), "Info: fake puppet apply --debug site.pp") {
		t.Errorf("puppet.log = %q, want the fake Puppet's output with its arguments", log)
	}
	trace, _ := os.ReadFile(filepath.Join(work, "trace.log"))
	if !strings.Contains(string(trace), "execve(\"/bin/sh\"") || !strings.Contains(string(trace), "+++ exited with 2 +++") {
		t.Errorf("trace lacks the traced shell or Puppet's exit:\n%.2000s", trace)
	}
	if strings.Contains(out.String(), "Terminated") {
		t.Errorf("apply.sh printed the shell's Terminated notice: %q", out.String())
	}
	// The daemon must still be running: it was released, not killed.
	pidText, err := os.ReadFile(filepath.Join(work, "daemon.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		t.Errorf("daemon %d is not running after the apply", pid)
	}
}

func killDaemon(t *testing.T, pidFile string) {
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// fakeStrace stands for strace -I2 OPTIONS -o FILE ... -- PROGRAM ARGS...:
// like the real one, it reaps the program first and writes its "+++
// exited" line a moment later, and it ends at once on SIGTERM.
const fakeStrace = `#!/bin/sh
out=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	[ "$1" = "-o" ] && out=$2
	shift
done
shift
trap 'exit 0' TERM
"$@" &
child=$!
wait "$child"
status=$?
sleep 0.5 & wait $!
echo "$child +++ exited with $status +++" >>"$out"
`

// runApplyScript runs apply.sh in work with the fake programs (by name)
// first on PATH, to its end.
func runApplyScript(t *testing.T, work string, fakes map[string]string) {
	t.Helper()
	bin := filepath.Join(work, "bin")
	os.Mkdir(bin, 0o755)
	for name, text := range fakes {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(work, "apply.sh")
	if err := os.WriteFile(script, applySh, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", script, "-f", "-o", filepath.Join(work, "trace.log"), "--", "site.pp")
	cmd.Env = append(os.Environ(), "FSMOVE_WORKDIR="+work, "PATH="+bin+":"+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("apply.sh: %v\n%s", err, out)
	}
}

// TestApplyScriptWaitsForPuppetsExitLine runs apply.sh with a fake strace
// that, like the real one, reaps Puppet first and writes its "+++ exited"
// line a moment later, and that ends at once on SIGTERM: the script must
// wait for the line before it stops the tracer, or Puppet's status is lost
// (seen as "unknown" on a loaded machine).
func TestApplyScriptWaitsForPuppetsExitLine(t *testing.T) {
	work := t.TempDir()
	fakePuppet := "#!/bin/sh\nexit 2\n"
	runApplyScript(t, work, map[string]string{"puppet": fakePuppet, "strace": fakeStrace})
	exitText, err := os.ReadFile(filepath.Join(work, "puppet.exit"))
	if err != nil || strings.TrimSpace(string(exitText)) != "2" {
		t.Errorf("puppet.exit = %q (%v), want 2: the tracer was stopped before it wrote Puppet's exit", exitText, err)
	}
}

// TestApplyScriptForksNothingWhilePuppetRuns runs apply.sh with a fake
// strace and a fake Puppet that runs for two seconds, with a sleep on PATH
// that logs each start: the script must start no sleep (no process at
// all) while Puppet runs, since a module that forks up to the container's
// task limit would make that fork fail and the shell exit ("Cannot fork":
// the hostile fixture's pids attack under a CPU hog on every core).
func TestApplyScriptForksNothingWhilePuppetRuns(t *testing.T) {
	work := t.TempDir()
	events := filepath.Join(work, "events")
	realSleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	// The pid file's wait (sleep 0.05) ends a second before Puppet says it
	// started: no sleep of that loop is taken for one during Puppet.
	fakePuppet := "#!/bin/sh\n" + realSleep + " 1\necho puppet-start >>" + events + "\n" +
		realSleep + " 2\necho puppet-end >>" + events + "\nexit 2\n"
	fakeSleep := "#!/bin/sh\necho sleep >>" + events + "\nexec " + realSleep + " \"$@\"\n"
	runApplyScript(t, work, map[string]string{"puppet": fakePuppet, "strace": fakeStrace, "sleep": fakeSleep})
	log, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	_, during, ok := strings.Cut(string(log), "puppet-start\n")
	during, _, ok2 := strings.Cut(during, "puppet-end\n")
	if !ok || !ok2 {
		t.Fatalf("the fake Puppet did not run: %q", log)
	}
	if n := strings.Count(during, "sleep"); n > 0 {
		t.Errorf("apply.sh started %d sleeps while Puppet ran:\n%s", n, log)
	}
	if exitText, err := os.ReadFile(filepath.Join(work, "puppet.exit")); err != nil || strings.TrimSpace(string(exitText)) != "2" {
		t.Errorf("puppet.exit = %q (%v), want 2", exitText, err)
	}
}
