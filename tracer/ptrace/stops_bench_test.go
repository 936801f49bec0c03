package ptrace

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkStopCost traces a program making 20000 failing readlink calls
// and reports the tracing cost per call: with prediction (one stop each)
// and without (two stops each, and an event). ns/op is one traced run.
func BenchmarkStopCost(b *testing.B) {
	bin := buildC(b, "readlink_loop")
	const calls = 20000
	for _, mode := range []struct {
		name      string
		noPredict bool
	}{{"predicted", false}, {"stopped-twice", true}} {
		b.Run(mode.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tr, err := Start(context.Background(), []string{bin, strconv.Itoa(calls)}, Options{NoPredict: mode.noPredict})
				if err != nil {
					b.Fatal(err)
				}
				if code, err := tr.Wait(); code != 0 || err != nil {
					b.Fatalf("exit %d, %v", code, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
		})
	}
}
