package corpus

import (
	"fmt"
	"strings"

	"github.com/fsmove/fsmove/internal/suggest"
	"github.com/fsmove/fsmove/puppet/module"
	"github.com/fsmove/fsmove/puppet/runner"
)

// CheckDebPackages refuses the deb: entries whose package the image does
// not have (index: the image's puppet-module-* packages, module.
// ParseDebIndex): a misspelled package is the corpus's input error, said
// before any module runs, not a failed run of that module. The error names
// every such line of file, with the nearest package when one is close.
func CheckDebPackages(file string, entries []Entry, index []module.DebPackage) error {
	known := make(map[string]bool, len(index))
	names := make([]string, 0, len(index))
	for _, p := range index {
		known[p.Package] = true
		names = append(names, p.Package)
	}
	var bad []string
	for _, e := range entries {
		if e.Module.Kind != runner.SourceDeb || known[e.Module.Package] {
			continue
		}
		msg := fmt.Sprintf("%s:%d: deb:%s: no such puppet-module-* package in the image", file, e.Line, e.Module.Package)
		if near := suggest.Nearest(e.Module.Package, names); near != "" {
			msg += fmt.Sprintf(" (did you mean deb:%s?)", near)
		}
		bad = append(bad, msg)
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(bad, "\n"))
}
