// Package analyze is the offline pipeline behind `fsmove analyze` and the
// last step of `fsmove run`:
//
//	trace ─▶ strace reader ─▶ lowering ─▶ (batches) ─▶ interpreter ─▶ detector ◀─ catalog graph
//
// Reading and lowering run in one goroutine, interpretation in another, and
// the catalog is loaded in a third, so a two-core machine keeps both cores
// busy. Batches of statements are recycled, so memory does not grow with the
// trace: only the model (bounded by distinct paths) does.
package analyze

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
	"github.com/fsmove/fsmove/puppet"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/strace"
)

// Input names what to analyze: a trace (strace text, possibly compressed, a
// -ff directory, or "-") or a hand-written FStrace program, and a catalog.
type Input struct {
	Trace   string
	FStrace string
	Catalog string
	// PathMap maps manifest directories as Puppet saw them (in the
	// container: /fsmove/modules/foo) to where the user has them
	// (./foo): resources' files are rewritten before detection, so that
	// reports point at the user's own file:line.
	PathMap map[string]string
	// PuppetGraphs is the directory where `puppet apply --graph` wrote its
	// graphs ("" for none): expanded_relationships.dot tells which
	// resource generated the ones that are not in the catalog.
	PuppetGraphs string
	// Packages is dpkg's database after the apply, as fsmove run saves it
	// ("" for none): which package depends on which (detector rule 17).
	Packages string
	// Units is systemd's view of the units after the apply, as fsmove run
	// saves it ("" for none): the aliases of each unit and the units it is
	// part of, so that a unit's work goes to the Service that names it so.
	Units string
	// Accounts are the user and group names before the apply, as fsmove
	// run saves them ("" for none): a resource that names an account that
	// another made in the run needs that one first (detector rule 6).
	Accounts string
	// SecondTrace and SecondReport are the second apply of the catalog
	// (fsmove run --idempotence): its trace and Puppet's report of it;
	// FirstReport is Puppet's report of the first apply ("" for none).
	// With SecondReport, the report has the NI findings.
	SecondTrace, SecondReport, FirstReport string
	// Links are the symbolic links the node had before the apply that the
	// model starts with (runner's RunRecord.ImageLinks): nil for a bare
	// trace.
	Links map[string]string
	// UnmetConditions are the units whose start systemd skipped, with the
	// condition not met (run.json's second apply records them).
	UnmetConditions map[string]string
	// Coverage is what the run recorded of the units it did not see at
	// work (fsmove run in systemd mode; nil otherwise): the report then
	// accounts for every Service, with the statuses of FirstReport.
	Coverage *detector.CoverageInput
}

// readPuppetGraph adds Puppet's expanded relationship graph in dir to cat.
func readPuppetGraph(cat *catalog.Catalog, dir string) error {
	f, err := os.Open(filepath.Join(dir, runner.ExpandedGraph))
	if err != nil {
		return err
	}
	defer f.Close()
	return cat.AddPuppetGraph(f)
}

// Options tune the pipeline.
type Options struct {
	Strict bool // the first malformed trace line is fatal
	// AllowUnobserved accepts Services whose daemon the trace never saw
	// at work (Report.Coverage): otherwise each makes the analysis
	// incomplete, since a missing notifier toward it cannot be seen.
	AllowUnobserved bool
	Detector        detector.Options
}

// Stats holds what the pipeline knows beyond the report's own counts
// (detector.Stats, which Run fills with the trace counts and phase times).
type Stats struct {
	Warnings     []tracer.Warning // malformed lines and other trace problems, the first ones in full
	PeakRSSBytes int64
	// Graph is the catalog's dependency graph the report was checked
	// against (for --graph-out: the findings' resources are its own).
	Graph *catalog.Graph
}

