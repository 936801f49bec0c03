package ebpf

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/internal/testenv"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
	"github.com/fsmove/fsmove/tracer/strace"

	"golang.org/x/sys/unix"
)

// The Go decoder and the C struct must agree on the record layout.
func TestHeaderMatchesBPFStruct(t *testing.T) {
	var e fsmoveEvent
	if off := unsafe.Offsetof(e.Buf); off != headerSize {
		t.Fatalf("offsetof(struct event, buf) = %d, decoder uses %d", off, headerSize)
	}
	if n := len(e.Buf); n != 2*4096+dataMax {
		t.Fatalf("event buf holds %d bytes, want 2*PATH_MAX+DATA_MAX = %d", n, 2*4096+dataMax)
	}
}

// The table is exactly the rows of linux.Syscalls that are lowered, and
// the program can read each of them.
func TestTableCoversLowering(t *testing.T) {
	seen := map[string]bool{}
	for _, row := range syscallTable {
		if seen[row.Name] {
			t.Errorf("%s: two rows", row.Name)
		}
		seen[row.Name] = true
		if byNr[row.Nr] != row {
			t.Errorf("%s: not indexed by number", row.Name)
		}
		strs := 0
		for _, k := range row.Args {
			if v := k.Value(); v == linux.ValString || v == linux.ValOutString {
				strs++
			}
		}
		if strs > 2 {
			t.Errorf("%s: %d strings, the program reads two", row.Name, strs)
		}
		// Every argument the lowering reads exists in the row.
		if used := fstrace.ArgsUsed(row.Name); used != 0 {
			for i := 0; i < 6; i++ {
				if used&(1<<i) != 0 && i >= len(row.Args) && len(row.Args) > 0 {
					t.Errorf("%s: the lowering reads argument %d, the row has %d", row.Name, i, len(row.Args))
				}
			}
		}
	}
	for _, s := range linux.Syscalls {
		if want := s.Why == linux.Lowered; seen[s.Name] != want {
			t.Errorf("%s: traced %v, lowered %v", s.Name, seen[s.Name], want)
		}
	}
}

// TestCAgrees: the C program's MAX_NR (the size of its plans map) and its
// enum special are the Go side's. The program has no syscall numbers of
// its own: user space fills the plans map by number from the table.
func TestCAgrees(t *testing.T) {
	src, err := os.ReadFile("fsmove.bpf.c")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"MAX_NR": maxNr, "SP_NONE": spNone, "SP_WRITE": spWrite, "SP_WRITEV": spWritev, "SP_STRUCT_U64": spStructU64, "SP_INT_PAIR": spIntPair}
	re := regexp.MustCompile(`(?m)^(?:#define\s+(MAX_NR)\s+|\s+(SP_\w+)\s*=\s*)(\d+)`)
	found := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		name := m[1] + m[2]
		n, _ := strconv.Atoi(m[3])
		w, ok := want[name]
		if !ok {
			t.Errorf("fsmove.bpf.c: %s = %d has no Go counterpart", name, n)
			continue
		}
		found[name] = true
		if n != w {
			t.Errorf("fsmove.bpf.c: %s = %d, Go has %d", name, n, w)
		}
	}
	for name := range want {
		if !found[name] {
			t.Errorf("fsmove.bpf.c: no %s", name)
		}
	}
	for _, row := range syscallTable {
		if row.Nr >= maxNr {
			t.Errorf("%s: number %d does not fit the plans map (MAX_NR %d)", row.Name, row.Nr, maxNr)
		}
	}
}

// needEBPF ends the test (testenv.Missing) when this process cannot trace
// with eBPF.
func needEBPF(t *testing.T) {
	t.Helper()
	testenv.Root(t, "eBPF tracing")
}

// newCgroup creates an empty cgroup for one test.
func newCgroup(t *testing.T) *TempCgroup {
	t.Helper()
	cg, err := NewTempCgroup("fsmove-ebpf-test")
	if err != nil {
		testenv.Missing(t, "no cgroup for the test: %v", err)
	}
	t.Cleanup(func() { cg.Close() })
	return cg
}

// workload is a small program: it forks and execs (sh runs cat, mv, rm),
// opens, renames, creates and removes files, writes to fd 1, and has a
// child exit with status 3.
func workload(dir string) string {
	return fmt.Sprintf(`mkdir -p %[1]s/sub && cd %[1]s/sub && echo data > a && mv a b && cat b > /dev/null && ln -s b c && rm c b && cd / && rmdir %[1]s/sub %[1]s && echo "fsmove-marker hello" && (sh -c 'exit 3' || true)`, dir)
}

// traceWorkload runs the workload in a fresh cgroup under the eBPF tracer
// and returns its events (copied).
func traceWorkload(t *testing.T, work string) []tracer.Event {
	t.Helper()
	return traceWith(t, Options{}, work)
}

