package runner

import (
	"bufio"
	"io"
	"strings"
)

// PuppetErrors returns up to n of Puppet's "Error:" lines from its log,
// without colour codes: what fsmove prints when Puppet fails.
func PuppetErrors(log io.Reader, n int) []string {
	var lines []string
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() && len(lines) < n {
		line := stripANSI(sc.Text())
		if strings.HasPrefix(line, "Error:") {
			lines = append(lines, line)
		}
	}
	return lines
}

// stripANSI removes the colour sequences (ESC [ … letter) that Puppet's
// console log writes around every line.
func stripANSI(s string) string {
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
