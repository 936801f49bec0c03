// Package words writes counts in English for messages: "1 path",
// "12,345 paths". The analysis says them in its reasons, the reports in
// their summaries; both write them one way.
package words

import (
	"strconv"
	"strings"
)

// Count is n and noun, plural unless n is 1, n grouped by thousands:
// "1 item", "2 items", "1,234 paths".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}

// thousands writes n with a comma between groups of three digits: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	digits := strings.TrimPrefix(s, "-")
	var b strings.Builder
	b.WriteString(s[:len(s)-len(digits)])
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}
