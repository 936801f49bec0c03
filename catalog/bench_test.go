package catalog

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"testing"
	"time"

	"github.com/dominikbraun/graph"
)

// FuzzRead: Read never panics, and whatever it accepts can be graphed,
// queried and drawn without panicking.
func FuzzRead(f *testing.F) {
	f.Add(readTestdata(f, "app.json"))
	f.Add(readTestdata(f, "app-find.txt"))
	f.Add([]byte(`{"document_type":"Catalog","data":{"resources":[{"type":"File","title":"/a","parameters":{"require":[["File[/a]"]]}}],"edges":[{"source":"File[/a]","target":"File[/a]"}]}}`))
	f.Add([]byte(`{"resources":[{"type":"User","title":"u","parameters":{"gid":[1,"x"],"groups":[null]}},{"type":"Exec","title":"\"","parameters":{"command":[]}}]}`))
	f.Add([]byte(`{"resources":[{"type":"Mount","title":"/","parameters":{"name":5}}],"edges":null,"data":[[{}]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		g, err := c.Graph()
		if g == nil {
			if err == nil {
				t.Fatal("no graph and no error")
			}
			return
		}
		for _, a := range c.Resources {
			for _, b := range c.Resources {
				g.Ordered(a, b)
				g.Notifies(a, b)
			}
		}
		var pairs [][2]*Resource
		if len(c.Resources) > 1 {
			pairs = append(pairs, [2]*Resource{c.Resources[0], c.Resources[1]})
		}
		if err := g.WriteDOT(io.Discard, pairs); err != nil {
			t.Fatal(err)
		}
	})
}

// generatedCatalog builds a catalog of about n resources shaped like a real
// one: classes of 20 resources (directories and files, packages, services,
// execs, users), each class requiring an earlier one, files notifying the
// class's service, and execs requiring packages of other classes.
func generatedCatalog(tb testing.TB, n int) []byte {
	rng := rand.New(rand.NewSource(1))
	rs := []res{{"Stage", "main", nil}, {"Class", "main", nil}}
	edges := [][2]string{{"Stage[main]", "Class[main]"}}
	classes := (n - 2) / 21
	for k := 0; k < classes; k++ {
		class := fmt.Sprintf("Mod%d", k)
		params := map[string]any{}
		if k > 0 {
			params["require"] = fmt.Sprintf("Class[Mod%d]", rng.Intn(k))
		}
		rs = append(rs, res{"Class", class, params})
		edges = append(edges, [2]string{"Class[main]", "Class[" + class + "]"})
		dir := fmt.Sprintf("/srv/mod%d", k)
		members := []res{
			{"Package", fmt.Sprintf("pkg%d", k), nil},
			{"User", fmt.Sprintf("user%d", k), map[string]any{"gid": "users"}},
			{"File", dir, map[string]any{"ensure": "directory", "owner": fmt.Sprintf("user%d", k)}},
			{"Service", fmt.Sprintf("svc%d", k), map[string]any{"require": fmt.Sprintf("Package[pkg%d]", k)}},
		}
		for j := 0; j < 12; j++ {
			members = append(members, res{"File", fmt.Sprintf("%s/conf.d/f%d.conf", dir, j), map[string]any{
				"notify":  fmt.Sprintf("Service[svc%d]", k),
				"require": fmt.Sprintf("Package[pkg%d]", k),
			}})
		}
		for j := 0; j < 4; j++ {
			other := rng.Intn(k + 1)
			members = append(members, res{"Exec", fmt.Sprintf("run %d.%d", k, j), map[string]any{
				"command": fmt.Sprintf("/usr/bin/tool%d --x", j), "cwd": dir,
				"require": []any{fmt.Sprintf("Package[pkg%d]", other)},
			}})
		}
		for _, m := range members {
			rs = append(rs, m)
			edges = append(edges, [2]string{"Class[" + class + "]", m.typ + "[" + m.title + "]"})
		}
	}
	rs = append(rs, res{"Group", "users", nil})
	return catalogJSON(tb, rs, edges)
}

// BenchmarkGraph reads and graphs a generated 10k-resource catalog, then
// queries it. Figures: read-ms and graph-ms per build, ns per cold query (a
// new source: one search) and per warm query (memoised source).
func BenchmarkGraph(b *testing.B) {
	data := generatedCatalog(b, 10000)
	c := mustRead(b, data)
	g := mustGraph(b, c)
	fmt.Printf("BenchmarkGraph catalog: %d bytes, %d resources, %d containment edges, %d graph nodes, %d node edges\n",
		len(data), len(c.Resources), len(c.Edges), g.nodes, len(g.dst))

	b.Run("build", func(b *testing.B) {
		var readTime, graphTime time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			c, err := Read(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if _, err := c.Graph(); err != nil {
				b.Fatal(err)
			}
			readTime += t1.Sub(t0)
			graphTime += time.Since(t1)
		}
		b.ReportMetric(float64(readTime.Milliseconds())/float64(b.N), "read-ms")
		b.ReportMetric(float64(graphTime.Microseconds())/1000/float64(b.N), "graph-ms")
		b.ReportMetric(float64(len(c.Resources)), "resources")
	})

	rng := rand.New(rand.NewSource(2))
	pairs := make([][2]*Resource, 4096)
	for i := range pairs {
		pairs[i] = [2]*Resource{c.Resources[rng.Intn(len(c.Resources))], c.Resources[rng.Intn(len(c.Resources))]}
	}
	b.Run("ordered-cold", func(b *testing.B) {
		fresh := mustGraph(b, mustRead(b, data))
		src := 0
		for i := 0; i < b.N; i++ {
			if src == len(fresh.cat.Resources) {
				b.StopTimer()
				fresh = mustGraph(b, mustRead(b, data))
				src = 0
				b.StartTimer()
			}
			r := fresh.cat.Resources[src]
			fresh.Ordered(r, fresh.cat.Resources[0])
			src++
		}
	})
	b.Run("ordered-warm", func(b *testing.B) {
		for _, p := range pairs {
			g.Ordered(p[0], p[1])
		}
		b.ResetTimer()
		hits := 0
		for i := 0; i < b.N; i++ {
			p := pairs[i&(len(pairs)-1)]
			if g.Ordered(p[0], p[1]) {
				hits++
			}
		}
		b.ReportMetric(float64(hits)/float64(b.N), "true-ratio")
	})
	// For comparison in the same run: one depth-first search of
	// dominikbraun/graph over the same nodes, what a query would cost if it
	// searched the library's graph.
	b.Run("library-dfs", func(b *testing.B) {
		dg := graph.New(graph.IntHash, graph.Directed())
		for u := 0; u < g.nodes; u++ {
			_ = dg.AddVertex(u + 1)
		}
		for u := 0; u < g.nodes; u++ {
			for _, v := range g.dst[g.off[u]:g.off[u+1]] {
				_ = dg.AddEdge(u+1, int(v)+1)
			}
		}
		root := int(c.Resources[0].ID) + 1 // Stage[main]: reaches everything
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			seen := 0
			_ = graph.DFS(dg, root, func(int) bool { seen++; return false })
			if seen < len(c.Resources) {
				b.Fatalf("DFS saw %d nodes", seen)
			}
		}
	})
	b.Run("ordered-cold-root", func(b *testing.B) {
		// The same search with our adjacency: from Stage[main]'s admissible
		// whit, which reaches every node.
		for i := 0; i < b.N; i++ {
			g.search(0, false)
		}
	})
	b.Run("notifies-warm", func(b *testing.B) {
		for _, p := range pairs {
			g.Notifies(p[0], p[1])
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p := pairs[i&(len(pairs)-1)]
			g.Notifies(p[0], p[1])
		}
	})
}
