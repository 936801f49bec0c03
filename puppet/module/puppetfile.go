package module

import (
	"fmt"
	"regexp"
	"strings"
)

// PuppetfileName is r10k's (and onceover's) list of the modules of a
// control repository or a module's tests.
const PuppetfileName = "Puppetfile"

// puppetfileMod matches a mod declaration, its continuation lines joined:
// mod 'NAME' followed by the rest of its arguments.
var puppetfileMod = regexp.MustCompile(`^mod\s*\(?\s*(?:'([^']*)'|"([^"]*)")\s*(?:,\s*(.*))?$`)

// puppetfileVersion is a version as a mod's second argument.
var puppetfileVersion = regexp.MustCompile(`^(?:'([^']*)'|"([^"]*)")`)

// ParsePuppetfile reads the mod declarations of a Puppetfile:
// mod 'author-name', 'version' (or :latest, or none) from the Forge, and
// mod 'name', :git => …, whose ref is not a version. A declaration may span
// lines (after a trailing comma). Other lines (forge, moduledir, comments)
// are skipped; a mod line that cannot be read is an error.
func ParsePuppetfile(data []byte) ([]Dependency, error) {
	var deps []Dependency
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := stripRubyComment(lines[i])
		if !strings.HasPrefix(line, "mod ") && !strings.HasPrefix(line, "mod(") && !strings.HasPrefix(line, "mod\t") {
			continue
		}
		for strings.HasSuffix(line, ",") && i+1 < len(lines) {
			i++
			line += " " + stripRubyComment(lines[i])
		}
		m := puppetfileMod.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%s line %d: cannot read %q (want mod 'author-name', 'version')", PuppetfileName, lineNo, line)
		}
		name, err := ParseName(m[1] + m[2])
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", PuppetfileName, lineNo, err)
		}
		d := Dependency{Name: name, From: PuppetfileName}
		rest := strings.TrimSuffix(strings.TrimSpace(m[3]), ")")
		if v := puppetfileVersion.FindStringSubmatch(rest); v != nil {
			if d.Requirement, err = exactRequirement(v[1] + v[2]); err != nil {
				return nil, fmt.Errorf("%s line %d: %s: %w", PuppetfileName, lineNo, name, err)
			}
		}
		deps = append(deps, d)
	}
	return deps, nil
}

// stripRubyComment drops a # comment that is not inside a quoted string,
// and the surrounding blanks.
func stripRubyComment(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"'):
			quote = r
		case quote == 0 && r == '#':
			return strings.TrimSpace(line[:i])
		}
	}
	return strings.TrimSpace(line)
}
