package crosscheck

import (
	"bytes"
	"testing"

	"github.com/fsmove/fsmove/bench/gen"
	"github.com/fsmove/fsmove/catalog"
)

func TestCatalogGraph(t *testing.T) {
	p := gen.Params{Blocks: 400, Conflicts: 12, Seed: 21}
	var buf bytes.Buffer
	if err := gen.GenerateCatalog(&buf, p); err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Graph()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := gen.Conflicts(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != p.Conflicts {
		t.Fatalf("%d conflicts, want %d", len(cs), p.Conflicts)
	}
	for _, cf := range cs {
		prod, ok1 := c.Lookup(cf.Producer)
		cons, ok2 := c.Lookup(cf.Consumer)
		if !ok1 || !ok2 {
			t.Fatalf("%+v: resource not in the catalog", cf)
		}
		ordered := g.Ordered(prod, cons) || g.Ordered(cons, prod)
		if ordered != cf.Ordered {
			t.Errorf("%s -> %s: catalog ordered=%v, gen says %v", cf.Producer, cf.Consumer, ordered, cf.Ordered)
		}
		if n := g.Notifies(prod, cons); n != cf.Notified {
			t.Errorf("%s ~> %s: catalog notifies=%v, gen says %v", cf.Producer, cf.Consumer, n, cf.Notified)
		}
	}
}
