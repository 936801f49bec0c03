package ptrace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmove/fsmove/internal/testenv"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/strace"
)

// needRoot skips a test that attaches to a process it did not start under
// the tracer (PTRACE_SEIZE of a sibling needs CAP_SYS_PTRACE, or Yama's
// ptrace_scope 0).
func needRoot(t *testing.T) {
	t.Helper()
	testenv.Root(t, "attaching to a running process")
}

// startLoop is testenv.StartLoop.
func startLoop(t *testing.T, script string) int { return testenv.StartLoop(t, script) }

// procStatus returns the fields of /proc/PID/status.
func procStatus(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("process %d: %v", pid, err)
	}
	return statusFields(b)
}

// statusFields splits a /proc/PID/status file into its fields.
func statusFields(b []byte) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// activity returns a count that grows while pid runs: its read and write
// calls (/proc/PID/io, which includes its reaped children's) and its
// voluntary context switches.
func activity(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		t.Fatalf("process %d: %v", pid, err)
	}
	var n int64
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && (k == "syscr" || k == "syscw") {
			i, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			n += i
		}
	}
	i, _ := strconv.ParseInt(procStatus(t, pid)["voluntary_ctxt_switches"], 10, 64)
	return n + i
}

// requireReleased checks that pid is alive, untraced, not stopped, and
// still making calls.
func requireReleased(t *testing.T, pid int) {
	t.Helper()
	st := procStatus(t, pid)
	if st["TracerPid"] != "0" {
		t.Errorf("process %d still traced: TracerPid %s", pid, st["TracerPid"])
	}
	if s := st["State"]; strings.HasPrefix(s, "t") || strings.HasPrefix(s, "T") || strings.HasPrefix(s, "Z") || strings.HasPrefix(s, "X") {
		t.Errorf("process %d left %s", pid, s)
	}
	before := activity(t, pid)
	for deadline := time.Now().Add(5 * time.Second); activity(t, pid) == before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("process %d makes no calls in the 5 s after the detach (state %s)", pid, procStatus(t, pid)["State"])
			return
		}
	}
}

// childrenOf returns the pids that pid's successful clone, clone3, fork
// and vfork calls returned, in order.
func childrenOf(evs []tracer.Event, pid int) []int {
	var out []int
	for _, ev := range evs {
		switch ev.Syscall {
		case "clone", "clone3", "fork", "vfork":
			if ev.Pid == pid && !ev.Failed() && ev.Ret > 0 {
				out = append(out, int(ev.Ret))
			}
		}
	}
	return out
}

// TestAttachFollowsRunningProcess: a process that runs before the trace
// (as PID 1 in a container) is followed with the processes it creates, and
// is released untraced when the command ends.
func TestAttachFollowsRunningProcess(t *testing.T) {
	needRoot(t)
	loop, wait := testenv.StartReadLoop(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr, err := Start(ctx, wait, Options{Attach: []int{loop}})
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, tr)
	code, err := tr.Wait()
	if code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	kids := childrenOf(evs, loop)
	isKid := map[int]bool{}
	for _, k := range kids {
		isKid[k] = true
	}
	opened := map[int]bool{}
	for _, ev := range evs {
		if ev.Syscall == "openat" && ev.Arg(1).Str == "/etc/hostname" && !ev.Failed() {
			if !isKid[ev.Pid] {
				t.Errorf("/etc/hostname opened by %d, not a child of the loop %d (children %v)", ev.Pid, loop, kids)
			}
			opened[ev.Pid] = true
		}
	}
	t.Logf("%d events; the loop %d created %v; %d of them opened /etc/hostname", len(evs), loop, kids, len(opened))
	if len(opened) < 2 {
		t.Errorf("%d children of the loop opened /etc/hostname, want at least 2 (children %v)", len(opened), kids)
	}
	// The command's own calls are there too, under its pid: neither the
	// loop's nor a child's of it (the loop's first calls may come first
	// under load, so the first event does not tell).
	var rootExec bool
	for _, ev := range evs {
		if ev.Pid != loop && !isKid[ev.Pid] && ev.Syscall == "execve" && strings.HasSuffix(ev.Arg(0).Str, "/sh") {
			rootExec = true
		}
	}
	if !rootExec {
		t.Errorf("no execve of sh by the command")
	}
	requireReleased(t, loop)
}

