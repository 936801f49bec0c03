package catalog

import (
	"io"
	"strings"
)

// Resources generated at apply time are not in the catalog: Puppet's
// generate and eval_generate add them while the transaction runs (concat's
// File of a Concat_file, the children of a recursive File, Tidy's Files).
// Their blocks are in the trace, and what they do is their generator's
// doing: Generator finds it, from the graph Puppet wrote when it has the
// resource, else from the namevar.

// AddPuppetGraph reads the expanded relationship graph that `puppet apply
// --graph` wrote (expanded_relationships.dot), before Graph is first called.
// It keeps two things:
//
//   - Puppet's ordering edges between catalog resources, which Graph adds as
//     Auto relations: they include the autorequires of types from modules
//     (mysql_grant's File['/root/.my.cnf'], mysql_user's
//     Class['mysql::server']), which the catalog does not carry and auto.go
//     cannot know. Puppet applied this graph, so they are orderings the run
//     really had.
//   - for each node that is not in the catalog, the catalog resource with an
//     edge to it: Puppet adds an edge from the generator to each resource
//     that generate made (AdditionalResourceGenerator). eval_generate's
//     children are added after the graph is written; Generator looks at the
//     namevar first.
func (c *Catalog) AddPuppetGraph(expanded io.Reader) error {
	if c.generated == nil {
		c.generated = map[string]*Resource{}
		c.generatedEdges = map[string]*GeneratedEdges{}
	}
	return eachDotEdge(expanded, func(from, to string) {
		wa, fromName := whitOf(from)
		wb, toName := whitOf(to)
		src, okSrc := c.Lookup(fromName)
		dst, okDst := c.Lookup(toName)
		if okSrc && okDst {
			if puppetOrders(wa, wb) && src != dst {
				c.puppetOrder = append(c.puppetOrder, [2]int32{int32(src.ID), int32(dst.ID)})
			}
			return
		}
		if okSrc != okDst && puppetOrders(wa, wb) {
			c.addGeneratedEdge(src, fromName, dst, toName, okSrc)
		}
		if wa != 0 || wb != 0 || !okSrc {
			return
		}
		key := normalRef(to)
		if prev, ok := c.generated[key]; !ok || src.ID < prev.ID {
			c.generated[key] = src // the same answer whatever the file's edge order
		}
	})
}

// GeneratedEdges are Puppet's ordering edges of one generated resource with
// catalog resources: Before are ordered before it, After after it.
type GeneratedEdges struct {
	Before, After []*Resource
}

// addGeneratedEdge records an ordering edge between a catalog resource and
// a generated one (known: which end is the catalog's). A whit end stands
// for its container.
func (c *Catalog) addGeneratedEdge(src *Resource, srcName string, dst *Resource, dstName string, srcKnown bool) {
	gen := dstName
	if !srcKnown {
		gen = srcName
	}
	key := normalRef(gen)
	e := c.generatedEdges[key]
	if e == nil {
		e = &GeneratedEdges{}
		c.generatedEdges[key] = e
	}
	if srcKnown {
		e.Before = append(e.Before, src)
	} else {
		e.After = append(e.After, dst)
	}
}

// GeneratedOrder returns Puppet's ordering edges of the generated resource
// ref (which the catalog does not have) with catalog resources, from the
// graph AddPuppetGraph read: a generated File autorequires its parent
// directory's File like any File, and follows its generator. Nil when the
// graph has none.
func (c *Catalog) GeneratedOrder(ref string) *GeneratedEdges {
	return c.generatedEdges[normalRef(ref)]
}

// normalRef folds a reference's type name for the generated index.
func normalRef(ref string) string {
	r, err := ParseRef(ref)
	if err != nil {
		return ref
	}
	return r.String()
}

// Generator returns the catalog resource that generated the resource ref
// (which the catalog does not have), or false:
//   - File[p]: the Concat_file whose path (or title) is p; else the nearest
//     File above p with recurse set; else the nearest Tidy above or at p;
//   - else the resource Puppet's graph shows generating it (AddPuppetGraph).
//
// The namevar comes first because it names the generator exactly, while
// Puppet's graph also has an edge to a generated File from every resource
// the File autorequires (its owner's User, its group's Group, its parent
// directory's File), and nothing in the graph tells those from the
// generator's edge: horizon's concat File of local_settings.py, owned by
// www-data, has edges from both User[www-data] and its Concat_file.
func (c *Catalog) Generator(ref string) (*Resource, bool) {
	if r, ok := c.generatorByPath(ref); ok {
		return r, true
	}
	if r, ok := c.generated[normalRef(ref)]; ok {
		return r, true
	}
	return nil, false
}

// generatorByPath is Generator's answer from a File's path, or false.
func (c *Catalog) generatorByPath(ref string) (*Resource, bool) {
	r, err := ParseRef(ref)
	if err != nil || !r.Is(TypeFile) {
		return nil, false
	}
	path := strings.TrimRight(r.Title, "/")
	if path == "" {
		path = "/"
	}
	c.genOnce.Do(c.indexGenerators)
	if r, ok := c.concatByPath[path]; ok {
		return r, true
	}
	for dir := path; ; {
		if r, ok := c.tidyByPath[dir]; ok {
			return r, true
		}
		if dir != path {
			if r, ok := c.recursiveByPath[dir]; ok {
				return r, true
			}
		}
		if dir == "/" {
			return nil, false
		}
		i := strings.LastIndexByte(dir, '/')
		if i <= 0 {
			dir = "/"
		} else {
			dir = dir[:i]
		}
	}
}

// indexGenerators indexes the catalog's generators by path, once.
func (c *Catalog) indexGenerators() {
	c.concatByPath = map[string]*Resource{}
	c.recursiveByPath = map[string]*Resource{}
	c.tidyByPath = map[string]*Resource{}
	add := func(m map[string]*Resource, p string, r *Resource) {
		p = strings.TrimRight(p, "/")
		if p == "" {
			p = "/"
		}
		if _, ok := m[p]; !ok {
			m[p] = r
		}
	}
	for _, r := range c.Resources {
		switch {
		case r.Is(TypeConcatFile):
			p := r.Title
			if s, ok := r.StringParam("path"); ok && s != "" {
				p = s
			}
			add(c.concatByPath, p, r)
		case r.IsFile():
			if r.Recurses() {
				add(c.recursiveByPath, r.Namevar(), r)
			}
		case r.Is(TypeTidy):
			add(c.tidyByPath, r.Namevar(), r)
		}
	}
}

// Recurses reports whether a File recurses: recurse true, "true", "remote"
// or "inf"; false, "false", "no" and absence do not.
func (r *Resource) Recurses() bool {
	switch x := r.Params["recurse"].(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(x) {
		case "", "false", "no":
			return false
		}
		return true
	}
	return false
}
