package corpusrun

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsmove/fsmove/bench/corpus"
	"github.com/fsmove/fsmove/bench/results"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

// fakeBackend plays the runner: each module's outcome is set by its name,
// and every call is counted.
type fakeBackend struct {
	mu       sync.Mutex
	traced   map[string]int
	analyzed map[string]int
	untraced map[string]int
	confirm  map[string]int
	engines  map[int]int
	deps     map[string][]string // each module's Options.Dependencies, by name
	cpus     map[string]string   // each module's container CPU set, by name
	// barrier, when set, holds each traced run until as many are in flight.
	barrier *sync.WaitGroup
	// cancel, when set, is called when the module of that name starts.
	cancelOn string
	cancel   context.CancelFunc
}

func newFake() *fakeBackend {
	return &fakeBackend{traced: map[string]int{}, analyzed: map[string]int{}, untraced: map[string]int{}, confirm: map[string]int{}, engines: map[int]int{}, deps: map[string][]string{}, cpus: map[string]string{}}
}

func (f *fakeBackend) Traced(ctx context.Context, engine int, opts runner.Options) (*runner.RunRecord, error) {
	name := opts.Module.Name
	f.mu.Lock()
	f.traced[name]++
	f.engines[engine]++
	for _, d := range opts.Dependencies {
		f.deps[name] = append(f.deps[name], d.Name.Name)
	}
	f.cpus[name] = opts.Limits.CPUSet
	barrier := f.barrier
	cancel := f.cancelOn == name
	f.mu.Unlock()
	if barrier != nil {
		barrier.Done()
		barrier.Wait()
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return nil, err
	}
	rec := &runner.RunRecord{Module: opts.Module, Entry: opts.Entry}
	write := func(file, text string) {
		os.WriteFile(filepath.Join(opts.OutDir, file), []byte(text), 0o644)
	}
	var err error
	switch {
	case cancel:
		f.cancel()
		<-ctx.Done()
		rec.Status, err = runner.StatusInterrupted, ctx.Err()
	case strings.HasPrefix(name, "ok"):
		rec.Status = runner.StatusOK
		rec.TraceBytes = int64(1000 * len(name))
		rec.AddStep("apply", time.Duration(len(name))*time.Second, true, "")
		write(runner.TraceFile, "trace")
		write(runner.CatalogFile, "{}")
	case strings.HasPrefix(name, "applyfail"):
		rec.Status, rec.Error = runner.StatusPuppetFailed, "Puppet exited with 4 (failures)"
		write(runner.TraceFile, "trace")
		write(runner.CatalogFile, "{}")
	case strings.HasPrefix(name, "compilefail"):
		rec.Status, rec.Error = runner.StatusCompileFailed, "Puppet failed (exit 1) before applying a catalog"
		write(runner.TraceFile, "trace")
	case strings.HasPrefix(name, "slow"):
		<-ctx.Done()
		rec.Status, err = runner.StatusTimeout, ctx.Err()
		rec.Error = err.Error()
	default:
		rec.Status, rec.Error = runner.StatusInfraError, "no Docker"
		err = errors.New(rec.Error)
	}
	if werr := rec.Write(opts.OutDir); werr != nil {
		return nil, werr
	}
	return rec, err
}

func (f *fakeBackend) Untraced(ctx context.Context, engine int, opts runner.Options) (results.Untraced, error) {
	f.mu.Lock()
	f.untraced[opts.Module.Name]++
	f.mu.Unlock()
	return results.Untraced{Seconds: 1.5, PuppetExit: 2}, nil
}

func (f *fakeBackend) Analyze(ctx context.Context, dir string) (results.Analysis, error) {
	f.mu.Lock()
	f.analyzed[filepath.Base(dir)]++
	f.mu.Unlock()
	return results.Analysis{Exit: 1, Seconds: 0.5, PeakRSSBytes: 1 << 20, Events: 10, Resources: 3, MOR: 1, MN: 2}, nil
}

func (f *fakeBackend) Confirm(ctx context.Context, dir string) (results.Confirm, error) {
	f.mu.Lock()
	f.confirm[filepath.Base(dir)]++
	f.mu.Unlock()
	return results.Confirm{Exit: 1, Seconds: 40, Confirmed: 2, Unknown: 1, Applies: 4}, nil
}

