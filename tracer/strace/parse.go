package strace

import (
	"bytes"
	"math/bits"

	"github.com/fsmove/fsmove/tracer"
)

// unfinishedSuffix ends the first half of a call interrupted by another
// process's line.
const unfinishedSuffix = " <unfinished ...>"

// detachedSuffix ends a call that was running when strace detached from the
// process (strace -p, or strace stopped by a signal): it never returned in
// the trace, and has no effect on the model.
const detachedSuffix = " <detached ...>"

// maxUnknownNames bounds the cache of syscall and argument names that are not
// in internTable (a fuzzed or corrupt trace could otherwise grow it forever).
const maxUnknownNames = 4096

// callInfo is what the Reader remembers per distinct syscall name.
type callInfo struct {
	name   string // interned
	wanted bool   // Options.Want's answer
	args   uint64 // Options.Args's answer: argument positions to decode, 0 = all
}

// lineParser decodes one line into the Reader's reused Event. Its buffers
// are reused from line to line.
type lineParser struct {
	r          *Reader
	b          []byte                   // the call text being decoded
	strBuf     []byte                   // decoded string bytes of the current argument
	joined     []byte                   // an unfinished call's text joined with its resumed half
	exprBuf    []byte                   // an expression without its comments
	sawComment bool                     // skipExpr passed over a /* comment */
	elems      [maxDepth + 1]tracer.Arg // scratch Args for nested elements, one per depth
	solo       int                      // pid of unprefixed lines in "[pid N]" output once known, else 0
	ints       []int64                  // backing store for the Ints of the current event's arrays
	calls      map[string]callInfo      // per syscall name: interned name and Want's answer
	recent     [256]callInfo            // cache of calls, indexed by a cheap hash of the name
	names      map[string]string        // interned argument names (name=value) and errno names
	// failedStrs interns the strings of the failed calls decoded for
	// Options.FailedArgs (the same few paths probed again and again), so
	// that they cost no allocation; failedCall is set while one is decoded.
	failedStrs map[string]string
	failedCall bool
}

// maxFailedStrs bounds failedStrs; it is emptied when full.
const maxFailedStrs = 1 << 14

// parseLine reads one line. It returns true when r.ev holds an event to
// deliver, and a non-nil error only for a fatal (strict mode) problem.
func (p *lineParser) parseLine(line []byte, pid int) (bool, error) {
	i := skipSpaces(line, 0)
	unprefixed := pid
	prefixed, bracketed := true, false
	switch {
	case hasPrefixAt(line, i, "[pid"):
		bracketed = true
		// "[pid 123] " from strace -f writing to stderr.
		j := skipSpaces(line, i+4)
		n, k := parseDigits(line, j)
		k = skipComm(line, k)
		if k == j || k >= len(line) || line[k] != ']' {
			return false, p.r.malformedLine(line, "bad [pid N] prefix")
		}
		pid = n
		i = skipSpaces(line, k+1)
	case i < len(line) && isDigit(line[i]):
		// "123 " from strace -f -o FILE. Digits followed by ':' or '.' are a
		// timestamp of a trace without pids instead.
		n, k := parseDigits(line, i)
		k = skipComm(line, k)
		if k < len(line) && line[k] == ' ' {
			pid = n
			i = skipSpaces(line, k)
		} else {
			prefixed = false
		}
	default:
		prefixed = false
	}
	if !prefixed && p.solo > 0 {
		pid = p.solo
	}
	// Timestamps: -t (12:34:56), -tt (12:34:56.123456), -ttt (1700000000.123456)
	// and -r (0.000123, right-aligned). The call's order is the line order, so
	// the value is not needed here (the -ff merge reads it separately).
	if i < len(line) && isDigit(line[i]) {
		k := i
		for k < len(line) && (isDigit(line[k]) || line[k] == '.' || line[k] == ':') {
			k++
		}
		if k >= len(line) || line[k] != ' ' {
			return false, p.r.malformedLine(line, "bad timestamp")
		}
		i = skipSpaces(line, k)
	}
	if hasPrefixAt(line, i, "[") && i+1 < len(line) && (hexValue(line[i+1]) >= 0 || line[i+1] == '?') {
		// -i: the instruction pointer, "[00007f2c4d6f6e3b] " ("[????????????????] "
		// on exit notices).
		k := i + 1
		for k < len(line) && (hexValue(line[k]) >= 0 || line[k] == '?') {
			k++
		}
		if k >= len(line) || line[k] != ']' {
			return false, p.r.malformedLine(line, "bad [instruction pointer]")
		}
		i = skipSpaces(line, k+1)
	}
	rest := line[i:]
	if len(rest) == 0 {
		return false, nil // blank line
	}
	switch rest[0] {
	case '>':
		return false, nil // -k: a stack frame of the previous call
	case '+':
		return p.exitLine(line, rest, pid)
	case '-':
		return p.signalLine(line, rest, pid)
	case '<':
		if bracketed && p.solo <= 0 && p.r.pending[pid] == nil {
			p.learnSoloPid(unprefixed, pid)
		}
		return p.resumedLine(line, rest, pid)
	}
	if bytes.HasPrefix(rest, []byte("strace: ")) || bytes.HasPrefix(rest, []byte("[ Process ")) {
		return false, nil // strace's own diagnostics ("Process 123 attached", …)
	}
	return p.callLine(line, rest, pid)
}