// InputError is an error in what the user gave (unreadable file, broken
// catalog, malformed line under --strict): exit status 2, not 3.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// batchSize is the number of statements handed from the lowering goroutine to
// the interpreter at a time: large enough to amortise channel costs, small
// enough to stay in cache.
const batchSize = 4096

// Run analyzes in and returns the report and its statistics.
func Run(ctx context.Context, in Input, opts Options) (*detector.Report, *Stats, error) {
	start := time.Now()
	st := &Stats{}
	defer gcForAnalysis()()

	// The catalog loads while the trace is read.
	type catalogResult struct {
		cat   *catalog.Catalog
		graph *catalog.Graph
		err   error
		took  time.Duration
	}
	catDone := make(chan catalogResult, 1)
	go func() {
		t0 := time.Now()
		cat, err := catalog.ReadFile(in.Catalog)
		var g *catalog.Graph
		if err == nil && in.PuppetGraphs != "" {
			if err = readPuppetGraph(cat, in.PuppetGraphs); err != nil {
				err = fmt.Errorf("Puppet's graphs in %s: %w", in.PuppetGraphs, err)
			}
		}
		if err == nil {
			if g, err = cat.Graph(); err != nil {
				err = fmt.Errorf("catalog %s: %w", in.Catalog, err)
			}
		}
		catDone <- catalogResult{cat, g, err, time.Since(t0)}
	}()

	var res *interp.Result
	var err error
	var tr TraceCounts
	if in.FStrace != "" {
		res, err = interpretProgram(in.FStrace, st)
	} else {
		res, err = interpretTrace(ctx, in.Trace, in.Links, opts, st, &tr)
	}
	cr := <-catDone
	if err != nil {
		return nil, st, err
	}
	if cr.err != nil {
		return nil, st, &InputError{cr.err} // names the file
	}

	st.Graph = cr.graph
	mapManifestPaths(cr.cat, in.PathMap)
	dopts := opts.Detector
	var badPackages, badUnits, badAccounts int
	if dopts.Packages, badPackages, err = parseNodeState(in.Packages, detector.ParsePackages); err != nil {
		return nil, st, err
	}
	if dopts.Units, badUnits, err = parseNodeState(in.Units, detector.ParseUnits); err != nil {
		return nil, st, err
	}
	if dopts.Accounts, badAccounts, err = parseNodeState(in.Accounts, detector.ParseAccounts); err != nil {
		return nil, st, err
	}
	var secondIncomplete []string
	if in.SecondReport != "" {
		dopts.Idempotence, secondIncomplete, err = readIdempotence(ctx, in, opts, res)
		if err != nil {
			return nil, st, err
		}
	}
	var disagree []string
	if in.Coverage != nil {
		cov := *in.Coverage
		if in.FirstReport != "" {
			if cov.Resources, err = readReport(in.FirstReport); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, st, &InputError{err}
			}
		}
		cov.Resources, disagree = reconcileReport(cov.Resources, res, cr.graph)
		dopts.Coverage = &cov
	}
	rep := detector.Detect(res, detector.CatalogGraph(cr.cat, cr.graph), dopts)
	rep.AddWarning(detector.ChangesReport, "lines of dpkg's package list not understood", int64(badPackages), in.Packages)
	rep.AddWarning(detector.ChangesReport, "lines of systemd's unit list not understood", int64(badUnits), in.Units)
	rep.AddWarning(detector.ChangesReport, "lines of the account list not understood", int64(badAccounts), in.Accounts)
	rep.AddWarning(detector.ChangesReport, "resources Puppet's report and the trace disagree on (the trace is kept: the report was rewritten, or markers were lost)",
		int64(len(disagree)), strings.Join(disagree, ", "))
	rep.Stats.TraceBytes = tr.Bytes
	rep.Stats.TraceLines = tr.Lines
	rep.Stats.Events = tr.Events
	rep.Stats.MalformedLines = tr.Malformed
	rep.Stats.BadArgs = tr.Lowering.BadArgs
	rep.Stats.UnknownCalls = tr.Lowering.Unknown
	rep.Stats.CutMarks = tr.Lowering.CutMarks
	rep.Stats.ImplicitEnds = tr.InterpWarnings.ImplicitEnds
	rep.Stats.SelfClones = tr.InterpWarnings.SelfClones
	judgeCompleteness(rep, &tr, st, cr.cat, cr.graph, in.FStrace == "")
	rep.Incomplete = append(rep.Incomplete, secondIncomplete...)
	if !opts.AllowUnobserved {
		for _, sc := range rep.Coverage.Unobserved() {
			rep.Incomplete = append(rep.Incomplete, fmt.Sprintf("%s was not observed (%s): a missing notifier toward it cannot be seen "+
				"(--allow-unobserved accepts it)", sc.Service, sc.Why))
		}
	}
	// What Puppet did not apply was not checked: said with the run's
	// failure when Puppet failed, and on its own when the only failures
	// were those a lifted condition lets happen (runner's lift.go).
	if cov := rep.Coverage; cov != nil {
		if n := len(cov.Skipped); n > 0 {
			rep.Incomplete = append(rep.Incomplete, fmt.Sprintf("%d resource(s) Puppet skipped for a failed dependency were not checked: %s", n, strings.Join(cov.Skipped, ", ")))
		}
		if n := len(cov.Failed); n > 0 {
			rep.Incomplete = append(rep.Incomplete, fmt.Sprintf("%d resource(s) Puppet failed were not checked: %s", n, strings.Join(cov.Failed, ", ")))
		}
	}
	phases := append([]detector.Phase{
		{Name: "catalog (concurrent)", Duration: cr.took},
		{Name: "read+lower (concurrent)", Duration: tr.ReadLower},
		{Name: "interpret", Duration: tr.Interpret},
	}, rep.Stats.Phases...)
	rep.Stats.Phases = append(phases, detector.Phase{Name: "total", Duration: time.Since(start)})
	st.PeakRSSBytes = peakRSS()
	rep.Stats.PeakRSSBytes = st.PeakRSSBytes
	return rep, st, nil
}

