// Package catalog reads Puppet catalogs (JSON, Puppet 5 to 8) and builds the
// dependency graph the way Puppet builds its relationship graph, with a
// reachability index for the detector's queries.
package catalog

// Resource is one resource of the catalog.
type Resource struct {
	ID    int    // index in Catalog.Resources
	Type  string // capitalised as Puppet writes references: "File", "Class", "Apt::Source"
	Title string
	File  string // manifest file, "" when unknown
	Line  int    // manifest line, 0 when unknown
	// Params holds the resource's parameters as decoded JSON values
	// (string, float64, bool, []any, map[string]any, nil).
	Params map[string]any
}

// Ref is the reference as Puppet writes it: Type[title], e.g. File[/etc/x].
func (r *Resource) Ref() string { return r.Type + "[" + r.Title + "]" }

// API (implemented in this package):
//
//	func Read(r io.Reader) (*Catalog, error)       // JSON, with or without a leading "Notice:" line
//	func ReadFile(path string) (*Catalog, error)
//	type Catalog struct { Resources []*Resource; ... }
//	func (c *Catalog) Lookup(ref string) (*Resource, bool)  // title, namevar, alias; case-insensitive type/class
//	func (c *Catalog) Graph() (*Graph, error)               // built once
//	func (g *Graph) Ordered(a, b *Resource) bool           // some ordering path a -> b
//	func (g *Graph) Notifies(a, b *Resource) bool          // a path a -> b of notify and containment hops only
//	func (g *Graph) WriteDOT(w io.Writer, highlight [][2]*Resource) error
