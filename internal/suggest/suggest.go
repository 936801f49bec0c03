// Package suggest finds what a typo meant: the flag, command or setting
// closest to a misspelled one, for a "did you mean" at the end of a usage
// error.
package suggest

import (
	"strings"

	"github.com/agnivade/levenshtein"
)

// Nearest is the candidate closest to word (edit distance, case ignored)
// when it is close enough to be what a typo meant: at most two edits, and
// no more than half of word's letters ("rn" is run, "x" is nothing).
// "" when none is.
func Nearest(word string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		d := levenshtein.ComputeDistance(strings.ToLower(word), strings.ToLower(c))
		if d < bestDist && 2*d <= len(word) {
			best, bestDist = c, d
		}
	}
	return best
}