// The garbage collector's settings while an analysis runs (gcForAnalysis).
const (
	analysisGCPercent   = 400
	analysisMemoryLimit = 200 << 20
)

// gcForAnalysis lets the heap grow to five times its live data between
// collections, within a soft memory limit, while an analysis runs, and
// returns what restores the settings. The analysis allocates a string for
// every path of every event and keeps few: at Go's default (GOGC=100)
// collection took 6% of its CPU, and on two cores, with its mark worker, a
// tenth of its time (the 168 MB collectd trace, alternating runs: 0.29 s
// against 0.26 s). The limit keeps a large trace within its memory target:
// the 1 GB generated trace peaks at 237 MiB (244-258 MiB at the default).
// GOGC and GOMEMLIMIT in the environment win. The settings are the
// process's: analyses that overlap share them, the first sets them and the
// last restores them.
func gcForAnalysis() (restore func()) {
	gcSettings.Lock()
	defer gcSettings.Unlock()
	if gcSettings.analyses == 0 {
		gcSettings.restore = setGCForAnalysis()
	}
	gcSettings.analyses++
	return func() {
		gcSettings.Lock()
		defer gcSettings.Unlock()
		if gcSettings.analyses--; gcSettings.analyses == 0 {
			gcSettings.restore()
		}
	}
}

// gcSettings counts the analyses running (gcForAnalysis) and holds what
// restores the settings before the first of them.
var gcSettings struct {
	sync.Mutex
	analyses int
	restore  func()
}

