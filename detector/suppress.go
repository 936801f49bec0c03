package detector

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// Inline suppressions, puppet-lint style: a comment on the line above a
// resource's declaration (or in the block of comment lines right above it),
// or at the end of the declaration's line, that says
//
//	# fsmove:ignore MOR the exec only reads it on first install
//	# fsmove:ignore MN -- the service rereads it every minute
//	# fsmove:ignore -- any kind: a reason is still required
//
// suppresses the findings of that resource (with any other, of that kind or
// any). The catalog gives each resource's file:line; the comment is read
// from the user's own file (the catalog's paths mapped to the user's, see
// analyze.Input.PathMap). A comment without a reason does not suppress: it
// is counted as a warning. Each becomes a Waiver (Inline, Source FILE:LINE),
// so one machinery suppresses findings.

// suppressMarker starts an inline suppression, right after a comment's "#".
const suppressMarker = "fsmove:ignore"

// Suppression is one inline "# fsmove:ignore [KIND[,KIND]] [--] REASON".
type Suppression struct {
	Kinds  KindSet // empty: any kind
	Reason string  // "" when none was given: it then does not suppress
}

// ParseSuppression reads the inline suppression in one line of a manifest,
// if the line's comment is one (ok false otherwise).
func ParseSuppression(line string) (s Suppression, ok bool) {
	i := commentStart(line)
	if i < 0 {
		return s, false
	}
	body := strings.TrimLeft(line[i+1:], " \t#")
	rest, found := strings.CutPrefix(body, suppressMarker)
	if !found || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return s, false
	}
	rest = strings.TrimSpace(rest)
	// An optional kind list: MOR, MN, NI, comma-separated.
	word, after, _ := strings.Cut(rest, " ")
	if kinds, isKinds := parseKinds(word); isKinds {
		s.Kinds, rest = kinds, strings.TrimSpace(after)
	}
	if r, cut := strings.CutPrefix(rest, "--"); cut {
		rest = r
	}
	s.Reason = strings.TrimSpace(rest)
	return s, true
}

// parseKinds reads "MOR", "MN", "NI" or a list of them, "MOR,MN" (any case); isKinds false when
// word is not such a list (it is then the reason's first word).
func parseKinds(word string) (kinds KindSet, isKinds bool) {
	if word == "" {
		return 0, false
	}
	for _, k := range strings.Split(word, ",") {
		switch strings.ToUpper(k) {
		case "MOR":
			kinds = kinds.Add(MOR)
		case "MN":
			kinds = kinds.Add(MN)
		case "NI":
			kinds = kinds.Add(NI)
		default:
			return 0, false
		}
	}
	return kinds, true
}

// commentStart is the index of the "#" that starts line's comment, -1 when
// it has none: the first "#" outside a single- or double-quoted string
// (backslash escapes in both). A string that spans lines is not followed.
func commentStart(line string) int {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '\'' || c == '"':
			quote = c
		case c == '#':
			return i
		}
	}
	return -1
}

// resourceSuppressions are the suppressions that apply to the resource
// declared at line n (1-based) of lines: a trailing comment on that line,
// and the comment-only lines right above it. Each comes with its own line
// number.
func resourceSuppressions(lines []string, n int) (found []Suppression, at []int) {
	if n < 1 || n > len(lines) {
		return nil, nil
	}
	if s, ok := ParseSuppression(lines[n-1]); ok {
		found, at = append(found, s), append(at, n)
	}
	for i := n - 1; i >= 1; i-- {
		if !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "#") {
			break
		}
		if s, ok := ParseSuppression(lines[i-1]); ok {
			found, at = append(found, s), append(at, i)
		}
	}
	return found, at
}

// InlineWaivers reads the inline suppressions of the findings' resources
// with read (nil reads none): one Waiver per comment with a reason, naming
// that resource alone, and the FILE:LINE of each comment without a reason
// (warned about, not applied). A file read cannot be read is skipped: a
// manifest of a module that is only in the container has none to give.
func InlineWaivers(findings []Finding, read func(file string) ([]byte, error)) (waivers []Waiver, unreasoned []string) {
	if read == nil {
		return nil, nil
	}
	files := map[string][]string{} // file → its lines, nil when unreadable
	seen := map[*catalog.Resource]bool{}
	for i := range findings {
		for _, r := range []*catalog.Resource{findings[i].Producer, findings[i].Consumer} {
			if r == nil || seen[r] || r.File == "" || r.Line <= 0 {
				continue
			}
			seen[r] = true
			lines, ok := files[r.File]
			if !ok {
				if data, err := read(r.File); err == nil {
					lines = strings.Split(string(data), "\n")
				}
				files[r.File] = lines
			}
			sups, at := resourceSuppressions(lines, r.Line)
			for j, s := range sups {
				where := fmt.Sprintf("%s:%d", r.File, at[j])
				if s.Reason == "" {
					unreasoned = append(unreasoned, where)
					continue
				}
				waivers = append(waivers, Waiver{
					Ref1: catalog.Ref{Type: r.Type, Title: r.Title}, Reason: s.Reason,
					Kinds: s.Kinds, Source: where, Inline: true,
				})
			}
		}
	}
	return waivers, unreasoned
}

// maxManifestBytes bounds what ReadManifestFile reads: a manifest is small,
// and a catalog (a module's own doing) may name any file.
const maxManifestBytes = 8 << 20

// ReadManifestFile reads a manifest for its inline suppressions: a regular
// file only, up to maxManifestBytes.
func ReadManifestFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(f, maxManifestBytes)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
