package fix

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fsmove/fsmove/detector"
)

// ForReport is the plan's edits as a report carries them: what they do,
// their diff (files named by name, as Diff), and each edit as a region of
// its file. A plan that edits nothing gives why (its skips); nil when it
// has neither (no target).
func (p Plan) ForReport(sources map[string]*Source, name func(file string) string) (*detector.Edit, error) {
	if len(p.Edits) == 0 {
		if len(p.Skipped) == 0 {
			return nil, nil
		}
		var whys []string
		for _, s := range p.Skipped {
			whys = append(whys, s.Why)
		}
		return &detector.Edit{Skipped: strings.Join(dedupe(whys), "; ")}, nil
	}
	edited, err := Apply(p.Edits, sources)
	if err != nil {
		return nil, err
	}
	e := &detector.Edit{Diff: Diff(sources, edited, name)}
	var says []string
	for _, ed := range p.Edits {
		if ed.Says != "" {
			says = append(says, ed.Says)
		}
		text := sources[ed.File].Text
		c := detector.Change{File: ed.File, Offset: ed.Start, Length: ed.End - ed.Start, Text: ed.New}
		c.StartLine, c.StartCol = position(text, ed.Start)
		c.EndLine, c.EndCol = position(text, ed.End)
		e.Changes = append(e.Changes, c)
	}
	says = append(says, p.Notes...)
	for _, s := range p.Skipped {
		says = append(says, fmt.Sprintf("finding %d: no edit: %s", s.Finding, s.Why))
	}
	e.Says = strings.Join(says, "; ")
	slices.SortFunc(e.Changes, func(a, b detector.Change) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Offset, b.Offset))
	})
	return e, nil
}

// position is the line (from 1) and column (from 1, in UTF-16 code units)
// of byte off of text. Bytes that are not UTF-8 count one unit each.
func position(text []byte, off int) (line, col int) {
	line, col = 1, 1
	for i := 0; i < off && i < len(text); {
		if text[i] == '\n' {
			line, col = line+1, 1
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		if n := utf16.RuneLen(r); r != utf8.RuneError && n > 0 {
			col += n
		} else {
			col++
		}
		i += size
	}
	return line, col
}
