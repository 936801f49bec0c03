// Package puppet holds everything that knows Puppet: the evaltrace messages
// that open and close a block, the syntax of resource references, and (in its
// sub-packages) how to compile and apply a catalog inside a container.
package puppet

import (
	"bytes"
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

// A resource that fails is reported at level err, through the same console
// destination but on fd 2 (Puppet 7's console destination writes err and
// warning to $stderr, the other levels to $stdout), in bold red:
//
//	\e[1;31mError: /Stage[main]/Main/Exec[use]/returns: change from 'notrun' to ['0'] failed: Could not find command '/usr/local/bin/x'\e[0m
//	\e[1;31mError: /Stage[main]/Foo/File[/etc/x]: Could not evaluate: …\e[0m
//	\e[1;31mError: /Stage[main]/Main/Service[x]: Failed to call refresh: …\e[0m
//
// The source is the resource's containment path, with a "/property" suffix
// when a property's change failed (Puppet::Transaction::ResourceHarness);
// "Could not evaluate" (Puppet::Resource::Status#failed_because and
// Transaction#apply), "Failed to call refresh" (EventManager) and
// "Provider x is not functional on this host" (Transaction) come from the
// resource itself. Error lines without a resource source ("Error: Could not
// find command …", logged by Puppet.log_exception just before the property's
// line) name no block. A resource skipped because a dependency failed is
// not a failure: Puppet 7 logs "Skipping because of failed dependencies" at
// level warning ("Warning: …"); such a line is rejected even at level err.
const (
	errorPrefix = "Error: "
	skipPhrase  = "Skipping because of failed dependencies"
	// maxFailMessage bounds the message kept of an error line.
	maxFailMessage = 300
	// maxSourceTries bounds the ": " tried as the end of an error line's
	// source (a title may hold ": " a few times; a line of thousands must
	// not cost quadratic time).
	maxSourceTries = 32
)

// Marker recognises Puppet's evaltrace lines in the data a process writes to
// fd 1, and the error lines that report a resource as failed (fd 2: OpFail,
// with the line as message). It implements fstrace.BlockMarker; the zero
// value is ready to use and it keeps no state, so one Marker may serve
// several goroutines.
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

var _ fstrace.ProgramMarker = Marker{}

// MarkerProgram reports whether an exec of path starts Puppet: the
// program's file is named puppet (/usr/bin/puppet, found on PATH by the
// shell that fsmove's apply script execs it from). Only the process that
// first execs it writes markers (fstrace.ProgramMarker): an Exec that runs
// a puppet of its own comes later.
func (Marker) MarkerProgram(path string) bool {
	return path == "puppet" || strings.HasSuffix(path, "/puppet")
}

// NextMark returns the first marker in data: OpBegin or OpEnd with the
// resource reference (a copy), or OpFail with the reference and the error
// line (a copy without colour, cut to 300 bytes at a character boundary);
// and the data after that line. It returns OpNop when data holds none.
func (Marker) NextMark(data string) (op fstrace.Op, name, msg, rest string) {
	for len(data) > 0 {
		var line string
		line, data = cutLine(data)
		if o, n, m := markLine(line); o != fstrace.OpNop {
			if m != "" {
				m = strings.Clone(m)
			}
			return o, strings.Clone(n), m, data
		}
	}
	return fstrace.OpNop, "", "", ""
}

// CutMark reports whether data, cut short by the tracer, may have held an
// evaltrace marker that was lost: an info line that is not a whole marker,
// or a last line that is the start of one. (Debug lines, most of what
// Puppet writes, are not.) The cut may be anywhere: writev's buffers are
// joined, so the cut line may be followed by the next buffer's newline.
// It implements fstrace.CutMarker.
func (Marker) CutMark(data string) bool {
	for data != "" {
		var line string
		line, data = cutLine(data)
		bare := trimColourPrefix(line)
		switch {
		case line == "":
		case bare == "" || bare[0] == '\x1b':
			return true // cut in or right after the colour escape
		case strings.HasPrefix(bare, infoPrefix):
			if op, _, _ := markLine(line); op == fstrace.OpNop {
				return true
			}
		case data == "" && strings.HasPrefix(infoPrefix, bare):
			return true
		}
	}
	return false
}

// MayMark reports whether data that a tracer printed as strace prints it
// (within quotes, with C escapes, perhaps followed by "..." when cut) may
// hold a marker, a failure report or a marker cut short (CutMark), without
// decoding it. The strace reader asks it about the long writes to fds 1
// and 2 (strace.Options.MarkerData): Puppet's debug lines and the archives
// tar writes to a pipe need no decoding. It says no only when decoding
// could not find one:
//   - the lines that mark begin with "Info: " or "Error: " after their
//     colour, and strace prints those words as they are (with -x or -xx it
//     prints bytes in hex: text with \x escapes may hold anything);
//   - CutMark, for cut data, also looks for a line that begins with an
//     escape, and for a last line that is the start of "Info: ". A line
//     begins after the opening quote or a "\n" (one that is really "\\n"
//     only adds a line start to look at).
func (Marker) MayMark(printed []byte) bool {
	if bytes.Contains(printed, []byte(infoPrefix)) || bytes.Contains(printed, []byte(errorPrefix)) ||
		bytes.Contains(printed, []byte(`\x`)) {
		return true
	}
	text, cut := bytes.CutSuffix(printed, []byte(`"...`))
	if !cut {
		return false
	}
	text = bytes.TrimPrefix(text, []byte(`"`))
	for {
		for _, esc := range []string{`\33`, `\033`, `\\33`} { // ESC, or still escaped (sgrLen)
			if bytes.HasPrefix(text, []byte(esc)) {
				return true
			}
		}
		k := bytes.Index(text, []byte(`\n`))
		if k < 0 {
			return len(text) < len(infoPrefix) // printed as it is
		}
		text = text[k+2:]
	}
}

// marks yields every evaltrace marker in data (OpBegin and OpEnd, not the
// failure reports), in order: after the last one, the block it names is
// open or closed.
func (m Marker) marks(data string) iter.Seq2[fstrace.Op, string] {
	return func(yield func(fstrace.Op, string) bool) {
		for data != "" {
			var op fstrace.Op
			var name string
			op, name, _, data = m.NextMark(data)
			if op == fstrace.OpFail {
				continue
			}
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

// markLine recognises one line. The returned name and message point into
// line.
func markLine(line string) (fstrace.Op, string, string) {
	line = trimColourPrefix(line)
	// Most writes to fd 1 under --debug are "Debug: …" lines: reject them on
	// their first bytes before any searching.
	if !strings.HasPrefix(line, infoPrefix) {
		if strings.HasPrefix(line, errorPrefix) {
			return errorLine(line)
		}
		return fstrace.OpNop, "", ""
	}
	op, ref := evaltraceLine(line)
	return op, ref, ""
}

// errorLine recognises an error line that names a resource: OpFail, the
// resource's reference, and the line without colour, bounded. The source
// ends at the first ": " before which the text is a containment path
// (after an optional "/property"): a title may hold ": " and so may the
// message, but a message rarely holds a whole containment path before a
// ": ", and the leftmost reading attributes "Could not evaluate: … for
// Exec[y]: …" right.
func errorLine(line string) (fstrace.Op, string, string) {
	line = trimColourSuffix(line)
	rest := line[len(errorPrefix):]
	from := 0
	for try := 0; try < maxSourceTries; try++ {
		i := strings.Index(rest[from:], ": ")
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		ref, ok := SourceRef(trimProperty(rest[:i]))
		if !ok {
			continue
		}
		if strings.HasPrefix(rest[i+2:], skipPhrase) {
			break
		}
		return fstrace.OpFail, ref, cutMessage(line)
	}
	return fstrace.OpNop, "", ""
}

// trimProperty removes a "/property" suffix (a lower-case Puppet name) from
// a log source: "/Stage[main]/Main/Exec[x]/returns" → "/Stage[main]/Main/Exec[x]".
func trimProperty(source string) string {
	if source == "" || source[len(source)-1] == ']' {
		return source
	}
	j := strings.LastIndexByte(source, '/')
	if j < 0 || j+1 == len(source) || source[j+1] < 'a' || source[j+1] > 'z' {
		return source
	}
	for k := j + 1; k < len(source); k++ {
		if c := source[k]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return source
		}
	}
	return source[:j]
}

// cutMessage bounds s to maxFailMessage bytes, cutting at the start of a
// UTF-8 character.
func cutMessage(s string) string {
	if len(s) <= maxFailMessage {
		return s
	}
	n := maxFailMessage
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}

// evaltraceLine recognises an "Info: " line, Begin or End.
func evaltraceLine(line string) (fstrace.Op, string) {
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
