package fix

import (
	"fmt"
	"slices"
	"strings"
)

// bodyEdits writes the additions to one body: an attribute the body has
// is extended where its value is; the others are inserted together after
// the body's last attribute. When the body aligns its => (a column that
// some name is padded to), the new names are padded to it too, and when a
// new name is longer, every attribute is realigned: the file's style, as
// puppet-lint's arrow_alignment check keeps it.
func bodyEdits(d decl, text []byte, adds []*addition, converts []*conversion) []Edit {
	var edits []Edit
	edits, adds = convert(d, text, adds, converts)
	var fresh []*addition
	for _, a := range adds {
		says := fmt.Sprintf("%s => %s on %s (line %d)%s", a.name, strings.Join(a.refs, ", "), d.ref(), d.body.Line, a.moved())
		if op := d.body.op(a.name); op != nil {
			edits = append(edits, extend(d.file, text, op, a.refs, a.findings, says))
		} else {
			fresh = append(fresh, a)
		}
	}
	if len(fresh) == 0 {
		return edits
	}
	return append(edits, insert(d, text, fresh)...)
}

// convert writes the conversions of one body: an ordering attribute all
// of whose references notify now is renamed (before → notify), when the
// body has no such attribute yet; otherwise the references leave their
// array (or stay, when they are its only value) and join the additions.
func convert(d decl, text []byte, adds []*addition, converts []*conversion) ([]Edit, []*addition) {
	var edits []Edit
	var ops []*Attribute
	byOp := map[*Attribute][]*conversion{}
	for _, c := range converts {
		if byOp[c.op] == nil {
			ops = append(ops, c.op)
		}
		byOp[c.op] = append(byOp[c.op], c)
	}
	for _, op := range ops {
		cs := byOp[op]
		to := cs[0].to
		var findings []int
		gone := map[int]bool{}
		for _, c := range cs {
			findings = append(findings, c.findings...)
			gone[c.elem] = true
		}
		whole := op.List == nil || len(gone) == len(op.List)
		if whole && d.body.op(to) == nil && !hasAddition(adds, to) {
			edits = append(edits, rename(d, text, op, to, findings))
			continue
		}
		// The references join the notifying attribute's addition (one per
		// name: a body cannot set an attribute twice).
		i := slices.IndexFunc(adds, func(a *addition) bool { return a.name == to })
		if i < 0 {
			adds = append(adds, &addition{name: to, from: op.Name})
			i = len(adds) - 1
		}
		add := adds[i]
		add.findings = append(add.findings, findings...)
		if op.List == nil {
			add.refs = append(add.refs, op.Value.Text) // before stays: harmless, and the value it had
		} else {
			for i, e := range op.List {
				if gone[i] {
					add.refs = append(add.refs, e.Text)
				}
			}
			if !whole {
				edits = append(edits, removeElems(d.file, text, op, gone, findings)...)
			}
		}
	}
	return edits, adds
}

func hasAddition(adds []*addition, name string) bool {
	for _, a := range adds {
		if a.name == name {
			return true
		}
	}
	return false
}

// rename renames an attribute (before => notify), keeping its => where
// it was when the gap allows.
func rename(d decl, text []byte, op *Attribute, to string, findings []int) Edit {
	gap := arrowGap(text, *op)
	pad := max(1, gap.Length-(len(to)-len(op.Name)))
	return Edit{File: d.file, Start: op.Offset, End: gap.End(), New: to + strings.Repeat(" ", pad), Findings: findings,
		Says: fmt.Sprintf("%s => %s on %s (line %d) becomes %s", op.Name, op.Value.Text, d.ref(), d.body.Line, to)}
}

