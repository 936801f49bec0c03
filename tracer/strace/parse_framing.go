package strace

import (
	"bytes"
	"math/bits"

	"github.com/fsmove/fsmove/tracer"
)

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
		if bracketed && p.solo <= 0 && !p.r.pending.has(pid) {
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
		p.r.pending.start(pid, call, rest[j+1:len(rest)-len(unfinishedSuffix)])
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
	call, joined, ok := p.r.pending.resume(pid, rest[len(open):k], rest[k+len(close):], p.joined)
	p.joined = joined
	if !ok {
		p.r.warn(p.r.lineNo, "resumed call without its start", string(cut(line)))
		return false, nil
	}
	if !call.wanted {
		return false, nil
	}
	return p.decodeCall(line, call.name, call.args, pid, p.joined, 0)
}

// learnSoloPid handles strace -f writing to stderr: it prints no "[pid N]"
// while it traces a single process, so the first process's lines carry no
// pid. When one of its calls started unprefixed ("vfork( <unfinished ...>")
// is resumed under "[pid N]", N is that process: its pending call moves to N
// and later unprefixed lines get pid N. (Events before that keep pid 0.)
func (p *lineParser) learnSoloPid(unprefixed, pid int) {
	if p.r.pending.move(unprefixed, pid) {
		p.solo = pid
	}
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
		p.r.pending.move(old, pid)
		ev.Pid = old
		return true, nil
	default:
		return false, p.r.malformedLine(line, "unknown +++ notice")
	}
	// A process that is gone will never resume its pending call.
	p.r.pending.drop(pid)
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