// setGCForAnalysis sets the analysis's collector settings, but those the
// environment sets, and returns what restores them.
func setGCForAnalysis() (restore func()) {
	percent, limit := 0, int64(-1)
	setPercent := os.Getenv("GOGC") == ""
	if setPercent {
		percent = debug.SetGCPercent(analysisGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		limit = debug.SetMemoryLimit(analysisMemoryLimit)
	}
	return func() {
		if setPercent {
			debug.SetGCPercent(percent)
		}
		if limit >= 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}

// interpretProgram runs a hand-written FStrace program (the paper's figures).
func interpretProgram(path string, st *Stats) (*interp.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &InputError{err}
	}
	defer f.Close()
	stmts, err := fstrace.Parse(path, f)
	if err != nil {
		return nil, &InputError{err}
	}
	in := interp.New(interp.Options{})
	in.Run(stmts)
	return in.Result(), nil
}

// ReaderOptions are the strace reader's options for an analysis: only the
// calls the lowering table knows, only the arguments it reads, and no
// argument decoding for failed calls, which have no effect, except the
// failed lookups (ENOENT, ENOTDIR of a call that looks a path up), which
// lower to Missing statements. Interpret narrows these to the failed
// lookups of processes that may act for a block
// (fstrace.Lowerer.NeedsFailedArgs). The other failed calls lower to
// nothing: the reader only counts them (countDropped). The data of writes
// is decoded as the native tracers read it: the lowering reads block
// markers on fds 1 and 2 (only the lines that may mark: Marker.MayMark) and
// short writes (a pid) elsewhere; a write without data lowers to nothing,
// and the reader only counts it too.
func ReaderOptions(strict bool) strace.Options {
	return strace.Options{Strict: strict, Want: fstrace.Wanted, Args: fstrace.ArgsUsed,
		Failed: tracer.FailedLookups, ShortWrites: true, MarkerData: puppet.Marker{}.MayMark, DropDataless: true}
}

// droppedSource is a source that drops the calls the lowering would give no
// statement and counts them: failed calls (tracer.FailedLookups) and
// writes without data (DropDataless).
type droppedSource interface {
	DroppedFailed() int64
	DroppedWrites() int64
}

// countDropped counts the calls src dropped as lowered: events that gave no
// statement, failed or not.
func countDropped(src tracer.Source, events *int64, low *fstrace.Lowerer) {
	if d, ok := src.(droppedSource); ok {
		failed, writes := d.DroppedFailed(), d.DroppedWrites()
		*events += failed + writes
		low.Stats.Events += failed + writes
		low.Stats.Failed += failed
	}
}

// lookupArgsSource is a source that can be told which failed lookups'
// arguments to decode (the strace reader).
type lookupArgsSource interface {
	SetLookupArgs(func(ev *tracer.Event) bool)
}

// TraceCounts are what interpreting a trace measured.
type TraceCounts struct {
	Bytes, Lines, Events, Malformed int64
	ReadLower, Interpret            time.Duration
	// Lowering holds the lowering's counts (bad arguments, unknown calls,
	// cut log lines).
	Lowering fstrace.Stats
	// InterpWarnings are the interpreter's counts of odd input.
	InterpWarnings interp.Warnings
	// RunningMarkerWriters is the number of processes that logged a block
	// marker and had not exited at the end of the input (Puppet, in a
	// trace cut off while it ran).
	RunningMarkerWriters int
	// Filled for strace text: the reader's warnings (malformed lines
	// included), calls left unfinished at the end, a last line without
	// its newline, and the error that ended reading early ("" if none).
	ReaderWarnings int64
	Unfinished     int
	EndsMidLine    bool
	ReadErr        string
}

// interpretTrace opens a trace and interprets it; a trace that ends in a
// read error is analyzed as far as it goes, with a warning, unless strict.
func interpretTrace(ctx context.Context, path string, links map[string]string, opts Options, st *Stats, tr *TraceCounts) (*interp.Result, error) {
	r, err := strace.Open(path, ReaderOptions(opts.Strict))
	if err != nil {
		return nil, &InputError{err}
	}
	defer r.Close()
	res, readErr := Interpret(ctx, r, tr, detector.NewFilterFor(opts.Detector).Match, links)
	tr.Bytes, tr.Lines, tr.Malformed = r.Bytes(), r.Lines(), r.Malformed()
	tr.ReaderWarnings, tr.Unfinished, tr.EndsMidLine = r.WarningCount(), r.Unfinished(), r.EndsMidLine()
	st.Warnings = r.Warnings()
	if readErr != nil {
		if errors.Is(readErr, context.Canceled) {
			return nil, readErr
		}
		if opts.Strict {
			return nil, &InputError{readErr}
		}
		// A trace cut short (a killed tracer, a truncated compressed file):
		// analyze what is there and say so.
		tr.ReadErr = readErr.Error()
	}
	return res, nil
}

// Interpret reads, lowers and interprets every event of src (the strace
// reader, or a native tracer's live events): reading and lowering in this
// goroutine, interpretation in another, batches of statements recycled
// between them. It returns the model's result for what was read, and the
// error that stopped reading early, if any. It fills tr's event count and
// times (the interpreter counts statements); byte and line counts are the
// caller's. ignoreMissing, when not nil, names the absolute paths whose
// failed lookups the detector would ignore anyway (its filters): they are
// left out (fstrace.Lowerer.IgnoreMissing). links are the node's symbolic
// links before the trace (interp.Options.Links), nil when not known.
func Interpret(ctx context.Context, src tracer.Source, tr *TraceCounts, ignoreMissing func(path string) bool, links map[string]string) (*interp.Result, error) {
	full := make(chan []fstrace.Statement, 4)
	empty := make(chan []fstrace.Statement, 6)
	for i := 0; i < cap(empty); i++ {
		empty <- make([]fstrace.Statement, 0, batchSize)
	}

	// Interpreter goroutine: the model is single-threaded state.
	in := interp.New(interp.Options{Links: links})
	interpDone := make(chan struct{})
	t0 := time.Now()
	go func() {
		defer close(interpDone)
		for b := range full {
			in.Run(b)
			empty <- b[:0]
		}
	}()

	// This goroutine reads and lowers. A reader that can skip the arguments
	// of failed calls decodes those the lowering needs at this point of the
	// trace: it is asked just before the event is lowered.
	low := fstrace.NewLowerer(puppet.Marker{})
	low.IgnoreMissing = ignoreMissing
	if fs, ok := src.(lookupArgsSource); ok {
		fs.SetLookupArgs(low.NeedsFailedArgs)
	}
	batch, events, readErr := lowerEvents(ctx, src, low, <-empty, func(b []fstrace.Statement) []fstrace.Statement {
		full <- b
		return <-empty
	})
	full <- batch
	close(full)
	countDropped(src, &events, low)
	tr.ReadLower = time.Since(t0)
	<-interpDone
	tr.Interpret = time.Since(t0)
	tr.Events = events
	tr.Lowering = low.Stats
	tr.InterpWarnings = in.Warnings()
	tr.RunningMarkerWriters = low.RunningMarkerWriters()
	return in.Result(), readErr
}

// lowerEvents is the one read-and-lower loop (Interpret, Lower): it lowers
// every event of src onto batch and hands it to flush when it is nearly
// full, going on with the batch flush returns. It stops at the end of src,
// at a read error, or when ctx is done (checked every 64Ki events, so that
// an interrupt stops a long trace), and returns the last batch, the number
// of events and the error that stopped it early (nil at the end of src).
func lowerEvents(ctx context.Context, src tracer.Source, low *fstrace.Lowerer, batch []fstrace.Statement,
	flush func([]fstrace.Statement) []fstrace.Statement) ([]fstrace.Statement, int64, error) {
	var events int64
	for {
		if events&0xffff == 0 && ctx.Err() != nil {
			return batch, events, ctx.Err()
		}
		ev, err := src.Next()
		if err == io.EOF {
			return batch, events, nil
		}
		if err != nil {
			return batch, events, err
		}
		events++
		batch = low.Lower(ev, batch)
		if len(batch) >= batchSize-16 {
			batch = flush(batch)
		}
	}
}

// Lower reads the trace at path (as Run does: strace text, compressed, a
// -ff directory or "-") and writes its FStrace program to out, in the
// textual form that Input.FStrace reads back (`fsmove lower`). The program
// is the whole trace's, so it is printed once the trace is read. It returns
// the trace's counts (malformed lines skipped, the lowering's counts); an
// unreadable trace, or any read error under strict, is an *InputError.
func Lower(ctx context.Context, path string, strict bool, out io.Writer) (*TraceCounts, error) {
	r, err := strace.Open(path, ReaderOptions(strict))
	if err != nil {
		return nil, &InputError{err}
	}
	defer r.Close()
	low := fstrace.NewLowerer(puppet.Marker{})
	stmts, events, readErr := lowerEvents(ctx, r, low, nil, func(b []fstrace.Statement) []fstrace.Statement { return b })
	countDropped(r, &events, low)
	tr := &TraceCounts{Bytes: r.Bytes(), Lines: r.Lines(), Events: events, Malformed: r.Malformed(),
		Lowering: low.Stats, RunningMarkerWriters: low.RunningMarkerWriters(),
		ReaderWarnings: r.WarningCount(), Unfinished: r.Unfinished(), EndsMidLine: r.EndsMidLine()}
	switch {
	case errors.Is(readErr, context.Canceled) || errors.Is(readErr, context.DeadlineExceeded):
		return tr, readErr
	case readErr != nil:
		return tr, &InputError{readErr}
	}
	return tr, fstrace.Print(out, stmts)
}

// mapManifestPaths rewrites each resource's manifest file from the
// directory Puppet saw to the user's (the longest matching prefix wins).
func mapManifestPaths(cat *catalog.Catalog, pathMap map[string]string) {
	if len(pathMap) == 0 {
		return
	}
	for _, r := range cat.Resources {
		best := ""
		for from := range pathMap {
			if len(from) > len(best) && strings.HasPrefix(r.File, from+"/") {
				best = from
			}
		}
		if best != "" {
			r.File = filepath.Join(pathMap[best], r.File[len(best)+1:])
		}
	}
}

// peakRSS is the process's peak resident set size: VmHWM, the high-water
// mark of this process's own memory, which starts afresh at exec. It is
// not getrusage's ru_maxrss: Go starts a child with vfork semantics, so the
// child's maximum starts at its parent's peak (exec keeps the larger of
// the two), and an analysis run by "fsmove bench" would report the
// bench's memory.
func peakRSS() int64 {
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		if n, ok := vmHWM(string(data)); ok {
			return n
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024 // Linux reports KiB
}

// vmHWM reads the VmHWM line of /proc/PID/status ("VmHWM:   12345 kB").
func vmHWM(status string) (int64, bool) {
	for _, line := range strings.Split(status, "\n") {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		kb, ok := strings.CutSuffix(strings.TrimSpace(rest), " kB")
		if !ok {
			return 0, false
		}
		n, err := strconv.ParseInt(strings.TrimSpace(kb), 10, 64)
		return n * 1024, err == nil
	}
	return 0, false
}

// parseNodeState reads what fsmove run saved of the node after the apply
// (dpkg's packages, systemd's units) from file, with parse; a nil value for
// no file, and the count of lines parse did not understand.
func parseNodeState[T any](file string, parse func(io.Reader) (*T, int, error)) (*T, int, error) {
	if file == "" {
		return nil, 0, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, &InputError{err}
	}
	defer f.Close()
	v, bad, err := parse(f)
	if err != nil {
		return nil, bad, &InputError{fmt.Errorf("%s: %w", file, err)}
	}
	return v, bad, nil
}
