package strace

import (
	"bytes"
	"math"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
)

// argList reads the arguments up to and including the closing ')',
// decoding those in argMask (0: all) and skipping the others. With last >=
// 0 it stops after argument last, leaving the rest of the line unread.
func (p *lineParser) argList(i int, argMask uint64, last int) (int, string) {
	b := p.b
	ev := &p.out.ev
	i = skipSpaces(b, i)
	if i < len(b) && b[i] == ')' {
		return i + 1, ""
	}
	for {
		// Decode in place: a local Arg would escape to the heap through
		// the recursive value calls.
		n := len(ev.Args)
		ev.Args = append(ev.Args, tracer.Arg{})
		var ok bool
		switch {
		case argMask != 0 && (n >= 64 || argMask&(1<<n) == 0):
			ev.Args[n].Kind = tracer.ArgOther
			i, ok = p.skipExpr(skipSpaces(b, i))
		case n == 1 && p.out.call.writes != 0:
			i, ok = p.writeData(i, &ev.Args[n])
		default:
			i, ok = p.topArg(i, &ev.Args[n])
		}
		if !ok {
			return i, "bad argument"
		}
		if n == last {
			return i, ""
		}
		i = skipSpaces(b, i)
		if i >= len(b) {
			return i, "unterminated argument list"
		}
		switch b[i] {
		case ',':
			i++
		case ')':
			return i + 1, ""
		default:
			return i, "bad argument"
		}
	}
}

// writeData reads the data argument of a write (Options.ShortWrites): on
// fds 1 and 2 any the MarkerData filter lets through, elsewhere a short
// write's; another is skipped, as an ArgOther.
func (p *lineParser) writeData(i int, a *tracer.Arg) (int, bool) {
	fd := p.out.ev.Args[0].Int
	marker := linux.WriteDataRead(fd, math.MaxInt) // fd 1 or 2
	if marker && p.rules.markerData == nil {
		return p.topArg(i, a)
	}
	i = skipSpaces(p.b, i)
	end, ok := p.skipExpr(i)
	if !ok {
		return end, false
	}
	// A byte prints as at most four characters ("\377"), within quotes and
	// perhaps followed by "...": a longer string is not short. An iovec
	// array's text is longer than its data; it is decoded to be measured.
	short := p.out.call.writes != linux.WriteData || end-i <= 4*linux.ShortWrite+len(`""...`)
	if !short && (!marker || !p.rules.markerData(p.b[i:end])) {
		a.Kind = tracer.ArgOther
		return end, true
	}
	if end, ok = p.topArg(i, a); ok && !marker && (a.Truncated || !linux.WriteDataRead(fd, len(a.Str))) {
		*a = tracer.Arg{Kind: tracer.ArgOther}
	}
	return end, ok
}

// topArg reads one argument of the call, with its optional "name=".
func (p *lineParser) topArg(i int, a *tracer.Arg) (int, bool) {
	b := p.b
	i = skipSpaces(b, i)
	if k := memberName(b, i); k > i {
		a.Name = p.intern(b[i:k])
		i = k + 1
	}
	p.strBuf = p.strBuf[:0]
	i, ok := p.value(i, a, 0)
	if !ok {
		return i, false
	}
	switch a.Kind {
	case tracer.ArgStr, tracer.ArgArray, tracer.ArgStruct:
		switch {
		case p.failedCall && a.Kind == tracer.ArgStr:
			a.Str = p.failedStr(p.strBuf)
		case a.Kind == tracer.ArgStr || len(p.strBuf) > 0:
			a.Str = string(p.strBuf)
		}
	}
	return i, true
}

// memberName returns the end of a "name=" prefix at b[i:] (the index of the
// '='), or i when there is none. Names are lower-case C identifiers, which
// keeps "WEXITSTATUS(s) == 0" and "O_RDONLY" from looking like one.
func memberName(b []byte, i int) int {
	k := i
	if k >= len(b) || !(b[k] == '_' || (b[k] >= 'a' && b[k] <= 'z')) {
		return i
	}
	for k < len(b) && (b[k] == '_' || (b[k] >= 'a' && b[k] <= 'z') || isDigit(b[k])) {
		k++
	}
	if k+1 < len(b) && b[k] == '=' && b[k+1] != '=' && b[k+1] != '>' {
		return k
	}
	return i
}