// skipComm skips the command name strace -Y prints after a pid ("123<sh>").
func skipComm(line []byte, k int) int {
	if k < len(line) && line[k] == '<' {
		if end := bytes.IndexByte(line[k:], '>'); end > 0 {
			return k + end + 1
		}
	}
	return k
}

// callLine reads "name(args) = ret" or the first half "name(args <unfinished ...>".
func (p *lineParser) callLine(line, rest []byte, pid int) (bool, error) {
	j := 0
	for j < len(rest) && isNameChar(rest[j]) {
		j++
	}
	if j == 0 || j >= len(rest) || rest[j] != '(' {
		return false, p.r.malformedLine(line, "expected a system call")
	}
	call := p.callInfo(rest[:j])
	if bytes.HasSuffix(rest, []byte(detachedSuffix)) {
		return false, nil
	}
	if bytes.HasSuffix(rest, []byte(unfinishedSuffix)) {
		pc := p.r.startPending(pid)
		pc.name, pc.wanted, pc.argMask = call.name, call.wanted, call.args
		pc.args = pc.args[:0]
		if call.wanted {
			pc.args = append(pc.args, rest[j+1:len(rest)-len(unfinishedSuffix)]...)
		}
		return false, nil
	}
	if !call.wanted {
		return false, nil
	}
	return p.decodeCall(line, call.name, call.args, pid, rest, j+1)
}

// resumedLine reads "<... name resumed>rest-of-args) = ret" and joins it with
// the pid's pending first half. The event takes this line's number.
func (p *lineParser) resumedLine(line, rest []byte, pid int) (bool, error) {
	const open, close = "<... ", " resumed>"
	if !bytes.HasPrefix(rest, []byte(open)) {
		return false, p.r.malformedLine(line, "expected <... NAME resumed>")
	}
	k := len(open)
	for k < len(rest) && isNameChar(rest[k]) {
		k++
	}
	if !hasPrefixAt(rest, k, close) {
		return false, p.r.malformedLine(line, "expected <... NAME resumed>")
	}
	name := rest[len(open):k]
	pc := p.r.pending[pid]
	if pc == nil || pc.name != string(name) {
		if pc != nil {
			p.r.dropPending(pid, pc)
		}
		p.r.warn(p.r.lineNo, "resumed call without its start", string(cut(line)))
		return false, nil
	}
	wanted := pc.wanted
	callName, argMask := pc.name, pc.argMask
	if wanted {
		p.joined = append(p.joined[:0], pc.args...)
		p.joined = append(p.joined, rest[k+len(close):]...)
	}
	p.r.dropPending(pid, pc)
	if !wanted {
		return false, nil
	}
	return p.decodeCall(line, callName, argMask, pid, p.joined, 0)
}

