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

// Paths in the container, as puppet/runner uses them (its constants are
// not exported): the untraced apply must run the very same command.
const (
	workDir       = "/fsmove"
	modulesDir    = workDir + "/modules"
	sitePP        = workDir + "/site.pp"
	debianModules = "/usr/share/puppet/modules"
)

// Untraced times runner.PuppetApplyArgs in a fresh container, without a
// tracer. Debian packages and module directories only: a Forge install
// would add network time to what is measured.
func (b *DockerBackend) Untraced(ctx context.Context, engine int, opts runner.Options) (results.Untraced, error) {
	eng, err := b.engine(engine)
	if err != nil {
		return results.Untraced{}, err
	}
	m := opts.Module
	if m.Kind != runner.SourceDeb && m.Kind != runner.SourceDir {
		return results.Untraced{}, fmt.Errorf("untraced runs take Debian packages and module directories, not %s", m.Kind)
	}
	site, err := opts.Entry.SitePP(m.Name)
	if err != nil {
		return results.Untraced{}, err
	}
	img, err := eng.EnsureImage(ctx, opts.Image)
	if err != nil {
		return results.Untraced{}, err
	}
	init := opts.Init
	if init == "" {
		init = container.InitSystemd
	}
	c, err := eng.Start(ctx, container.Spec{
		Image: img.ID, Hostname: runner.NodeName, Env: []string{"LANG=C.UTF-8"},
		Labels: map[string]string{"fsmove.module": m.Raw, "fsmove.bench": "untraced"},
		Init:   init,
	})
	if err != nil {
		return results.Untraced{}, err
	}
	defer c.Remove(ctx)
	if init == container.InitSystemd {
		if _, err := c.WaitBooted(ctx, 90*time.Second); err != nil {
			return results.Untraced{}, err
		}
	}

	a := container.NewArchive()
	a.AddFile(strings.TrimPrefix(sitePP, "/"), []byte(site), 0o644)
	a.AddFile(strings.TrimPrefix(workDir, "/")+"/graphs/.keep", nil, 0o644)
	modulePath := []string{}
	if m.Kind == runner.SourceDir {
		a.AddDir(m.Dir, strings.TrimPrefix(modulesDir, "/")+"/"+m.Name)
		modulePath = append(modulePath, modulesDir)
	}
	modulePath = append(modulePath, debianModules)
	data, err := a.Bytes()
	if err != nil {
		return results.Untraced{}, err
	}
	if err := c.CopyIn(ctx, "/", bytes.NewReader(data)); err != nil {
		return results.Untraced{}, err
	}
	if m.Kind == runner.SourceDeb {
		var out bytes.Buffer
		script := "apt-get update -q && apt-get install -y --no-install-recommends " + m.Package
		status, err := c.Exec(ctx, []string{"/bin/sh", "-c", script}, []string{"DEBIAN_FRONTEND=noninteractive"}, &out)
		if err != nil {
			return results.Untraced{}, err
		}
		if status != 0 {
			return results.Untraced{}, fmt.Errorf("apt-get install %s failed (status %d)", m.Package, status)
		}
	}
	cmd := append([]string{"puppet", "apply"}, runner.PuppetApplyArgs(modulePath)...)
	start := time.Now()
	status, err := c.Exec(ctx, cmd, nil, nil)
	took := time.Since(start)
	if err != nil {
		return results.Untraced{}, err
	}
	u := results.Untraced{Seconds: roundMillis(took), PuppetExit: status}
	if !runner.PuppetSucceeded(status) {
		u.Error = fmt.Sprintf("untraced puppet apply exited with %d (%s)", status, runner.PuppetOutcome(status))
	}
	return u, nil
}

func roundMillis(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}

// reportStats is the part of fsmove analyze's JSON report the bench reads.
type reportStats struct {
	Stats struct {
		Events int64 `json:"events"`
		MOR    int64 `json:"mor"`
		MN     int64 `json:"mn"`
		// The analysis's own peak memory: not the child's rusage, whose
		// maximum starts at this process's (see detector/analyze peakRSS).
		PeakRSSBytes int64 `json:"peak_rss_bytes"`
	} `json:"stats"`
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
	cmd := exec.CommandContext(ctx, b.Fsmove, "analyze", "--format", "json", "-o", report,
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
	if err != nil && a.Exit != 1 {
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
	a.Events, a.MOR, a.MN = rs.Stats.Events, rs.Stats.MOR, rs.Stats.MN
	if rs.Stats.PeakRSSBytes > 0 {
		a.PeakRSSBytes = rs.Stats.PeakRSSBytes
	}
	return a, nil
}