// removeElems takes the gone elements out of an array: a line each when
// the array is written one element a line, else the array is rewritten
// on one line with those that stay.
func removeElems(file string, text []byte, op *Attribute, gone map[int]bool, findings []int) []Edit {
	const says = "" // part of the addition, which says where they came from
	var edits []Edit
	lines := true
	for i, e := range op.List {
		if !gone[i] {
			continue
		}
		end, _ := afterComma(text, e.End())
		if !startsLine(text, e.Offset) || end >= len(text) || text[end] != '\n' {
			lines = false
			break
		}
		start := e.Offset - len(indentOf(text, e.Offset))
		edits = append(edits, Edit{File: file, Start: start, End: end + 1, Findings: findings, Says: says})
	}
	if lines {
		return edits
	}
	var keep []string
	for i, e := range op.List {
		if !gone[i] {
			keep = append(keep, e.Text)
		}
	}
	return []Edit{{File: file, Start: op.Value.Offset, End: op.Value.End(), New: value(keep), Findings: findings, Says: says}}
}

// ref names the declaration for a reader: file { '/x': }.
func (d decl) ref() string { return d.res.Type + " { " + d.body.Title + ": }" }

// op returns the body's attribute called name, or nil.
func (b *Body) op(name string) *Attribute {
	for i := range b.Ops {
		if b.Ops[i].Name == name {
			return &b.Ops[i]
		}
	}
	return nil
}

// extend adds refs to an attribute whose value is a reference or an array
// of them (extensible said so).
func extend(file string, text []byte, op *Attribute, refs []string, findings []int, says string) Edit {
	e := Edit{File: file, Findings: findings, Says: says}
	if op.List == nil {
		// One reference becomes an array.
		e.Start, e.End = op.Value.Offset, op.Value.End()
		e.New = "[" + op.Value.Text + ", " + strings.Join(refs, ", ") + "]"
		return e
	}
	if len(op.List) == 0 {
		e.Start, e.End = op.Value.Offset, op.Value.End()
		e.New = "[" + strings.Join(refs, ", ") + "]"
		return e
	}
	last := op.List[len(op.List)-1]
	// An array written one element a line gains lines in its style;
	// one on a line gains ", ref".
	if strings.Contains(string(text[op.Value.Offset:op.List[0].Offset]), "\n") {
		indent := indentOf(text, last.Offset)
		pos, comma := afterComma(text, last.End())
		e.Start, e.End = pos, pos
		var b strings.Builder
		if !comma {
			b.WriteString(",")
		}
		for i, r := range refs {
			b.WriteString("\n" + indent + r)
			if comma || i < len(refs)-1 {
				b.WriteString(",")
			}
		}
		e.New = b.String()
		return e
	}
	e.Start, e.End = last.End(), last.End()
	e.New = ", " + strings.Join(refs, ", ")
	return e
}

