package fix

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// Target is one finding to fix: Producer must be applied before Consumer
// (MOR), or must also notify it (MN, Consumer the Service or Exec).
type Target struct {
	Number   int
	Kind     string // "MOR" or "MN"
	Producer *catalog.Resource
	Consumer *catalog.Resource
	// Reversed: an MN whose service is ordered before the producer today
	// (detector.Finding.Reversed): a notification would make a cycle.
	Reversed bool
}

// Edit is one change to one manifest: bytes Start..End of File replaced
// by New. Findings are the targets it fixes; Says is empty for an edit
// that is part of another, which says what both do (the arrows of a body
// realigned for its new attribute).
type Edit struct {
	File       string
	Start, End int
	New        string
	Findings   []int
	Says       string // what it does, in one line
}

// Skip is a target no edit was written for, and why.
type Skip struct {
	Finding int
	Why     string
}

// Plan is the edits of a set of targets: at most one edit per arrow and
// per resource body (several targets on one body share it), and the
// targets left alone.
type Plan struct {
	Edits   []Edit
	Skipped []Skip
	// Notes say what an edit implies beyond its finding (a defined type
	// edited for every instance).
	Notes []string
}

// Source is one manifest: its text and what the locator found in it.
type Source struct {
	Text     []byte
	Manifest *Manifest
}

// decl is a resource body found for a catalog resource.
type decl struct {
	file string
	res  *Resource
	body *Body
}

// addition is a relationship to add to a body: name => the refs.
type addition struct {
	name     string
	refs     []string
	findings []int
	from     string // the ordering attribute the refs leave (conversion)
}

// bodyKey identifies a body across targets.
type bodyKey struct {
	file string
	off  int
}

// Make plans the edits for targets over the module's manifests (sources,
// by the file names the catalog gives). Each target gets, in this order
// of preference (docs/DESIGN.md, "fsmove fix"):
//   - MN between two classes the module chains with ->: the chain
//     becomes ~> (every resource of the first then notifies the second);
//   - MN: notify => Consumer on the producer's declaration, else
//     subscribe => Producer on the consumer's;
//   - MOR: require => Producer on the consumer's declaration, else
//     before => Consumer on the producer's.
//
// An attribute the body already has is extended (a reference becomes an
// array, an array gains an element); a new one follows the body's last
// attribute in its indentation, alignment of =>, and trailing comma.
func Make(targets []Target, sources map[string]*Source) Plan {
	var p Plan
	for _, src := range sources {
		if err := src.Manifest.check(len(src.Text)); err != nil && src.Manifest.Error == "" {
			// Nothing of a file whose spans are wrong is used: as if it
			// did not parse.
			src.Manifest = &Manifest{Path: src.Manifest.Path, Error: err.Error()}
		}
	}
	arrows := map[bodyKey]*Edit{}
	adds := map[bodyKey][]*addition{}
	converts := map[bodyKey][]*conversion{}
	bodies := map[bodyKey]decl{}
	var order []bodyKey
	keep := func(d decl) bodyKey {
		k := bodyKey{d.file, d.body.TitleSpan.Offset}
		if _, ok := bodies[k]; !ok {
			bodies[k] = d
			order = append(order, k)
		}
		return k
	}
	for _, t := range targets {
		if t.Kind == "MN" && t.Reversed {
			// Puppet refuses a cycle; which of the two orders the module
			// wants is the maintainer's call, not an edit's.
			p.Skipped = append(p.Skipped, Skip{t.Number, fmt.Sprintf("%s is ordered before %s today: a notification would make a dependency cycle, so the edit is withdrawn; remove that ordering first", t.Consumer.Ref(), t.Producer.Ref())})
			continue
		}
		pd, pwhy := find(sources, t.Producer)
		cd, cwhy := find(sources, t.Consumer)
		if t.Kind == "MN" {
			if e, ok := chainArrow(sources, t.Producer, t.Consumer, pd, cd); ok {
				k := bodyKey{e.File, e.Start}
				if prev := arrows[k]; prev != nil {
					prev.Findings = append(prev.Findings, t.Number)
				} else {
					e.Findings = []int{t.Number}
					arrows[k] = &e
				}
				continue
			}
		}
		if t.Kind == "MN" {
			// The order is written already (before => Service[x] on the
			// file, or require => File[y] on the service): it becomes the
			// notification, which implies it.
			if c, ok := ordering(pd, "before", "notify", t.Consumer); ok {
				c.findings = []int{t.Number}
				k := keep(pd)
				converts[k] = append(converts[k], c)
				continue
			}
			if c, ok := ordering(cd, "require", "subscribe", t.Producer); ok {
				c.findings = []int{t.Number}
				k := keep(cd)
				converts[k] = append(converts[k], c)
				continue
			}
		}
		// The two forms of the edit, the preferred first: the body it goes
		// on, the attribute, the resource it names.
		type form struct {
			on    decl
			why   string
			name  string
			other *catalog.Resource
			od    decl
		}
		forms := []form{{cd, cwhy, "require", t.Producer, pd}, {pd, pwhy, "before", t.Consumer, cd}}
		if t.Kind == "MN" {
			forms = []form{{pd, pwhy, "notify", t.Consumer, cd}, {cd, cwhy, "subscribe", t.Producer, pd}}
		}
		var whys []string
		placed := false
		for _, f := range forms {
			if f.on.body == nil {
				whys = append(whys, f.why)
				continue
			}
			ref, why := reference(f.other, f.od, f.on)
			if why == "" {
				why = extensible(f.on.body, f.name)
			}
			if why != "" {
				whys = append(whys, why)
				continue
			}
			k := keep(f.on)
			i := slices.IndexFunc(adds[k], func(a *addition) bool { return a.name == f.name })
			if i < 0 {
				adds[k] = append(adds[k], &addition{name: f.name})
				i = len(adds[k]) - 1
			}
			a := adds[k][i]
			if !slices.Contains(a.refs, ref) {
				a.refs = append(a.refs, ref)
			}
			a.findings = append(a.findings, t.Number)
			if note := guardNote(t.Number, f.od, f.on, ref); note != "" {
				p.Notes = append(p.Notes, note)
			}
			if f.on.res.Scope != nil && f.on.res.Scope.Kind == "define" {
				p.Notes = append(p.Notes, fmt.Sprintf("finding %d: the edit is in defined type %s, so every instance of it gets %s => %s", t.Number, f.on.res.Scope.Name, f.name, ref))
			}
			placed = true
			break
		}
		if !placed {
			p.Skipped = append(p.Skipped, Skip{t.Number, strings.Join(dedupe(whys), "; ")})
		}
	}
	for _, e := range arrows {
		p.Edits = append(p.Edits, *e)
	}
	for _, k := range order {
		p.Edits = append(p.Edits, bodyEdits(bodies[k], sources[k.file].Text, adds[k], converts[k])...)
	}
	slices.SortFunc(p.Edits, func(a, b Edit) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Start, b.Start))
	})
	return p
}

