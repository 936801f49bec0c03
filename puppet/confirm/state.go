package confirm

import (
	"context"
	"fmt"
	"strings"
)

// PathState is what a confirmation compares of a path between two applies:
// its existence and kind, mode, owner and content (a file's bytes, a
// directory's entry names, a link's target), hashed.
type PathState struct {
	Path    string
	Kind    string // file, dir, link, other, missing
	Mode    string // octal, as stat prints it
	Owner   string // user:group
	Content string // sha256 of the content; "" for other and missing
	MTime   string // modification, seconds since the epoch with microseconds
	CTime   string // status change (a chmod), likewise
}

// String writes the state compactly for evidence: "file 644 root:root 1a2b3c4d".
func (s PathState) String() string {
	if s.Kind == "missing" {
		return "missing"
	}
	c := s.Content
	if len(c) > 12 {
		c = c[:12]
	}
	return strings.TrimSpace(fmt.Sprintf("%s %s %s %s", s.Kind, s.Mode, s.Owner, c))
}

// Same reports whether two states are the same for a confirmation: the
// modification time does not count (every apply has its own).
func (s PathState) Same(t PathState) bool {
	return s.Kind == t.Kind && s.Mode == t.Mode && s.Owner == t.Owner && s.Content == t.Content
}

// probeScript prints one line per path argument, in order, with tab
// separated fields: kind, mode, owner, mtime, ctime, content hash. Paths are
// arguments, never parsed from the output, so any byte may be in them.
const probeScript = `for p in "$@"; do
	if [ -L "$p" ]; then k=link; h=$(readlink -- "$p" | sha256sum)
	elif [ -d "$p" ]; then k=dir; h=$(ls -A -- "$p" | sha256sum)
	elif [ -f "$p" ]; then k=file; h=$(sha256sum < "$p")
	elif [ -e "$p" ]; then k=other; h=
	else printf 'missing\n'; continue
	fi
	printf '%s\t%s\t%s\n' "$k" "$(stat -c '%a	%U:%G	%.6Y	%.6Z' -- "$p")" "${h%% *}"
done`

// shell is what a probe needs of the node (runner.Node).
type shell interface {
	Shell(ctx context.Context, script string, args ...string) (string, int, error)
}

// probe reads the state of paths on the node.
func probe(ctx context.Context, n shell, paths []string) (map[string]PathState, error) {
	out := map[string]PathState{}
	if len(paths) == 0 {
		return out, nil
	}
	text, status, err := n.Shell(ctx, probeScript, paths...)
	if err != nil {
		return nil, err
	}
	if status != 0 {
		return nil, fmt.Errorf("reading the state of %d paths: status %d: %s", len(paths), status, strings.TrimSpace(text))
	}
	return parseProbe(text, paths)
}

// parseProbe reads probeScript's output for paths.
func parseProbe(text string, paths []string) (map[string]PathState, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != len(paths) {
		return nil, fmt.Errorf("reading the state of %d paths: %d lines of output: %q", len(paths), len(lines), firstLines(text, 3))
	}
	out := make(map[string]PathState, len(paths))
	for i, line := range lines {
		s := PathState{Path: paths[i]}
		f := strings.Split(line, "\t")
		switch {
		case len(f) == 1 && f[0] == "missing":
			s.Kind = "missing"
		case len(f) == 6:
			s.Kind, s.Mode, s.Owner, s.MTime, s.CTime, s.Content = f[0], f[1], f[2], f[3], f[4], f[5]
		default:
			return nil, fmt.Errorf("reading the state of %s: unexpected line %q", paths[i], line)
		}
		out[paths[i]] = s
	}
	return out, nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