// TestAttachWhileForking: a process caught inside fork (its
// PTRACE_EVENT_FORK stop comes before the interrupt's PTRACE_EVENT_STOP,
// and clears it) is attached all the same. Waiting for the interrupt's
// stop hung the attach about once in a hundred rounds, with the process
// running on and its events filling the queue no one read yet.
func TestAttachWhileForking(t *testing.T) {
	needRoot(t)
	loop := startLoop(t, "while :; do /bin/true; done")
	const rounds = 300
	for i := range rounds {
		done := make(chan error, 1)
		go func() {
			tr, err := Start(context.Background(), []string{"true"}, Options{Attach: []int{loop}})
			if err != nil {
				done <- err
				return
			}
			for {
				if _, err := tr.Next(); err != nil {
					break
				}
			}
			_, err = tr.Wait()
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		case <-time.After(time.Minute):
			// A hang, not a slow machine: an attach takes milliseconds.
			// Say where (it happened once under load, stop 65): the
			// loop's processes, their states and tracers, and the
			// tracer's goroutines.
			t.Fatalf("round %d of %d: the attach did not end in a minute\n%s", i, rounds, hangReport(loop))
		}
	}
	requireReleased(t, loop)
}

// hangReport describes a hung attach: pid and the processes whose parent
// it is (State, TracerPid, the call they are in), then every goroutine.
func hangReport(pid int) string {
	var b strings.Builder
	procs, _ := filepath.Glob("/proc/[0-9]*/status")
	for _, f := range procs {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		fields := statusFields(data)
		if fields["Pid"] != strconv.Itoa(pid) && fields["PPid"] != strconv.Itoa(pid) {
			continue
		}
		dir := filepath.Dir(f)
		sc, _ := os.ReadFile(filepath.Join(dir, "syscall"))
		wchan, _ := os.ReadFile(filepath.Join(dir, "wchan"))
		fmt.Fprintf(&b, "pid %s ppid %s state %q tracer %s syscall %q wchan %q\n", fields["Pid"], fields["PPid"],
			fields["State"], fields["TracerPid"], strings.TrimSpace(string(sc)), wchan)
	}
	stack := make([]byte, 1<<20)
	b.Write(stack[:runtime.Stack(stack, true)])
	return b.String()
}

// TestAttachErrors: a pid that cannot be attached fails Start, naming it,
// before the command runs.
func TestAttachErrors(t *testing.T) {
	needRoot(t)
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	gone := done.Process.Pid
	for _, pid := range []int{gone, os.Getpid()} { // gone; EPERM (the tracer's own process)
		ran := filepath.Join(t.TempDir(), "ran")
		_, err := Start(context.Background(), []string{"touch", ran}, Options{Attach: []int{pid}})
		if !errors.Is(err, ErrAttach) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(pid)) {
			t.Errorf("attach %d: err = %v, want ErrAttach naming the pid", pid, err)
		}
		if _, err := os.Stat(ran); err == nil {
			t.Errorf("attach %d failed, but the command ran", pid)
		}
	}
	// A good pid before a bad one is released.
	loop := startLoop(t, "while :; do echo x >/dev/null; sleep 0.01; done")
	if _, err := Start(context.Background(), []string{"true"}, Options{Attach: []int{loop, gone}}); !errors.Is(err, ErrAttach) {
		t.Errorf("attach %d,%d: err = %v, want ErrAttach", loop, gone, err)
	}
	requireReleased(t, loop)
}

