package ptrace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/sys/unix"

	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
	"github.com/fsmove/fsmove/internal/testenv"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
	"github.com/fsmove/fsmove/tracer/strace"
)

// TestTableMatchesLowering: the table has exactly the rows of
// linux.Syscalls, the filter stops each of them, and every argument the
// lowering reads is decoded.
func TestTableMatchesLowering(t *testing.T) {
	if len(callTable) != len(linux.Syscalls) {
		t.Errorf("%d rows, linux.Syscalls has %d", len(callTable), len(linux.Syscalls))
	}
	inTable := map[string]*callRow{}
	for i := range callTable {
		row := &callTable[i]
		if inTable[row.name] != nil {
			t.Errorf("%s: two rows", row.name)
		}
		inTable[row.name] = row
		if lookupCall(uint64(row.nr)) != row {
			t.Errorf("%s: not indexed by number", row.name)
		}
		used := fstrace.ArgsUsed(row.name)
		if row.names == nil && len(row.args) > 0 {
			for i := 0; i < 64; i++ {
				if used&(1<<i) != 0 && i >= len(row.args) {
					t.Errorf("%s: fstrace reads argument %d, the row has %d", row.name, i, len(row.args))
				}
			}
		}
	}
	for _, s := range linux.Syscalls {
		if inTable[s.Name] == nil {
			t.Errorf("%s: in linux.Syscalls but not stopped", s.Name)
		}
	}
	p := filterPolicy(false)
	if _, err := p.Assemble(); err != nil {
		t.Fatalf("filter: %v", err)
	}
	stopped := map[string]bool{}
	for _, g := range p.Syscalls {
		for _, n := range g.Names {
			stopped[n] = true
		}
		for _, nc := range g.NamesWithCondtions {
			stopped[nc.Name] = true
		}
	}
	for name := range inTable {
		if _, known := arch.X86_64.SyscallNames[name]; known && !stopped[name] {
			t.Errorf("%s: not in the filter", name)
		}
	}
	for _, name := range []string{"exit_group", "readlink", "unshare", "write"} {
		if !stopped[name] {
			t.Errorf("%s: not in the filter", name)
		}
	}
}

// TestFilterStopsMarkerFdsAndShortWrites: the writes are stopped for fds 1
// and 2, and for a length (writev: an iovec count) of at most 32.
func TestFilterStopsMarkerFdsAndShortWrites(t *testing.T) {
	p := filterPolicy(false)
	markers := 0
	for _, row := range callTable {
		if !row.marker {
			continue
		}
		markers++
		call := row.name
		var fds, short int
		for _, g := range p.Syscalls {
			for _, nc := range g.NamesWithCondtions {
				if nc.Name != call {
					continue
				}
				c := nc.Conditions
				switch {
				case len(c) == 1 && c[0].Argument == 0 && c[0].Operation == seccomp.Equal && (c[0].Value == 1 || c[0].Value == 2):
					fds++
				case len(c) == 1 && c[0].Argument == 2 && c[0].Operation == seccomp.LessOrEqual && c[0].Value == linux.ShortWrite:
					short++
				default:
					t.Errorf("%s condition %+v", call, c)
				}
			}
			for _, name := range g.Names {
				if name == call {
					t.Errorf("%s is stopped unconditionally", call)
				}
			}
		}
		if fds != 2 || short != 1 {
			t.Errorf("%s: %d fd conditions (want 2: fd 1, fd 2), %d length conditions (want 1)", call, fds, short)
		}
	}
	if markers != 3 {
		t.Errorf("%d marker calls, want write, writev and pwrite64", markers)
	}
}

// collect reads all events of a source, copied.
func collect(t *testing.T, src tracer.Source) []tracer.Event {
	t.Helper()
	var out []tracer.Event
	for {
		ev, err := src.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		c := *ev
		c.Args = append([]tracer.Arg(nil), ev.Args...)
		out = append(out, c)
	}
}

