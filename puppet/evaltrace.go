// Package puppet holds everything that knows Puppet: the evaltrace messages
// that open and close a block, the syntax of resource references, and (in its
// sub-packages) how to compile and apply a catalog inside a container.
package puppet

import (
	"iter"
	"strings"

	"github.com/fsmove/fsmove/fstrace"
)

// With --evaltrace, Puppet's transaction logs two messages at level info for
// every resource it evaluates, through the console destination on fd 1:
//
//	\e[0;32mInfo: /Stage[main]/Main/Exec[use-conf]: Starting to evaluate the resource (6 of 15)\e[0m
//	\e[0;32mInfo: /Stage[main]/Main/Exec[use-conf]: Evaluated in 0.04 seconds\e[0m
//
// The part between "Info: " and the message is the log source: the resource's
// containment path, whose last segment is the resource's reference. Older
// Puppets omit the "(N of M)" counter; --color=false drops the escapes.
const (
	infoPrefix  = "Info: "
	beginPhrase = ": Starting to evaluate the resource"
	endPhrase   = ": Evaluated in "
)

// Marker recognises Puppet's evaltrace lines in the data a process writes to
// fd 1. It implements fstrace.BlockMarker; the zero value is ready to use and
// it keeps no state, so one Marker may serve several goroutines.
//
// A write may hold several lines (Ruby buffers stdout when it is not a
// terminal): NextMark returns them one at a time and Marks yields them all,
// so a block whose Begin and End share one write still opens and closes.
//
// Lines cut by strace's -s limit: a Begin is still recognised when the cut
// falls after ": Starting to" (the counter or the end of the phrase is lost,
// the resource's reference is whole). An End is recognised when ": Evaluated
// in " is whole. When the cut falls earlier, inside the log source or the
// phrase, the line is not a marker (OpNop): a lost Begin leaves the resource's
// calls outside every block (or inside a previous block whose End was lost
// too), and a lost End leaves the block open until the next Begin. Since an End
// line is 18 bytes shorter than its Begin line, the End survives whenever the
// Begin did.
//
// Only the English messages are known; Puppet must run with LANG=C (fsmove run
// does).
type Marker struct{}

var _ fstrace.BlockMarker = Marker{}

// NextMark returns the first evaltrace marker in data, OpBegin or OpEnd with
// the resource reference (a copy), and the data after that line; or OpNop
// when data holds none.
func (Marker) NextMark(data string) (op fstrace.Op, name, rest string) {
	for len(data) > 0 {
		var line string
		line, data = cutLine(data)
		if o, n := markLine(line); o != fstrace.OpNop {
			return o, strings.Clone(n), data
		}
	}
	return fstrace.OpNop, "", ""
}

// Marks yields every evaltrace marker in data, in order.
func (m Marker) Marks(data string) iter.Seq2[fstrace.Op, string] {
	return func(yield func(fstrace.Op, string) bool) {
		for data != "" {
			var op fstrace.Op
			var name string
			op, name, data = m.NextMark(data)
			if op == fstrace.OpNop || !yield(op, name) {
				return
			}
		}
	}
}

