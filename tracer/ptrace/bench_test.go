package ptrace_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

// BenchmarkTracerOverhead applies one fixture in one container booted with
// systemd (fsmove run's default) N times untraced, under strace
// (--seccomp-bpf, the runner's filter, following PID 1 through the runner's
// apply.sh as fsmove run does), under fsmove trace (attached to PID 1 too),
// and untraced inside while fsmove's eBPF tracer follows the container's
// cgroup from the host (started and stopped by the runner's eBPF backend,
// as fsmove run does: failed lookups sent, trace.log written),
// the four in rotated order each round so that drift of
// the machine spreads evenly, and reports the median time of each and the
// median slowdown ratios against untraced. Before each apply the fixture's
// file is removed, so every apply does the same work (write the file, run
// the exec). N is FSMOVE_BENCH_RUNS (make's BENCH_RUNS, default 5);
// FSMOVE_BENCH_TRACERS (BENCH_TRACERS) keeps only the tracers it names;
// FSMOVE_BENCH_SUITE (BENCH_SUITE, default bookworm) chooses the image. Each
// tracer's slowdown is printed twice: the ratio of the medians, and the
// median of each round's ratio (paired). Run it with
//
//	make bench-tracers
//
// (go test -run '^$' -bench TracerOverhead -benchtime 1x ./tracer/ptrace).
func BenchmarkTracerOverhead(b *testing.B) {
	// Minutes of Docker work: only on request, not in "go test -bench=. ./...".
	runs, err := strconv.Atoi(os.Getenv("FSMOVE_BENCH_RUNS"))
	if err != nil || runs <= 0 {
		b.Skip("set FSMOVE_BENCH_RUNS=N (or run make bench-tracers)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	defer cancel()
	suite := os.Getenv("FSMOVE_BENCH_SUITE")
	if suite == "" {
		suite = container.DefaultSuite
	}
	c, _ := puppetContainer(ctx, b, suite, "mor_exec_reads_file")
	defer c.Remove(context.Background())

	apply := shellQuote(puppetApply) + " >/dev/null 2>&1"
	type variant struct {
		name string
		cmd  string
		host bool // traced from the host with eBPF
	}
	variants := []variant{
		{"untraced", apply, false},
		{"strace", "FSMOVE_WORKDIR=/fsmove-ptrace sh /fsmove-ptrace/apply.sh -f -s 300 -o /fsmove-ptrace/trace.log --seccomp-bpf -p 1 -e trace=" +
			runner.TraceFilter() + " -- " + shellQuote(puppetArgs) + " && [ \"$(cat /fsmove-ptrace/puppet.exit)\" != 1 ]", false},
		{"ptrace", "/fsmove-ptrace/fsmove trace --attach 1 --out /tmp/ptrace.log -- " + apply, false},
		{"ebpf", apply, true},
	}
	// FSMOVE_BENCH_TRACERS (make's BENCH_TRACERS) names the tracers to
	// time, e.g. "ebpf": the untraced apply always runs.
	if only := os.Getenv("FSMOVE_BENCH_TRACERS"); only != "" {
		want := strings.Split(only, ",")
		variants = slices.DeleteFunc(variants, func(v variant) bool {
			return v.name != "untraced" && !slices.Contains(want, v.name)
		})
		if len(variants) == 1 {
			b.Fatalf("FSMOVE_BENCH_TRACERS=%s names none of strace, ptrace, ebpf", only)
		}
	}
	hostCapture, _, err := runner.ChooseTracer("ebpf", false)
	if err != nil {
		b.Fatal(err)
	}
	traceDir := b.TempDir() // each eBPF apply's trace.log replaces the last
	times := make([][]float64, len(variants))
	// One warm-up apply: the first one fills caches (and Puppet's vardir).
	c.Exec(ctx, []string{"sh", "-c", apply}, nil, io.Discard)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for round := 0; round < runs; round++ {
			for k := range variants {
				v := (round + k) % len(variants)
				cmd := "rm -f /etc/mor_exec_reads_file.conf; " + variants[v].cmd
				var host runner.HostTrace
				if variants[v].host {
					if host, err = hostCapture.StartHost(ctx, c, traceDir, runner.DefaultMaxTrace); err != nil {
						b.Fatal(err)
					}
				}
				start := time.Now()
				status, err := c.Exec(ctx, []string{"sh", "-c", cmd}, nil, io.Discard)
				if host != nil {
					// Lost events or a cut trace make the figure meaningless.
					if st, serr := host.Stop(); serr != nil || st.Dropped > 0 || st.Outside > 0 || st.Cut {
						b.Errorf("ebpf: %v (%+v)", serr, st)
					}
				}
				d := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if status != 0 && status != 2 {
					b.Fatalf("%s: puppet apply exited %d", variants[v].name, status)
				}
				times[v] = append(times[v], d.Seconds())
			}
		}
	}
	b.StopTimer()
	base := median(times[0])
	b.ReportMetric(base, "untraced-s")
	for v := 1; v < len(variants); v++ {
		ratio := median(times[v]) / base
		// Paired: each round's traced apply against that round's
		// untraced one, which ran minutes apart at most, so that a
		// slow phase of the shared machine weighs on both.
		var paired []float64
		for r := range times[v] {
			paired = append(paired, times[v][r]/times[0][r])
		}
		b.ReportMetric(ratio, variants[v].name+"-x")
		b.ReportMetric(median(paired), variants[v].name+"-paired-x")
		fmt.Fprintf(os.Stderr, "%-8s median %.2fs over %d runs: %.3fx untraced (%.2fs); paired median %.3fx (%.3f-%.3f)\n",
			variants[v].name, median(times[v]), len(times[v]), ratio, base, median(paired), slices.Min(paired), slices.Max(paired))
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
