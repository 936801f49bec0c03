package crosscheck

import (
	"bytes"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/fsmove/fsmove/bench/gen"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
	"github.com/fsmove/fsmove/puppet"
	"github.com/fsmove/fsmove/tracer/strace"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPipeline measures strace parsing, lowering (with puppet.Marker)
// and interpretation of a 64 MB generated trace held in memory: MB/s of
// strace text per wall second, and per CPU second (steadier on a shared
// machine). SPEC's target for the whole analysis is ≥ 450 MB/s.
func BenchmarkPipeline(b *testing.B) {
	var buf bytes.Buffer
	if err := gen.Generate(&buf, gen.Params{Size: 64 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	cpu0 := cpuTime()
	for b.Loop() {
		r := strace.NewReader(bytes.NewReader(data), strace.Options{Want: fstrace.Wanted})
		low := fstrace.NewLowerer(puppet.Marker{})
		in := interp.New(interp.Options{})
		var stmts []fstrace.Statement
		for {
			ev, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			stmts = low.Lower(ev, stmts[:0])
			in.Run(stmts)
		}
		if res := in.Result(); len(res.Paths) == 0 {
			b.Fatal("no paths")
		}
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}
