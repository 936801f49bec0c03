package fix

import (
	"encoding/json"
	"testing"
)

// FuzzMake: whatever the text and the locator's JSON (spans that lie, a
// file edited since), planning and applying the edits of every kind of
// target, and planting its relationship's removal or weakening, never
// panics.
func FuzzMake(f *testing.F) {
	text, data := testdataManifest(f, "cases")
	// A few of cases.json's resources and one of its arrows, not all of
	// them: the fuzzing engine slows to a stop on a 40 kB seed (measured).
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		f.Fatal(err)
	}
	m.Resources, m.Arrows = append(m.Resources[:3:3], m.Resources[8]), m.Arrows[:1]
	small, err := json.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(text, small)
	plantText, plantData := testdataManifest(f, "plant")
	f.Add(plantText, plantData)
	f.Add([]byte("class x { file { '/a': } }\n"), []byte(`{"resources":[{"offset":10,"length":15,"type":"file","bodies":[{"title":"'/a'","title_literal":"/a","title_span":{"offset":17,"length":4},"line":1,"ops":[]}]}]}`))
	f.Fuzz(func(t *testing.T, text, data []byte) {
		m, err := ParseManifests(append(append([]byte(`{"files":[`), data...), ']', '}'))
		if err != nil || len(m.Files) != 1 {
			return
		}
		sources := map[string]*Source{"cases.pp": {Text: text, Manifest: &m.Files[0]}}
		var targets []Target
		for i, r := range m.Files[0].Resources {
			for _, b := range r.Bodies {
				title := b.Title
				if b.Literal != nil {
					title = *b.Literal
				}
				res := in(r.Type, title, b.Line)
				targets = append(targets, tg(2*i+1, "MN", res, in("Service", "svc", 53)), tg(2*i+2, "MOR", pkg, res))
			}
		}
		p := Make(targets, sources)
		Apply(p.Edits, sources) // an error is an answer; a panic is not
		// Planting each target's relationship, removed and weakened (the
		// catalog's values as the source names them).
		for _, t := range targets {
			for _, how := range []Planting{Remove, Weaken} {
				edits, err := Plant(sources, t.Producer, t.Consumer, t.Kind == "MN", how)
				if err == nil {
					Apply(edits, sources)
				}
			}
		}
	})
}
