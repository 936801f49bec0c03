// Package corpusrun runs a corpus of modules (docs/DESIGN.md, "fsmove
// bench"): each module in its own fresh container through puppet/runner, N
// at a time, each with a timeout; then the analysis of each trace, and
// optionally an untraced apply for the tracer's slowdown. Every module has its run
// directory OUT/runs/KEY holding run.json (the runner's), analysis.json and
// untraced.json (this package's); the results table is made from those
// files only, so a resumed run and a fresh one give the same table.
//
// The untraced apply is off by default (Options.Untraced, fsmove bench
// --untraced): it is a second fresh container, package installation and
// Puppet run per module, which nearly doubles a corpus's time. Because runs
// resume, it can be added later: a second "fsmove bench --resume --untraced"
// only does the untraced runs.
package corpusrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsmove/fsmove/bench/corpus"
	"github.com/fsmove/fsmove/bench/results"
	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

// Backend does the three pieces of work for one module. DockerBackend is
// the real one; tests use a fake.
type Backend interface {
	// Traced is runner.Run on engine number engine (round-robin over the
	// engines): the traced apply, writing run.json and the artifacts to
	// opts.OutDir.
	Traced(ctx context.Context, engine int, opts runner.Options) (*runner.RunRecord, error)
	// Untraced times the same puppet apply without a tracer, in its own
	// fresh container.
	Untraced(ctx context.Context, engine int, opts runner.Options) (results.Untraced, error)
	// Analyze analyzes dir's trace.log against its catalog.json.
	Analyze(ctx context.Context, dir string) (results.Analysis, error)
	// Confirm re-applies the reported findings of the run in dir to test
	// them (fsmove confirm), replacing its report.json with one that
	// carries the verdicts.
	Confirm(ctx context.Context, dir string) (results.Confirm, error)
}

// Options configure a corpus run.
type Options struct {
	OutDir string
	// Workers is the number of modules run at once (default 1).
	Workers int
	// Engines is the number of Docker engines; module i goes to engine
	// i mod Engines (default 1).
	Engines int
	// Timeout bounds each module's traced run, its analysis and its
	// untraced run, each on its own (default 10 minutes); a corpus entry's
	// timeout= replaces it for that module.
	Timeout time.Duration
	Tracer  string
	// Trusted: the corpus's modules are trusted (runner.Options.Trusted).
	Trusted    bool
	SeccompBPF bool
	// Init is the containers' PID 1 (runner.Options.Init), for the traced
	// and the untraced runs alike.
	Init container.Init
	// TracerBinary is the fsmove binary the ptrace tracer copies into the
	// container (runner.Options.TracerBinary).
	TracerBinary string
	// Untraced also times each module that applied cleanly without the
	// tracer, in a second fresh container: it doubles the Puppet time.
	Untraced bool
	// Confirm re-applies the reported findings of each analyzed module
	// (fsmove confirm, one container at a time per module) and counts the
	// verdicts; its timeout is Timeout, for all of a module's findings.
	Confirm bool
	// Idempotence applies each module a second time, traced
	// (runner.Options.Idempotence): the analysis then counts the
	// non-idempotent resources (NI).
	Idempotence bool
	// Resume skips what a run directory already has: a finished run.json
	// of the same entry (class, parameters, setup) that is the module's
	// result (not an infrastructure failure, which runs again),
	// analysis.json, untraced.json. Without it every module runs again.
	Resume bool
	Image  container.ImageOptions
	// Progress receives a live progress line (with \r); nil is quiet.
	// With ProgressLines (a writer that is not a terminal: a CI log, a
	// pod's log), it receives instead one line per module as it ends.
	Progress      io.Writer
	ProgressLines bool
	FsmoveVersion string
}

// RunsDir is the directory of the per-module run directories under OutDir.
const RunsDir = results.RunsDir

// RunDir is entry's run directory.
func RunDir(outDir string, e corpus.Entry) string {
	return filepath.Join(outDir, RunsDir, e.Key)
}

// Work counts what a corpus run did, for "a resumed run does nothing new",
// and names the modules whose run failed for a reason outside the module
// (results.InfraFailure), in corpus order.
type Work struct {
	Traced, Analyzed, Untraced, Confirmed int
	InfraFailed                           []string
}