// learnSoloPid handles strace -f writing to stderr: it prints no "[pid N]"
// while it traces a single process, so the first process's lines carry no
// pid. When one of its calls started unprefixed ("vfork( <unfinished ...>")
// is resumed under "[pid N]", N is that process: its pending call moves to N
// and later unprefixed lines get pid N. (Events before that keep pid 0.)
func (p *lineParser) learnSoloPid(unprefixed, pid int) {
	pc := p.r.pending[unprefixed]
	if pc == nil {
		return
	}
	delete(p.r.pending, unprefixed)
	p.r.pending[pid] = pc
	p.solo = pid
}

// exitLine reads "+++ exited with N +++", "+++ killed by SIGX [(core dumped)] +++"
// and "+++ superseded by execve in pid N +++".
//
// An exit gives Ret = N. A kill gives Ret = -signal and Args[0] = the signal
// (Int its number, Str its name). "superseded" is printed when a thread other
// than the leader calls execve: the thread's pid N disappears (the leader's pid
// carries on with the new program), so it becomes the exit of pid N, and N's
// pending execve moves to the leader so that its "<... execve resumed>" pairs.
func (p *lineParser) exitLine(line, rest []byte, pid int) (bool, error) {
	ev := p.resetEvent(tracer.KindExit, pid, "")
	switch {
	case bytes.HasPrefix(rest, []byte("+++ exited with ")):
		i := len("+++ exited with ")
		n, k := parseDigits(rest, i)
		if k == i {
			return false, p.r.malformedLine(line, "bad exit notice")
		}
		ev.Ret = int64(n)
	case bytes.HasPrefix(rest, []byte("+++ killed by ")):
		i := len("+++ killed by ")
		k := i
		for k < len(rest) && isIdentChar(rest[k]) {
			k++
		}
		if k == i {
			return false, p.r.malformedLine(line, "bad kill notice")
		}
		sig, name := p.constant(rest[i:k])
		ev.Ret = -sig
		ev.Args = append(ev.Args, tracer.Arg{Kind: tracer.ArgInt, Int: sig, Str: name})
	case bytes.HasPrefix(rest, []byte("+++ superseded by execve in pid ")):
		i := len("+++ superseded by execve in pid ")
		old, k := parseDigits(rest, i)
		if k == i {
			return false, p.r.malformedLine(line, "bad superseded notice")
		}
		if pc := p.r.pending[old]; pc != nil && old != pid {
			delete(p.r.pending, old)
			p.r.endPending(pid)
			p.r.pending[pid] = pc
		}
		ev.Pid = old
		return true, nil
	default:
		return false, p.r.malformedLine(line, "unknown +++ notice")
	}
	// A process that is gone will never resume its pending call.
	p.r.endPending(pid)
	return true, nil
}

// signalLine reads "--- SIGCHLD {…} ---" into a KindSignal event whose
// Args[0] is the signal (Int its number, Str its name). Other "--- " notices
// ("--- stopped by SIGSTOP ---") are skipped.
func (p *lineParser) signalLine(line, rest []byte, pid int) (bool, error) {
	if !bytes.HasPrefix(rest, []byte("--- ")) {
		return false, p.r.malformedLine(line, "expected a --- signal notice")
	}
	if !bytes.HasPrefix(rest, []byte("--- SIG")) {
		return false, nil
	}
	i := len("--- ")
	k := i
	for k < len(rest) && isIdentChar(rest[k]) {
		k++
	}
	ev := p.resetEvent(tracer.KindSignal, pid, "")
	sig, name := p.constant(rest[i:k])
	ev.Args = append(ev.Args, tracer.Arg{Kind: tracer.ArgInt, Int: sig, Str: name})
	return true, nil
}

func (p *lineParser) resetEvent(kind tracer.EventKind, pid int, name string) *tracer.Event {
	ev := &p.r.ev
	ev.Kind, ev.Pid, ev.Syscall = kind, pid, name
	ev.Args = ev.Args[:0]
	ev.Ret, ev.Errno = 0, ""
	p.ints = p.ints[:0]
	return ev
}