// TestWorkerCPUs: with a ptrace tracer and two workers, each worker's
// containers run on a CPU of their own; with eBPF or one worker, anywhere.
func TestWorkerCPUs(t *testing.T) {
	entries := testCorpus(t, "deb:puppet-module-a-ok1\ndeb:puppet-module-a-ok2\ndeb:puppet-module-a-ok3\ndeb:puppet-module-a-ok4\n")
	for _, c := range []struct {
		tracer  string
		workers int
		pinned  bool
	}{{"strace", 2, true}, {"ptrace", 2, true}, {"ebpf", 2, false}, {"", 2, false}, {"strace", 1, false}} {
		b := newFake()
		if _, _, err := Run(context.Background(), entries, b, Options{OutDir: t.TempDir(), Workers: c.workers, Tracer: c.tracer, Timeout: time.Second}); err != nil {
			t.Fatal(err)
		}
		used := map[string]bool{}
		for name, cpu := range b.cpus {
			if (cpu != "") != c.pinned {
				t.Errorf("%s with %d workers: %s on CPU %q", c.tracer, c.workers, name, cpu)
			}
			used[cpu] = true
		}
		if c.pinned {
			for cpu := range used {
				if cpu != container.CPUOf(0) && cpu != container.CPUOf(1) {
					t.Errorf("%s: CPU %q is neither worker's", c.tracer, cpu)
				}
			}
		}
	}
	// Two runs at once (each waits for the other) are on two CPUs.
	if container.CPUOf(0) == container.CPUOf(1) {
		t.Skip("one CPU: nothing to tell apart")
	}
	b := newFake()
	b.barrier = &sync.WaitGroup{}
	b.barrier.Add(2)
	pair := testCorpus(t, "deb:puppet-module-a-ok1\ndeb:puppet-module-a-ok2\n")
	if _, _, err := Run(context.Background(), pair, b, Options{OutDir: t.TempDir(), Workers: 2, Tracer: "strace", Timeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	if b.cpus["ok1"] == b.cpus["ok2"] {
		t.Errorf("two runs at once on CPU %q and %q, want two CPUs", b.cpus["ok1"], b.cpus["ok2"])
	}
}

// TestModuleDirDependencies: a module directory's metadata.json
// dependencies reach the runner, as fsmove run gives them; a directory
// whose metadata.json is malformed has no result, and the others go on.
func TestModuleDirDependencies(t *testing.T) {
	tmp := t.TempDir()
	module := func(name, metadata string) string {
		dir := filepath.Join(tmp, name)
		os.MkdirAll(filepath.Join(dir, "manifests"), 0o755)
		os.WriteFile(filepath.Join(dir, "metadata.json"), []byte(metadata), 0o644)
		return dir
	}
	good := module("okweb", `{"name": "me-okweb", "dependencies": [{"name": "puppetlabs/stdlib", "version_requirement": ">= 4.0.0"}]}`)
	bad := module("okbroken", `{"name": "me-okbroken", "dependencies": [{"name": 7}]}`)
	entries := testCorpus(t, good+"\n"+bad+"\ndeb:puppet-module-a-ok1\n")
	b := newFake()
	rows, _, err := Run(context.Background(), entries, b, Options{OutDir: t.TempDir(), Workers: 1, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.deps["okweb"]; !reflect.DeepEqual(got, []string{"stdlib"}) {
		t.Errorf("okweb's dependencies given to the runner: %v, want [stdlib]", got)
	}
	if b.traced["okbroken"] != 0 || len(b.deps["ok1"]) != 0 {
		t.Errorf("traced okbroken %d times, ok1's dependencies %v; want 0 and none", b.traced["okbroken"], b.deps["ok1"])
	}
	if len(rows) != 2 {
		t.Errorf("%d rows, want 2 (okweb and ok1)", len(rows))
	}
}

// TestConfirm: with Confirm, each analyzed module with findings is
// confirmed once; a resumed bench does not confirm again, a new analysis
// is confirmed again.
func TestConfirm(t *testing.T) {
	entries := testCorpus(t, fiveModules)
	out := t.TempDir()
	opts := Options{OutDir: out, Workers: 2, Timeout: 50 * time.Millisecond, Confirm: true, Resume: true}
	f := newFake()
	rows, work, err := Run(context.Background(), entries, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if work.Confirmed != 3 || f.confirm["puppet-module-a-compilefail"] != 0 || f.confirm["puppet-module-a-ok1"] != 1 {
		t.Errorf("work %+v, confirmed %v; want the 3 analyzed modules", work, f.confirm)
	}
	for _, r := range rows {
		analyzed := r.Analyzed()
		if analyzed && (r.Confirmed != 2 || r.ConfirmUnknown != 1 || r.Refuted != 0 || r.ConfirmS != 40) {
			t.Errorf("%s: %+v", r.Module, r)
		}
		if !analyzed && r.Confirmed != -1 {
			t.Errorf("%s: not analyzed but confirmed: %+v", r.Module, r)
		}
	}
	f2 := newFake()
	if _, work, _ := Run(context.Background(), entries, f2, opts); counts(work) != (workCounts{Traced: 1}) {
		t.Errorf("resumed: work %+v, want only the infrastructure failure run again", work)
	}
	os.Remove(filepath.Join(RunDir(out, entries[0]), results.AnalysisJSON))
	if _, work, _ := Run(context.Background(), entries, newFake(), opts); counts(work) != (workCounts{Traced: 1, Analyzed: 1, Confirmed: 1}) {
		t.Errorf("after a new analysis: work %+v, want 1 analysis and its confirmation", work)
	}
}

func testCorpus(t *testing.T, text string) []corpus.Entry {
	t.Helper()
	entries, err := corpus.Parse(strings.NewReader(text), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

const fiveModules = `deb:puppet-module-a-ok1
deb:puppet-module-a-applyfail
deb:puppet-module-a-compilefail
deb:puppet-module-a-slow
deb:puppet-module-a-infra
deb:puppet-module-a-okay2
`

func TestRunAndResume(t *testing.T) {
	entries := testCorpus(t, fiveModules)
	out := t.TempDir()
	opts := Options{OutDir: out, Workers: 3, Engines: 2, Timeout: 50 * time.Millisecond, Untraced: true}
	f := newFake()
	rows, work, err := Run(context.Background(), entries, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Module+" "+r.Status)
	}
	want := []string{
		"puppet-module-a-ok1 ok", "puppet-module-a-applyfail apply-failed", "puppet-module-a-compilefail compile-failed",
		"puppet-module-a-slow timeout", "puppet-module-a-infra infra-error", "puppet-module-a-okay2 ok",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows in corpus order:\n%v\nwant\n%v", got, want)
	}
	// Analysis where there is a catalog; untraced only for clean applies.
	if counts(work) != (workCounts{Traced: 6, Analyzed: 3, Untraced: 2}) || !slices.Equal(work.InfraFailed, []string{"puppet-module-a-infra"}) {
		t.Errorf("work = %+v, want 6 traced, 3 analyzed, 2 untraced, the infra module failed", work)
	}
	if f.untraced["applyfail"] != 0 || f.untraced["ok1"] != 1 || f.analyzed["puppet-module-a-compilefail"] != 0 {
		t.Errorf("untraced %v, analyzed %v", f.untraced, f.analyzed)
	}
	if f.engines[0] != 3 || f.engines[1] != 3 {
		t.Errorf("engine use %v, want round-robin 3 and 3", f.engines)
	}
	if r := rows[0]; r.MOR != 1 || r.MN != 2 || r.PuppetUntracedS != 1.5 || r.PuppetTracedS != 3 || r.TraceBytes != 3000 {
		t.Errorf("ok row = %+v", r)
	}

	// Resumed: nothing new but the module whose run failed for a reason
	// outside it, which runs again; the same rows.
	f2 := newFake()
	opts.Resume = true
	rows2, work, err := Run(context.Background(), entries, f2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if counts(work) != (workCounts{Traced: 1}) || !reflect.DeepEqual(f2.traced, map[string]int{"infra": 1}) || len(f2.analyzed)+len(f2.untraced) != 0 ||
		!slices.Equal(work.InfraFailed, []string{"puppet-module-a-infra"}) {
		t.Errorf("resume did work: %+v (%v %v %v), want the infra module alone again", work, f2.traced, f2.analyzed, f2.untraced)
	}
	if !reflect.DeepEqual(rows2, rows) {
		t.Errorf("resumed rows differ:\n%+v\n%+v", rows2, rows)
	}

	// An entry whose parameters changed since is run again, alone, with
	// its own timeout.
	changed := append([]corpus.Entry(nil), entries...)
	changed[0].Params = []runner.Param{{Key: "port", Value: "1"}}
	f3 := newFake()
	_, work, err = Run(context.Background(), changed, f3, opts)
	if err != nil {
		t.Fatal(err)
	}
	if counts(work) != (workCounts{Traced: 2, Analyzed: 1, Untraced: 1}) || f3.traced["ok1"] != 1 || f3.traced["infra"] != 1 {
		t.Errorf("after a parameter change: work %+v, traced %v; want ok1 again (and the infra module)", work, f3.traced)
	}
	changed[3].Timeout = 80 * time.Millisecond
	changed[3].Params = changed[0].Params
	start := time.Now()
	Run(context.Background(), changed, newFake(), opts)
	if took := time.Since(start); took < 80*time.Millisecond {
		t.Errorf("the slow module's own timeout (80ms) was not used: the run took %s", took)
	}
	entries = changed

	// A lost analysis.json is redone alone; without --resume all is redone.
	os.Remove(filepath.Join(RunDir(out, entries[0]), results.AnalysisJSON))
	_, work, _ = Run(context.Background(), entries, newFake(), opts)
	if counts(work) != (workCounts{Traced: 1, Analyzed: 1}) {
		t.Errorf("work after losing one analysis = %+v, want 1 analysis (and the infra module's run)", work)
	}
	opts.Resume = false
	_, work, _ = Run(context.Background(), entries, newFake(), opts)
	if work.Traced != 6 {
		t.Errorf("without resume, %d traced runs, want 6", work.Traced)
	}
}

// An interrupted bench leaves the interrupted module without a result; a
// resumed one runs it (and only what is missing) again.
func TestInterruptedThenResumed(t *testing.T) {
	entries := testCorpus(t, "deb:puppet-module-a-ok1\ndeb:puppet-module-a-okcut\ndeb:puppet-module-a-okay3\n")
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	f := newFake()
	f.cancelOn, f.cancel = "okcut", cancel
	opts := Options{OutDir: out, Workers: 1, Timeout: time.Second, Resume: true}
	rows, _, err := Run(ctx, entries, f, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(rows) != 1 || rows[0].Module != "puppet-module-a-ok1" {
		t.Errorf("rows after the interruption = %+v, want only ok1", rows)
	}
	f2 := newFake()
	rows, work, err := Run(context.Background(), entries, f2, opts)
	if err != nil {
		t.Fatal(err)
	}
	// okay3 may have started before the worker saw the cancellation (and
	// then finished): it is traced once, in one of the two runs.
	if len(rows) != 3 || f2.traced["ok1"] != 0 || f2.traced["okcut"] != 1 ||
		f.traced["okay3"]+f2.traced["okay3"] != 1 || work.Traced != 1+f2.traced["okay3"] {
		t.Errorf("resumed: %d rows, work %+v, traced %v then %v; want 3 rows, okcut traced again, okay3 traced once",
			len(rows), work, f.traced, f2.traced)
	}
}

// workCounts is Work without the names of the failed modules, to compare.
type workCounts struct{ Traced, Analyzed, Untraced, Confirmed int }

func counts(w Work) workCounts { return workCounts{w.Traced, w.Analyzed, w.Untraced, w.Confirmed} }

func runnerOptionsForTest() runner.Options {
	return runner.Options{OutDir: os.TempDir()}
}

// TestProgressLines: off a terminal (a CI log, a pod's log) each module's
// end is a line with its status as it comes, and nothing is redrawn.
func TestProgressLines(t *testing.T) {
	entries := testCorpus(t, fiveModules)
	var log bytes.Buffer
	opts := Options{OutDir: t.TempDir(), Workers: 1, Timeout: 50 * time.Millisecond, Progress: &log, ProgressLines: true}
	if _, _, err := Run(context.Background(), entries, newFake(), opts); err != nil {
		t.Fatal(err)
	}
	text := log.String()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if strings.ContainsAny(text, "\r\033") || len(lines) != len(entries) {
		t.Fatalf("want %d plain lines, got:\n%q", len(entries), text)
	}
	for i, want := range []string{"[1/6 ", "puppet-module-a-ok1: ok in ", "puppet-module-a-infra: infra-error in ", "[6/6 "} {
		if !strings.Contains(text, want) {
			t.Errorf("line %d: the log lacks %q:\n%s", i, want, text)
		}
	}
}
