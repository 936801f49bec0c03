package detector

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// Waiver suppresses a finding between two resources (in either order), or
// only one of its paths. Waived findings leave the text report, SARIF and
// the exit status (unless --show-suppressed lists them), but stay in JSON
// with their reason. A waiver comes from a --waivers file, the project
// config's waivers, or an inline "# fsmove:ignore" comment on a resource
// (InlineWaivers), which names one resource and matches it against any.
type Waiver struct {
	Ref1, Ref2 catalog.Ref // as catalog.CutRef read them: File['/etc/x'] is File, /etc/x; Ref2 zero: any resource
	Path       string      // "" waives the whole pair
	Reason     string
	Line       int // line in the waiver file, for messages
	// Kinds, when not empty, limits the waiver to findings of these kinds
	// (an inline "fsmove:ignore MN").
	Kinds KindSet
	// Source says where the waiver was written when that is not a line of
	// the --waivers file: "FILE:LINE" of an inline comment, "FILE
	// waivers[N]" of the project config.
	Source string
	// Inline: an inline suppression comment in a manifest; the findings it
	// covers count as suppressed.
	Inline bool
}

// KindSet is a set of fault kinds, one bit per Kind; the empty set stands
// for every kind.
type KindSet uint8

// Add adds k to the set.
func (s KindSet) Add(k Kind) KindSet { return s | 1<<k }

// Has reports whether the set holds k (the empty set holds every kind).
func (s KindSet) Has(k Kind) bool { return s == 0 || s&(1<<k) != 0 }

// NewWaiver makes the waiver of a pair of references as a user wrote them
// (the project config's entries): both references, an absolute path or
// none, and a reason are required.
func NewWaiver(ref1, ref2, path, reason string) (Waiver, error) {
	var w Waiver
	r1, rest, err := catalog.CutRef(ref1)
	if err != nil || strings.TrimSpace(rest) != "" {
		return w, fmt.Errorf("a: %q is not one resource reference (Type[title])", ref1)
	}
	r2, rest, err := catalog.CutRef(ref2)
	if err != nil || strings.TrimSpace(rest) != "" {
		return w, fmt.Errorf("b: %q is not one resource reference (Type[title])", ref2)
	}
	w.Ref1, w.Ref2, w.Path, w.Reason = r1, r2, strings.TrimSpace(path), strings.TrimSpace(reason)
	if w.Reason == "" {
		return w, fmt.Errorf("a waiver needs a reason")
	}
	if w.Path != "" && w.Path[0] != '/' {
		return w, fmt.Errorf("path %q is not absolute", w.Path)
	}
	return w, nil
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
	ref1, rest, err := catalog.CutRef(line)
	if err != nil {
		return w, fmt.Errorf("first reference: %v", err)
	}
	ref2, rest, err := catalog.CutRef(rest)
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
