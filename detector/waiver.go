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
// the exit status, but stay in JSON with their reason.
type Waiver struct {
	Ref1, Ref2 catalog.Ref // as catalog.CutRef read them: File['/etc/x'] is File, /etc/x
	Path       string      // "" waives the whole pair
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
