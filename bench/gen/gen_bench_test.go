package gen

import (
	"io"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the user+system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGenerate measures generation speed into io.Discard: MB/s is bytes
// of trace per wall-clock second (the target is ≥ 300 MB/s); MB/cpu-s is per
// second of CPU used, which a busy shared machine disturbs less.
func BenchmarkGenerate(b *testing.B) {
	p := Params{Size: 64 << 20, Seed: 1}
	b.SetBytes(p.Size)
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if err := Generate(io.Discard, p); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(p.Size)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}
