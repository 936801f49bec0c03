package confirm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
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
	// Lines are a small text file's lines (at most maxLinesBytes), so
	// that a file whose content differs between two plain applies only in
	// some lines (a "generated at" timestamp) can still be compared on
	// the others; nil for other paths.
	Lines []string
}

// maxLinesBytes bounds the files whose lines a probe reads.
const maxLinesBytes = 256 << 10

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
// separated fields: kind, mode, owner, mtime, ctime, size, content hash. Paths are
// arguments, never parsed from the output, so any byte may be in them.
const probeScript = `for p in "$@"; do
	if [ -L "$p" ]; then k=link; h=$(readlink -- "$p" | sha256sum)
	elif [ -d "$p" ]; then k=dir; h=$(ls -A -- "$p" | sha256sum)
	elif [ -f "$p" ]; then k=file; h=$(sha256sum < "$p")
	elif [ -e "$p" ]; then k=other; h=
	else printf 'missing\n'; continue
	fi
	printf '%s\t%s\t%s\n' "$k" "$(stat -c '%a	%U:%G	%.6Y	%.6Z	%s' -- "$p")" "${h%% *}"
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
	states, sizes, err := parseProbe(text, paths)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		s := states[p]
		if s.Kind != "file" || sizes[p] > maxLinesBytes {
			continue
		}
		content, status, err := n.Shell(ctx, `cat -- "$1"`, p)
		if err != nil {
			return nil, err
		}
		if status == 0 && utf8.ValidString(content) {
			s.Lines = strings.SplitAfter(content, "\n")
			states[p] = s
		}
	}
	return states, nil
}

// parseProbe reads probeScript's output for paths: their states and the
// sizes of the files.
func parseProbe(text string, paths []string) (map[string]PathState, map[string]int64, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != len(paths) {
		return nil, nil, fmt.Errorf("reading the state of %d paths: %d lines of output: %q", len(paths), len(lines), firstLines(text, 3))
	}
	out := make(map[string]PathState, len(paths))
	sizes := make(map[string]int64, len(paths))
	for i, line := range lines {
		s := PathState{Path: paths[i]}
		f := strings.Split(line, "\t")
		switch {
		case len(f) == 1 && f[0] == "missing":
			s.Kind = "missing"
		case len(f) == 7:
			s.Kind, s.Mode, s.Owner, s.MTime, s.CTime, s.Content = f[0], f[1], f[2], f[3], f[4], f[6]
			size, err := strconv.ParseInt(f[5], 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("reading the state of %s: size %q", paths[i], f[5])
			}
			sizes[paths[i]] = size
		default:
			return nil, nil, fmt.Errorf("reading the state of %s: unexpected line %q", paths[i], line)
		}
		out[paths[i]] = s
	}
	return out, sizes, nil
}

// unstableLines compares two states of a path from applies of the same
// manifest: whether they differ only in some lines of a text file (the same
// number of lines, the same kind, mode and owner), and which lines those
// are. Puppet's parsed-file types (mailalias, host, cron, ssh keys) write a
// header with the time of the apply, for one.
func unstableLines(a, b PathState) (lines map[int]bool, ok bool) {
	if a.Kind != b.Kind || a.Mode != b.Mode || a.Owner != b.Owner || a.Lines == nil || b.Lines == nil || len(a.Lines) != len(b.Lines) {
		return nil, false
	}
	lines = map[int]bool{}
	for i := range a.Lines {
		if a.Lines[i] != b.Lines[i] {
			lines[i] = true
		}
	}
	return lines, len(lines) < len(a.Lines)
}

// sameBut compares other with base but for the unstable lines of a text
// file: the evidence of a difference, or "" when they are the same.
func sameBut(base, other PathState, unstable map[int]bool) string {
	switch {
	case base.Kind != other.Kind || base.Mode != other.Mode || base.Owner != other.Owner:
		return fmt.Sprintf("%s, then %s", base, other)
	case other.Lines == nil || len(other.Lines) != len(base.Lines):
		return fmt.Sprintf("%d lines, then %d lines", len(base.Lines), len(other.Lines))
	}
	for i := range base.Lines {
		if !unstable[i] && base.Lines[i] != other.Lines[i] {
			return fmt.Sprintf("line %d is %q, then %q", i+1, clip(base.Lines[i]), clip(other.Lines[i]))
		}
	}
	return ""
}

func clip(s string) string {
	s = strings.TrimSuffix(s, "\n")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