// TestAttachDetachAtSyscallEntry: an attached thread stopped at a
// syscall-entry stop when the root exits is detached there, and its call
// then runs. Both ways it can be there: stopped and seen by the loop
// (detached at once), or stopped with the stop not yet waited for (sent
// PTRACE_INTERRUPT, then detached at the syscall-entry stop, which comes
// first; the pending interrupt must not stop it later).
func TestAttachDetachAtSyscallEntry(t *testing.T) {
	needRoot(t)
	for _, seen := range []bool{true, false} {
		t.Run(fmt.Sprintf("seen=%v", seen), func(t *testing.T) {
			loop := startLoop(t, "while :; do echo x >/dev/null; done")
			errc := make(chan error, 1)
			out := make(chan []tracer.Event, 1<<12)
			hold := make(chan struct{})
			defer close(hold)
			go func() {
				// The thread stays locked: it was a tracer (see Tracer.run).
				// It lives on until the checks are done, since its end
				// would detach any tracee left.
				runtime.LockOSThread()
				errc <- detachAtEntry(loop, seen, out)
				<-hold
			}()
			go func() {
				for range out {
				}
			}()
			select {
			case err := <-errc:
				close(out)
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the loop did not end")
			}
			requireReleased(t, loop)
		})
	}
}

// detachAtEntry attaches to pid, brings it to a syscall-entry stop, then
// ends the trace as at the root's exit.
func detachAtEntry(pid int, seen bool, out chan<- []tracer.Event) error {
	l := &loop{opts: Options{DataBytes: 512}, tasks: map[int]*task{}, out: out}
	if err := l.attachAll([]int{pid}); err != nil {
		return err
	}
	tk := l.tasks[pid]
	if tk == nil {
		return fmt.Errorf("%d not attached", pid)
	}
	for atEntry := false; !atEntry; {
		var ws syscall.WaitStatus
		if seen {
			tid, err := syscall.Wait4(pid, &ws, unix.WALL, nil)
			if err != nil || tid != pid {
				return fmt.Errorf("wait4: %v", err)
			}
		} else {
			// Look at the stop without consuming it (WNOWAIT): the loop's
			// wait4 reports it again.
			var si unix.Siginfo
			if err := unix.Waitid(unix.P_PID, pid, &si, unix.WSTOPPED|unix.WNOWAIT|unix.WALL, nil); err != nil {
				return fmt.Errorf("waitid: %v", err)
			}
		}
		var info syscallInfo
		atEntry = getSyscallInfo(pid, &info) && info.Op == syscallInfoEntry
		if atEntry {
			break
		}
		if !seen {
			tid, err := syscall.Wait4(pid, &ws, unix.WALL, nil)
			if err != nil || tid != pid {
				return fmt.Errorf("wait4: %v", err)
			}
		}
		l.stop(pid, ws)
	}
	if seen {
		tk.held = true // stopped by us, not resumed: detached at once
	}
	l.endAll()
	if !seen {
		// The stop the loop sees first is the syscall-entry stop, and the
		// thread is detached there.
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, unix.WALL, nil); err != nil {
			return fmt.Errorf("wait4: %v", err)
		}
		if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP|0x80 {
			return fmt.Errorf("first stop after the interrupt: %#x, want the syscall-entry stop", uint32(ws))
		}
		l.stop(pid, ws)
	}
	if l.tasks[pid] != nil {
		return fmt.Errorf("%d not detached at its syscall-entry stop", pid)
	}
	return l.wait()
}

// wantWrites are the write events of one run of testdata/writes.c, as
// strace.Writer prints them (strace's form, but for writev's iovecs, given
// as one): the short writes to fd 3 with their data, the failed one with
// its arguments from the registers (the buffer's address as PTR), the
// marker; not the writes of more than 32 bytes to fd 3.
var wantWrites = []string{
	`write(3, "57\n", 3) = 3`,
	`writev(3, [{iov_base="58\n", iov_len=3}], 2) = 3`,
	`pwrite64(3, "59\n", 3, 100) = 3`,
	`write(3, "` + strings.Repeat("x", 32) + `", 32) = 32`,
	`write(1, "a block marker longer than thirty-two bytes\n", 44) = 44`,
}

