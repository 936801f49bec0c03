package ebpf

import (
	"context"
	"errors"
	"os"
	"sort"
	"testing"
	"time"
)

// BenchmarkApplyOverhead measures what tracing with eBPF costs a real
// Puppet run: each iteration applies the fixture module (default
// mn_config_service: a package install, a file, a service;
// FSMOVE_BENCH_MODULE picks another) in a fresh container twice, untraced
// then traced from the host (events saved in strace's form, as
// --save-trace does), and times puppet apply alone. It reports the medians
// and their ratio, for the wall clock and for the CPU time of the
// container's processes (which includes the BPF programs, and is steadier
// than the wall clock on a shared machine), and the CPU time of this
// process (the event reader) per traced run. Needs root and Docker, like
// the e2e tests:
//
//	go test -run '^$' -bench ApplyOverhead -benchtime 5x ./tracer/ebpf
func BenchmarkApplyOverhead(b *testing.B) {
	eng := requireE2E(b)
	module := os.Getenv("FSMOVE_BENCH_MODULE")
	if module == "" {
		module = "mn_config_service"
	}
	ctx := context.Background()
	var untraced, traced, untracedCPU, tracedCPU, readerCPU []time.Duration
	var events int64
	for i := 0; i < b.N; i++ {
		for _, withTracer := range []bool{false, true} {
			run, err := applyModule(ctx, eng, module, b.TempDir(), withTracer)
			if errors.Is(err, errNoEBPF) && os.Getenv("FSMOVE_E2E") != "1" {
				b.Skip(err)
			}
			if err != nil {
				b.Fatal(err)
			}
			if withTracer {
				traced = append(traced, run.took)
				tracedCPU = append(tracedCPU, run.cpu)
				readerCPU = append(readerCPU, run.hostCPU)
				events = run.events
			} else {
				untraced = append(untraced, run.took)
				untracedCPU = append(untracedCPU, run.cpu)
			}
			b.Logf("run %d traced=%v: wall %v, container CPU %v, fsmove CPU %v (%d events)", i, withTracer,
				run.took.Round(time.Millisecond), run.cpu.Round(time.Millisecond), run.hostCPU.Round(time.Millisecond), run.events)
		}
	}
	mu, mt := median(untraced), median(traced)
	b.ReportMetric(mu.Seconds(), "untraced-s")
	b.ReportMetric(mt.Seconds(), "ebpf-s")
	b.ReportMetric(mt.Seconds()/mu.Seconds(), "ebpf/untraced-wall")
	cu, ct := median(untracedCPU), median(tracedCPU)
	if cu > 0 {
		b.ReportMetric(ct.Seconds()/cu.Seconds(), "ebpf/untraced-cpu")
	}
	b.ReportMetric(median(readerCPU).Seconds(), "reader-cpu-s")
	b.ReportMetric(float64(events), "events")
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
