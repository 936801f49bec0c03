// Package lines cuts text into lines for messages: the first line of an
// error, the tail of a command's output.
package lines

import "strings"

// First returns s up to its first newline (all of s when it has none).
func First(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Last returns the last n lines of s, its final newlines left out.
func Last(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
