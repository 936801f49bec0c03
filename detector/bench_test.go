package detector

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// benchGraph answers in O(1), like the catalog's precomputed index, so the
// benchmark measures the detector, not a fake's searches.
type benchGraph struct {
	byRef map[string]*catalog.Resource
}

func (g *benchGraph) Lookup(ref string) (*catalog.Resource, bool) {
	r, ok := g.byRef[ref]
	return r, ok
}

// Resources are ordered when their IDs share a residue mod 4: about a
// quarter of the pairs; a notify path exists when they share it mod 8.
func (g *benchGraph) Ordered(a, b *catalog.Resource) bool  { return a.ID%4 == b.ID%4 }
func (g *benchGraph) Notifies(a, b *catalog.Resource) bool { return a.ID%8 == b.ID%8 }

// syntheticRun builds a run shaped like a Puppet trace: nres resources
// (Files, Execs, Packages, Services), npaths distinct paths, most touched
// by one or two blocks, some hot paths touched by many, and a share of
// Puppet's own paths that the default filters drop.
func syntheticRun(nres, npaths int) (*interp.Result, *benchGraph) {
	rng := rand.New(rand.NewPCG(7, 11))
	g := &benchGraph{byRef: map[string]*catalog.Resource{}}
	res := &interp.Result{}
	types := []string{"File", "Exec", "Package", "Service"}
	for i := 0; i < nres; i++ {
		t := types[i%len(types)]
		title := fmt.Sprintf("/etc/app%d/conf", i)
		if t != "File" {
			title = fmt.Sprintf("%s%d", strings.ToLower(t), i)
		}
		r := &catalog.Resource{ID: i, Type: t, Title: title, File: "/code/modules/m/manifests/init.pp", Line: i + 1}
		g.byRef[r.Ref()] = r
		res.Blocks = append(res.Blocks, r.Ref())
	}
	for i := 0; i < npaths; i++ {
		var path string
		switch i % 5 {
		case 0:
			path = fmt.Sprintf("/usr/lib/ruby/vendor_ruby/puppet/x%07d.rb", i)
		case 1:
			path = fmt.Sprintf("/etc/app%d/conf.d/f%07d", i%nres, i)
		default:
			path = fmt.Sprintf("/var/lib/app/d%03d/f%07d", i%997, i)
		}
		pa := interp.PathAccesses{Path: path}
		n := 1 + rng.IntN(2)
		if rng.IntN(100) == 0 {
			n = 20 // hot path: read by many resources
		}
		for j := 0; j < n; j++ {
			a := interp.Access{Block: interp.BlockID(rng.IntN(nres))}
			ev := interp.NewEvidence("openat", int64(i*10+j))
			// Writes and reads of content, as openat's are (without
			// ContentProduced every production would be metadata only,
			// held back by rule 12).
			if j == 0 && rng.IntN(3) == 0 {
				a.Produced, a.ProducedBy, a.ContentProduced, a.Replaced, a.ReplacedBy = true, ev, true, true, ev
			} else {
				a.Consumed, a.ConsumedBy, a.ContentConsumed = true, ev, true
			}
			pa.Accesses = append(pa.Accesses, a)
		}
		res.Paths = append(res.Paths, pa)
	}
	sortPaths(res)
	return res, g
}

// BenchmarkDetect: 2,000 resources, 200,000 paths (a large Puppet run has
// ~10^4 to 10^5 distinct paths). Reports paths/s and findings.
func BenchmarkDetect(b *testing.B) {
	res, g := syntheticRun(2000, 200_000)
	b.ReportAllocs()
	var rep *Report
	for b.Loop() {
		rep = Detect(res, g, Options{})
	}
	b.ReportMetric(float64(len(res.Paths))*float64(b.N)/b.Elapsed().Seconds(), "paths/s")
	b.ReportMetric(float64(len(rep.Findings)), "findings")
	b.ReportMetric(float64(rep.Stats.RelatedPairs), "pairs")
}

// BenchmarkWriteJSON measures the JSON writer on the benchmark's findings.
func BenchmarkWriteJSON(b *testing.B) {
	res, g := syntheticRun(2000, 200_000)
	rep := Detect(res, g, Options{})
	var n int64
	for b.Loop() {
		var w countWriter
		rep.WriteJSON(&w)
		n = int64(w)
	}
	b.SetBytes(n)
	b.ReportMetric(float64(len(rep.Findings)), "findings")
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
