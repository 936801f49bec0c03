package analyze

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkAnalyze runs the whole analysis (read, lower, interpret, detect
// against the catalog) on a real run: FSMOVE_BENCH_TRACE names a directory
// with trace.log (or trace.log.zst / trace.log.gz), catalog.json and,
// optionally, Puppet's graphs/. MB/s is of trace text (decompressed).
func BenchmarkAnalyze(b *testing.B) {
	dir := os.Getenv("FSMOVE_BENCH_TRACE")
	if dir == "" {
		b.Skip("set FSMOVE_BENCH_TRACE to a directory with trace.log, catalog.json and optionally graphs/")
	}
	in := Input{Catalog: filepath.Join(dir, "catalog.json")}
	for _, name := range []string{"trace.log", "trace.log.zst", "trace.log.gz"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			in.Trace = filepath.Join(dir, name)
			break
		}
	}
	if in.Trace == "" {
		b.Fatalf("%s has no trace.log", dir)
	}
	if info, err := os.Stat(filepath.Join(dir, "graphs")); err == nil && info.IsDir() {
		in.PuppetGraphs = filepath.Join(dir, "graphs")
	}
	ctx := context.Background()
	// A first run gives the text size (and warms the file cache).
	rep, _, err := Run(ctx, in, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(rep.Stats.TraceBytes)
	findings := len(rep.Findings)
	for b.Loop() {
		rep, _, err := Run(ctx, in, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Findings) != findings {
			b.Fatalf("%d findings, then %d", findings, len(rep.Findings))
		}
	}
	b.ReportMetric(float64(findings), "findings")
	b.ReportMetric(float64(rep.Stats.Events), "events")
}