func traceNative(t *testing.T, argv []string) ([]tracer.Event, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr, err := Start(ctx, argv, Options{Stdout: devNull(t)})
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, tr)
	code, err := tr.Wait()
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return evs, code
}

func traceStrace(t *testing.T, argv []string) []tracer.Event {
	t.Helper()
	testenv.LookPath(t, "strace")
	out := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command("strace", append([]string{"-f", "-s", "512", "-o", out, "--"}, argv...)...)
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		t.Fatalf("strace: %v", err)
	}
	r, err := strace.Open(out, strace.Options{Want: fstrace.Wanted})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return collect(t, r)
}

func devNull(t *testing.T) *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// accesses lowers and interprets events inside one block opened by the
// first process, and returns "path effects" lines with dir replaced by $D.
func accesses(t *testing.T, evs []tracer.Event, dir string) ([]string, interp.Stats) {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	low := fstrace.NewLowerer(nil)
	in := interp.New(interp.Options{})
	in.Step(&fstrace.Statement{Op: fstrace.OpBegin, Pid: int32(evs[0].Pid), Block: "all"})
	var stmts []fstrace.Statement
	for i := range evs {
		stmts = low.Lower(&evs[i], stmts[:0])
		in.Run(stmts)
	}
	res := in.Result()
	var lines []string
	for _, pa := range res.Paths {
		for _, a := range pa.Accesses {
			eff := ""
			for _, e := range []struct {
				on bool
				s  string
			}{{a.Produced, "P"}, {a.Consumed, "C"}, {a.Expunged, "E"}, {a.Missing, "M"}} {
				if e.on {
					eff += e.s
				}
			}
			lines = append(lines, strings.ReplaceAll(pa.Path, dir, "$D")+" "+eff)
		}
	}
	sort.Strings(lines)
	return lines, res.Stats
}

// compareWithStrace runs argv (with {} replaced by a fresh directory)
// under both tracers and requires the same (path, effects) set.
func compareWithStrace(t *testing.T, argv []string, mustSee ...string) {
	subst := func(dir string) []string {
		out := make([]string, len(argv))
		for i, a := range argv {
			out[i] = strings.ReplaceAll(a, "{}", dir)
		}
		return out
	}
	d1, d2 := t.TempDir(), t.TempDir()
	native, _ := traceNative(t, subst(d1))
	viaStrace := traceStrace(t, subst(d2))
	got, st := accesses(t, native, d1)
	want, _ := accesses(t, viaStrace, d2)
	if st.UnknownPids != 0 {
		t.Errorf("%d statements from processes not created before them", st.UnknownPids)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ptrace and strace differ:\n%s", diffLines(got, want))
	}
	all := "\n" + strings.Join(got, "\n") + "\n"
	for _, s := range mustSee {
		if !strings.Contains(all, "\n"+s+"\n") {
			t.Errorf("missing access %q in\n%s", s, strings.Join(got, "\n"))
		}
	}
}

func diffLines(got, want []string) string {
	g, w := map[string]bool{}, map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	for _, s := range want {
		w[s] = true
	}
	var b bytes.Buffer
	for _, s := range got {
		if !w[s] {
			fmt.Fprintf(&b, "only ptrace: %s\n", s)
		}
	}
	for _, s := range want {
		if !g[s] {
			fmt.Fprintf(&b, "only strace: %s\n", s)
		}
	}
	return b.String()
}

func TestShellMatchesStrace(t *testing.T) {
	compareWithStrace(t, []string{"sh", "-c",
		// The background sleep starts well before the root exits: what runs
		// after the root's exit is not traced by design (TestDaemonIsReleased).
		"cat /etc/hostname > {}/x; mv {}/x {}/y; mkdir {}/d; ln -s ../y {}/d/l; cat {}/d/l >/dev/null; " +
			"echo t > {}/tmp; rm {}/tmp; cat {}/nope/x 2>/dev/null; (sleep 0.2 &) ; sleep 0.4; exit 0"},
		"$D/y PC", "$D/d PC", "$D/d/l P", "/etc/hostname C", "/usr/bin/sleep C", "$D/nope/x M")
}

