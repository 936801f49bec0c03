package fix

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/fsmove/fsmove/detector"
)

// TestForReport: for each planned case, the report's edit says what the
// plan does, its diff is Diff's, and its changes, made by their lines and
// columns alone (as a SARIF consumer makes them), give Apply's text; a
// target without an edit gives why.
func TestForReport(t *testing.T) {
	sources := casesSource(t)
	name := func(string) string { return "manifests/cases.pp" }
	for _, c := range planCases {
		p := Make(c.targets, sources)
		e, err := p.ForReport(sources, name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.skipped != "" {
			if e == nil || !strings.Contains(e.Skipped, c.skipped) || e.Diff != "" || len(e.Changes) != 0 {
				t.Errorf("%s: want skipped with %q, got %+v", c.name, c.skipped, e)
			}
			continue
		}
		edited, err := Apply(p.Edits, sources)
		if err != nil {
			t.Fatal(err)
		}
		if e.Diff != Diff(sources, edited, name) || !strings.HasPrefix(e.Diff, "--- a/manifests/cases.pp\n") {
			t.Errorf("%s: the edit's diff is not Diff's:\n%s", c.name, e.Diff)
		}
		if e.Says == "" {
			t.Errorf("%s: the edit says nothing", c.name)
		}
		got := byPositions(t, string(sources["cases.pp"].Text), e.Changes)
		if got != string(edited["cases.pp"]) {
			t.Errorf("%s: the changes made by line and column give another text:\n%s", c.name, got)
		}
	}
	if e, _ := Make(nil, sources).ForReport(sources, name); e != nil {
		t.Errorf("no target, an edit: %+v", e)
	}
}

// byPositions makes changes in text by their lines and columns (UTF-16
// units), from the last to the first, and checks their byte offsets agree.
func byPositions(t *testing.T, text string, changes []detector.Change) string {
	t.Helper()
	offset := func(line, col int) int {
		off := 0
		for l := 1; l < line; l++ {
			off += strings.IndexByte(text[off:], '\n') + 1
		}
		for units := 1; units < col; {
			r := []rune(text[off:])[0]
			off += len(string(r))
			units += utf16.RuneLen(r)
		}
		return off
	}
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		start, end := offset(c.StartLine, c.StartCol), offset(c.EndLine, c.EndCol)
		if start != c.Offset || end-start != c.Length {
			t.Errorf("change at %d:%d-%d:%d is bytes %d+%d, its offsets say %d+%d", c.StartLine, c.StartCol, c.EndLine, c.EndCol, start, end-start, c.Offset, c.Length)
		}
		text = text[:start] + c.Text + text[end:]
	}
	return text
}

// TestPosition: lines count newlines; columns count UTF-16 units (a
// character outside the BMP is two), and a byte that is not UTF-8 one.
func TestPosition(t *testing.T) {
	text := []byte("ab\nx\U0001F600é\xffz\n")
	for _, c := range []struct{ off, line, col int }{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {4, 2, 2}, {8, 2, 4}, {10, 2, 5}, {11, 2, 6}, {12, 2, 7}, {13, 3, 1},
	} {
		if l, col := position(text, c.off); l != c.line || col != c.col {
			t.Errorf("offset %d: %d:%d, want %d:%d", c.off, l, col, c.line, c.col)
		}
	}
}
