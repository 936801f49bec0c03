package detector

import (
	"testing"

	"github.com/fsmove/fsmove/detector/detectortest"
)

// BenchmarkDetect: 2,000 resources, 200,000 paths (a large Puppet run has
// ~10^4 to 10^5 distinct paths). Reports paths/s and findings.
func BenchmarkDetect(b *testing.B) {
	res, g := detectortest.SyntheticRun(2000, 200_000)
	b.ReportAllocs()
	var rep *Report
	for b.Loop() {
		rep = Detect(res, g, Options{})
	}
	b.ReportMetric(float64(len(res.Paths))*float64(b.N)/b.Elapsed().Seconds(), "paths/s")
	b.ReportMetric(float64(len(rep.Findings)), "findings")
	b.ReportMetric(float64(rep.Stats.RelatedPairs), "pairs")
}