// buildC compiles testdata/NAME.c into a temporary directory and returns
// the program's path (testenv.LookPath decides when there is no cc).
func buildC(tb testing.TB, name string) string {
	tb.Helper()
	cc := testenv.LookPath(tb, "cc")
	bin := filepath.Join(tb.TempDir(), name)
	if out, err := exec.Command(cc, "-O1", "-pthread", "-o", bin, "testdata/"+name+".c").CombinedOutput(); err != nil {
		tb.Fatalf("cc: %v\n%s", err, out)
	}
	return bin
}

func TestProcessesMatchStrace(t *testing.T) {
	bin := buildC(t, "procs")
	compareWithStrace(t, []string{bin, "{}"},
		"$D/thread-made P", "$D/dir/moved P", "$D/exec-read PC", "$D/link P", "$D/dir/via-link P", "$D/cloexec P")
}

// TestProcessEvents checks the shape of the events fstrace relies on.
func TestProcessEvents(t *testing.T) {
	bin := buildC(t, "procs")
	evs, code := traceNative(t, []string{bin, t.TempDir()})
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	seen := map[string]int{}
	created := map[int]bool{evs[0].Pid: true}
	for _, ev := range evs {
		if ev.Kind == tracer.KindSyscall {
			seen[ev.Syscall]++
		}
		if ev.Kind != tracer.KindExit && !created[ev.Pid] {
			t.Errorf("event of pid %d before its creation: %+v", ev.Pid, ev)
		}
		switch ev.Syscall {
		case "clone3":
			if ev.Failed() {
				continue
			}
			if a := ev.Arg(0); a.Kind != tracer.ArgStruct || a.Int&0x10000 == 0 {
				t.Errorf("clone3 of a thread: flags %+v lack CLONE_THREAD", a)
			}
			created[int(ev.Ret)] = true
		case "clone", "fork", "vfork":
			if !ev.Failed() {
				created[int(ev.Ret)] = true
			}
			if ev.Syscall == "clone" {
				if _, ok := ev.NamedArg("flags"); !ok {
					t.Errorf("clone without flags=: %+v", ev)
				}
			}
		case "pipe2":
			if a := ev.Arg(0); a.Kind != tracer.ArgArray || len(a.Ints) != 2 {
				t.Errorf("pipe2 fds %+v", a)
			}
		case "getcwd":
			if a := ev.Arg(0); a.Kind != tracer.ArgStr || !strings.HasPrefix(a.Str, "/") {
				t.Errorf("getcwd path %+v", a)
			}
		case "write":
			if a := ev.Arg(1); ev.Arg(0).Int == 1 && !strings.HasPrefix(a.Str, "done in /") {
				t.Errorf("write data %+v", a)
			}
			if fd := ev.Arg(0).Int; fd != 1 && fd != 2 && (ev.Arg(2).Int > linux.ShortWrite || ev.Arg(1).Str != "t") {
				t.Errorf("write to fd %d of %d bytes (%+v) was stopped", fd, ev.Arg(2).Int, ev.Arg(1))
			}
		}
	}
	for _, name := range []string{"execve", "clone3", "dup2", "pipe2", "getcwd", "write", "rename", "symlink", "mkdir"} {
		if seen[name] == 0 {
			t.Errorf("no %s event (seen %v)", name, seen)
		}
	}
	if seen["vfork"]+seen["clone"]+seen["fork"] < 2 {
		t.Errorf("fork and vfork not both seen: %v", seen)
	}
}

