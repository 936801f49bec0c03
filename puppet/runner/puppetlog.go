package runner

import (
	"bufio"
	"io"
	"sort"
	"strings"
)

// PuppetErrors returns up to n of Puppet's "Error:" lines from its log,
// without colour codes: what fsmove prints when Puppet fails.
func PuppetErrors(log io.Reader, n int) []string {
	blocks := PuppetErrorBlocks(log, n)
	for i, b := range blocks {
		blocks[i], _, _ = strings.Cut(b, "\n")
	}
	return blocks
}

// maxErrorBlockLines bounds the lines kept after an "Error:" line (a
// command's output, a journal excerpt).
const maxErrorBlockLines = 30

// PuppetErrorBlocks returns up to n of Puppet's errors, each its "Error:"
// line and the lines that continue it up to the next log line (apt's
// "E: Unable to locate package", a journal excerpt), joined by newlines.
func PuppetErrorBlocks(log io.Reader, n int) []string {
	var blocks []string
	var cur []string
	flush := func() {
		if cur != nil {
			blocks = append(blocks, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := StripANSI(sc.Text())
		switch {
		case strings.HasPrefix(line, "Error:"):
			flush()
			if len(blocks) == n {
				return blocks
			}
			cur = []string{line}
		case isLogLevelLine(line):
			flush()
			if len(blocks) == n {
				return blocks
			}
		case cur != nil && len(cur) <= maxErrorBlockLines:
			cur = append(cur, line)
		}
	}
	flush()
	return blocks
}

// isLogLevelLine: a line of Puppet's console log that starts a message.
func isLogLevelLine(line string) bool {
	for _, p := range []string{"Debug:", "Info:", "Notice:", "Warning:", "Error:"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// StripANSI removes the colour sequences (ESC [ … letter) that Puppet's
// console log writes around every line: fsmove prints Puppet's output
// without them (puppet.log keeps them).
func StripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		// Skip ESC, '[', parameters, up to and including the final letter.
		j := i + 1
		if j < len(s) && s[j] == '[' {
			j++
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
		}
		i = j // the loop's i++ skips the final byte
	}
	return b.String()
}

// ExecOutput returns the last n lines of output of Puppet's Exec resources
// ("Notice: /Stage[main]/…/Exec[x]/returns: …"), without colour codes:
// where a failed command says why (a database it could not reach).
func ExecOutput(log io.Reader, n int) []string {
	var lines []string
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := StripANSI(sc.Text())
		if strings.HasPrefix(line, "Notice: ") && strings.Contains(line, "]/returns: ") {
			lines = append(lines, line)
			if len(lines) > n {
				lines = lines[1:]
			}
		}
	}
	return lines
}

// HostPaths replaces, in a line of Puppet's output, the directories the
// modules have in the container (/fsmove/modules/mymod/…) with where they
// are on this machine (pathMap: RunRecord.PathMap), so that an error names
// the user's own file.
func HostPaths(s string, pathMap map[string]string) string {
	if len(pathMap) == 0 || !strings.Contains(s, "/") {
		return s
	}
	from := make([]string, 0, len(pathMap))
	for dir := range pathMap {
		from = append(from, dir)
	}
	// The longest first: /fsmove/modulepath/1 before /fsmove/modulepath/10
	// cannot match wrongly, as each is followed by "/".
	sort.Slice(from, func(i, j int) bool { return len(from[i]) > len(from[j]) })
	pairs := make([]string, 0, 2*len(from))
	for _, dir := range from {
		pairs = append(pairs, dir+"/", strings.TrimSuffix(pathMap[dir], "/")+"/")
	}
	return strings.NewReplacer(pairs...).Replace(s)
}
