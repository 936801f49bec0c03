package catalog

import (
	"fmt"
	"strings"
)

// Ref is a resource reference, Type[title]: the one parsed form of the
// references in catalogs, Puppet's logs and graphs, and waiver files.
type Ref struct {
	// Type is canonical, capitalised per segment as Puppet writes it
	// (Puppet's capitalize_segments): file and FILE are File, apt::source
	// is Apt::Source, a leading "::" is dropped.
	Type string
	// Title is the title as written (unquoted when CutRef read it quoted).
	Title string
}

// String writes the reference as Puppet does: File[/etc/x].
func (r Ref) String() string { return r.Type + "[" + r.Title + "]" }

// Is reports whether the reference names a resource of type typ, ignoring
// case: Is(TypeFile) is false for Filebucket[x].
func (r Ref) Is(typ string) bool { return strings.EqualFold(r.Type, typ) }

// IsPuppetDefault reports whether r names one of the resources Puppet adds
// at apply time, which the compiled catalog never holds: the default
// Schedule resources and Filebucket[puppet].
func (r Ref) IsPuppetDefault() bool {
	return r.Is(TypeSchedule) || r == Ref{Type: TypeFilebucket, Title: "puppet"}
}

// ParseRef reads a whole reference as Puppet writes it, in catalogs, log
// sources and graphs: Type[title], surrounding spaces ignored. Like
// Puppet (Puppet::Resource.type_and_title) the title runs from the first
// "[" to the final "]" and is taken literally, so it may hold unbalanced
// brackets and quotes: Notify[a [b]] is title "a [b]", File[x]] is "x]".
// That is why ParseRef is not CutRef with nothing left over: CutRef must
// find where a reference ends inside a longer line. The title may not be
// empty (Puppet refuses empty titles).
func ParseRef(s string) (Ref, error) {
	s = strings.TrimSpace(s)
	typ, open, err := refType(s)
	if err != nil {
		return Ref{}, err
	}
	if !strings.HasSuffix(s, "]") || len(s) == open+1 {
		return Ref{}, fmt.Errorf("reference %q: does not end with ']'", s)
	}
	title := s[open+1 : len(s)-1]
	if title == "" {
		return Ref{}, fmt.Errorf("reference %q: empty title", s)
	}
	return Ref{Type: typ, Title: title}, nil
}

// CutRef reads one reference a person wrote at the front of s (leading
// spaces skipped) and returns it with the text after it. Its end must be
// found inside a longer line, so the title is either quoted in manifest
// syntax, File['/etc/x'] or Exec["a \"b\""] (\ escapes the quote and
// itself; the quotes are removed), or runs to the "]" that balances the
// opening "[", so that it may hold spaces and balanced brackets:
// Exec[echo [a] b]. The reference must be followed by a space, a tab or
// the end of s.
func CutRef(s string) (ref Ref, rest string, err error) {
	s = strings.TrimLeft(s, " \t")
	typ, open, err := refType(s)
	if err != nil {
		return Ref{}, "", err
	}
	title, end, ok := quotedTitle(s, open)
	if !ok {
		title, end, ok = bracketTitle(s, open)
	}
	if !ok {
		return Ref{}, "", fmt.Errorf("unbalanced brackets in %q", s)
	}
	if title == "" {
		return Ref{}, "", fmt.Errorf("reference %q: empty title", s[:end])
	}
	if end < len(s) && s[end] != ' ' && s[end] != '\t' {
		return Ref{}, "", fmt.Errorf("unexpected %q after %s", s[end], s[:end])
	}
	return Ref{Type: typ, Title: title}, s[end:], nil
}

// refType reads the type name at the front of s and the "[" after it
// (spaces between them allowed): the canonical type and the index of "[".
func refType(s string) (typ string, open int, err error) {
	n := TypeNameLen(s)
	if n == 0 {
		return "", 0, fmt.Errorf("expected Type[title] at %q", firstWord(s))
	}
	open = n
	for open < len(s) && (s[open] == ' ' || s[open] == '\t') {
		open++
	}
	if open == len(s) || s[open] != '[' {
		if i := strings.IndexByte(s, '['); i > 0 && !strings.ContainsAny(s[:i], " \t") {
			return "", 0, fmt.Errorf("bad type name %q", s[:i])
		}
		return "", 0, fmt.Errorf("expected Type[title] at %q", firstWord(s))
	}
	return CanonicalType(s[:n]), open, nil
}

// quotedTitle reads a title quoted in manifest syntax at s[open+1:], which
// must be followed by "]": the title unquoted and the index after the "]".
func quotedTitle(s string, open int) (title string, end int, ok bool) {
	i := open + 1
	if i >= len(s) || (s[i] != '\'' && s[i] != '"') {
		return "", 0, false
	}
	q := s[i]
	var b strings.Builder
	for i++; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && (s[i+1] == q || s[i+1] == '\\'):
			i++
			b.WriteByte(s[i])
		case s[i] == q:
			if i+1 < len(s) && s[i+1] == ']' {
				return b.String(), i + 2, true
			}
			return "", 0, false
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, false
}

// bracketTitle reads the title from s[open] == '[' to the "]" that balances
// it: the title and the index after the "]".
func bracketTitle(s string, open int) (title string, end int, ok bool) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return s[open+1 : i], i + 1, true
			}
		}
	}
	return "", 0, false
}

// TypeNameLen returns the length of the type (or class) name at the front
// of s, or 0: an optional leading "::", then segments of letters, digits
// and underscores joined by "::". Case is not checked ("file" is a type
// name, like "File"); "::" continues the name only when a segment follows,
// so "Foo::[x]" has the name "Foo".
func TypeNameLen(s string) int {
	i := 0
	if strings.HasPrefix(s, "::") {
		i = 2
	}
	start := i
	for {
		for i < len(s) && isNameByte(s[i]) {
			i++
		}
		if i == start {
			return 0
		}
		if i+2 < len(s) && s[i] == ':' && s[i+1] == ':' && isNameByte(s[i+2]) {
			i += 2
			continue
		}
		return i
	}
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// CanonicalType writes a type name as Puppet does in references: without a
// leading "::", each segment's first letter upper case and the rest lower
// case (Ruby's capitalize): apt::SOURCE is Apt::Source.
// A name already canonical (as every name Puppet writes is) is returned
// without copying.
func CanonicalType(t string) string {
	t = strings.TrimPrefix(t, "::")
	var b []byte // nil until a byte changes
	first := true
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == ':':
			first = true
			continue
		case first && 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		case !first && 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		first = false
		if c != t[i] && b == nil {
			b = []byte(t)
		}
		if b != nil {
			b[i] = c
		}
	}
	if b == nil {
		return t
	}
	return string(b)
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}