// Run runs every entry and returns one row per entry, in corpus order, and
// the work done. It stops early, returning ctx's error, when ctx is
// cancelled; rows of finished modules are then still returned. A module's
// failure (Puppet, Docker, timeout) is its row's status, not an error.
func Run(ctx context.Context, entries []corpus.Entry, b Backend, opts Options) ([]results.Row, Work, error) {
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.Engines <= 0 {
		opts.Engines = 1
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Minute
	}
	if err := os.MkdirAll(filepath.Join(opts.OutDir, RunsDir), 0o755); err != nil {
		return nil, Work{}, err
	}
	prog := newProgress(opts.Progress, opts.ProgressLines, len(entries))
	defer prog.finish()

	type outcome struct {
		row  results.Row
		ok   bool
		work Work
	}
	out := make([]outcome, len(entries))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < opts.Workers; w++ {
		// A ptrace tracer keeps Puppet and itself on the CPU it starts on;
		// two workers' runs could pick the same one and share it while the
		// other idles. Each worker's containers get a CPU of their own.
		cpu := ""
		if opts.Workers > 1 && runner.TracerPinsCPU(opts.Tracer) {
			cpu = container.CPUOf(w)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				e := entries[i]
				prog.start(e.Key)
				row, work, err := runOne(ctx, i%opts.Engines, cpu, e, b, opts)
				out[i] = outcome{row, err == nil, work}
				prog.done(e.Key, row.Status, err)
			}
		}()
	}
feed:
	for i := range entries {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()

	var rows []results.Row
	var work Work
	for _, o := range out {
		if o.ok {
			rows = append(rows, o.row)
		}
		work.Traced += o.work.Traced
		work.Analyzed += o.work.Analyzed
		work.Untraced += o.work.Untraced
		work.Confirmed += o.work.Confirmed
		work.InfraFailed = append(work.InfraFailed, o.work.InfraFailed...)
	}
	return rows, work, ctx.Err()
}

// runOne does what entry e still needs and returns its row, its containers
// on cpu ("" for any). An error means the module has no result
// (interrupted, or its directory is unusable).
func runOne(ctx context.Context, engine int, cpu string, e corpus.Entry, b Backend, opts Options) (results.Row, Work, error) {
	var work Work
	dir := RunDir(opts.OutDir, e)
	// A module directory's dependencies (metadata.json…) are found as
	// fsmove run finds them: Debian's stdlib for a Forge checkout.
	deps, depWarnings, err := runner.ReadDependencies(e.Module, nil)
	if err != nil {
		return results.Row{}, work, fmt.Errorf("%s: %w", e.Key, err)
	}
	ropts := runner.Options{
		Module:             e.Module,
		Entry:              e.RunnerEntry(),
		Image:              opts.Image,
		Tracer:             opts.Tracer,
		Trusted:            opts.Trusted,
		TracerBinary:       opts.TracerBinary,
		SeccompBPF:         opts.SeccompBPF,
		Init:               opts.Init,
		OutDir:             dir,
		Force:              true, // a rerun replaces the module's earlier run (the bench's own files are removed below)
		FsmoveVersion:      opts.FsmoveVersion,
		Idempotence:        opts.Idempotence,
		Dependencies:       deps,
		DependencyWarnings: depWarnings,
		Limits:             container.Limits{CPUSet: cpu},
	}

	timeout := opts.Timeout
	if e.Timeout > 0 {
		timeout = e.Timeout
	}
	rec, err := runner.ReadRecord(dir)
	if !opts.Resume || err != nil || results.Status(rec.Status) == "" || results.InfraFailure(rec.Status) ||
		!sameEntry(rec.Entry, ropts.Entry) || opts.Idempotence && rec.Second == nil {
		// A fresh run: drop what the bench added to an earlier one.
		os.Remove(filepath.Join(dir, results.AnalysisJSON))
		os.Remove(filepath.Join(dir, results.UntracedJSON))
		os.Remove(filepath.Join(dir, results.ConfirmJSON))
		os.Remove(filepath.Join(dir, results.ReportJSON))
		os.RemoveAll(filepath.Join(dir, results.UntracedDir))
		tctx, cancel := context.WithTimeout(ctx, timeout)
		rec, err = b.Traced(tctx, engine, ropts)
		cancel()
		work.Traced++
		if rec == nil {
			return results.Row{}, work, fmt.Errorf("%s: %w", e.Key, err)
		}
		if ctx.Err() != nil {
			return results.Row{}, work, ctx.Err()
		}
	}

	if files.Exists(filepath.Join(dir, runner.CatalogFile)) && files.Exists(filepath.Join(dir, runner.TraceFile)) &&
		!files.Exists(filepath.Join(dir, results.AnalysisJSON)) {
		actx, cancel := context.WithTimeout(ctx, timeout)
		a, err := b.Analyze(actx, dir)
		cancel()
		if ctx.Err() != nil {
			return results.Row{}, work, ctx.Err()
		}
		if err != nil {
			a = results.Analysis{Exit: 3, Error: err.Error(), Seconds: -1, PeakRSSBytes: -1, Resources: -1}
		}
		if err := results.WriteJSONFile(dir, results.AnalysisJSON, a); err != nil {
			return results.Row{}, work, err
		}
		os.Remove(filepath.Join(dir, results.ConfirmJSON)) // a new report, not yet confirmed
		work.Analyzed++
	}

	var a results.Analysis
	if opts.Confirm && results.ReadJSONFile(dir, results.AnalysisJSON, &a) == nil && a.Exit == 1 &&
		!files.Exists(filepath.Join(dir, results.ConfirmJSON)) {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		c, err := b.Confirm(cctx, dir)
		cancel()
		if ctx.Err() != nil {
			return results.Row{}, work, ctx.Err()
		}
		if err != nil {
			c = results.Confirm{Exit: 3, Error: err.Error(), Seconds: -1}
		}
		if err := results.WriteJSONFile(dir, results.ConfirmJSON, c); err != nil {
			return results.Row{}, work, err
		}
		work.Confirmed++
	}

	if opts.Untraced && rec.Status == runner.StatusOK && !files.Exists(filepath.Join(dir, results.UntracedJSON)) {
		uctx, cancel := context.WithTimeout(ctx, timeout)
		u, err := b.Untraced(uctx, engine, ropts)
		cancel()
		if ctx.Err() != nil {
			return results.Row{}, work, ctx.Err()
		}
		if err != nil {
			u = results.Untraced{Seconds: -1, Error: err.Error()}
		}
		if err := results.WriteJSONFile(dir, results.UntracedJSON, u); err != nil {
			return results.Row{}, work, err
		}
		work.Untraced++
	}

	if results.InfraFailure(rec.Status) {
		work.InfraFailed = append(work.InfraFailed, e.Key)
	}
	row, err := results.FromRunDir(e.Key, e.Version, dir)
	return row, work, err
}

