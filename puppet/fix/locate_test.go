package fix

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/container/containertest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from Puppet's parser")

// TestLocateCases runs the locator with the Puppet of fsmove's image on
// testdata/cases.pp and testdata/plant.pp and wants what plan_test.go and
// plant_test.go read, testdata/cases.json and plant.json (go test -run
// TestLocateCases -update rewrites them): the unit tests plan over what
// Puppet's parser really says.
func TestLocateCases(t *testing.T) {
	eng := containertest.Engine(t)
	texts := map[string][]byte{"broken.pp": []byte("class x { file { '/a' ensure => 1 }\n")}
	for _, name := range []string{"cases", "plant"} {
		text, err := os.ReadFile(filepath.Join("testdata", name+".pp"))
		if err != nil {
			t.Fatal(err)
		}
		texts[name+".pp"] = text
	}
	got, err := Locate(context.Background(), eng, container.DefaultImage, texts)
	if err != nil {
		t.Fatal(err)
	}
	if got["broken.pp"].Error == "" || len(got["broken.pp"].Resources) != 0 {
		t.Errorf("a file that does not parse: %+v, want its error and nothing else", got["broken.pp"])
	}
	delete(texts, "broken.pp")
	// Puppet 8 (trixie's image) says the same of the same files.
	if _, err := eng.EnsureImage(context.Background(), container.ImageOptions{Suite: "trixie"}); err != nil {
		t.Fatalf("trixie's image: %v", err)
	}
	got8, err := Locate(context.Background(), eng, container.SuiteImage("trixie"), texts)
	if err != nil {
		t.Fatal(err)
	}
	for name := range texts {
		data, err := json.MarshalIndent(got[name], "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, '\n')
		golden := filepath.Join("testdata", strings.TrimSuffix(name, ".pp")+".json")
		if *update {
			if err := os.WriteFile(golden, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, want) {
			t.Errorf("Puppet's parser no longer says what %s holds (go test -run TestLocateCases -update):\n%s", golden, data)
		}
		if data8, _ := json.MarshalIndent(got8[name], "", "  "); !bytes.Equal(append(data8, '\n'), want) {
			t.Errorf("Puppet 8's parser says otherwise of %s:\n%s", name, data8)
		}
	}
}

// TestEditsParse: every edited cases.pp of plan_test.go's cases, every
// edited Forge manifest of forge_test.go's, and every plant.pp of
// plant_test.go's, parses with Puppet, and still declares every resource
// and arrow it did, but the arrow a planting removed (Puppet's parser, not
// a pattern, says so).
func TestEditsParse(t *testing.T) {
	eng := containertest.Engine(t)
	texts := map[string][]byte{}
	before := map[string]*Manifest{}
	lost := map[string]int{} // arrows removed
	for _, c := range plantCases {
		if c.err != "" {
			continue
		}
		sources := plantSource(t)
		edits, err := Plant(sources, c.first, c.then, c.notify, c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		edited, err := Apply(edits, sources)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		name := "plant: " + c.name
		texts[name], before[name] = edited["plant.pp"], sources["plant.pp"].Manifest
		if c.p == Remove && strings.HasPrefix(edits[0].Says, "the chain") {
			lost[name] = 1
		}
	}
	for _, c := range planCases {
		sources := casesSource(t)
		p := Make(c.targets, sources)
		edited, err := Apply(p.Edits, sources)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(edited) > 0 {
			texts[c.name] = edited["cases.pp"]
			before[c.name] = sources["cases.pp"].Manifest
		}
	}
	for _, c := range forgeCases {
		sources := forgeSources(t)
		edited, err := Apply(Make([]Target{c.target}, sources).Edits, sources)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for f, text := range edited {
			texts[c.name] = text
			before[c.name] = sources[f].Manifest
		}
	}
	got, err := Locate(context.Background(), eng, container.DefaultImage, texts)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range got {
		if m.Error != "" {
			t.Errorf("%s: the edited file does not parse: %s\n%s", name, m.Error, texts[name])
			continue
		}
		if b := before[name]; len(m.Resources) != len(b.Resources) || len(m.Arrows) != len(b.Arrows)-lost[name] {
			t.Errorf("%s: %d resources and %d arrows, want %d and %d", name, len(m.Resources), len(m.Arrows), len(b.Resources), len(b.Arrows)-lost[name])
		}
	}
}
