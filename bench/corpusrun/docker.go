package corpusrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsmove/fsmove/bench/results"
	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/internal/lines"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

// DockerBackend runs modules on real Docker engines and analyzes their
// traces with a child "fsmove analyze" process.
//
// The analysis runs in a child process, not in this one, so that its peak
// memory belongs to that module alone (in-process, the runtime's peak would
// be the largest of all modules so far) and a crash in one analysis does
// not end the whole bench. The child measures its peak itself (the JSON
// report's stats.peak_rss_bytes, its VmHWM): the child's rusage maximum
// would start at this process's.
type DockerBackend struct {
	Engines []*container.Engine
	// Fsmove is the fsmove binary that analyzes (os.Executable() for the
	// fsmove command itself).
	Fsmove string
}

func (b *DockerBackend) engine(i int) (*container.Engine, error) {
	if len(b.Engines) == 0 {
		return nil, ErrNoEngine
	}
	return b.Engines[i%len(b.Engines)], nil
}

// Traced is runner.Run.
func (b *DockerBackend) Traced(ctx context.Context, engine int, opts runner.Options) (*runner.RunRecord, error) {
	eng, err := b.engine(engine)
	if err != nil {
		return nil, err
	}
	return runner.Run(ctx, eng, opts)
}

// Untraced is runner.Run with Options.Untraced into the run directory's
// untraced/ subdirectory: the very same container, modules, setup steps and
// puppet apply, with no tracer, timed by the runner's apply step as the
// traced run is (it compiles first, as the traced run does, so that both
// applies read the facts the compile cached).
func (b *DockerBackend) Untraced(ctx context.Context, engine int, opts runner.Options) (results.Untraced, error) {
	eng, err := b.engine(engine)
	if err != nil {
		return results.Untraced{}, err
	}
	opts.Untraced = true
	opts.CompileFirst = true
	opts.Idempotence = false // the time of one apply
	opts.OutDir = filepath.Join(opts.OutDir, results.UntracedDir)
	opts.Force = true
	rec, err := runner.Run(ctx, eng, opts)
	if rec == nil {
		return results.Untraced{}, err
	}
	u := results.Untraced{Seconds: -1, PuppetExit: -1}
	if s, ok := rec.ApplyStep(); ok && s.OK {
		u.Seconds = s.Seconds
	}
	if rec.PuppetExit != nil {
		u.PuppetExit = *rec.PuppetExit
	}
	if rec.Status != runner.StatusOK {
		u.Error = fmt.Sprintf("untraced run: %s: %s", rec.Status, lines.First(strings.TrimSpace(rec.Error)))
	}
	return u, nil
}

func roundMillis(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}

// Confirm runs "fsmove confirm --out DIR --format json -o DIR/report.json"
// (one container at a time: the bench's workers are the parallelism) and
// reads the verdicts from the report.
func (b *DockerBackend) Confirm(ctx context.Context, dir string) (results.Confirm, error) {
	c := results.Confirm{Seconds: -1}
	report := filepath.Join(dir, results.ReportJSON)
	tmp := report + ".confirm"
	// --scope all, as Analyze.
	cmd := exec.CommandContext(ctx, b.Fsmove, "confirm", "--quiet", "--workers", "1", "--scope", "all", "--out", dir, "--format", "json", "-o", tmp)
	// Stopped (an interrupt, the module's timeout), the child is asked to
	// stop as a person would, with SIGINT, so that it removes its
	// containers; killed only if it has not ended by then.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = runner.SalvageTimeout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	c.Seconds = roundMillis(time.Since(start))
	if cmd.ProcessState != nil {
		c.Exit = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		os.Remove(tmp)
		return c, fmt.Errorf("confirmation: %w", ctx.Err())
	}
	if err != nil && c.Exit != 1 {
		os.Remove(tmp)
		c.Error = lines.First(strings.TrimSpace(stderr.String()))
		if c.Error == "" {
			c.Error = err.Error()
		}
		return c, nil
	}
	var rep struct {
		Confirm *struct {
			Confirmed, Refuted, Unknown, Applies int64
		} `json:"confirm"`
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return c, fmt.Errorf("%s: %w", tmp, err)
	}
	if rep.Confirm != nil {
		c.Confirmed, c.Refuted, c.Unknown, c.Applies = rep.Confirm.Confirmed, rep.Confirm.Refuted, rep.Confirm.Unknown, rep.Confirm.Applies
	}
	// The confirmed report replaces the analysis's: the same findings,
	// with their verdicts (findings.csv reads them from there).
	return c, os.Rename(tmp, report)
}

// reportStats is the part of fsmove analyze's JSON report the bench reads.
type reportStats struct {
	Stats struct {
		Events int64  `json:"events"`
		MOR    int64  `json:"mor"`
		MN     int64  `json:"mn"`
		NI     *int64 `json:"ni"` // with a second apply only
		// The analysis's own peak memory: not the child's rusage, whose
		// maximum starts at this process's (see puppet/analyze peakRSS).
		PeakRSSBytes int64 `json:"peak_rss_bytes"`
	} `json:"stats"`
	Coverage *struct {
		Services []struct {
			Observed bool   `json:"observed"`
			Lifted   string `json:"lifted"`
		} `json:"services"`
	} `json:"coverage"`
}

// Analyze runs "fsmove analyze --format json -o DIR/report.json" on the run
// directory's trace and catalog and reads the counts from the report.
func (b *DockerBackend) Analyze(ctx context.Context, dir string) (results.Analysis, error) {
	a := results.Analysis{Resources: -1}
	if cat, err := catalog.ReadFile(filepath.Join(dir, runner.CatalogFile)); err == nil {
		a.Resources = int64(len(cat.Resources))
	}
	report := filepath.Join(dir, results.ReportJSON)
	os.Remove(report)
	// --scope all: a study counts every fault of the run, those of the
	// module's dependencies too, which a gate on the module sets aside.
	cmd := exec.CommandContext(ctx, b.Fsmove, "analyze", "--scope", "all", "--format", "json", "-o", report,
		filepath.Join(dir, runner.TraceFile), filepath.Join(dir, runner.CatalogFile))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	a.Seconds = roundMillis(time.Since(start))
	a.PeakRSSBytes = -1
	if cmd.ProcessState != nil {
		a.Exit = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		return a, fmt.Errorf("analysis: %w", ctx.Err())
	}
	// 4: no findings, but incomplete (a Service not observed, …): the
	// report is there, and its coverage says what was not observed.
	if err != nil && a.Exit != 1 && a.Exit != 4 {
		a.Error = strings.TrimSpace(stderr.String())
		if a.Error == "" {
			a.Error = err.Error()
		}
		return a, nil
	}
	data, err := os.ReadFile(report)
	if err != nil {
		return a, err
	}
	var rs reportStats
	if err := json.Unmarshal(data, &rs); err != nil {
		return a, fmt.Errorf("%s: %w", report, err)
	}
	a.Events, a.MOR, a.MN, a.NI = rs.Stats.Events, rs.Stats.MOR, rs.Stats.MN, rs.Stats.NI
	if rs.Coverage != nil {
		c := &results.AnalysisCoverage{Services: int64(len(rs.Coverage.Services))}
		for _, s := range rs.Coverage.Services {
			switch {
			case !s.Observed:
				c.Unobserved++
			case s.Lifted != "":
				c.Lifted++
			}
		}
		a.Coverage = c
	}
	if rs.Stats.PeakRSSBytes > 0 {
		a.PeakRSSBytes = rs.Stats.PeakRSSBytes
	}
	return a, nil
}