// decodeCall decodes "args) = ret …" from b[i:] into the event, the
// arguments in argMask only (0: all).
func (p *lineParser) decodeCall(line []byte, name string, argMask uint64, pid int, b []byte, i int) (bool, error) {
	ev := p.resetEvent(tracer.KindSyscall, pid, name)
	last := -1 // the last argument to decode, when the rest can be left unread
	if p.r.opts.SkipFailedArgs {
		if ret, errno, ok := failedTail(b[i:]); ok {
			ev.Ret, ev.Errno = ret, p.intern(errno)
			if p.r.opts.FailedArgs == nil || !p.failedErrno(errno) || !p.r.opts.FailedArgs(ev) {
				return true, nil
			}
			// The result is known already: decode up to the last argument
			// asked for, and stop there.
			if argMask != 0 {
				last = bits.Len64(argMask) - 1
			}
			p.failedCall = true
		}
	}
	p.b = b
	i, why := p.argList(i, argMask, last)
	p.failedCall = false
	if why == "" && (last < 0 || len(ev.Args) <= last) {
		why = p.result(i)
	}
	if why != "" {
		return false, p.r.malformedLine(line, why)
	}
	return true, nil
}

// failedErrno reports whether errno is one of Options.FailedErrnos (any,
// when there are none).
func (p *lineParser) failedErrno(errno []byte) bool {
	if p.r.opts.FailedErrnos == nil {
		return true
	}
	// Length and last letter first, from a table: most failed calls are
	// rejected in a few instructions.
	n := len(errno)
	if n == 0 || n >= len(p.r.errnoPick) || !p.r.errnoPick[n][errno[n-1]] {
		return false
	}
	for _, e := range p.r.opts.FailedErrnos {
		if string(errno) == e {
			return true
		}
	}
	return false
}

// failedTail recognises a failed call from the end of its line alone:
// "…) = -N ENAME", optionally followed by " (text)" and a -T " <0.000012>".
// Every line ends with its return part and a successful call's never has
// this shape, so a match can only be the real return part, even when an
// argument string holds the same words.
func failedTail(b []byte) (ret int64, errno []byte, ok bool) {
	end := len(b)
	for end > 0 && b[end-1] == ' ' {
		end--
	}
	if end > 0 && b[end-1] == '>' { // -T time
		k := bytes.LastIndexByte(b[:end], '<')
		if k < 0 {
			return 0, nil, false
		}
		for end = k; end > 0 && b[end-1] == ' '; end-- {
		}
	}
	if end > 0 && b[end-1] == ')' { // strerror text: no quotes, no parentheses
		k := bytes.LastIndexByte(b[:end], '(')
		if k < 1 || b[k-1] != ' ' || bytes.IndexByte(b[k:end], '"') >= 0 {
			return 0, nil, false
		}
		end = k - 1
	}
	e := end
	for e > 0 && isIdentChar(b[e-1]) {
		e--
	}
	if e == end || b[e] != 'E' || e < 1 || b[e-1] != ' ' {
		return 0, nil, false
	}
	errno = b[e:end]
	d := e - 1
	k := d
	for k > 0 && isDigit(b[k-1]) {
		k--
	}
	if k == d || k < 4 || b[k-1] != '-' || string(b[k-4:k-1]) != " = " {
		return 0, nil, false
	}
	n, _ := parseDigits(b, k)
	return -int64(n), errno, true
}