// TestDaemonIsReleased: a process left running by the root does not keep
// the trace open, and is left running, untraced and not stopped.
func TestDaemonIsReleased(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	_, code := traceNative(t, []string{"sh", "-c", "sleep 30 & echo $! > " + pidFile + "; exit 4"})
	if code != 4 {
		t.Errorf("exit code %d, want 4", code)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	defer syscallKill(pid)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("trace ended after %v: it waited for the daemon", d)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("daemon %d is gone: %v", pid, err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		switch {
		case strings.HasPrefix(line, "TracerPid:") && strings.TrimSpace(line[len("TracerPid:"):]) != "0":
			t.Errorf("daemon still traced: %s", line)
		case strings.HasPrefix(line, "State:") && (strings.Contains(line, "stopped") || strings.Contains(line, "tracing stop")):
			t.Errorf("daemon left stopped: %s", line)
		}
	}
}

func TestCancelKillsRoot(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	tr, err := Start(ctx, []string{"sleep", "30"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, cancel)
	for {
		if _, err := tr.Next(); err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Next after cancel: %v, want context.Canceled", err)
			}
			break
		}
	}
	code, _ := tr.Wait()
	if code != 128+9 {
		t.Errorf("exit code %d, want 137", code)
	}
}

func TestMissingCommand(t *testing.T) {
	_, err := Start(context.Background(), []string{"/nonexistent/cmd"}, Options{})
	if !errors.Is(err, ErrNoTracee) {
		t.Errorf("err = %v, want ErrNoTracee", err)
	}
}

// TestSavedTraceReadsBack: the native events written by strace.Writer and
// read again give the same accesses.
func TestSavedTraceReadsBack(t *testing.T) {
	dir := t.TempDir()
	evs, _ := traceNative(t, []string{"sh", "-c", "echo a > " + dir + "/f; mv " + dir + "/f " + dir + "/g; cat " + dir + "/g"})
	var buf bytes.Buffer
	w := strace.NewWriter(&buf)
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	back := collect(t, strace.NewReader(&buf, strace.Options{Strict: true}))
	a, _ := accesses(t, evs, dir)
	b, _ := accesses(t, back, dir)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("saved trace differs:\n%s", diffLines(a, b))
	}
	if len(a) == 0 {
		t.Error("no accesses")
	}
}

func syscallKill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// TestNoNewPrivs: the filter is loaded without no-new-privs when the
// tracer may (root with CAP_SYS_ADMIN, as here), so setuid programs keep
// working; Options.NoNewPrivs forces it.
func TestNoNewPrivs(t *testing.T) {
	testenv.Root(t, "loading a filter without no-new-privs (CAP_SYS_ADMIN)")
	for _, force := range []bool{false, true} {
		want := "0"
		if force {
			want = "1"
		}
		if got := tracedStatus(t, "NoNewPrivs", Options{NoNewPrivs: force}); got != want {
			t.Errorf("NoNewPrivs=%v: the command saw NoNewPrivs %q, want %s", force, got, want)
		}
	}
}

// tracedStatus traces a shell whose child greps the field of its own
// /proc/self/status, and returns the field's value.
func tracedStatus(t *testing.T, field string, opts Options) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "status")
	tr, err := Start(context.Background(), []string{"sh", "-c", "sh -c 'grep " + field + ": /proc/self/status' > " + out}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := tr.Wait(); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(strings.TrimPrefix(string(b), field+":"))
}

// TestCommandOnTracersCPU: the traced command runs on one CPU, the
// tracer's (pinToThisCPU), and its children inherit that.
func TestCommandOnTracersCPU(t *testing.T) {
	testenv.Root(t, "ptrace")
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil || all.Count() < 2 {
		t.Skipf("needs two CPUs to tell a pinned command (affinity %v, %v)", all.Count(), err)
	}
	list := tracedStatus(t, "Cpus_allowed_list", Options{})
	if cpu, err := strconv.Atoi(list); err != nil || !all.IsSet(cpu) {
		t.Errorf("the command's child may run on CPUs %q, want one of the tracer's", list)
	}
	// --all-cpus: the command keeps the tracer's whole mask.
	if list := tracedStatus(t, "Cpus_allowed_list", Options{AllCPUs: true}); strings.Count(list, ",")+strings.Count(list, "-") == 0 {
		t.Errorf("AllCPUs: the command's child may run on CPUs %q only, want all %d", list, all.Count())
	}
}

