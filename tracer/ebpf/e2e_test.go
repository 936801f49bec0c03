package ebpf

// End-to-end checks on real Puppet runs: a container of the fsmove image
// applies a fixture module, untraced inside, while the eBPF tracer runs on
// the host filtered to the container's cgroup. The events, saved in
// strace's text form (what --save-trace does), must analyze to the same
// findings as the fixture's strace capture in testdata/runs. They follow
// cmd/fsmove's FSMOVE_E2E rules: they run when Docker answers and eBPF is
// allowed, and with FSMOVE_E2E=1 (CI) a missing Docker or eBPF fails them
// instead of skipping.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/detector/analyze"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/fsmove/fsmove/tracer/strace"
)

// requireE2E skips (or, with FSMOVE_E2E=1, fails) when Docker or eBPF is
// missing, and returns the engine.
func requireE2E(tb testing.TB) *container.Engine {
	tb.Helper()
	required := os.Getenv("FSMOVE_E2E") == "1"
	missing := func(format string, args ...any) {
		tb.Helper()
		if required {
			tb.Fatalf("FSMOVE_E2E=1 but "+format, args...)
		}
		tb.Skipf(format+" (set FSMOVE_E2E=1 to make this a failure)", args...)
	}
	if testing.Short() && !required {
		tb.Skip("e2e test skipped in -short mode")
	}
	if os.Geteuid() != 0 {
		missing("eBPF tracing needs root")
	}
	eng, err := container.Connect(context.Background())
	if err != nil {
		missing("Docker is unreachable: %v", err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng
}

// errNoEBPF marks a failure to start the tracer (as opposed to a failed run).
var errNoEBPF = errors.New("eBPF is not usable")

// applyRun is one apply of a fixture module in a fresh container.
type applyRun struct {
	took    time.Duration // puppet apply alone, wall clock
	cpu     time.Duration // CPU time of the container's processes during the apply (user+system, BPF programs included)
	hostCPU time.Duration // CPU time of this process during the apply (the event reader and writer)
	trace   string        // the saved eBPF capture ("" untraced)
	catalog string        // the catalog Puppet applied
	events  int64
	output  string // Puppet's output
}

// applyModule applies the fixture module in a fresh container, traced from
// the host when traced is set, and leaves its files in dir.
func applyModule(ctx context.Context, eng *container.Engine, module, dir string, traced bool) (*applyRun, error) {
	repo, _ := filepath.Abs("../..")
	img, err := eng.EnsureImage(ctx, container.ImageOptions{})
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	c, err := eng.Start(ctx, container.Spec{
		Image: img.ID, Hostname: "fsmove-node", Env: []string{"LANG=C.UTF-8"},
		Labels: map[string]string{"fsmove.module": module, "fsmove.test": "tracer/ebpf"},
	})
	if err != nil {
		return nil, fmt.Errorf("container: %w", err)
	}
	defer c.Remove(context.Background())

	site, err := runner.Entry{}.SitePP(module)
	if err != nil {
		return nil, err
	}
	a := container.NewArchive()
	a.AddFile("/fsmove/site.pp", []byte(site), 0o644)
	a.AddFile("/fsmove/graphs/.keep", nil, 0o644)
	a.AddDir(filepath.Join(repo, "testdata", "modules", module), "/fsmove/modules/"+module)
	data, err := a.Bytes()
	if err != nil {
		return nil, err
	}
	if err := c.CopyIn(ctx, "/", bytes.NewReader(data)); err != nil {
		return nil, err
	}

	run := &applyRun{}
	cg, err := DockerCgroup(c.ID)
	if err != nil {
		return nil, err
	}
	var tr *Tracer
	saved := make(chan error, 1)
	if traced {
		if tr, err = Start(Options{CgroupPath: cg}); err != nil {
			return nil, fmt.Errorf("%w: %v", errNoEBPF, err)
		}
		defer tr.Close()
		run.trace = filepath.Join(dir, "trace.log")
		f, err := os.Create(run.trace)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		go func() {
			w := strace.NewWriter(f)
			for {
				ev, err := tr.Next()
				if err == io.EOF {
					saved <- w.Flush()
					return
				}
				if err != nil {
					saved <- err
					return
				}
				run.events++
				if err := w.Write(ev); err != nil {
					saved <- err
					return
				}
			}
		}()
	}

	cmd := append([]string{"puppet", "apply"}, runner.PuppetApplyArgs([]string{"/fsmove/modules"})...)
	var out bytes.Buffer
	cpu0, host0 := cgroupCPU(cg), selfCPU()
	t0 := time.Now()
	status, err := c.Exec(ctx, cmd, nil, &out)
	run.took = time.Since(t0)
	run.cpu, run.hostCPU = cgroupCPU(cg)-cpu0, selfCPU()-host0
	run.output = out.String()
	if traced {
		stopErr := tr.Stop()
		if saveErr := <-saved; stopErr != nil || saveErr != nil {
			return nil, fmt.Errorf("capture: stop: %v, save: %v", stopErr, saveErr)
		}
	}
	if err != nil || !runner.PuppetSucceeded(status) {
		return nil, fmt.Errorf("puppet apply: status %d, %v\n%s", status, err, run.output)
	}

	rc, err := c.CopyOut(ctx, "/var/cache/puppet/client_data/catalog")
	if err != nil {
		return nil, err
	}
	files, err := container.Extract(rc, dir)
	rc.Close()
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		if strings.HasSuffix(name, ".json") {
			run.catalog = filepath.Join(dir, name)
		}
	}
	if run.catalog == "" {
		return nil, fmt.Errorf("no catalog among %v", files)
	}
	return run, nil
}

// findings lists a report's findings as "KIND producer consumer" lines.
func findings(rep *detector.Report) []string {
	out := []string{}
	for _, f := range rep.Findings {
		out = append(out, fmt.Sprintf("%s %s %s", f.Kind, f.Producer.Ref(), f.Consumer.Ref()))
	}
	sort.Strings(out)
	return out
}

// TestE2EFixturesSameFindingsAsStrace applies every fixture that has a
// strace capture in testdata/runs and compares the findings.
func TestE2EFixturesSameFindingsAsStrace(t *testing.T) {
	eng := requireE2E(t)
	runs, err := os.ReadDir("../../testdata/runs")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if !r.IsDir() {
			continue // README.md
		}
		module := r.Name()
		t.Run(module, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			run, err := applyModule(ctx, eng, module, t.TempDir(), true)
			if errors.Is(err, errNoEBPF) && os.Getenv("FSMOVE_E2E") != "1" {
				t.Skip(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := analyze.Run(ctx, analyze.Input{Trace: run.trace, Catalog: run.catalog}, analyze.Options{})
			if err != nil {
				t.Fatalf("analyze the eBPF capture: %v", err)
			}
			runDir := filepath.Join("../../testdata/runs", module)
			want, _, err := analyze.Run(ctx, analyze.Input{Trace: filepath.Join(runDir, "trace.log.zst"), Catalog: filepath.Join(runDir, "catalog.json")}, analyze.Options{})
			if err != nil {
				t.Fatalf("analyze the strace capture: %v", err)
			}
			t.Logf("%d events in %v, findings %v", run.events, run.took.Round(time.Millisecond), findings(got))
			if !reflect.DeepEqual(findings(got), findings(want)) {
				t.Errorf("findings differ:\neBPF:   %v\nstrace: %v", findings(got), findings(want))
			}
			// Puppet's own resources (Schedule[daily], Filebucket[puppet])
			// are blocks outside the catalog in both captures.
			if !reflect.DeepEqual(got.UnresolvedBlocks, want.UnresolvedBlocks) {
				t.Errorf("blocks unknown to the catalog: eBPF %v, strace %v", got.UnresolvedBlocks, want.UnresolvedBlocks)
			}
			if module == "mor_exec_reads_file" {
				if one := "MOR File[/etc/mor_exec_reads_file.conf] Exec[read-conf]"; !reflect.DeepEqual(findings(got), []string{one}) {
					t.Errorf("findings %v, want exactly %q", findings(got), one)
				}
			}
		})
	}
}

// cgroupCPU is the CPU time used by the processes of a cgroup v2 so far
// (cpu.stat usage_usec), or 0 when unreadable.
func cgroupCPU(dir string) time.Duration {
	data, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return time.Duration(n) * time.Microsecond
		}
	}
	return 0
}

// selfCPU is this process's CPU time so far (user+system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
