// Package confirm tests fsmove's findings by applying the module again,
// untraced, in fresh containers: a finding is a claim ("in the other order
// this breaks", "this service keeps stale files") and a confirmation
// shows it or refutes it.
//
// MOR: two applies of the manifest as it is (the baselines, shared by all
// MOR findings of a run) and one per finding with the other order forced
// by a relationship added to the entry manifest. The finding is confirmed
// when Puppet fails where both baselines did not (or stops failing where
// both did), or when a path of the finding that the consumer writes
// (modifies, overwrites, expunges) ends in another state (kind, mode,
// owner, content) than in the baselines: a path the consumer only reads
// ends as whichever resource writes it last leaves it, which a forced
// order may move for reasons that are not this pair's. A text file whose content
// differs between the two baselines only in some lines (the time of the
// apply in a header, as Puppet's parsed-file types write it) is compared
// on its other lines; another path that differs between them is unstable
// and not compared. Refuted when all is the same; unknown when the order cannot be
// forced (a dependency cycle, a resource Puppet cannot find).
//
// MN: one apply; then the producer's path is changed out of band (a line
// appended to a file, a directory's mode changed) and Puppet applies
// again. If Puppet restored the path and systemd did not restart the
// service (its InvocationID and start time unchanged), the service runs
// with stale state: confirmed. Restarted: refuted. A package producer, a
// path Puppet does not restore or a service that does not run: unknown.
package confirm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

// Options say how to re-apply the module of a run.
type Options struct {
	// Run are the original run's options: module, entry, module path,
	// image, init. Tracer, Then and OutDir are set per confirmation.
	Run runner.Options
	// OutDir receives one directory of artifacts per apply (baseline-1,
	// mor-1, mn-1, …): their run.json, puppet.log and catalog.
	OutDir string
	// Workers is how many containers run at once (at least 1).
	Workers int
	// Timeout bounds each apply (0: none).
	Timeout time.Duration
	// Log receives one line per finished apply.
	Log io.Writer
}

// An apply is one container of a confirmation: a baseline, a MOR
// finding's forced order or a MN finding's re-apply.
type apply struct {
	name    string
	finding *detector.Finding // nil for a baseline
	entry   runner.Entry
	// then looks at the node after Puppet's first apply.
	then func(ctx context.Context, n *runner.Node) error

	// Filled in by the run.
	outcome outcome
	mn      *detector.Confirmation // a MN apply's verdict
	seconds float64
}

// outcome is what a MOR comparison needs of one apply.
type outcome struct {
	err    error  // the apply could not be made (infrastructure, timeout)
	status string // run.json's status
	errors []string
	states map[string]PathState
}

// Run confirms findings: it sets each one's Confirmation. Only MOR and MN
// findings are tested; Run returns when every apply has ended or ctx has.
func Run(ctx context.Context, eng *container.Engine, findings []*detector.Finding, o Options) (detector.ConfirmStats, error) {
	start := time.Now()
	if o.Workers < 1 {
		o.Workers = 1
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	var sum detector.ConfirmStats
	var applies []*apply
	var mors []*apply
	var morPaths []string
	seen := map[string]bool{}
	for i, f := range findings {
		switch f.Kind {
		case detector.MOR:
			a, err := morApply(fmt.Sprintf("mor-%d", i+1), f, o.Run.Entry)
			if err != nil {
				f.Confirmation = &detector.Confirmation{Verdict: detector.Unknown, Why: err.Error()}
				continue
			}
			mors = append(mors, a)
			for _, p := range f.Paths {
				if !seen[p.Path] {
					seen[p.Path] = true
					morPaths = append(morPaths, p.Path)
				}
			}
		case detector.MN:
			if a, c := mnApply(fmt.Sprintf("mn-%d", i+1), f, o.Run.Entry); c != nil {
				f.Confirmation = c
			} else {
				applies = append(applies, a)
			}
		}
	}
	var bases []*apply
	if len(mors) > 0 {
		for i := 1; i <= 2; i++ {
			b := &apply{name: fmt.Sprintf("baseline-%d", i), entry: o.Run.Entry}
			b.then = probeThen(b, morPaths)
			bases = append(bases, b)
		}
		for _, a := range mors {
			a.then = probeThen(a, pathsOf(a.finding))
		}
	}
	// Baselines first: every MOR verdict waits for them.
	applies = append(append(bases, mors...), applies...)
	runAll(ctx, eng, applies, o)

	for _, a := range applies {
		sum.Applies++
		sum.ContainerSeconds += a.seconds
	}
	for _, a := range mors {
		c := morVerdict(a.finding, a.entry.Append, bases[0].outcome, bases[1].outcome, a.outcome)
		c.Seconds = a.seconds
		a.finding.Confirmation = &c
	}
	for _, a := range applies {
		if a.finding != nil && a.finding.Kind == detector.MN {
			c := a.mn
			if c == nil {
				c = &detector.Confirmation{Verdict: detector.Unknown, Why: whyNoVerdict(a.outcome.err)}
			}
			c.Seconds = a.seconds
			a.finding.Confirmation = c
		}
	}
	for _, f := range findings {
		if f.Confirmation != nil {
			sum.Add(f.Confirmation.Verdict)
		}
	}
	sum.Seconds = time.Since(start).Seconds()
	return sum, ctx.Err()
}

func whyNoVerdict(err error) string {
	if err == nil {
		return "the apply ended before the service could be checked"
	}
	return "the apply could not be made: " + err.Error()
}

// runAll runs the applies on o.Workers containers at once, in order.
func runAll(ctx context.Context, eng *container.Engine, applies []*apply, o Options) {
	work := make(chan *apply)
	var wg sync.WaitGroup
	var logMu sync.Mutex
	for w := 0; w < o.Workers && w < len(applies); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range work {
				runOne(ctx, eng, a, o)
				logMu.Lock()
				fmt.Fprintf(o.Log, "fsmove: confirm   %s done in %.0fs%s\n", a.name, a.seconds, applyNote(a))
				logMu.Unlock()
			}
		}()
	}
	for _, a := range applies {
		if ctx.Err() != nil {
			a.outcome.err = ctx.Err()
			continue
		}
		work <- a
	}
	close(work)
	wg.Wait()
}

func applyNote(a *apply) string {
	switch {
	case a.outcome.err != nil:
		return ": " + a.outcome.err.Error()
	case a.mn != nil:
		return ": " + string(a.mn.Verdict)
	case a.outcome.status != "":
		return " (" + a.outcome.status + ")"
	}
	return ""
}

// runOne makes one apply in a fresh container, untraced.
func runOne(ctx context.Context, eng *container.Engine, a *apply, o Options) {
	start := time.Now()
	defer func() { a.seconds = time.Since(start).Seconds() }()
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, o.Timeout, fmt.Errorf("the apply took longer than %s", o.Timeout))
		defer cancel()
	}
	opts := o.Run
	opts.Untraced = true
	opts.Idempotence = false // a confirmation applies once, and its Then looks at that apply
	opts.Entry = a.entry
	opts.OutDir = filepath.Join(o.OutDir, a.name)
	opts.Force = true
	opts.Progress = runner.NewProgress(io.Discard, true)
	opts.Log = io.Discard
	opts.Verbose = false
	opts.Hold, opts.HoldFor = "", 0 // a test's hold is the traced run's
	opts.Then = a.then
	rec, err := runner.Run(ctx, eng, opts)
	if rec != nil {
		a.outcome.status = rec.Status
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause
		}
		a.outcome.err = err
	}
}
