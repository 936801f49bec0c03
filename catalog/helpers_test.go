package catalog

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// res is a resource of a catalog written by a test.
type res struct {
	typ, title string
	params     map[string]any
}

// catalogJSON writes a catalog in the shape of Puppet 7's JSON: the
// top-level fields of `puppet catalog find`, resources with tags, file,
// line and exported, containment edges as {"source","target"}.
func catalogJSON(t testing.TB, resources []res, edges [][2]string) []byte {
	t.Helper()
	type jres struct {
		Type       string         `json:"type"`
		Title      string         `json:"title"`
		Tags       []string       `json:"tags"`
		File       string         `json:"file,omitempty"`
		Line       int            `json:"line,omitempty"`
		Exported   bool           `json:"exported"`
		Parameters map[string]any `json:"parameters,omitempty"`
	}
	type jedge struct {
		Source string `json:"source"`
		Target string `json:"target"`
	}
	doc := struct {
		Tags          []string `json:"tags"`
		Name          string   `json:"name"`
		Version       int      `json:"version"`
		CodeID        any      `json:"code_id"`
		CatalogUUID   string   `json:"catalog_uuid"`
		CatalogFormat int      `json:"catalog_format"`
		Environment   string   `json:"environment"`
		Resources     []jres   `json:"resources"`
		Edges         []jedge  `json:"edges"`
		Classes       []string `json:"classes"`
	}{
		Tags: []string{"settings"}, Name: "test.example.com", Version: 1700000000,
		CatalogUUID: "00000000-0000-4000-8000-000000000000", CatalogFormat: 1,
		Environment: "production", Resources: []jres{}, Edges: []jedge{},
	}
	for i, r := range resources {
		doc.Resources = append(doc.Resources, jres{
			Type: r.typ, Title: r.title, Tags: []string{strings.ToLower(r.typ)},
			File: "/etc/puppet/code/environments/production/manifests/site.pp", Line: i + 1,
			Parameters: r.params,
		})
	}
	for _, e := range edges {
		doc.Edges = append(doc.Edges, jedge{e[0], e[1]})
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// shuffled returns the catalog with resources and edges in a random order.
func shuffled(t testing.TB, data []byte, seed int64) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(seed))
	for _, key := range []string{"resources", "edges"} {
		list, _ := doc[key].([]any)
		rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustRead(t testing.TB, data []byte) *Catalog {
	t.Helper()
	c, err := Read(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return c
}

func mustGraph(t testing.TB, c *Catalog) *Graph {
	t.Helper()
	g, err := c.Graph()
	if err != nil {
		t.Fatalf("Graph: %v", err)
	}
	return g
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "catalogs", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// lookup returns the resource a reference names or fails the test.
func lookup(t testing.TB, c *Catalog, ref string) *Resource {
	t.Helper()
	r, ok := c.Lookup(ref)
	if !ok {
		t.Fatalf("Lookup(%q): not found", ref)
	}
	return r
}

// pathCheck is one expectation about the graph.
type pathCheck struct {
	from, to string
	ordered  bool // Ordered(from, to)
	notifies bool // Notifies(from, to)
}

func checkPaths(t *testing.T, c *Catalog, checks []pathCheck) {
	t.Helper()
	g := mustGraph(t, c)
	for _, ck := range checks {
		a, b := lookup(t, c, ck.from), lookup(t, c, ck.to)
		if got := g.Ordered(a, b); got != ck.ordered {
			t.Errorf("Ordered(%s, %s) = %v, want %v", ck.from, ck.to, got, ck.ordered)
		}
		if got := g.Notifies(a, b); got != ck.notifies {
			t.Errorf("Notifies(%s, %s) = %v, want %v", ck.from, ck.to, got, ck.notifies)
		}
	}
}
