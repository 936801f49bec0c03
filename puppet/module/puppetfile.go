package module

import (
	"fmt"
	"strings"
)

// PuppetfileName is r10k's (and librarian-puppet's, and onceover's) list of
// the modules of a control repository or a module's tests.
const PuppetfileName = "Puppetfile"

// ParsePuppetfile reads the mod declarations of a Puppetfile, in r10k's and
// librarian-puppet's forms: mod 'author-name' with an exact version
// ('8.5.0'), :latest or nothing; with a range librarian reads ('>= 2.3.3
// < 5.0.0', '~> 4.0', or several: '>= 1.0', '< 2.0'); or with a hash
// (:git => …, :ref/:tag/:branch => …, :local => true), whose ref is not a
// version. A declaration may span lines (after a trailing comma). Other
// lines (forge, moduledir, comments) are skipped. A mod line that cannot
// be read is a warning and is skipped; a range that cannot be read is a
// warning and the module is taken with any version.
func ParsePuppetfile(data []byte) (deps []Dependency, warnings []string) {
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := stripRubyComment(lines[i])
		rest, ok := strings.CutPrefix(line, "mod")
		if !ok || rest == "" || !(rest[0] == ' ' || rest[0] == '\t' || rest[0] == '(') {
			continue
		}
		for strings.HasSuffix(rest, ",") && i+1 < len(lines) {
			i++
			rest += " " + stripRubyComment(lines[i])
		}
		rest = strings.TrimPrefix(strings.TrimSpace(rest), "(")
		rawName, rest, ok := rubyString(rest)
		if !ok {
			warnings = append(warnings, fmt.Sprintf("%s line %d: cannot read %q; skipped", PuppetfileName, lineNo, line))
			continue
		}
		name, err := ParseName(rawName)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s line %d: %v; skipped", PuppetfileName, lineNo, err))
			continue
		}
		d := Dependency{Name: name, From: PuppetfileName}
		// The version arguments are the quoted strings after the name;
		// librarian joins several into one range.
		var versions []string
		for {
			after, ok := strings.CutPrefix(strings.TrimSpace(rest), ",")
			if !ok {
				break
			}
			v, more, ok := rubyString(strings.TrimSpace(after))
			if !ok {
				break // :latest, a hash: no version
			}
			versions = append(versions, v)
			rest = more
		}
		if len(versions) > 0 {
			raw := strings.Join(versions, " ")
			if d.Requirement, err = ParseRequirement(gemRange(raw)); err != nil {
				warnings = append(warnings, fmt.Sprintf("%s line %d: %s: cannot read the version %q; any version taken", PuppetfileName, lineNo, name, raw))
			} else {
				d.Requirement.Raw = raw
			}
		}
		deps = append(deps, d)
	}
	return deps, warnings
}

// rubyString reads a quoted string ('…' or "…", no escapes: module names
// and versions have none) at the start of s, and returns what follows.
func rubyString(s string) (value, rest string, ok bool) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", s, false
	}
	return s[1 : 1+end], s[2+end:], true
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
