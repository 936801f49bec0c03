package container

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// AptSourcesDir is where the host's apt keeps its sources: sources.list and
// sources.list.d/*.list (one-line form), sources.list.d/*.sources (deb822).
const AptSourcesDir = "/etc/apt"

// HostMirror returns the Debian mirror that the host's own apt uses for
// suite: the first "deb" source whose suites include suite and whose
// components include main, over http or https. fsmove names no mirror of
// its own: the image is built from, and its containers install from, the
// mirror this machine already trusts (or --mirror).
func HostMirror(aptDir, suite string) (string, error) {
	files := []string{filepath.Join(aptDir, "sources.list")}
	for _, pattern := range []string{"*.list", "*.sources"} {
		m, _ := filepath.Glob(filepath.Join(aptDir, "sources.list.d", pattern))
		files = append(files, m...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var srcs []aptSource
		if strings.HasSuffix(f, ".sources") {
			srcs = parseDeb822Sources(strings.NewReader(string(data)))
		} else {
			srcs = parseOneLineSources(strings.NewReader(string(data)))
		}
		for _, s := range srcs {
			if s.matches(suite) {
				return strings.TrimRight(s.uri, "/"), nil
			}
		}
	}
	return "", fmt.Errorf("no apt source of this machine (%s/sources.list, sources.list.d/) names a Debian %s mirror with main over http(s): give one with --mirror URL", aptDir, suite)
}

// aptSource is one (type, URI, suites, components) of apt's sources.
type aptSource struct {
	typ        string
	uri        string
	suites     []string
	components []string
}

func (s aptSource) matches(suite string) bool {
	return s.typ == "deb" &&
		(strings.HasPrefix(s.uri, "http://") || strings.HasPrefix(s.uri, "https://")) &&
		slices.Contains(s.suites, suite) && slices.Contains(s.components, "main")
}

// parseOneLineSources reads sources.list lines:
// "deb [options] URI suite component...".
func parseOneLineSources(r io.Reader) []aptSource {
	var out []aptSource
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) < 3 {
			continue
		}
		s := aptSource{typ: fields[0]}
		rest := fields[1:]
		if strings.HasPrefix(rest[0], "[") {
			// Options run to the field that ends with "]".
			for len(rest) > 0 && !strings.HasSuffix(rest[0], "]") {
				rest = rest[1:]
			}
			if len(rest) > 0 {
				rest = rest[1:]
			}
		}
		if len(rest) < 2 {
			continue
		}
		s.uri, s.suites, s.components = rest[0], rest[1:2], rest[2:]
		out = append(out, s)
	}
	return out
}

// parseDeb822Sources reads *.sources stanzas (Types, URIs, Suites,
// Components; Enabled: no turns one off). Each type × URI is one source.
func parseDeb822Sources(r io.Reader) []aptSource {
	var out []aptSource
	fields := map[string]string{}
	flush := func() {
		if len(fields) > 0 && !strings.EqualFold(fields["enabled"], "no") {
			for _, typ := range strings.Fields(fields["types"]) {
				for _, uri := range strings.Fields(fields["uris"]) {
					out = append(out, aptSource{typ: typ, uri: uri,
						suites: strings.Fields(fields["suites"]), components: strings.Fields(fields["components"])})
				}
			}
		}
		fields = map[string]string{}
	}
	last := ""
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case strings.HasPrefix(line, "#"):
		case line[0] == ' ' || line[0] == '\t':
			if last != "" { // a continuation line
				fields[last] += " " + strings.TrimSpace(line)
			}
		default:
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			last = strings.ToLower(strings.TrimSpace(k))
			fields[last] = strings.TrimSpace(v)
		}
	}
	flush()
	return out
}