// value reads one value at b[i:] into a. depth is 0 for a call argument.
//
//   - "…" is a string (C escapes decoded; "…"... sets Truncated);
//   - NULL is ArgNull;
//   - numbers (decimal, 0x hex, 0 octal, negative), symbolic constants and
//     flag sets (A|B|0644) are ArgInt with the or of their values; a hex
//     number of more than 8 digits is a pointer (ArgPtr); -y annotations
//     (3</etc/x>) are dropped;
//   - {…} is ArgStruct, Int = its flags= member;
//   - […] is ArgArray, Ints = its integer elements (for a call argument);
//     strings inside structs and arrays are concatenated into Str, and a
//     cut one sets the container's Truncated;
//   - signal sets [CHLD …] and ~[…] and any other expression (makedev(1, 3),
//     WIFEXITED(s) && …) are ArgOther; Str holds the raw text for a call
//     argument.
//
// Comments (/* 20 vars */) and out-parts (clone3's "{…} => {…}") after a
// value are skipped.
func (p *lineParser) value(i int, a *tracer.Arg, depth int) (int, bool) {
	b := p.b
	i = skipSpaces(b, i)
	if i >= len(b) || depth >= maxDepth {
		return i, false
	}
	var ok bool
	switch b[i] {
	case '"':
		a.Kind = tracer.ArgStr
		if i, ok = p.str(i); !ok {
			return i, false
		}
		if hasPrefixAt(b, i, "...") {
			a.Truncated = true
			i += 3
		}
	case '[':
		if i, ok = p.array(i, a, depth); !ok {
			return i, false
		}
	case '{':
		if i, ok = p.structure(i, a, depth); !ok {
			return i, false
		}
	case '~':
		start := i
		if i, ok = p.skipExpr(i); !ok {
			return i, false
		}
		p.other(b[start:i], a, depth)
	default:
		start := i
		if i, ok = p.skipExpr(i); !ok || i == start {
			return i, false // no value at all: "f(a=)"
		}
		p.expr(b[start:i], p.sawComment, a, depth)
	}
	// What may follow a value: comments and out-parts.
	for {
		j := skipSpaces(b, i)
		switch {
		case hasPrefixAt(b, j, "/*"):
			end := bytes.Index(b[j+2:], []byte("*/"))
			if end < 0 {
				return j, false
			}
			i = j + 2 + end + 2
		case j == i && j < len(b) && b[j] == '<' && j > 0 && b[j-1] == '/':
			// -yy with -X verbose: "-100 /* AT_FDCWD */</root>".
			if i, ok = skipAnnotation(b, j); !ok {
				return i, false
			}
		case hasPrefixAt(b, j, "=>"):
			keep := len(p.strBuf)
			if i, ok = p.value(j+2, p.nested(depth+1), depth+1); !ok {
				return i, false
			}
			p.strBuf = p.strBuf[:keep]
		default:
			return i, true
		}
	}
}

// maxDepth bounds the nesting of structs and arrays (strace prints a few
// levels; a corrupt line must not recurse without end).
const maxDepth = 64

// nested returns a cleared scratch Arg for an element at the given depth.
// Elements are decoded into these rather than into locals, which would escape
// to the heap through the recursive calls (one allocation per element).
func (p *lineParser) nested(depth int) *tracer.Arg {
	a := &p.elems[depth]
	*a = tracer.Arg{}
	return a
}

// array reads "[v, v, …]" at b[i] == '['.
func (p *lineParser) array(i int, a *tracer.Arg, depth int) (int, bool) {
	b := p.b
	j := skipSpaces(b, i+1)
	if j < len(b) && b[j] >= 'A' && b[j] <= 'Z' {
		// A signal set: [CHLD], [RTMIN RT_1] (no commas, no values).
		end, ok := p.skipExpr(i)
		if ok {
			p.other(b[i:end], a, depth)
		}
		return end, ok
	}
	a.Kind = tracer.ArgArray
	first := len(p.out.ints)
	i = j
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		el := p.nested(depth + 1)
		var ok bool
		if i, ok = p.value(i, el, depth+1); !ok {
			return i, false
		}
		a.Truncated = a.Truncated || el.Truncated // a writev buffer cut by -s
		if depth == 0 && el.Kind == tracer.ArgInt {
			p.out.ints = append(p.out.ints, el.Int)
		}
		i = skipSpaces(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			if n := len(p.out.ints); n > first {
				a.Ints = p.out.ints[first:n:n]
			}
			return i + 1, true
		default:
			return i, false
		}
	}
}

