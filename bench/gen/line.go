package gen

import (
	"bufio"
	"strconv"
)

// lineWriter builds strace lines in one reused buffer and writes them through
// a bufio.Writer. Lines are built with append and strconv.Append*, never fmt:
// the generator must write hundreds of MB per second.
type lineWriter struct {
	w     *bufio.Writer
	b     []byte // the line being built
	n     int64  // bytes written so far
	limit int    // strace -s
	err   error
	// memo holds the quoted form of strings written again and again (file
	// contents, ELF headers), so they are escaped once.
	memo map[string][]byte
}

// start begins a line for pid: strace -f -o prints the pid left-aligned in
// five columns and a space ("%-5d ").
func (lw *lineWriter) start(pid int) {
	b := strconv.AppendInt(lw.b[:0], int64(pid), 10)
	for len(b) < 5 {
		b = append(b, ' ')
	}
	lw.b = append(b, ' ')
}

// s appends literal text.
func (lw *lineWriter) s(text string) { lw.b = append(lw.b, text...) }

// i appends a decimal number.
func (lw *lineWriter) i(v int64) { lw.b = strconv.AppendInt(lw.b, v, 10) }

// hex appends 0x and v in hexadecimal, as strace prints pointers.
func (lw *lineWriter) hex(v uint64) {
	lw.b = append(lw.b, '0', 'x')
	lw.b = strconv.AppendUint(lw.b, v, 16)
}

// path appends a quoted path made of prefix and name, which need no
// escaping (generated paths are printable ASCII without quotes or
// backslashes, or pre-escaped).
func (lw *lineWriter) path(prefix, name string) {
	lw.b = append(lw.b, '"')
	lw.b = append(lw.b, prefix...)
	lw.b = append(lw.b, name...)
	lw.b = append(lw.b, '"')
}

// quoted appends data as strace prints a string argument: escaped, cut to
// the -s limit and followed by "..." when cut.
func (lw *lineWriter) quoted(data string) {
	lw.b = appendQuoted(lw.b, data, lw.limit)
}

// quotedConst is quoted for a string from a small fixed set.
func (lw *lineWriter) quotedConst(data string) {
	q, ok := lw.memo[data]
	if !ok {
		if lw.memo == nil {
			lw.memo = make(map[string][]byte)
		}
		q = appendQuoted(nil, data, lw.limit)
		lw.memo[data] = q
	}
	lw.b = append(lw.b, q...)
}

// returnColumn is where strace puts the "=" of short calls: it pads the
// line with spaces to column 40 (its -a option), pid prefix included.
const returnColumn = 40

// eq closes the argument list and starts the return part: ")", spaces up to
// returnColumn (one space when the line is already longer), "= ".
func (lw *lineWriter) eq() {
	lw.b = append(lw.b, ')')
	if pad := returnColumn - len(lw.b); pad > 0 {
		lw.b = append(lw.b, spaces[:pad]...)
	} else {
		lw.b = append(lw.b, ' ')
	}
	lw.b = append(lw.b, '=', ' ')
}

const spaces = "                                        " // returnColumn of them

// ret ends the call with a numeric return value.
func (lw *lineWriter) ret(v int64) {
	lw.eq()
	lw.b = strconv.AppendInt(lw.b, v, 10)
}

// retText ends the call with a return part written as text ("?",
// "-1 EINVAL (Invalid argument)"); more may be appended after it.
func (lw *lineWriter) retText(text string) {
	lw.eq()
	lw.b = append(lw.b, text...)
}

// enoent ends a call that failed with ENOENT.
func (lw *lineWriter) enoent() { lw.retText("-1 ENOENT (No such file or directory)") }

// end finishes the line and writes it.
func (lw *lineWriter) end() {
	lw.b = append(lw.b, '\n')
	if lw.err == nil {
		_, lw.err = lw.w.Write(lw.b)
	}
	lw.n += int64(len(lw.b))
}

// appendQuoted appends data in strace's string syntax (without -x): the
// escapes \t \n \v \f \r \" \\, other non-printable bytes in octal (\33,
// or \033 before a digit), and `"...` after the first limit bytes when the
// data is longer.
func appendQuoted(b []byte, data string, limit int) []byte {
	cut := false
	if len(data) > limit {
		data, cut = data[:limit], true
	}
	b = append(b, '"')
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\v':
			b = append(b, '\\', 'v')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < ' ' || c >= 0x7f:
			b = append(b, '\\')
			nextDigit := i+1 < len(data) && data[i+1] >= '0' && data[i+1] <= '9'
			if c >= 0100 || nextDigit {
				b = append(b, '0'+c>>6)
			}
			if c >= 010 || nextDigit {
				b = append(b, '0'+(c>>3)&7)
			}
			b = append(b, '0'+c&7)
		default:
			b = append(b, c)
		}
	}
	b = append(b, '"')
	if cut {
		b = append(b, "..."...)
	}
	return b
}
