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
	"syscall"
	"time"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
	"github.com/fsmove/fsmove/puppet"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/strace"
)

// Input names what to analyze: a trace (strace text, possibly compressed, a
// -ff directory, or "-") or a hand-written FStrace program, and a catalog.
type Input struct {
	Trace   string
	FStrace string
	Catalog string
}

// Options tune the pipeline.
type Options struct {
	Strict   bool // the first malformed trace line is fatal
	Detector detector.Options
}

// Stats holds what the pipeline knows beyond the report's own counts
// (detector.Stats, which Run fills with the trace counts and phase times).
type Stats struct {
	Statements     int64
	Warnings       []tracer.Warning // malformed lines and other trace problems, the first ones in full
	TraceTruncated bool             // the trace ended early (a killed tracer); the report covers what it holds
	PeakRSSBytes   int64
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
		if err == nil {
			g, err = cat.Graph()
		}
		catDone <- catalogResult{cat, g, err, time.Since(t0)}
	}()

	var res *interp.Result
	var err error
	var tr traceCounts
	if in.FStrace != "" {
		res, err = interpretProgram(in.FStrace, st)
	} else {
		res, err = interpretTrace(ctx, in.Trace, opts, st, &tr)
	}
	cr := <-catDone
	if err != nil {
		return nil, st, err
	}
	if cr.err != nil {
		return nil, st, &InputError{fmt.Errorf("catalog %s: %w", in.Catalog, cr.err)}
	}

	rep := detector.Detect(res, detector.CatalogGraph(cr.cat, cr.graph), opts.Detector)
	rep.Stats.TraceBytes = tr.bytes
	rep.Stats.TraceLines = tr.lines
	rep.Stats.Events = tr.events
	rep.Stats.MalformedLines = tr.malformed
	phases := append([]detector.Phase{
		{Name: "catalog (concurrent)", Duration: cr.took},
		{Name: "read+lower (concurrent)", Duration: tr.readLower},
		{Name: "interpret", Duration: tr.interpret},
	}, rep.Stats.Phases...)
	rep.Stats.Phases = append(phases, detector.Phase{Name: "total", Duration: time.Since(start)})
	st.PeakRSSBytes = peakRSS()
	return rep, st, nil
}

// traceCounts are what reading the trace measured.
type traceCounts struct {
	bytes, lines, events, malformed int64
	readLower, interpret            time.Duration
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
	st.Statements = int64(len(stmts))
	return in.Result(), nil
}

// interpretTrace reads, lowers and interprets a trace in two goroutines.
func interpretTrace(ctx context.Context, path string, opts Options, st *Stats, tr *traceCounts) (*interp.Result, error) {
	r, err := strace.Open(path, strace.Options{Strict: opts.Strict, Want: fstrace.Wanted, Args: fstrace.ArgsUsed, SkipFailedArgs: true})
	if err != nil {
		return nil, &InputError{err}
	}
	defer r.Close()

	full := make(chan []fstrace.Statement, 4)
	empty := make(chan []fstrace.Statement, 6)
	for i := 0; i < cap(empty); i++ {
		empty <- make([]fstrace.Statement, 0, batchSize)
	}

	// Interpreter goroutine: the model is single-threaded state.
	in := interp.New(interp.Options{})
	interpDone := make(chan struct{})
	t0 := time.Now()
	go func() {
		defer close(interpDone)
		for b := range full {
			in.Run(b)
			st.Statements += int64(len(b))
			empty <- b[:0]
		}
	}()

	// This goroutine reads and lowers.
	low := fstrace.NewLowerer(puppet.Marker{})
	batch := <-empty
	var readErr error
	for {
		if tr.events&0xffff == 0 && ctx.Err() != nil {
			readErr = ctx.Err()
			break
		}
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
		tr.events++
		batch = low.Lower(ev, batch)
		if len(batch) >= batchSize-16 {
			full <- batch
			batch = <-empty
		}
	}
	full <- batch
	close(full)
	tr.readLower = time.Since(t0)
	<-interpDone
	tr.interpret = time.Since(t0)

	tr.bytes = r.Bytes()
	tr.lines = r.Lines()
	tr.malformed = r.Malformed()
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
		st.TraceTruncated = true
		st.Warnings = append(st.Warnings, tracer.Warning{Line: tr.lines, Message: "trace ends early: " + readErr.Error()})
	}
	return in.Result(), nil
}

// peakRSS is the process's peak resident set size.
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024 // Linux reports KiB
}