// traceWith is traceWorkload with options (the cgroup is set here).
func traceWith(t *testing.T, opts Options, work string) []tracer.Event {
	t.Helper()
	cg := newCgroup(t)
	opts.CgroupPath = cg.Path
	tr, err := Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer tr.Close()

	type result struct {
		evs []tracer.Event
		err error
	}
	done := make(chan result, 1)
	go func() {
		var evs []tracer.Event
		for {
			ev, err := tr.Next()
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				done <- result{evs, err}
				return
			}
			c := *ev
			c.Args = append([]tracer.Arg(nil), ev.Args...)
			evs = append(evs, c)
		}
	}()

	cmd := exec.Command("/bin/sh", "-c", work)
	cg.Place(cmd)
	out, runErr := cmd.CombinedOutput()
	stopErr := tr.Stop()
	res := <-done
	if runErr != nil {
		t.Fatalf("workload: %v: %s", runErr, out)
	}
	if stopErr != nil {
		t.Fatalf("Stop: %v", stopErr)
	}
	if res.err != nil {
		t.Fatalf("Next: %v", res.err)
	}
	return res.evs
}

func TestTraceSmallProgram(t *testing.T) {
	needEBPF(t)
	dir := t.TempDir()
	evs := traceWorkload(t, workload(dir))
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	pids := map[int]bool{}
	var sawExecMv, sawRename, sawMarker, sawClone, sawSymlink, sawExit3 bool
	exits := 0
	for i := range evs {
		ev := &evs[i]
		pids[ev.Pid] = true
		if ev.Line != int64(i+1) {
			t.Errorf("event %d has sequence number %d", i, ev.Line)
		}
		switch {
		case ev.Kind == tracer.KindExit:
			exits++
			sawExit3 = sawExit3 || ev.Ret == 3
		case ev.Syscall == "execve" && !ev.Failed():
			if a := ev.Arg(0); a.Kind == tracer.ArgStr && strings.HasSuffix(a.Str, "/mv") {
				sawExecMv = true
			}
		case strings.HasPrefix(ev.Syscall, "rename") && !ev.Failed():
			// mv a b: renameat2(AT_FDCWD, "a", AT_FDCWD, "b", RENAME_NOREPLACE) on bookworm's coreutils.
			old, new := ev.Arg(0), ev.Arg(1)
			if ev.Syscall != "rename" {
				old, new = ev.Arg(1), ev.Arg(3)
				if d := ev.Arg(0); d.Kind != tracer.ArgInt || d.Int != -100 {
					t.Errorf("%s dirfd = %+v, want AT_FDCWD (-100)", ev.Syscall, d)
				}
			}
			if old.Str == "a" && new.Str == "b" {
				sawRename = true
			}
		case (ev.Syscall == "write" || ev.Syscall == "writev") && ev.Arg(0).Int == 1:
			if strings.Contains(ev.Arg(1).Str, "fsmove-marker hello") {
				sawMarker = true
			}
		case linux.Lookup(ev.Syscall).Forks:
			// The program sees a fork return twice, in the child
			// too (with 0): only the caller's return is the call.
			if ev.Ret == 0 {
				t.Errorf("event %d: %s returned 0 (a child's return sent as a call)", i, ev.Syscall)
			}
			sawClone = sawClone || ev.Ret > 0
		case strings.HasPrefix(ev.Syscall, "symlink") && !ev.Failed():
			if ev.Arg(0).Str == "b" {
				sawSymlink = true
			}
		}
		if ev.Kind == tracer.KindSyscall && !fstrace.Wanted(ev.Syscall) {
			t.Errorf("event %d: %s is not a call the lowering wants", i, ev.Syscall)
		}
	}
	if !sawExecMv || !sawRename || !sawMarker || !sawClone || !sawSymlink {
		t.Errorf("missing events: exec mv %v, rename a→b %v, marker write %v, clone %v, symlink %v",
			sawExecMv, sawRename, sawMarker, sawClone, sawSymlink)
	}
	if !sawExit3 {
		t.Error("no exit with status 3: the exit lines lack the task's status")
	}
	if len(pids) < 4 {
		t.Errorf("saw %d tasks, want sh and its children mkdir, cat, mv, ln, rm, rmdir", len(pids))
	}
	if exits < len(pids) {
		t.Errorf("%d exits for %d tasks", exits, len(pids))
	}
}

// pathEffect is one path statement, without the pid and line evidence.
type pathEffect struct {
	op          fstrace.Op
	path, path2 string
	effect      fstrace.Effect
}