func dedupe(s []string) []string {
	var out []string
	for _, x := range s {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// find returns the body that declares r, or why there is none to edit.
func find(sources map[string]*Source, r *catalog.Resource) (decl, string) {
	if r.File == "" || r.Line == 0 {
		return decl{}, r.Ref() + " has no file and line in the catalog"
	}
	src := sources[r.File]
	if src == nil {
		return decl{}, r.Ref() + " is declared in " + r.File + ", outside the module's manifests"
	}
	if src.Manifest.Error != "" {
		return decl{}, r.File + " does not parse: " + src.Manifest.Error
	}
	var found []decl
	for i := range src.Manifest.Resources {
		res := &src.Manifest.Resources[i]
		if !sameType(res.Type, r.Type) {
			continue
		}
		for j := range res.Bodies {
			b := &res.Bodies[j]
			if b.Line == r.Line && (b.Literal == nil || *b.Literal == r.Title) {
				found = append(found, decl{r.File, res, b})
			}
		}
	}
	switch len(found) {
	case 0:
		return decl{}, fmt.Sprintf("no declaration of %s at %s:%d (a resource made by a function, or a collector)", r.Ref(), r.File, r.Line)
	case 1:
		return found[0], ""
	}
	for _, d := range found {
		if d.body.Literal != nil {
			return d, ""
		}
	}
	return decl{}, fmt.Sprintf("%d declarations of %s's type at %s:%d: which one is not told", len(found), r.Ref(), r.File, r.Line)
}

// guardNote says when the edit on on names other (od), declared under a
// condition on is not under: an if or case branch, a lambda. The edit
// holds in this run (both were declared), but where the condition does not
// hold the reference names no resource and Puppet fails the catalog; the
// maintainer puts the edit under the same condition. "" when other is
// declared wherever on is (its guards are a prefix of on's), or outside
// the module.
func guardNote(number int, od, on decl, ref string) string {
	if od.res == nil || on.res == nil {
		return ""
	}
	i := 0
	for i < len(od.res.Guards) && i < len(on.res.Guards) && od.res.Guards[i] == on.res.Guards[i] {
		i++
	}
	if i == len(od.res.Guards) {
		return ""
	}
	g := od.res.Guards[i]
	where := fmt.Sprintf("a branch of the if or unless at line %d", g.Line)
	switch {
	case g.Branch == "else":
		where = fmt.Sprintf("the else of the if or unless at line %d", g.Line)
	case g.Branch == "lambda":
		where = fmt.Sprintf("the lambda at line %d (an iteration)", g.Line)
	case strings.HasPrefix(g.Branch, "option "):
		where = fmt.Sprintf("one option of the case at line %d", g.Line)
	}
	return fmt.Sprintf("finding %d: %s is declared only inside %s, and the edit is not: where that does not hold, %s names no resource and Puppet fails the catalog; put the edit under the same condition", number, ref, where, ref)
}

// sameType compares a type as written (file, ::apt::source, Apt::Source)
// with the catalog's (File, Apt::Source).
func sameType(written, catalogType string) bool {
	return strings.EqualFold(strings.TrimPrefix(written, "::"), catalogType)
}

// reference is the text that names other in an attribute of on's body:
// Type['title'], or, when other's title is computed, Type[<its title
// expression>] where that expression means at on what it means at other:
// both are declared in the same class or defined type, and the title reads
// only the parameters of that class or type ($title and $name in a type),
// or qualified variables ($facts, $apt::dir), and not inside a lambda that
// on is not in. That reference names the right resource for every
// parameter value and every instance. why says when no reference is right
// for every case the edit applies to.
func reference(other *catalog.Resource, od, on decl) (ref, why string) {
	literal := other.Type + "[" + quote(other.Title) + "]"
	if od.body == nil || od.body.Literal != nil {
		return literal, ""
	}
	if strings.HasPrefix(od.body.Title, "[") && !strings.Contains(od.body.Title, "$") {
		return literal, "" // one title of an array of plain ones: ['/a', '/b']
	}
	if sameMeaning(od, on) {
		return other.Type + "[" + od.body.Title + "]", ""
	}
	return "", fmt.Sprintf("%s's title is computed (%s at %s:%d): %s would name this run's instance only", other.Ref(), od.body.Title, od.file, od.body.Line, literal)
}

// sameMeaning reports whether od's title expression, written in on's
// body, names the same resource (see reference).
func sameMeaning(od, on decl) bool {
	ds, ns := od.res.Scope, on.res.Scope
	if ds == nil || ns == nil || ds.Kind != ns.Kind || !strings.EqualFold(ds.Name, ns.Name) || ds.Kind == "node" {
		return false
	}
	for _, g := range od.res.Guards {
		if g.Branch == "lambda" && !slices.Contains(on.res.Guards, g) {
			return false // a lambda's parameters and variables are its own
		}
	}
	for _, v := range od.body.TitleVars {
		v = strings.TrimPrefix(v, "::")
		switch {
		case strings.Contains(v, "::"), v == "facts", v == "trusted":
		case ds.Kind == "define" && (v == "title" || v == "name"):
		case slices.Contains(ds.Params, v):
		default:
			return false // a local variable: assigned where, the parser does not say
		}
	}
	return true
}

// quote writes s as a single-quoted Puppet string.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// extensible says why name cannot be set on b ("" when it can): an
// attribute set by an expression other than references and arrays of
// them (a variable, a function call) cannot be extended safely.
func extensible(b *Body, name string) string {
	for _, op := range b.Ops {
		if op.Name != name {
			continue
		}
		switch {
		case op.Operator != "=>":
			return fmt.Sprintf("%s is set with %s at line %d", name, op.Operator, b.Line)
		case op.List != nil:
			for _, e := range op.List {
				if !isRef(e.Text) {
					return fmt.Sprintf("%s => %s (line %d) holds an element that is not a reference", name, op.Value.Text, b.Line)
				}
			}
		case !isRef(op.Value.Text):
			return fmt.Sprintf("%s => %s (line %d) is not a reference fsmove can extend", name, op.Value.Text, b.Line)
		}
	}
	return ""
}

// isRef reports whether text is one resource reference, Type[...].
func isRef(text string) bool {
	open := strings.IndexByte(text, '[')
	if open <= 0 || !strings.HasSuffix(text, "]") {
		return false
	}
	for _, c := range text[:open] {
		if !(c == ':' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// chainArrow finds the arrow "a -> b" (or "b <- a") where a names p (its
// reference, or the class that declares it) and b names c the same way,
// and returns the edit that makes it notify: File['x'] -> Service['y'],
// Class['m::config'] -> Class['m::service'] (what a module that contains
// its classes chains).
func chainArrow(sources map[string]*Source, pr, cr *catalog.Resource, p, c decl) (Edit, bool) {
	a := func(text string) bool { return names(text, pr) || namesScope(text, p, c) }
	b := func(text string) bool { return names(text, cr) || namesScope(text, c, p) }
	for _, f := range sortedFiles(sources) {
		src := sources[f]
		for _, ar := range src.Manifest.Arrows {
			var to string
			switch {
			case ar.Operator == "->" && a(ar.Left.Text) && b(ar.Right.Text):
				to = "~>"
			case ar.Operator == "<-" && b(ar.Left.Text) && a(ar.Right.Text):
				to = "<~"
			default:
				continue
			}
			start, ok := operatorAt(src.Text, ar)
			if !ok {
				continue
			}
			return Edit{File: f, Start: start, End: start + 2, New: to,
				Says: fmt.Sprintf("the chain %s %s %s (line %d) becomes %s", ar.Left.Text, ar.Operator, ar.Right.Text, ar.Line, to)}, true
		}
	}
	return Edit{}, false
}

// operatorAt returns the offset of an arrow's operator in text, the first
// between its operands.
func operatorAt(text []byte, ar Arrow) (int, bool) {
	i := strings.Index(string(text[ar.Left.End():ar.Right.Offset]), ar.Operator)
	return ar.Left.End() + i, i >= 0
}

// sortedFiles are the names of sources in order: the first arrow found is
// the same in every run.
func sortedFiles(sources map[string]*Source) []string {
	files := make([]string, 0, len(sources))
	for f := range sources {
		files = append(files, f)
	}
	slices.Sort(files)
	return files
}

// namesScope reports whether a chain operand is Class[name] of the class
// that declares d, when the other resource (o) is declared in another
// class: a chain of the two classes orders every resource of one before
// every resource of the other.
func namesScope(text string, d, o decl) bool {
	if d.res == nil || o.res == nil || d.res.Scope == nil || o.res.Scope == nil || d.res.Scope.Kind != "class" || o.res.Scope.Kind != "class" || strings.EqualFold(d.res.Scope.Name, o.res.Scope.Name) {
		return false
	}
	typ, title, ok := parseRef(text)
	return ok && strings.EqualFold(typ, "Class") && strings.EqualFold(strings.TrimPrefix(title, "::"), strings.TrimPrefix(d.res.Scope.Name, "::"))
}

// names reports whether a reference written in the source names r.
func names(text string, r *catalog.Resource) bool {
	typ, title, ok := parseRef(text)
	if !ok || !sameType(typ, r.Type) {
		return false
	}
	if r.Type == "Class" {
		return strings.EqualFold(strings.TrimPrefix(title, "::"), strings.TrimPrefix(r.Title, "::"))
	}
	return title == r.Title
}

// parseRef reads a reference written with a plain title: Type['t'],
// Type["t"] (no interpolation) or Type[t]. ok is false for anything else.
func parseRef(text string) (typ, title string, ok bool) {
	text = strings.TrimSpace(text)
	open := strings.IndexByte(text, '[')
	if !isRef(text) || open < 0 {
		return "", "", false
	}
	typ, inner := text[:open], strings.TrimSpace(text[open+1:len(text)-1])
	switch {
	case len(inner) >= 2 && inner[0] == '\'' && inner[len(inner)-1] == '\'':
		body := inner[1 : len(inner)-1]
		var b strings.Builder
		for i := 0; i < len(body); i++ {
			switch {
			case body[i] == '\\' && i+1 < len(body) && (body[i+1] == '\'' || body[i+1] == '\\'):
				i++
			case body[i] == '\'':
				return "", "", false // two strings: Type['a', 'b']
			}
			b.WriteByte(body[i])
		}
		return typ, b.String(), true
	case len(inner) >= 2 && inner[0] == '"' && inner[len(inner)-1] == '"':
		body := inner[1 : len(inner)-1]
		if strings.ContainsAny(body, "$\\") {
			return "", "", false
		}
		return typ, body, true
	case inner != "" && !strings.ContainsAny(inner, "'\",$[]"):
		return typ, inner, true
	}
	return "", "", false
}

// conversion turns an ordering attribute that names the other resource
// into the notifying one: before => Service[x] becomes notify, require
// => File[y] becomes subscribe. elem is the element in an array (-1: the
// attribute holds the one reference).
type conversion struct {
	op       *Attribute
	elem     int
	to       string
	findings []int
}

// ordering finds, on d's body, the attribute from that names r, and the
// conversion of it to attribute to.
func ordering(d decl, from, to string, r *catalog.Resource) (*conversion, bool) {
	if d.body == nil {
		return nil, false
	}
	op := d.body.op(from)
	if op == nil || op.Operator != "=>" {
		return nil, false
	}
	if op.List == nil {
		if names(op.Value.Text, r) {
			return &conversion{op: op, elem: -1, to: to}, true
		}
		return nil, false
	}
	for i, e := range op.List {
		if names(e.Text, r) {
			return &conversion{op: op, elem: i, to: to}, true
		}
	}
	return nil, false
}