// sameEntry reports whether a finished run applied what the corpus entry
// asks for now: a resumed bench reruns a module whose parameters, class or
// setup changed since.
func sameEntry(ran, want runner.Entry) bool {
	a, errA := json.Marshal(ran)
	b, errB := json.Marshal(want)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// progress draws one live line: counts per status and the modules running;
// or, with lines, writes a line as each module ends.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	lines    bool
	total    int
	finished int
	counts   map[string]int
	running  map[string]time.Time
	started  time.Time
}

func newProgress(w io.Writer, lines bool, total int) *progress {
	return &progress{w: w, lines: lines, total: total, counts: map[string]int{}, running: map[string]time.Time{}, started: time.Now()}
}

func (p *progress) start(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[key] = time.Now()
	p.draw()
}

func (p *progress) done(key, status string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	began := p.running[key]
	delete(p.running, key)
	p.finished++
	if err != nil {
		status = "no result"
	}
	p.counts[status]++
	if p.lines {
		if p.w != nil {
			fmt.Fprintf(p.w, "fsmove bench: [%d/%d %s] %s: %s in %s\n", p.finished, p.total, time.Since(p.started).Round(time.Second),
				key, status, time.Since(began).Round(time.Second))
		}
		return
	}
	p.draw()
}

func (p *progress) draw() {
	if p.w == nil || p.lines {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\r\033[K[%d/%d %s]", p.finished, p.total, time.Since(p.started).Round(time.Second))
	for _, s := range append(append([]string{}, results.Statuses...), "no result") {
		if n := p.counts[s]; n > 0 {
			fmt.Fprintf(&b, " %s %d", s, n)
		}
	}
	if len(p.running) > 0 {
		keys := make([]string, 0, len(p.running))
		for k := range p.running {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, " · running %s", strings.Join(keys, ", "))
	}
	line := b.String()
	if len(line) > 160 {
		line = line[:157] + "..."
	}
	io.WriteString(p.w, line)
}

func (p *progress) finish() {
	if p.w != nil && !p.lines {
		io.WriteString(p.w, "\r\033[K")
	}
}

// ErrNoEngine is returned by DockerBackend methods given no engine.
var ErrNoEngine = errors.New("no Docker engine")