// lowerPaths lowers events and returns the set of their path statements.
func lowerPaths(t *testing.T, src tracer.Source) map[pathEffect]bool {
	t.Helper()
	low := fstrace.NewLowerer(nil)
	set := map[pathEffect]bool{}
	var out []fstrace.Statement
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = low.Lower(ev, out[:0])
		for _, s := range out {
			switch s.Op {
			case fstrace.OpHpath, fstrace.OpHpathSym, fstrace.OpRename, fstrace.OpLink, fstrace.OpSymlink:
				set[pathEffect{s.Op, s.Path, s.Path2, s.Effect}] = true
			}
		}
	}
	if low.Stats.BadArgs != 0 {
		t.Errorf("%d calls with unusable arguments", low.Stats.BadArgs)
	}
	return set
}

// sliceSource replays copied events.
type sliceSource struct {
	evs []tracer.Event
	i   int
}

func (s *sliceSource) Next() (*tracer.Event, error) {
	if s.i >= len(s.evs) {
		return nil, io.EOF
	}
	s.i++
	return &s.evs[s.i-1], nil
}

// The same program traced by strace -f and by eBPF lowers to the same path
// statements.
func TestSameAsStrace(t *testing.T) {
	needEBPF(t)
	straceBin := testenv.LookPath(t, "strace")
	dir := t.TempDir()
	work := workload(filepath.Join(dir, "w"))

	tracePath := filepath.Join(dir, "trace.log")
	cmd := exec.Command(straceBin, "-f", "-s", "300", "-o", tracePath, "/bin/sh", "-c", work)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("strace: %v: %s", err, out)
	}
	// Of the failed calls, the failed lookups only, decoded, as eBPF sends
	// them (tracer.FailedLookups): both sides have the same Missing
	// statements.
	r, err := strace.Open(tracePath, strace.Options{Want: fstrace.Wanted, Args: fstrace.ArgsUsed})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fromStrace := lowerPaths(t, r)

	fromEBPF := lowerPaths(t, &sliceSource{evs: traceWorkload(t, work)})

	var onlyStrace, onlyEBPF []string
	for pe := range fromStrace {
		if !fromEBPF[pe] {
			onlyStrace = append(onlyStrace, fmt.Sprint(pe))
		}
	}
	for pe := range fromEBPF {
		if !fromStrace[pe] {
			onlyEBPF = append(onlyEBPF, fmt.Sprint(pe))
		}
	}
	sort.Strings(onlyStrace)
	sort.Strings(onlyEBPF)
	if len(onlyStrace)+len(onlyEBPF) > 0 {
		t.Errorf("path statements differ (strace %d, eBPF %d)\nonly strace:\n  %s\nonly eBPF:\n  %s",
			len(fromStrace), len(fromEBPF), strings.Join(onlyStrace, "\n  "), strings.Join(onlyEBPF, "\n  "))
	}
	if len(fromEBPF) < 10 {
		t.Errorf("only %d path statements", len(fromEBPF))
	}
}

// startOnePage starts a tracer of a new cgroup with one page of ring
// buffer, which a few thousand calls fill; it is closed when t ends.
func startOnePage(t *testing.T) (*TempCgroup, *Tracer) {
	t.Helper()
	needEBPF(t)
	cg := newCgroup(t)
	tr, err := Start(Options{CgroupPath: cg.Path, RingBytes: uint32(os.Getpagesize())})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { tr.Close() })
	return cg, tr
}

// A ring buffer too small for the workload, read only at the end, loses
// events: Stop and the last Next say so with the count.
func TestDropsAreReported(t *testing.T) {
	cg, tr := startOnePage(t)
	// Thousands of stat calls, none read while they happen.
	cmd := exec.Command("/bin/ls", "-lR", "/usr/share")
	cmd.Stdout = io.Discard
	cg.Place(cmd)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	var dropped *ErrDropped
	if err := tr.Stop(); !errors.As(err, &dropped) || dropped.Count == 0 {
		t.Fatalf("Stop = %v, want an ErrDropped", err)
	}
	if tr.Dropped() != dropped.Count {
		t.Errorf("Dropped() = %d, Stop said %d", tr.Dropped(), dropped.Count)
	}
	n := 0
	for {
		_, err := tr.Next()
		if err == nil {
			n++
			continue
		}
		if !errors.As(err, &dropped) {
			t.Fatalf("Next ended with %v, want an ErrDropped", err)
		}
		break
	}
	if n == 0 {
		t.Error("no event was kept: the ring buffer should hold the first ones")
	}
	t.Logf("%d events kept, %d dropped", n, dropped.Count)
}

// threadExecScript is a Python program whose second thread execs true.
const threadExecScript = `import os, threading
t = threading.Thread(target=lambda: os.execv("/bin/true", ["true"]))
t.start(); t.join()`

