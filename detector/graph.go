package detector

import (
	"path"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// Graph is what the detector needs from the catalog: resolving the block
// names Puppet logs to catalog resources, and the two reachability queries.
// *catalog.Catalog and *catalog.Graph together provide it, e.g.
//
//	struct{ *catalog.Catalog; *catalog.Graph }{cat, g}
type Graph interface {
	// Lookup resolves a reference such as "File[/etc/x]" or "Class[Main]".
	Lookup(ref string) (*catalog.Resource, bool)
	// Ordered reports whether an ordering path a → b exists.
	Ordered(a, b *catalog.Resource) bool
	// Notifies reports whether a path a → b of notify/containment hops exists.
	Notifies(a, b *catalog.Resource) bool
}

// ContainerGraph is a Graph that also knows which resources contain others
// (classes, stages, defined-type instances). Detect uses it when g has it;
// otherwise only Class and Stage resources count as containers.
type ContainerGraph interface {
	Graph
	IsContainer(r *catalog.Resource) bool
}

// NotifierGraph is a Graph that also lists the resources that notify a
// resource (a path of notify and containment hops to it), for rule 24.
type NotifierGraph interface {
	Graph
	Notifiers(r *catalog.Resource) []*catalog.Resource
}

// GeneratorGraph is a Graph that also knows the generators of resources
// made at apply time (catalog.Catalog.Generator): a block the catalog does
// not have is then its generator's doing.
type GeneratorGraph interface {
	Graph
	Generator(ref string) (*catalog.Resource, bool)
}

// GeneratedOrderGraph is a GeneratorGraph that also knows the orderings
// Puppet gave a generated resource (catalog.Catalog.GeneratedOrder): its own
// autorequires, which its generator does not have.
type GeneratedOrderGraph interface {
	GeneratorGraph
	// OrderedBeforeGenerated reports whether an ordering path leads from a
	// to the generated resource gen; OrderedAfterGenerated from gen to b.
	OrderedBeforeGenerated(a *catalog.Resource, gen string) bool
	OrderedAfterGenerated(gen string, b *catalog.Resource) bool
}

// UnitGraph is a Graph that also knows which Service manages a systemd
// unit (catalog.Catalog.UnitService): the accesses of a unit's processes
// (interp.UnitBlock) are that Service's.
type UnitGraph interface {
	Graph
	UnitService(unit string) (*catalog.Resource, bool)
}

// CatalogGraph adapts a catalog and its dependency graph to ContainerGraph.
func CatalogGraph(c *catalog.Catalog, g *catalog.Graph) ContainerGraph {
	return &catalogGraph{cat: c, graph: g}
}

type catalogGraph struct {
	cat   *catalog.Catalog
	graph *catalog.Graph
}

func (g *catalogGraph) Lookup(ref string) (*catalog.Resource, bool) { return g.cat.Lookup(ref) }
func (g *catalogGraph) Ordered(a, b *catalog.Resource) bool         { return g.graph.Ordered(a, b) }
func (g *catalogGraph) Notifies(a, b *catalog.Resource) bool        { return g.graph.Notifies(a, b) }
func (g *catalogGraph) IsContainer(r *catalog.Resource) bool        { return g.graph.IsContainer(r) }
func (g *catalogGraph) Notifiers(r *catalog.Resource) []*catalog.Resource {
	return g.graph.Notifiers(r)
}
func (g *catalogGraph) Resources() []*catalog.Resource { return g.cat.Resources }
func (g *catalogGraph) Generator(ref string) (*catalog.Resource, bool) {
	return g.cat.Generator(ref)
}
func (g *catalogGraph) UnitService(unit string) (*catalog.Resource, bool) {
	return g.cat.UnitService(unit)
}

func (g *catalogGraph) OrderedBeforeGenerated(a *catalog.Resource, gen string) bool {
	e := g.cat.GeneratedOrder(gen)
	return e != nil && slices.ContainsFunc(e.Before, func(c *catalog.Resource) bool { return c == a || g.graph.Ordered(a, c) })
}

func (g *catalogGraph) OrderedAfterGenerated(gen string, b *catalog.Resource) bool {
	e := g.cat.GeneratedOrder(gen)
	return e != nil && slices.ContainsFunc(e.After, func(c *catalog.Resource) bool { return c == b || g.graph.Ordered(c, b) })
}

// isContainer reports whether r's blocks are container whits. Puppet logs
// a container's admissible and completed whits under the container's name
// (Class[Main], Stage[main], Apt::Source[x]); one block holds both, so it
// runs both before and after the members, and it does no file work of its
// own: what the trace shows in it is Puppet's own business.
func isContainer(g Graph, r *catalog.Resource) bool {
	if r.Is(catalog.TypeClass) || r.Is(catalog.TypeStage) {
		return true
	}
	if cg, ok := g.(ContainerGraph); ok {
		return cg.IsContainer(r)
	}
	return false
}

// tellsCatalog reports whether a block (not a systemd unit's) can tell
// whether a catalog belongs to the trace (Stats.ResourceBlocks): not
// Puppet's default schedules and filebucket, which no catalog holds, and
// not a class, stage or node, by type alone: Class[Main], Stage[main] and
// Class[Settings] are in every catalog.
func tellsCatalog(block string) bool {
	ref, err := catalog.ParseRef(block)
	return err != nil || !(ref.IsPuppetDefault() || ref.Is(catalog.TypeClass) || ref.Is(catalog.TypeStage) || ref.Is(catalog.TypeNode))
}

// blockRole is what the detector knows about the resource behind one block.
type blockRole struct {
	res       *catalog.Resource // nil: the block is not in the catalog
	isService bool
	// notifiable: a notification makes the resource act again, so that
	// what it read must notify it (MN): a Service (a restart) or an Exec
	// with refreshonly (it runs only when notified: newaliases after the
	// aliases file, daemon-reload after a unit file).
	notifiable bool
	isPackage  bool
	// ownPath is a File resource's managed path ("" for other types);
	// with recurse, its descendants are its own too.
	ownPath string
	recurse bool
	// failure is Puppet's error line when the resource failed in this run
	// ("" otherwise): its failed lookups become observed faults.
	failure string
	// creates are paths the resource only checks, whoever made them: an
	// Exec's creates, a symlink File's target. Looking them up is not a need.
	creates []string
	// enforces: a File that can change its own path's content or existence
	// (catalog.EnforcesContent): finding it right is still producing it.
	// ensures: a File that makes its own path exist when it is missing
	// (ensure file, present, directory).
	enforces, ensures bool
	// makesPath: a File that makes its own path when it is missing (ensure
	// file, present, directory or link), which needs the path's parent
	// directory then (rule 21, parentNeeds).
	makesPath bool
	// makesEmpty: a File that makes its own path an empty file when it is
	// missing (ensure file or present, no content, source or target).
	makesEmpty bool
	// root: what the resource does runs as root (catalog.RunsAsRoot).
	root bool
	// via is the block's own name when it is a resource generated at apply
	// time, whose work is its generator's (res): Puppet ordered it by its
	// own edges too (GeneratedOrderGraph).
	via string
}

// roleOf classifies a catalog resource. Type names compare exactly as
// Puppet capitalises them, but case-insensitively to be safe; never by
// prefix (the original's "File" also matched "Filebucket", bug 10).
func roleOf(r *catalog.Resource) blockRole {
	role := blockRole{res: r, root: catalog.RunsAsRoot(r)}
	switch {
	case r.IsService():
		role.isService, role.notifiable = true, true
	case r.IsPackage():
		role.isPackage = true
	case r.IsFile():
		role.ownPath = filePath(r)
		role.recurse = r.Recurses()
		role.enforces = catalog.EnforcesContent(r)
		switch ensure, _ := r.StringParam("ensure"); ensure {
		case "file", "present":
			role.ensures, role.makesPath = true, true
			role.makesEmpty = !r.SetsContent()
		case "directory":
			role.ensures, role.makesPath = true, true
		case "link":
			role.makesPath = true
		}
		// A symlink may dangle: looking up its target is not a need.
		if t, ok := r.StringParam("target"); ok && t != "" {
			if !strings.HasPrefix(t, "/") {
				t = path.Join(path.Dir(role.ownPath), t)
			}
			role.creates = []string{path.Clean(t)}
		}
	case r.IsExec():
		role.creates = r.StringsParam("creates")
		role.notifiable = refreshOnly(r)
	case r.Is(catalog.TypeConcatFile):
		// Its generated File writes the path: the path is its own.
		role.ownPath = filePath(r)
	}
	return role
}

// runsOnce reports whether the resource is an Exec guarded by creates: it
// runs while its creates path is missing, and makes it (rule 23).
func (b *blockRole) runsOnce() bool {
	return b.res != nil && b.res.IsExec() && len(b.creates) > 0
}

// checks reports whether path is one the resource only checks (creates,
// a link's target).
func (b *blockRole) checks(path string) bool {
	for _, c := range b.creates {
		if c == path || (len(c) > 1 && strings.TrimSuffix(c, "/") == path) {
			return true
		}
	}
	return false
}

// filePath is a File resource's path: the path parameter (its namevar) or
// the title, without trailing slashes as Puppet normalises it.
func filePath(r *catalog.Resource) string {
	p := r.Title
	if s, ok := r.Params["path"].(string); ok && s != "" {
		p = s
	}
	for len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	return p
}

// ownsPath reports whether path is the File resource's own path (or a
// descendant of it when recurse is set). Exact component match, never a
// substring (the original's bug 11: /etc/foo must not own /etc/foobar).
func (b *blockRole) ownsPath(path string) bool {
	if b.ownPath == "" {
		return false
	}
	if path == b.ownPath {
		return true
	}
	if !b.recurse {
		return false
	}
	if b.ownPath == "/" {
		return strings.HasPrefix(path, "/")
	}
	return len(path) > len(b.ownPath) && path[len(b.ownPath)] == '/' && strings.HasPrefix(path, b.ownPath)
}

// onlyEnsuresDir reports whether the block is the File of path that
// manages only that the path exists, its owner and mode: no content,
// source, purge, removal or recurse (catalog.EnforcesContent).
func (b *blockRole) onlyEnsuresDir(path string) bool {
	return path == b.ownPath && !b.enforces && !b.recurse
}

// PuppetRef writes a resource reference in manifest syntax, as a user would
// type it in a fix: File['/etc/x'], Apt::Source['main'], Class['foo::bar'].
// Titles are single-quoted with ' and \ escaped; class titles are written
// lowercase, the way class names are spelled in code (Puppet compares them
// case-insensitively, and the catalog capitalises them: Class[Foo::Bar]).
func PuppetRef(r *catalog.Resource) string {
	title := r.Title
	if r.Is(catalog.TypeClass) {
		title = strings.ToLower(title)
	}
	var b strings.Builder
	b.WriteString(catalog.CanonicalType(r.Type))
	b.WriteString("['")
	for i := 0; i < len(title); i++ {
		if title[i] == '\'' || title[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(title[i])
	}
	b.WriteString("']")
	return b.String()
}

// refreshOnly reports whether Exec r runs only when notified (refreshonly
// true, as a boolean or the string Puppet also takes).
func refreshOnly(r *catalog.Resource) bool {
	switch v := r.Params["refreshonly"].(type) {
	case bool:
		return v
	case string:
		return v == "true"
	}
	return false
}
