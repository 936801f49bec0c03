// Package printable makes text from a module or a trace safe to print on a
// terminal. A Puppet module decides its resources' titles, its files'
// names and what Puppet prints when it fails; printed raw, an escape
// sequence in any of them retitles the terminal, recolours the report or
// hides lines of it. JSON and SARIF keep such text exact (their encoders
// escape it); text for people goes through String.
package printable

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// String returns s with every C0 and C1 control character but tab, and DEL,
// written as a Go escape (\x1b, \u009b), invalid UTF-8 as \xNN, and a
// backslash before either doubled so that the result reads back
// unambiguously. Text without them is returned as it is.
func String(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 && r != '\t', r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Lines is String for text of several lines: each line is escaped, the
// newlines between them kept.
func Lines(s string) string {
	if clean(s) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = String(l)
	}
	return strings.Join(lines, "\n")
}

// clean says whether s has nothing String would change but backslashes
// (kept as they are when nothing else needs escaping: a Windows path in a
// title reads as it is).
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' || c == 0x7f || c >= 0x80 {
			if c >= 0x80 {
				return cleanUTF8(s[i:])
			}
			return false
		}
	}
	return true
}

// cleanUTF8 says whether s is valid UTF-8 with no C0, C1 or DEL.
func cleanUTF8(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return false
		}
	}
	return true
}