// insert writes the new attributes after the body's last one (or after
// its title's colon when it has none).
func insert(d decl, text []byte, fresh []*addition) []Edit {
	var findings []int
	var says []string
	for _, a := range fresh {
		findings = append(findings, a.findings...)
		says = append(says, fmt.Sprintf("%s => %s%s", a.name, value(a.refs), a.moved()))
	}
	summary := strings.Join(says, " and ") + fmt.Sprintf(" added to %s (line %d)", d.ref(), d.body.Line)
	ops := d.body.Ops
	if len(ops) == 0 {
		colon := d.body.TitleSpan.End() + strings.IndexByte(string(text[d.body.TitleSpan.End():]), ':')
		var b strings.Builder
		rest := string(text[colon+1:])
		if line, _, _ := strings.Cut(rest, "\n"); strings.TrimSpace(line) == "" && strings.Contains(rest, "\n") {
			indent := indentOf(text, d.res.Offset) + "  "
			for _, a := range fresh {
				b.WriteString("\n" + indent + a.name + " => " + value(a.refs) + ",")
			}
		} else {
			for i, a := range fresh {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(" " + a.name + " => " + value(a.refs))
			}
		}
		return []Edit{{File: d.file, Start: colon + 1, End: colon + 1, New: b.String(), Findings: findings, Says: summary}}
	}
	last := ops[len(ops)-1]
	pos, comma := afterComma(text, last.End())
	if !startsLine(text, last.Offset) {
		// One line: file { '/x': ensure => file, notify => … }
		var b strings.Builder
		for _, a := range fresh {
			b.WriteString(", " + a.name + " => " + value(a.refs))
		}
		return []Edit{{File: d.file, Start: last.End(), End: last.End(), New: b.String(), Findings: findings, Says: summary}}
	}
	indent := indentOf(text, last.Offset)
	col, realign := alignment(text, ops, fresh)
	var edits []Edit
	if realign {
		var moved []string
		for _, op := range ops {
			if !startsLine(text, op.Offset) {
				continue
			}
			gap := arrowGap(text, op)
			if want := col - len(op.Name); gap.Length != want {
				// Part of the insertion: it says so (Says "").
				edits = append(edits, Edit{File: d.file, Start: gap.Offset, End: gap.End(), New: strings.Repeat(" ", want), Findings: findings})
				moved = append(moved, op.Name)
			}
		}
		summary += "; the => of " + strings.Join(moved, ", ") + " realigned"
	}
	line := func(a *addition) string {
		pad := 1
		if col > 0 {
			pad = col - len(a.name)
		}
		return indent + a.name + strings.Repeat(" ", pad) + "=> " + value(a.refs)
	}
	var b strings.Builder
	if nl := pos + len(blanks(text[pos:])); comma && nl < len(text) && text[nl] == '\n' {
		// After a trailing comma and the end of its line: whole new
		// lines, each with its comma, so that a diff shows only them.
		for _, a := range fresh {
			b.WriteString(line(a) + ",\n")
		}
		pos = nl + 1
	} else {
		if !comma {
			b.WriteString(",")
		}
		for i, a := range fresh {
			b.WriteString("\n" + line(a))
			if comma || i < len(fresh)-1 {
				b.WriteString(",")
			}
		}
	}
	edits = append(edits, Edit{File: d.file, Start: pos, End: pos, New: b.String(), Findings: findings, Says: summary})
	return edits
}

// moved says where an addition's references came from, if anywhere.
func (a *addition) moved() string {
	if a.from == "" {
		return ""
	}
	return " (moved from " + a.from + ")"
}

// value is one reference, or an array of several.
func value(refs []string) string {
	if len(refs) == 1 {
		return refs[0]
	}
	return "[" + strings.Join(refs, ", ") + "]"
}

// alignment returns the column (from the name's start) at which the
// body's => stand when it aligns them, 0 when it does not, and whether
// the existing attributes must move to it (a new name is longer). One
// attribute a line is aligned as far as anyone can tell: puppet-lint's
// default wants the new one aligned with it.
func alignment(text []byte, ops []Attribute, fresh []*addition) (int, bool) {
	col := -1
	for _, op := range ops {
		if !startsLine(text, op.Offset) {
			continue
		}
		c := len(op.Name) + arrowGap(text, op).Length
		if col >= 0 && c != col {
			return 0, false // not aligned: one space before each new =>
		}
		col = c
	}
	if col < 0 {
		return 0, false
	}
	want := col
	for _, a := range fresh {
		want = max(want, len(a.name)+1)
	}
	return want, want > col
}

// arrowGap is the whitespace between an attribute's name and its =>.
func arrowGap(text []byte, op Attribute) Span {
	start := op.Offset + len(op.Name)
	end := start
	for end < op.End() && (text[end] == ' ' || text[end] == '\t') {
		end++
	}
	return Span{Offset: start, Length: end - start}
}

// afterComma returns the offset just past a comma that follows pos (over
// spaces), or pos when none does.
func afterComma(text []byte, pos int) (int, bool) {
	i := pos
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i < len(text) && text[i] == ',' {
		return i + 1, true
	}
	return pos, false
}

// blanks is the spaces and tabs that start text.
func blanks(text []byte) []byte {
	i := 0
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return text[:i]
}

// startsLine reports whether only blanks precede offset on its line.
func startsLine(text []byte, offset int) bool {
	for i := offset - 1; i >= 0; i-- {
		switch text[i] {
		case '\n':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// indentOf is the blanks that start the line holding offset.
func indentOf(text []byte, offset int) string {
	start := offset
	for start > 0 && text[start-1] != '\n' {
		start--
	}
	end := start
	for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
		end++
	}
	return string(text[start:end])
}
