package crosscheck

import (
	"bytes"
	"context"
	"github.com/fsmove/fsmove/puppet/analyze"
	"syscall"
	"testing"
	"time"

	"github.com/fsmove/fsmove/bench/gen"
	"github.com/fsmove/fsmove/tracer/strace"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPipeline measures the analysis pipeline (analyze.Interpret: strace
// parsing and lowering on one goroutine, interpretation on another) on a
// 64 MB generated trace held in memory: MB/s of
// strace text per wall second, and per CPU second (steadier on a shared
// machine). The target for the whole analysis is ≥ 450 MB/s
// (docs/DESIGN.md, "Performance targets").
func BenchmarkPipeline(b *testing.B) {
	var buf bytes.Buffer
	if err := gen.Generate(&buf, gen.Params{Size: 64 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	cpu0 := cpuTime()
	for b.Loop() {
		var tr analyze.TraceCounts
		res, err := analyze.Interpret(context.Background(), strace.NewReader(bytes.NewReader(data), analyze.ReaderOptions(true)), &tr, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Paths) == 0 {
			b.Fatal("no paths")
		}
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}