// pointer matches an address as strace.Writer prints it.
var pointer = regexp.MustCompile(`0x[0-9a-f]{9,}`)

// writeLines prints pid's write events as strace.Writer does, without
// the pid.
func writeLines(t *testing.T, evs []tracer.Event, pid int) []string {
	t.Helper()
	var lines []string
	for i := range evs {
		ev := &evs[i]
		if ev.Pid != pid || (ev.Syscall != "write" && ev.Syscall != "writev" && ev.Syscall != "pwrite64") {
			continue
		}
		var b bytes.Buffer
		w := strace.NewWriter(&b)
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		_, line, _ := strings.Cut(strings.TrimSuffix(b.String(), "\n"), " ")
		lines = append(lines, pointer.ReplaceAllString(line, "PTR"))
	}
	return lines
}

// TestShortWrites: writes of at most 32 bytes to any fd are traced with
// their data; longer ones only on fds 1 and 2.
func TestShortWrites(t *testing.T) {
	bin := buildC(t, "writes")
	evs, code := traceNative(t, []string{bin, t.TempDir()})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	got := writeLines(t, evs, evs[0].Pid)
	if strings.Join(got, "\n") != strings.Join(wantWrites, "\n") {
		t.Errorf("writes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantWrites, "\n"))
	}
}

// TestAttachShortWrites: an attached process (no filter, stopped at every
// call) gets the same writes decoded as a filtered one.
func TestAttachShortWrites(t *testing.T) {
	needRoot(t)
	bin := buildC(t, "writes")
	loop := startLoop(t, "while :; do "+bin+" "+t.TempDir()+" >/dev/null; sleep 0.05; done")
	tr, err := Start(context.Background(), []string{"sleep", "0.4"}, Options{Attach: []int{loop}})
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, tr)
	if code, err := tr.Wait(); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	runs := 0
	for _, kid := range childrenOf(evs, loop) {
		got := writeLines(t, evs, kid)
		if len(got) == 0 || got[len(got)-1] != wantWrites[len(wantWrites)-1] {
			continue // not a run of writes, or not a whole one
		}
		runs++
		if strings.Join(got, "\n") != strings.Join(wantWrites, "\n") {
			t.Errorf("writes of attached %d:\n%s\nwant:\n%s", kid, strings.Join(got, "\n"), strings.Join(wantWrites, "\n"))
		}
	}
	t.Logf("%d whole runs of the writes program traced", runs)
	if runs == 0 {
		t.Error("no whole run of the writes program traced")
	}
	requireReleased(t, loop)
}

// TestAttachStoppedProcess: an attached process that is stopped (SIGSTOP)
// stays stopped while traced and after, and runs again on SIGCONT.
func TestAttachStoppedProcess(t *testing.T) {
	needRoot(t)
	loop := startLoop(t, "while :; do echo x >/dev/null; sleep 0.01; done")
	if err := syscall.Kill(loop, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitState(t, loop, "T")
	tr, err := Start(context.Background(), []string{"sleep", "0.3"}, Options{Attach: []int{loop}})
	if err != nil {
		t.Fatal(err)
	}
	// The tracer has taken the group-stop when the process is in a
	// tracing stop (PTRACE_LISTEN): it did not resume it.
	waitState(t, loop, "t")
	collect(t, tr)
	if code, err := tr.Wait(); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	waitState(t, loop, "T")
	if tp := procStatus(t, loop)["TracerPid"]; tp != "0" {
		t.Errorf("still traced: TracerPid %s", tp)
	}
	if err := syscall.Kill(loop, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	requireReleased(t, loop)
}

// waitState waits (up to 5 s) until pid's State starts with prefix.
func waitState(t *testing.T, pid int, prefix string) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st := procStatus(t, pid)["State"]
		if strings.HasPrefix(st, prefix) {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("process %d is %s, want %s", pid, st, prefix)
		}
	}
}
