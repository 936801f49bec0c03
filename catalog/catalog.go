// Package catalog reads Puppet catalogs (JSON, Puppet 5 to 8) and builds the
// dependency graph the way Puppet builds its relationship graph, with a
// reachability index for the detector's queries; and Puppet's report of an
// apply, what became of each resource (report.go).
//
// API:
//
//	func Read(r io.Reader) (*Catalog, error)       // JSON, with or without a leading "Notice:" line
//	func ReadFile(path string) (*Catalog, error)
//	func ParseRef(s string) (Ref, error)                // a whole reference as Puppet writes it
//	func CutRef(s string) (ref Ref, rest string, err error) // a reference a person wrote, off the front of s
//	type Ref struct{ Type, Title string }                 // Type canonical: Apt::Source; Ref.Is(TypeFile)
//	func (r *Resource) Is(typ string) bool                // with the Type* constants: the one place type names live
//	func (c *Catalog) Lookup(ref string) (*Resource, bool)  // title, namevar, alias; case-insensitive type/class
//	func (c *Catalog) Generator(ref string) (*Resource, bool) // the generator of a resource made at apply time
//	func (c *Catalog) AddPuppetGraph(expanded io.Reader) error // Puppet's expanded_relationships.dot: its orderings, and Generator
//	func (c *Catalog) Graph() (*Graph, error)               // built once
//	func (g *Graph) Ordered(a, b *Resource) bool           // some ordering path a -> b
//	func (g *Graph) Notifies(a, b *Resource) bool          // a path a -> b of notify and containment hops only
//	func (g *Graph) WriteDOT(w io.Writer, highlight [][2]*Resource) error
//	func (g *Graph) IsContainer(r *Resource) bool
//	func (g *Graph) ComparePuppet(expanded io.Reader) (*PuppetComparison, error) // vs Puppet's --graph output
//	func ParseReport(r io.Reader) (*Report, error)  // last_run_report.yaml: each resource's ResourceStatus
//
// The model (graph.go, auto.go):
//   - before/require give Before edges, notify/subscribe Notify edges (which
//     also order); values are references, arrays or nested arrays.
//   - A container (stage, class, defined-type instance: any source of a
//     catalog edge) has two nodes like Puppet's admissible and completed
//     whits; edges enter at admissible and leave from completed.
//   - Automatic relationships follow Puppet 7's autorequire rules of the
//     core types (table in auto.go), skipped when an explicit edge goes the
//     other way.
//   - Everything is a set built from the whole catalog and sorted, so the
//     answers do not depend on the order of resources or edges in the file
//     (the original's bug 8).
//
// The tests check Ordered against the expanded relationship graph that
// Puppet 7.23 wrote for two real catalogs (testdata/catalogs/puppet7-*).
package catalog

import (
	"strings"
	"sync"
)

// Resource is one resource of the catalog.
type Resource struct {
	ID    int    // index in Catalog.Resources
	Type  string // capitalised as Puppet writes references: "File", "Class", "Apt::Source"
	Title string
	File  string // manifest file, "" when unknown
	Line  int    // manifest line, 0 when unknown
	// Exported: declared with @@, for other nodes to collect; the agent
	// that compiled it does not apply it.
	Exported bool
	// Params holds the resource's parameters as decoded JSON values
	// (string, float64, bool, []any, map[string]any, nil).
	Params map[string]any
}

// Ref is the reference as Puppet writes it: Type[title], e.g. File[/etc/x].
func (r *Resource) Ref() string { return r.Type + "[" + r.Title + "]" }

// The names of the types whose meaning fsmove knows, as Puppet capitalises
// them in references. Ask Resource.Is or Ref.Is with these rather than
// comparing type strings.
const (
	TypeClass      = "Class"
	TypeStage      = "Stage"
	TypeNode       = "Node"
	TypeFile       = "File"
	TypeExec       = "Exec"
	TypePackage    = "Package"
	TypeService    = "Service"
	TypeConcatFile = "Concat_file"
	TypeTidy       = "Tidy"
	TypeUser       = "User"
	TypeGroup      = "Group"
	TypeMount      = "Mount"
	TypeSchedule   = "Schedule"
	TypeFilebucket = "Filebucket"
	TypeNotify     = "Notify"
	TypeWhit       = "Whit" // Puppet's container anchors in its relationship graph
)