// TestThreadExec: a non-leader thread's execve continues under the
// leader's pid; the new program's calls are attributed to it.
func TestThreadExec(t *testing.T) {
	bin := buildC(t, "threadexec")
	compareWithStrace(t, []string{bin, "/etc/hostname"}, "/etc/hostname C", "/bin/cat C")
	evs, code := traceNative(t, []string{bin, "/etc/hostname"})
	if code != 0 {
		t.Errorf("exit code %d, want cat's 0", code)
	}
	root := evs[0].Pid
	var execBy, readBy int
	for _, ev := range evs {
		if ev.Syscall == "execve" && !ev.Failed() && strings.HasSuffix(ev.Arg(0).Str, "/cat") {
			execBy = ev.Pid
		}
		if ev.Syscall == "openat" && ev.Arg(1).Str == "/etc/hostname" {
			readBy = ev.Pid
		}
	}
	if execBy != root || readBy != root {
		t.Errorf("execve by %d, open by %d: want both under the leader %d", execBy, readBy, root)
	}
}

// TestPredictedReadlinks: readlinks the tracer sees fail are not stopped
// twice, and emitted only when they are failed lookups (ENOENT, with their
// path); successful ones, and those naming the tracee's own /proc entries,
// are stopped and emitted. Without prediction the same are emitted; with
// tracer.FailedAll every failed one is, with its path, and none is
// predicted.
func TestPredictedReadlinks(t *testing.T) {
	bin := buildC(t, "readlinks")
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/etc/hostname", link); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		opts      Options
		predicted int64
		failed    int
	}{
		{Options{}, 101, 100},
		{Options{NoPredict: true}, 0, 100},
		{Options{Failed: tracer.FailedAll}, 0, 101},
	} {
		tr, err := Start(context.Background(), []string{bin, link}, m.opts)
		if err != nil {
			t.Fatal(err)
		}
		evs := collect(t, tr)
		if code, err := tr.Wait(); code != 0 || err != nil {
			t.Fatalf("exit %d, %v", code, err)
		}
		ok := map[string]bool{}
		failed, missing, invalid := 0, 0, 0
		for _, ev := range evs {
			if ev.Syscall != "readlink" {
				continue
			}
			switch {
			case ev.Errno == "ENOENT" && ev.Arg(0).Str == "/nonexistent/x":
				missing++
				failed++
			case ev.Errno == "EINVAL" && ev.Arg(0).Str == "/etc/hostname":
				invalid++
				failed++
			case ev.Failed():
				t.Errorf("%+v: a failed readlink without its path: %+v", m.opts, ev)
			default:
				ok[ev.Arg(0).Str] = true
			}
		}
		if missing != 100 {
			t.Errorf("%+v: %d ENOENT readlinks emitted with their path, want 100", m.opts, missing)
		}
		for _, p := range []string{link, "/proc/self/exe", "/proc/self/fd/50"} {
			if !ok[p] {
				t.Errorf("%+v: no successful readlink of %s", m.opts, p)
			}
		}
		if st := tr.Stats(); st.Predicted != m.predicted || failed != m.failed {
			t.Errorf("%+v: predicted %d, emitted %d failed readlinks (%d EINVAL); want %d and %d",
				m.opts, st.Predicted, failed, invalid, m.predicted, m.failed)
		}
	}
}