// A thread other than the leader that execs returns from execve with the
// leader's pid: the event still comes, under that pid, as strace shows it.
func TestExecFromThread(t *testing.T) {
	needEBPF(t)
	python := testenv.LookPath(t, "python3") // starts a thread that execs
	evs := traceWorkload(t, python+" -c '"+threadExecScript+"'")
	leaders := map[int]bool{}
	found := false
	for _, ev := range evs {
		if ev.Syscall == "execve" && !ev.Failed() {
			if ev.Arg(0).Str == "/bin/true" {
				found = true
				if !leaders[ev.Pid] {
					t.Errorf("execve of /bin/true under pid %d, which is no process seen exec'ing python", ev.Pid)
				}
			}
			leaders[ev.Pid] = true
		}
	}
	if !found {
		t.Error("no execve of /bin/true: the exec from a thread was lost")
	}
}

// fexecve is execveat(fd, "", …, AT_EMPTY_PATH): a successful exec's
// registers are gone at its exit, and its arguments come back from the path
// the kernel kept ("/dev/fd/N").
func TestExecveatOfAnFd(t *testing.T) {
	needEBPF(t)
	python := testenv.LookPath(t, "python3")
	const script = `import os; fd = os.open("/bin/true", os.O_RDONLY); os.execve(fd, ["true"], {})`
	evs := traceWorkload(t, python+" -c '"+script+"'")
	var opened int64 = -1
	for _, ev := range evs {
		if ev.Syscall == "openat" && ev.Arg(1).Str == "/bin/true" && !ev.Failed() {
			opened = ev.Ret
		}
		if ev.Syscall != "execveat" || ev.Failed() {
			continue
		}
		dirfd, path, flags := ev.Arg(0), ev.Arg(1), ev.Arg(4)
		if dirfd.Int != opened || path.Kind != tracer.ArgStr || path.Str != "" || flags.Int != unix.AT_EMPTY_PATH {
			t.Errorf("execveat(%+v, %+v, …, %+v), want fd %d, \"\", AT_EMPTY_PATH", dirfd, path, flags, opened)
		}
		return
	}
	t.Errorf("no successful execveat among %d events (the fd was %d)", len(evs), opened)
}

// Failed calls are dropped in the kernel (tracer.FailedLookups), but for
// failed lookups (linux.LooksUp, linux.LookupErrno), sent with their path;
// with tracer.FailedAll every failed call is sent, with its errno and its
// path.
func TestFailedCalls(t *testing.T) {
	needEBPF(t)
	const missing = "/nonexistent-fsmove-ebpf-test"
	// cat's open of missing is a failed lookup; rmdir's is not (rmdir is no
	// lookup row).
	work := "cat " + missing + " 2>/dev/null; rmdir " + missing + " 2>/dev/null; true"
	count := func(evs []tracer.Event) (failed, lookups, openMissing, rmdir int) {
		for _, ev := range evs {
			if !ev.Failed() {
				continue
			}
			failed++
			if linux.LookupErrno(ev.Errno) && linux.LooksUp(ev.Syscall) {
				lookups++
			}
			if ev.Syscall == "openat" && ev.Errno == "ENOENT" && ev.Arg(1).Str == missing {
				openMissing++
			}
			if ev.Syscall == "rmdir" && ev.Arg(0).Str == missing {
				rmdir++
			}
		}
		return
	}
	failed, lookups, openMissing, rmdir := count(traceWith(t, Options{}, work))
	if failed != lookups {
		t.Errorf("%d failed calls delivered with FailedLookups, %d of them failed lookups", failed, lookups)
	}
	if openMissing == 0 {
		t.Errorf("the failed openat (ENOENT) of %s, a lookup, was not delivered with its path", missing)
	}
	if rmdir != 0 {
		t.Errorf("%d failed rmdirs delivered with FailedLookups", rmdir)
	}
	failed, lookups, _, rmdir = count(traceWith(t, Options{Failed: tracer.FailedAll}, work))
	if rmdir == 0 || failed == lookups {
		t.Errorf("FailedAll: %d failed calls, %d failed lookups, %d failed rmdirs of %s with its path: the others were dropped or not read", failed, lookups, rmdir, missing)
	}
}

// Stop ends the capture at once: what the cgroup does afterwards is
// neither delivered nor counted as lost, though the programs stay attached
// until Close (detaching waits for RCU grace periods).
func TestStopEndsCapture(t *testing.T) {
	cg, tr := startOnePage(t)
	if err := tr.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	// Thousands of stat calls after the stop: a page of ring buffer would
	// overflow at once if they were still captured (TestDropsAreReported).
	cmd := exec.Command("/bin/ls", "-lR", "/usr/share")
	cmd.Stdout = io.Discard
	cg.Place(cmd)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if n := tr.Dropped(); n != 0 {
		t.Errorf("Dropped() = %d after Stop, want 0", n)
	}
	if ev, err := tr.Next(); err != io.EOF {
		t.Errorf("Next after Stop = %v, %v; want io.EOF", ev, err)
	}
}
