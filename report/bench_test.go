package report

import (
	"testing"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/detector/detectortest"
)

// BenchmarkJSON measures the JSON writer on the benchmark's findings.
func BenchmarkJSON(b *testing.B) {
	res, g := detectortest.SyntheticRun(2000, 200_000)
	rep := detector.Detect(res, g, detector.Options{})
	var n int64
	for b.Loop() {
		var w countWriter
		JSON(&w, rep)
		n = int64(w)
	}
	b.SetBytes(n)
	b.ReportMetric(float64(len(rep.Findings)), "findings")
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