// argList reads the arguments up to and including the closing ')',
// decoding those in argMask (0: all) and skipping the others. With last >=
// 0 it stops after argument last, leaving the rest of the line unread.
func (p *lineParser) argList(i int, argMask uint64, last int) (int, string) {
	b := p.b
	ev := &p.r.ev
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
		if argMask != 0 && (n >= 64 || argMask&(1<<n) == 0) {
			ev.Args[n].Kind = tracer.ArgOther
			i, ok = p.skipExpr(skipSpaces(b, i))
		} else {
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
	first := len(p.ints)
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
			p.ints = append(p.ints, el.Int)
		}
		i = skipSpaces(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			if n := len(p.ints); n > first {
				a.Ints = p.ints[first:n:n]
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
}

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

// result reads " = ret [errno (text)]" after the argument list.
//
// "= ?" (the call never returned: exit_group, a thread killed during the
// call) gives Errno "?" so that the event counts as failed; "= ? ERESTARTSYS
// (…)" gives that errno. Anything after the value other than an errno name
// (" (Timeout)", " (flags …)", " <0.000012>") is ignored.
func (p *lineParser) result(i int) string {
	b := p.b
	ev := &p.r.ev
	i = skipSpaces(b, i)
	if i >= len(b) || b[i] != '=' {
		return "missing return value"
	}
	i = skipSpaces(b, i+1)
	if i >= len(b) {
		return "missing return value"
	}
	if b[i] == '?' {
		ev.Errno = "?"
		i++
	} else {
		k := i
		if k < len(b) && b[k] == '-' {
			k++
		}
		for k < len(b) && isIdentChar(b[k]) { // 0x7f12, -1, 3 (before "</x>")
			k++
		}
		n, _, ok := parseNumber(b[i:k])
		if !ok {
			return "bad return value"
		}
		ev.Ret = n
		i = k
		if i < len(b) && b[i] == '<' {
			if i, ok = skipAnnotation(b, i); !ok {
				return "bad return value annotation"
			}
		}
	}
	j := skipSpaces(b, i)
	if j < len(b) && b[j] == 'E' && (ev.Ret < 0 || ev.Errno == "?") {
		k := j
		for k < len(b) && isIdentChar(b[k]) {
			k++
		}
		ev.Errno = p.intern(b[j:k])
	}
	return ""
}

// str decodes the string at b[i] == '"' into p.strBuf and returns the index
// after the closing quote.
func (p *lineParser) str(i int) (int, bool) {
	b := p.b
	i++
	for {
		// Copy the run of plain bytes in one go. The run ends at the next
		// quote or backslash; two vectorised searches find it faster than a
		// byte loop on the long strings of read and write calls.
		k := len(b)
		if q := bytes.IndexByte(b[i:], '"'); q >= 0 {
			k = i + q
		}
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

// skipString returns the index after the string at b[i] == '"'.
func skipString(b []byte, i int) (int, bool) {
	i++
	for i < len(b) {
		switch b[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i + 1, true
		}
		i++
	}
	return i, false
}

// callInfo interns a syscall name and remembers Want's answer for it.
//
// A small direct-mapped cache in front of the map saves hashing the name on
// most lines: a trace uses a few dozen distinct calls.
func (p *lineParser) callInfo(name []byte) callInfo {
	slot := &p.recent[(uint(len(name))*7+uint(name[0])*3+uint(name[len(name)-1])+uint(name[len(name)/2])*5)%uint(len(p.recent))]
	if slot.name == string(name) {
		return *slot
	}
	if c, ok := p.calls[string(name)]; ok {
		*slot = c
		return c
	}
	if p.calls == nil {
		p.calls = make(map[string]callInfo)
	}
	s, ok := internTable[string(name)]
	if !ok {
		s = string(name)
	}
	c := callInfo{name: s, wanted: p.r.wanted(s)}
	if c.wanted && p.r.opts.Args != nil {
		c.args = p.r.opts.Args(s)
	}
	if ok || len(p.calls) < maxUnknownNames {
		p.calls[s] = c
	}
	return c
}

// intern returns a shared string for a name (argument names, errno names).
func (p *lineParser) intern(name []byte) string {
	if s, ok := internTable[string(name)]; ok {
		return s
	}
	if s, ok := p.names[string(name)]; ok {
		return s
	}
	s := string(name)
	if p.names == nil {
		p.names = make(map[string]string)
	}
	if len(p.names) < maxUnknownNames {
		p.names[s] = s
	}
	return s
}

// failedStr returns b as a string, interned in failedStrs.
func (p *lineParser) failedStr(b []byte) string {
	if s, ok := p.failedStrs[string(b)]; ok {
		return s
	}
	s := string(b)
	if p.failedStrs == nil || len(p.failedStrs) >= maxFailedStrs {
		p.failedStrs = make(map[string]string)
	}
	p.failedStrs[s] = s
	return s
}

// constant looks up a symbolic name; unknown names are 0.
func (p *lineParser) constant(name []byte) (int64, string) {
	return constantValues[string(name)], p.intern(name)
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
