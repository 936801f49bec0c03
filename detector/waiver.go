package detector

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Waiver suppresses a finding between two resources (in either order), or
// only one of its paths. Waived findings leave the text report, SARIF and
// the exit status, but stay in JSON with their reason.
type Waiver struct {
	Ref1, Ref2 string // references as written, quotes removed: File[/etc/x]
	Path       string // "" waives the whole pair
	Reason     string
	Line       int // line in the waiver file, for messages
}

// LoadWaivers reads a waiver file, one waiver per line:
//
//	<Ref1> <Ref2> [<path>] -- <reason>
//
// References are Type[title] with brackets matched, so titles may hold
// spaces and balanced brackets; quoted titles (File['/etc/x'], as fixes
// print them) are accepted. Blank lines and lines starting with # are
// skipped. A missing reason is an error naming the line.
func LoadWaivers(r io.Reader) ([]Waiver, error) {
	var out []Waiver
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		w, err := parseWaiver(line)
		if err != nil {
			return nil, fmt.Errorf("waivers line %d: %v", n, err)
		}
		w.Line = n
		out = append(out, w)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func parseWaiver(line string) (Waiver, error) {
	var w Waiver
	ref1, rest, err := cutRef(line)
	if err != nil {
		return w, fmt.Errorf("first reference: %v", err)
	}
	ref2, rest, err := cutRef(strings.TrimLeft(rest, " \t"))
	if err != nil {
		return w, fmt.Errorf("second reference: %v", err)
	}
	// rest is "[<path>] -- <reason>"; the separator must be its own word.
	rest = " " + rest + " "
	i := strings.Index(rest, " -- ")
	if i < 0 {
		return w, fmt.Errorf("missing \" -- <reason>\" after the references")
	}
	w.Ref1, w.Ref2 = ref1, ref2
	w.Path = strings.TrimSpace(rest[:i])
	w.Reason = strings.TrimSpace(rest[i+4:])
	if w.Reason == "" {
		return w, fmt.Errorf("a waiver needs a reason after \"--\"")
	}
	if w.Path != "" && w.Path[0] != '/' {
		return w, fmt.Errorf("path %q is not absolute", w.Path)
	}
	return w, nil
}

// cutRef takes one Type[title] reference off the front of s, matching
// brackets so that the title may contain spaces and nested [ ].
func cutRef(s string) (ref, rest string, err error) {
	open := strings.IndexByte(s, '[')
	if open <= 0 {
		return "", "", fmt.Errorf("expected Type[title] at %q", firstWord(s))
	}
	typ := s[:open]
	for i := 0; i < len(typ); i++ {
		c := typ[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ':') {
			return "", "", fmt.Errorf("bad type name %q", typ)
		}
	}
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				title := unquoteTitle(s[open+1 : i])
				if i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t' {
					return "", "", fmt.Errorf("unexpected %q after %s", s[i+1], s[:i+1])
				}
				return typ + "[" + title + "]", s[i+1:], nil
			}
		}
	}
	return "", "", fmt.Errorf("unbalanced brackets in %q", s)
}

// unquoteTitle removes the quotes of a title written in manifest syntax.
func unquoteTitle(t string) string {
	if len(t) >= 2 && (t[0] == '\'' || t[0] == '"') && t[len(t)-1] == t[0] {
		q := t[0]
		var b strings.Builder
		for i := 1; i < len(t)-1; i++ {
			if t[i] == '\\' && i+1 < len(t)-1 && (t[i+1] == q || t[i+1] == '\\') {
				i++
			}
			b.WriteByte(t[i])
		}
		return b.String()
	}
	return t
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}