// TestOtherChildrenNotReaped: a process the program starts during a trace
// (from another goroutine) is not waited for by the tracer.
func TestOtherChildrenNotReaped(t *testing.T) {
	tr, err := Start(context.Background(), []string{"sh", "-c", "sleep 0.5"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		for i := 0; i < 10; i++ {
			if err := exec.Command("true").Run(); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	collect(t, tr)
	if err := <-done; err != nil {
		t.Errorf("a child of the test process failed: %v", err)
	}
	if code, err := tr.Wait(); code != 0 || err != nil {
		t.Errorf("exit %d, %v", code, err)
	}
}

// TestRealpathStoppedInProgramsOnly: the realpath lookups of the command's
// own process (glibc's readlink with a 1023-byte buffer: Ruby's require),
// whatever program it executes, run unstopped, and every program another
// process runs, started by fork or by vfork, gets the full filter
// before it executes: its realpath of a link is recorded, and it runs as
// it would untraced. With NoPredict every readlink is stopped.
func TestRealpathStoppedInProgramsOnly(t *testing.T) {
	realpath := testenv.LookPath(t, "realpath")
	vforkExec := buildC(t, "vfork_exec")
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		argv      []string
		noPredict bool
		recorded  bool  // the readlink of link is in the trace
		strict    int64 // programs given the full filter
	}{
		{"the command itself", []string{realpath, link}, false, false, 0},
		{"the command itself, NoPredict", []string{realpath, link}, true, true, 0},
		// fsmove run's apply is a shell that executes Puppet in its place.
		{"the program the command executes", []string{"sh", "-c", "exec " + realpath + " " + link}, false, false, 0},
		{"a forked program", []string{"sh", "-c", realpath + " " + link + "; exit $?"}, false, true, 1},
		{"a vforked program", []string{vforkExec, realpath, link}, false, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			stdout, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			defer stdout.Close()
			tr, err := Start(context.Background(), c.argv, Options{NoPredict: c.noPredict, Stdout: stdout})
			if err != nil {
				t.Fatal(err)
			}
			evs := collect(t, tr)
			if code, err := tr.Wait(); code != 0 || err != nil {
				t.Fatalf("exit %d, %v", code, err)
			}
			if b, _ := os.ReadFile(out); string(b) != target+"\n" {
				t.Errorf("realpath printed %q, want %q", b, target+"\n")
			}
			recorded := false
			for _, ev := range evs {
				if ev.Syscall == "readlink" && ev.Arg(0).Str == link && !ev.Failed() {
					recorded = true
				}
			}
			if recorded != c.recorded {
				t.Errorf("readlink of the link recorded: %v, want %v", recorded, c.recorded)
			}
			if st := tr.Stats(); st.Strict != c.strict || st.StrictFailed != 0 {
				t.Errorf("%d programs given the full filter, %d failed; want %d and 0", st.Strict, st.StrictFailed, c.strict)
			}
		})
	}
}

// TestPredictedStats: a stat whose outcome the tracer predicts is recorded
// as the call's own exit would have recorded it (NoPredict stops every
// call twice), whether its path is relative to the cwd or to a directory
// fd, empty (fstat) or absolute, and so is an open's failed lookup (not
// one of O_DIRECTORY or O_NOFOLLOW, nor an O_CREAT), and a close of an
// open fd; and a call of another outcome (EBADF), of a path under /proc,
// or of a thread whose rights are no longer the tracer's (it became
// nobody), is not predicted.
func TestPredictedStats(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the program becomes nobody") // CI runs as root
	}
	bin := buildC(t, "stats")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	for _, err := range []error{os.MkdirAll(filepath.Join(data, "private"), 0o700),
		os.WriteFile(filepath.Join(data, "f"), nil, 0o644),
		os.WriteFile(filepath.Join(data, "private", "g"), nil, 0o644),
		os.Chmod(dir, 0o755), os.Chmod(data, 0o755)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	stats := func(opts Options) ([]string, Stats) {
		tr, err := Start(context.Background(), []string{bin, data}, opts)
		if err != nil {
			t.Fatal(err)
		}
		evs := collect(t, tr)
		if code, err := tr.Wait(); code != 0 || err != nil {
			t.Fatalf("%+v: exit %d, %v", opts, code, err)
		}
		var calls []string
		for _, ev := range evs {
			switch {
			case ev.Pid != evs[0].Pid:
			case ev.Syscall == "newfstatat" || ev.Syscall == "openat":
				calls = append(calls, fmt.Sprintf("%s %q %d %s", ev.Syscall, ev.Arg(1).Str, ev.Ret, ev.Errno))
			case ev.Syscall == "close":
				calls = append(calls, fmt.Sprintf("close %d %d %s", ev.Arg(0).Int, ev.Ret, ev.Errno))
			}
		}
		return calls, tr.Stats()
	}
	want, _ := stats(Options{NoPredict: true})
	got, st := stats(Options{})
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("predicted stats differ from the calls' own:\n%s", diffLines(got, want))
	}
	all := strings.Join(want, "\n")
	for _, s := range []string{`newfstatat "nope" -1 ENOENT`, `newfstatat "f/x" -1 ENOTDIR`, `newfstatat "/proc/self/fd/99" -1 ENOENT`,
		`openat "nope" -1 ENOENT`, `openat "f/x" -1 ENOTDIR`, `openat "f" -1 ENOTDIR`, `openat "made" 4 `,
		`openat "dangling" -1 ENOENT`, `openat "/proc/self/fd/99" -1 ENOENT`, `close 3 0 `} {
		if !strings.Contains(all, s) {
			t.Errorf("no %s among\n%s", s, all)
		}
	}
	// The failures that are not lookups are emitted with tracer.FailedAll
	// only.
	everyFailed, _ := stats(Options{Failed: tracer.FailedAll})
	for _, s := range []string{`-1 EACCES`, `-1 EBADF`, `close 99 -1 EBADF`} {
		if strings.Contains(all, s) {
			t.Errorf("%s emitted, not being a failed lookup:\n%s", s, all)
		}
		if !strings.Contains(strings.Join(everyFailed, "\n"), s) {
			t.Errorf("FailedAll: no %s among\n%s", s, strings.Join(everyFailed, "\n"))
		}
	}
	// f, nope, f/x; f and nope by fd; the fstat: 6 (and the loader's own
	// stats, if any, before them).
	if st.PredictedStats < 6 {
		t.Errorf("%d stats predicted, want 6 at least", st.PredictedStats)
	}
	// nope, f/x, dangling (and the loader's failed opens, if any).
	if st.PredictedOpens < 3 {
		t.Errorf("%d open failures predicted, want 3 at least", st.PredictedOpens)
	}
	// d's (and the loader's closes).
	if st.PredictedCloses < 1 {
		t.Errorf("%d closes predicted, want 1 at least", st.PredictedCloses)
	}
}

// TestFilterStopsFcntlCommandsThatMatter: fcntl is stopped for
// linux.FcntlCommands only, each on its command argument.
func TestFilterStopsFcntlCommandsThatMatter(t *testing.T) {
	p := filterPolicy(false)
	var cmds []uint64
	for _, g := range p.Syscalls {
		if slices.Contains(g.Names, "fcntl") {
			t.Error("fcntl stopped for every command")
		}
		for _, nc := range g.NamesWithCondtions {
			if nc.Name != "fcntl" {
				continue
			}
			if c := nc.Conditions; len(c) != 1 || c[0].Argument != 1 || c[0].Operation != seccomp.Equal {
				t.Errorf("fcntl condition %+v", c)
				continue
			}
			cmds = append(cmds, nc.Conditions[0].Value)
		}
	}
	if !slices.Equal(cmds, linux.FcntlCommands) {
		t.Errorf("fcntl stopped for commands %v, want %v", cmds, linux.FcntlCommands)
	}
}
