package strace

import "bytes"

func trimSpaces(t []byte) []byte {
	for len(t) > 0 && t[0] == ' ' {
		t = t[1:]
	}
	for len(t) > 0 && t[len(t)-1] == ' ' {
		t = t[:len(t)-1]
	}
	return t
}

// dropComments copies text without its /* … */ comments (and the spaces
// skipString returns the index after the string at b[i] == '"'.
func skipString(b []byte, i int) (int, bool) {
	i++
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b), false
		}
		k := i + q
		// The quote ends the string unless it is escaped: after an odd
		// run of backslashes.
		run := 0
		for j := k - 1; j >= i && b[j] == '\\'; j-- {
			run++
		}
		if run%2 == 0 {
			return k + 1, true
		}
		i = k + 1
	}
}

// parseNumber reads a whole term as a decimal, 0x hex or 0 octal number,
// possibly negative. hexDigits is the number of hex digits (0 if not hex).
func parseNumber(t []byte) (n int64, hexDigits int, ok bool) {
	neg := false
	if len(t) > 0 && t[0] == '-' {
		neg, t = true, t[1:]
	}
	if len(t) == 0 {
		return 0, 0, false
	}
	var u uint64
	switch {
	case len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'):
		for _, c := range t[2:] {
			h := hexValue(c)
			if h < 0 {
				return 0, 0, false
			}
			u = u<<4 | uint64(h)
		}
		hexDigits = len(t) - 2
	case len(t) > 1 && t[0] == '0':
		for _, c := range t[1:] {
			if c < '0' || c > '7' {
				return 0, 0, false
			}
			u = u<<3 | uint64(c-'0')
		}
	default:
		for _, c := range t {
			if !isDigit(c) {
				return 0, 0, false
			}
			u = u*10 + uint64(c-'0')
		}
	}
	n = int64(u)
	if neg {
		n = -n
	}
	return n, hexDigits, true
}

// parseDigits reads a decimal number at b[i:] and returns it and its end
// (end == i when there is no digit). Values are capped to stay an int.
func parseDigits(b []byte, i int) (int, int) {
	n := 0
	for i < len(b) && isDigit(b[i]) {
		if n < 1<<40 {
			n = n*10 + int(b[i]-'0')
		}
		i++
	}
	return n, i
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

func hasPrefixAt(b []byte, i int, prefix string) bool {
	return i <= len(b) && len(b)-i >= len(prefix) && string(b[i:i+len(prefix)]) == prefix
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentChar(c byte) bool {
	return c == '_' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// isNameChar accepts syscall names, including strace's "????" for an unknown
// call and "syscall_0x1b4" for an unnamed number.
func isNameChar(c byte) bool { return isIdentChar(c) || c == '?' }

func isIdent(t []byte) bool {
	if len(t) == 0 || isDigit(t[0]) {
		return false
	}
	for _, c := range t {
		if !isIdentChar(c) {
			return false
		}
	}
	return true
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