// structure reads "{name=v, …}" at b[i] == '{'.
func (p *lineParser) structure(i int, a *tracer.Arg, depth int) (int, bool) {
	b := p.b
	a.Kind = tracer.ArgStruct
	i = skipSpaces(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		i = skipSpaces(b, i)
		isFlags := false
		if k := memberName(b, i); k > i {
			isFlags = string(b[i:k]) == "flags"
			i = k + 1
		}
		m := p.nested(depth + 1)
		var ok bool
		if i, ok = p.value(i, m, depth+1); !ok {
			return i, false
		}
		a.Truncated = a.Truncated || m.Truncated
		if isFlags && m.Kind == tracer.ArgInt {
			a.Int = m.Int
		}
		i = skipSpaces(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// skipExpr finds the end of an expression starting at b[i]: the first ',',
// ')', ']' or '}' outside brackets, a comment, or an out-part "=>". Strings
// and -y annotations inside are skipped whole.
func (p *lineParser) skipExpr(i int) (int, bool) {
	b := p.b
	start := i
	depth := 0
	p.sawComment = false
	for i < len(b) {
		// Most bytes of an expression need no attention: skip them in a
		// tight loop.
		for i < len(b) && plainExprByte[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		switch b[i] {
		case '"':
			var ok bool
			if i, ok = skipString(b, i); !ok {
				return i, false
			}
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return i, true
			}
			depth--
		case ',':
			if depth == 0 {
				return i, true
			}
		case '/':
			if i+1 < len(b) && b[i+1] == '*' {
				// -X verbose: "0x1200000 /* CLONE_… */|17 /* SIGCHLD */".
				p.sawComment = true
				end := bytes.Index(b[i+2:], []byte("*/"))
				if end < 0 {
					return len(b), false
				}
				i += 2 + end + 2
				if i < len(b) && b[i] == '<' { // "-100 /* AT_FDCWD */</root>"
					var ok bool
					if i, ok = skipAnnotation(b, i); !ok {
						return i, false
					}
				}
				continue
			}
		case '=':
			if depth == 0 && i+1 < len(b) && b[i+1] == '>' {
				return i, true
			}
		case '<':
			if isAnnotationStart(b, i, start) {
				var ok bool
				if i, ok = skipAnnotation(b, i); !ok {
					return i, false
				}
				continue
			}
		}
		if depth == 0 && i > start && (b[start] == '[' || b[start] == '~') && b[i] == ']' {
			return i + 1, true
		}
		i++
	}
	return i, depth == 0
}

// plainExprByte marks the bytes skipExpr can pass over without a look:
// letters, digits and the operators of flag sets and numbers.
var plainExprByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isIdentChar(byte(c))
	}
	for _, c := range []byte(" |.-:&+*!~@#$%^?;'`\\") {
		t[c] = true
	}
	return t
}()

// isAnnotationStart tells a -y annotation ("3</x>", "AT_FDCWD</root>") from a
// shift operator ("1<<20"): it follows a name or number character directly.
func isAnnotationStart(b []byte, i, start int) bool {
	if i == start || i+1 >= len(b) || b[i+1] == '<' || b[i-1] == '<' {
		return false
	}
	c := b[i-1]
	return isIdentChar(c)
}

// skipAnnotation skips a -y/-yy annotation at b[i] == '<': "</etc/x>",
// "</dev/null<char 1:3>>", "<TCP:[1.2.3.4:22->5.6.7.8:99]>". strace escapes
// '<' and '>' inside paths, so only sockets and pipes ("NAME:[…]") can hold a
// bare '>' (in "->"), and those are inside square brackets.
func skipAnnotation(b []byte, i int) (int, bool) {
	trackSquare := i+1 < len(b) && b[i+1] != '/'
	angle, square := 0, 0
	for i < len(b) {
		switch b[i] {
		case '\\':
			i += 2
			continue
		case '"':
			var ok bool
			if i, ok = skipString(b, i); !ok {
				return i, false
			}
			continue
		case '[':
			if trackSquare {
				square++
			}
		case ']':
			if square > 0 {
				square--
			}
		case '<':
			if square == 0 {
				angle++
			}
		case '>':
			if square == 0 {
				angle--
				if angle == 0 {
					return i + 1, true
				}
			}
		}
		i++
	}
	return i, false
}

// expr decodes an expression: NULL, a number, a constant, a flag set, or
// anything else (ArgOther). hadComment says whether skipExpr saw a /* */.
func (p *lineParser) expr(text []byte, hadComment bool, a *tracer.Arg, depth int) {
	if hadComment {
		text = p.dropComments(text)
	}
	text = trimSpaces(text)
	if string(text) == "NULL" {
		a.Kind = tracer.ArgNull
		return
	}
	// A trace repeats a few dozen symbolic expressions ("AT_FDCWD",
	// "O_RDONLY|O_CLOEXEC"): their values are remembered, so that most
	// cost no lookup of each name.
	var slot *exprSlot
	if len(text) > 0 && isIdentChar(text[0]) && !isDigit(text[0]) {
		slot = &p.recentExprs[exprHash(text)]
		if slot.text == string(text) {
			a.Kind, a.Int = tracer.ArgInt, slot.value
			return
		}
	}
	symbolic := true // every term is a name
	var v int64
	terms := 0
	for i := 0; i < len(text); {
		// One term of a flag set: up to the next '|'.
		start := i
		for i < len(text) && text[i] != '|' {
			i++
		}
		term := trimSpaces(text[start:i])
		last := i >= len(text)
		i++
		terms++
		for k := 1; k < len(term); k++ {
			if term[k] == '<' && isAnnotationStart(term, k, 0) {
				term = term[:k] // 3</etc/x> → 3
				break
			}
		}
		switch {
		case len(term) == 0:
			p.other(text, a, depth)
			return
		case isDigit(term[0]) || (term[0] == '-' && len(term) > 1 && isDigit(term[1])):
			n, hexDigits, ok := parseNumber(term)
			if !ok {
				p.other(text, a, depth)
				return
			}
			symbolic = false
			v |= n
			if hexDigits > 8 && terms == 1 && last {
				a.Kind, a.Int = tracer.ArgPtr, n
				return
			}
		case isIdent(term):
			if c, ok := constantValues[string(term)]; ok {
				v |= c
			}
		default:
			p.other(text, a, depth)
			return
		}
	}
	a.Kind, a.Int = tracer.ArgInt, v
	if slot != nil && symbolic {
		*slot = exprSlot{text: string(text), value: v}
	}
}

// exprSlot is a symbolic expression and its value (lineParser.recentExprs).
type exprSlot struct {
	text  string
	value int64
}

// exprHash picks an expression's slot in lineParser.recentExprs.
func exprHash(text []byte) int {
	h := uint32(len(text))
	for _, c := range text {
		h = h*31 + uint32(c)
	}
	return int(h % recentExprSlots)
}

// before them) into a scratch buffer: "-100 /* AT_FDCWD */</x>" → "-100</x>".
func (p *lineParser) dropComments(text []byte) []byte {
	out := p.exprBuf[:0]
	for len(text) > 0 {
		k := bytes.Index(text, []byte("/*"))
		if k < 0 {
			out = append(out, text...)
			break
		}
		out = bytes.TrimRight(append(out, text[:k]...), " ")
		end := bytes.Index(text[k+2:], []byte("*/"))
		if end < 0 {
			break
		}
		text = text[k+2+end+2:]
	}
	p.exprBuf = out
	return out
}

// other marks a value as ArgOther, keeping its raw text for call arguments.
func (p *lineParser) other(text []byte, a *tracer.Arg, depth int) {
	a.Kind = tracer.ArgOther
	if depth == 0 {
		a.Str = string(bytes.TrimRight(text, " "))
	}
}

// str decodes the string at b[i] == '"' into p.strBuf and returns the index
// after the closing quote.
func (p *lineParser) str(i int) (int, bool) {
	b := p.b
	i++
	quote := -1 // the next '"' at or after i, once searched
	for {
		// Copy the run of plain bytes in one go. The run ends at the next
		// quote or backslash; two vectorised searches find it faster than a
		// byte loop on the long strings of read and write calls. The quote
		// is searched again only once an escape has passed it (\"): a
		// string with many escapes is not read again to its end each time.
		if quote < i {
			quote = len(b)
			if q := bytes.IndexByte(b[i:], '"'); q >= 0 {
				quote = i + q
			}
		}
		k := quote
		if e := bytes.IndexByte(b[i:k], '\\'); e >= 0 {
			k = i + e
		}
		p.strBuf = append(p.strBuf, b[i:k]...)
		if k >= len(b) {
			return k, false
		}
		if b[k] == '"' {
			return k + 1, true
		}
		// A backslash escape.
		if k+1 >= len(b) {
			return k + 1, false
		}
		c := b[k+1]
		i = k + 2
		switch c {
		case 'n':
			p.strBuf = append(p.strBuf, '\n')
		case 't':
			p.strBuf = append(p.strBuf, '\t')
		case 'r':
			p.strBuf = append(p.strBuf, '\r')
		case 'v':
			p.strBuf = append(p.strBuf, '\v')
		case 'f':
			p.strBuf = append(p.strBuf, '\f')
		case 'b':
			p.strBuf = append(p.strBuf, '\b')
		case 'a':
			p.strBuf = append(p.strBuf, '\a')
		case 'x':
			v, n := 0, 0
			for n < 2 && i < len(b) && hexValue(b[i]) >= 0 {
				v = v*16 + hexValue(b[i])
				i++
				n++
			}
			if n == 0 {
				return i, false
			}
			p.strBuf = append(p.strBuf, byte(v))
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(c - '0')
			for n := 1; n < 3 && i < len(b) && b[i] >= '0' && b[i] <= '7'; n++ {
				v = v*8 + int(b[i]-'0')
				i++
			}
			p.strBuf = append(p.strBuf, byte(v))
		default: // \" \\ \' \? and anything unknown: the character itself
			p.strBuf = append(p.strBuf, c)
		}
	}
}
