package module

import (
	"strings"
	"unicode/utf8"
)

// Warning is something about the dependencies that is said while the run
// goes on (run.json's dependencies.warnings).
type Warning struct {
	// Line is said always: one line of at most MaxWarningColumns.
	Line string `json:"line"`
	// Detail is said with -v: where a module was looked for, how to give it.
	Detail string `json:"detail,omitempty"`
}

// MaxWarningColumns is a warning line's length: fsmove prints it after
// "fsmove: warning: " (17 columns) and keeps each line within 100.
const MaxWarningColumns = 100 - len("fsmove: warning: ")

// warn makes a Warning, its line cut to MaxWarningColumns: a long name or
// range from the user's files must not make it wrap.
func warn(line, detail string) Warning {
	return Warning{Line: fitLine(line, MaxWarningColumns), Detail: detail}
}

// fitLine is s on one line (control characters as blanks) of at most n
// characters, cut with "..." when longer.
func fitLine(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-3]) + "..."
}
