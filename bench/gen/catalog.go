package gen

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// Catalog JSON in the shape `puppet catalog find` writes (Puppet 7): a
// resource per entry with type, title, file, line and parameters, and
// containment edges.

type catalogJSON struct {
	Tags          []string       `json:"tags"`
	Name          string         `json:"name"`
	Version       int64          `json:"version"`
	CodeID        *string        `json:"code_id"`
	CatalogUUID   string         `json:"catalog_uuid"`
	CatalogFormat int            `json:"catalog_format"`
	Environment   string         `json:"environment"`
	Resources     []resourceJSON `json:"resources"`
	Edges         []edgeJSON     `json:"edges"`
	Classes       []string       `json:"classes"`
}

type resourceJSON struct {
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Tags       []string       `json:"tags"`
	File       string         `json:"file,omitempty"`
	Line       int            `json:"line,omitempty"`
	Exported   bool           `json:"exported"`
	Parameters map[string]any `json:"parameters,omitempty"`
}

type edgeJSON struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

// GenerateCatalog writes the catalog of the run p describes: Stage[main]
// containing Class[Settings], Class[main] and the module's classes
// Class[Gen::ModN], each containing its resources, with the resources'
// require/before/notify/subscribe parameters.
func GenerateCatalog(w io.Writer, p Params) error {
	p, err := p.withDefaults()
	if err != nil {
		return err
	}
	pl := newPlan(p)
	c := catalogJSON{
		Tags:          []string{"settings", "gen"},
		Name:          "gen.example.org",
		Version:       1700000000,
		CatalogUUID:   "6a0e6e52-2f0c-4d1e-9c84-" + strconv.FormatUint(uint64(p.Seed)&0xffffffffffff|1<<48, 16)[1:],
		CatalogFormat: 1,
		Environment:   "production",
		Classes:       []string{"settings"},
	}
	site := "/etc/puppet/code/environments/production/manifests/site.pp"
	c.Resources = append(c.Resources,
		resourceJSON{Type: "Stage", Title: "main", Tags: []string{"stage"}, Parameters: map[string]any{"name": "main"}},
		resourceJSON{Type: "Class", Title: "Settings", Tags: []string{"class", "settings"}},
		resourceJSON{Type: "Class", Title: "main", Tags: []string{"class"}, Parameters: map[string]any{"name": "main"}},
	)
	c.Edges = append(c.Edges,
		edgeJSON{"Stage[main]", "Class[Settings]"},
		edgeJSON{"Stage[main]", "Class[main]"},
	)
	for k := 0; k < pl.classes; k++ {
		name := className(k)
		lower := strings.ToLower(name)
		c.Classes = append(c.Classes, lower)
		c.Resources = append(c.Resources, resourceJSON{
			Type: "Class", Title: name, Tags: []string{"class", lower, "gen", "mod" + strconv.Itoa(k)},
			File: site, Line: 1 + k,
		})
		c.Edges = append(c.Edges, edgeJSON{"Stage[main]", "Class[" + name + "]"})
	}
	for i := range pl.resources {
		r := &pl.resources[i]
		typ := kindTypes[r.kind]
		lowerType := strings.ToLower(typ)
		params := map[string]any{}
		switch r.kind {
		case kindFile:
			params["path"] = r.title
			if r.dir {
				params["ensure"] = "directory"
			} else {
				params["ensure"] = "file"
				params["content"] = "# Managed by Puppet\n" + r.title + " = " + strconv.Itoa(r.index) + "\n"
			}
		case kindExec:
			params["command"] = "/usr/bin/gen-tool --step " + strconv.Itoa(r.index) + " > " + r.output
			params["provider"] = "shell"
		case kindPackage:
			params["ensure"] = "installed"
		case kindService:
			params["ensure"] = "running"
			params["enable"] = true
		}
		pl.addRefs(params, "require", r.require)
		pl.addRefs(params, "before", r.before)
		pl.addRefs(params, "notify", r.notify)
		pl.addRefs(params, "subscribe", r.subscribe)
		mod := "mod" + strconv.Itoa(r.class)
		c.Resources = append(c.Resources, resourceJSON{
			Type:       typ,
			Title:      r.title,
			Tags:       []string{lowerType, "class", "gen::" + mod, "gen", mod},
			File:       manifestDir + mod + ".pp",
			Line:       r.line,
			Parameters: params,
		})
		c.Edges = append(c.Edges, edgeJSON{"Class[" + className(r.class) + "]", r.ref()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(&c)
}

// addRefs sets a relationship parameter the way Puppet writes it: one
// reference as a string, several as an array.
func (pl *plan) addRefs(params map[string]any, name string, to []int) {
	switch len(to) {
	case 0:
	case 1:
		params[name] = pl.resources[to[0]].ref()
	default:
		refs := make([]string, len(to))
		for i, t := range to {
			refs[i] = pl.resources[t].ref()
		}
		params[name] = refs
	}
}
