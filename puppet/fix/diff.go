package fix

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Diff writes the edited files (Apply's result) as one unified diff of
// their old and new texts, each file named by name(file) under a/ and b/,
// as git apply takes it. A diff of the two texts, not of the edits: its
// hunks put removed lines before added ones, as every diff tool does.
func Diff(sources map[string]*Source, edited map[string][]byte, name func(file string) string) string {
	var b strings.Builder
	for _, f := range slices.Sorted(maps.Keys(edited)) {
		n := name(f)
		b.WriteString(udiff.Unified("a/"+n, "b/"+n, string(sources[f].Text), string(edited[f])))
	}
	return b.String()
}

// Apply returns each edited file's new text.
func Apply(edits []Edit, sources map[string]*Source) (map[string][]byte, error) {
	byFile := map[string][]udiff.Edit{}
	for _, e := range edits {
		byFile[e.File] = append(byFile[e.File], udiff.Edit{Start: e.Start, End: e.End, New: e.New})
	}
	out := map[string][]byte{}
	for f, es := range byFile {
		t, err := udiff.ApplyBytes(sources[f].Text, es)
		if err != nil {
			return nil, fmt.Errorf("fix: %s: %w", f, err)
		}
		out[f] = t
	}
	return out, nil
}