// Is reports whether the resource's type is exactly typ, ignoring case
// ("file" and "File" match, "Filebucket" does not: the original compared
// prefixes, bug 10 of the notes).
func (r *Resource) Is(typ string) bool { return strings.EqualFold(r.Type, typ) }

// IsFile reports whether r is a File resource.
func (r *Resource) IsFile() bool { return r.Is(TypeFile) }

// IsService reports whether r is a Service resource.
func (r *Resource) IsService() bool { return r.Is(TypeService) }

// IsPackage reports whether r is a Package resource.
func (r *Resource) IsPackage() bool { return r.Is(TypePackage) }

// IsExec reports whether r is an Exec resource.
func (r *Resource) IsExec() bool { return r.Is(TypeExec) }

// StringParam returns the parameter name when it is a string.
func (r *Resource) StringParam(name string) (string, bool) {
	s, ok := r.Params[name].(string)
	return s, ok
}

// StringsParam returns the strings of the parameter name when it is a
// string or a (nested) array of strings (Exec's creates, a resource's alias).
func (r *Resource) StringsParam(name string) []string { return stringList(r.Params[name]) }

// ExecCommand returns an Exec's command as Puppet runs it: a line for the
// shell (line), or since Puppet 6 an array of words whose first is the
// program (argv, nil for a line). Without a command parameter the title is
// the command (it is the namevar).
func (r *Resource) ExecCommand() (line string, argv []string) {
	switch c := r.Params["command"].(type) {
	case string:
		return c, nil
	case []any:
		return "", stringList(c)
	}
	return r.Title, nil
}

// Namevar returns the value of the resource's namevar (File path, Package
// name, ...) and falls back to the title, as Puppet does when the namevar
// parameter is not set.
func (r *Resource) Namevar() string {
	if p := namevarParam(strings.ToLower(r.Type)); p != "" {
		if s, ok := r.StringParam(p); ok && s != "" {
			return s
		}
	}
	return r.Title
}

// Edge is one containment edge of the catalog: Source (a stage, class or
// defined-type instance) contains Target.
type Edge struct {
	Source, Target *Resource
}

// Catalog is a decoded Puppet catalog.
type Catalog struct {
	Name        string // certname
	Environment string
	Version     string // config version, as text
	UUID        string // catalog_uuid, "" before Puppet 5
	Classes     []string

	Resources []*Resource
	Edges     []Edge // containment, in file order

	// Warnings lists what was skipped or could not be resolved while
	// reading (a resource without type or title, an edge to an unknown
	// resource, an ambiguous alias). Graph warnings are in Graph.Warnings.
	Warnings []string
	// Skipped counts the resources skipped for a missing type or title.
	Skipped int

	index map[string]indexEntry // lookup key -> resource, see lookup.go

	graphOnce sync.Once
	graph     *Graph
	graphErr  error

	// Puppet's ordering edges between catalog resources, by ID (AddPuppetGraph).
	puppetOrder [][2]int32
	// Generators of resources made at apply time (generated.go).
	generated map[string]*Resource // from Puppet's graph, by folded reference
	// generatedEdges are Puppet's ordering edges between catalog
	// resources and a generated resource (by folded reference): its own
	// autorequires (a concat File's parent directory) and its generator's.
	generatedEdges  map[string]*GeneratedEdges
	genOnce         sync.Once
	concatByPath    map[string]*Resource
	recursiveByPath map[string]*Resource
	tidyByPath      map[string]*Resource
}

// Graph returns the dependency graph, building it on the first call. When the
// graph has a dependency cycle the error is a *CycleError and the graph is
// still returned: queries then see the resources of the cycle as mutually
// ordered.
func (c *Catalog) Graph() (*Graph, error) {
	c.graphOnce.Do(func() { c.graph, c.graphErr = buildGraph(c) })
	return c.graph, c.graphErr
}