// cutLine splits off the first line of data, without its "\n" or "\r\n".
func cutLine(data string) (line, rest string) {
	i := strings.IndexByte(data, '\n')
	if i < 0 {
		line, rest = data, ""
	} else {
		line, rest = data[:i], data[i+1:]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

// markLine recognises one line. The returned name points into line.
func markLine(line string) (fstrace.Op, string) {
	line = trimColourPrefix(line)
	// Most writes to fd 1 under --debug are "Debug: …" lines: reject them on
	// their first bytes before any searching.
	if !strings.HasPrefix(line, infoPrefix) {
		return fstrace.OpNop, ""
	}
	rest := trimColourSuffix(line[len(infoPrefix):])

	// The message is at the end of the line, and the source before it may
	// itself contain the phrases (a title is free text), so each phrase is
	// looked up from the end and what follows it must fit its grammar.
	if i := strings.LastIndex(rest, endPhrase); i >= 0 && isSecondsTail(rest[i+len(endPhrase):]) {
		if ref, ok := SourceRef(rest[:i]); ok {
			return fstrace.OpEnd, ref
		}
	}
	if i := strings.LastIndex(rest, beginPhrase); i >= 0 && isCounterTail(rest[i+len(beginPhrase):]) {
		if ref, ok := SourceRef(rest[:i]); ok {
			return fstrace.OpBegin, ref
		}
	}
	// A Begin cut by strace -s inside its phrase: the line stops within
	// "Starting to evaluate the resource", after at least "Starting to".
	const cutMin = len(": Starting to")
	if i := strings.LastIndex(rest, ": Starting to"); i >= 0 && len(rest)-i >= cutMin &&
		strings.HasPrefix(beginPhrase, rest[i:]) {
		if ref, ok := SourceRef(rest[:i]); ok {
			return fstrace.OpBegin, ref
		}
	}
	return fstrace.OpNop, ""
}

// isCounterTail reports whether s is what may follow the Begin phrase: "",
// " (N of M)", or a prefix of that cut by strace -s.
func isCounterTail(s string) bool {
	if s == "" {
		return true
	}
	// Expected shape, walked byte by byte: " (" digits " of " digits ")".
	const (
		wantSpace = iota
		wantParen
		wantDigits1
		inDigits1 // digits, then " of "
		wantDigits2
		inDigits2 // digits, then ")"
		done
	)
	state := wantSpace
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch state {
		case wantSpace:
			if c != ' ' {
				return false
			}
			state = wantParen
		case wantParen:
			if c != '(' {
				return false
			}
			state = wantDigits1
		case wantDigits1, wantDigits2:
			if !isDigit(c) {
				return false
			}
			state++
		case inDigits1:
			if isDigit(c) {
				continue
			}
			// " of " must follow, possibly cut.
			tail := s[i:]
			if len(tail) >= len(" of ") {
				if tail[:len(" of ")] != " of " {
					return false
				}
				i += len(" of ") - 1
				state = wantDigits2
				continue
			}
			return strings.HasPrefix(" of ", tail)
		case inDigits2:
			if isDigit(c) {
				continue
			}
			if c != ')' {
				return false
			}
			state = done
		case done:
			return false
		}
	}
	return true
}

// isSecondsTail reports whether s is what may follow the End phrase:
// "0.04 seconds", or a prefix of it cut by strace -s (possibly "").
func isSecondsTail(s string) bool {
	i := 0
	for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
		i++
	}
	if i == len(s) {
		return true
	}
	if i == 0 {
		return false
	}
	const unit = " seconds"
	tail := s[i:]
	if len(tail) > len(unit) {
		return false
	}
	return unit[:len(tail)] == tail
}

// trimColourPrefix removes ANSI SGR sequences ("\x1b[0;32m") at the start of
// s. It also accepts them still escaped as strace prints them ("\33[0;32m"),
// in case a caller passes undecoded text.
func trimColourPrefix(s string) string {
	for {
		n := sgrLen(s)
		if n == 0 {
			return s
		}
		s = s[n:]
	}
}

// trimColourSuffix removes ANSI SGR sequences at the end of s ("\x1b[0m").
func trimColourSuffix(s string) string {
	for len(s) > 0 && s[len(s)-1] == 'm' {
		// Walk back over the parameters to the "[" and check what precedes it.
		j := len(s) - 2
		for j >= 0 && (isDigit(s[j]) || s[j] == ';') {
			j--
		}
		if j < 0 || s[j] != '[' {
			return s
		}
		switch {
		case j >= 1 && s[j-1] == '\x1b':
			s = s[:j-1]
		case j >= 3 && s[j-3:j] == `\33`:
			s = s[:j-3]
		default:
			return s
		}
	}
	return s
}

// sgrLen returns the length of the SGR sequence at the start of s, or 0.
func sgrLen(s string) int {
	var i int
	switch {
	case strings.HasPrefix(s, "\x1b["):
		i = 2
	case strings.HasPrefix(s, `\33[`):
		i = 4
	default:
		return 0
	}
	for i < len(s) && (isDigit(s[i]) || s[i] == ';') {
		i++
	}
	if i < len(s) && s[i] == 'm' {
		return i + 1
	}
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
