package strace

import (
	"bytes"
	"math/bits"

	"github.com/fsmove/fsmove/tracer"
)

// Reading a line has two stages. scan (this file's lineParser methods) finds
// everything the line says by itself: its pid prefix, its kind, its call's
// decoded arguments. It depends on no earlier line, so that chunks of a trace
// can be scanned in parallel. apply (Reader.apply, in reader.go) then takes
// the scanned lines in trace order and decides what depends on the lines
// before: the pid of unprefixed lines once strace -f named the first process,
// the pairing of unfinished and resumed halves, the exits that end pending
// calls, Options.LookupArgs's choice, warnings and the strict mode's error.

// lineKind is what scanning a line found.
type lineKind uint8

const (
	// lineNone: nothing to deliver (a blank line, a -k stack frame,
	// strace's diagnostics, a detached call, a call not wanted).
	lineNone lineKind = iota
	// lineEvent: ev is ready to deliver (its Pid still the scanned one).
	lineEvent
	// lineExit: ev is a process's exit or kill: the pid's pending call ends.
	lineExit
	// lineSuperseded: ev is the exit of old, whose pending call moves to
	// the line's pid.
	lineSuperseded
	// lineFailed: a failed wanted call whose arguments are decoded only if
	// Options.LookupArgs, asked in order, says so. ev has Pid, Syscall, Ret
	// and Errno; args[argsAt:] is the text of its arguments.
	lineFailed
	// lineMalformed: why says what could not be read.
	lineMalformed
	// lineUnfinished: the first half of call; args is its text after "(".
	lineUnfinished
	// lineResumed: the second half of the call named name; args is its
	// text after "resumed>".
	lineResumed
	// linePaired: the first half of a call whose second half a worker found
	// in the same chunk and scanned with it (localPairs). The pid's call in
	// flight ends here, as the two halves applied in order would end it.
	linePaired
)

// scannedLine is one trace line as scan leaves it for apply. Its slices
// point into the line's buffer, valid until the line is applied.
//
// The fields apply reads for every call come first, the event among them:
// in a parallel scan the Reader reads records another core wrote, and the
// fewer cache lines a record's common case spans, the fewer it misses.
type scannedLine struct {
	kind      lineKind
	prefixed  bool      // the line has a pid prefix
	bracketed bool      // … and it is "[pid N]"
	angle     bool      // after the prefix, the line starts with '<' (a resumed half)
	no        int64     // line number
	bytes     int64     // text bytes read up to the end of this line
	pid       int       // the prefix's pid, else srcPid
	srcPid    int       // the source's pid for lines without a prefix
	call      *callInfo // the call of a call line (shared: never changed)
	ev        tracer.Event
	text      []byte // the whole line, for warnings
	why       string // lineMalformed
	name      []byte // lineResumed
	args      []byte
	argsAt    int     // lineFailed
	old       int     // lineSuperseded
	ints      []int64 // backing store for the Ints of ev's arrays
}

// scan reads one line into out. pid is the source's pid for a line without
// a pid prefix.
func (p *lineParser) scan(line []byte, pid int, out *scannedLine) {
	p.out = out
	out.kind, out.text, out.srcPid, out.why = lineNone, line, pid, ""
	out.bracketed, out.angle, out.prefixed = false, false, false
	i := skipSpaces(line, 0)
	prefixed := true
	switch {
	case hasPrefixAt(line, i, "[pid"):
		out.bracketed = true
		// "[pid 123] " from strace -f writing to stderr.
		j := skipSpaces(line, i+4)
		n, k := parseDigits(line, j)
		k = skipComm(line, k)
		if k == j || k >= len(line) || line[k] != ']' {
			p.malformed("bad [pid N] prefix")
			return
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
	out.pid, out.prefixed = pid, prefixed
	// Timestamps: -t (12:34:56), -tt (12:34:56.123456), -ttt (1700000000.123456)
	// and -r (0.000123, right-aligned). The call's order is the line order, so
	// the value is not needed here (the -ff merge reads it separately).
	if i < len(line) && isDigit(line[i]) {
		k := i
		for k < len(line) && (isDigit(line[k]) || line[k] == '.' || line[k] == ':') {
			k++
		}
		if k >= len(line) || line[k] != ' ' {
			p.malformed("bad timestamp")
			return
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
			p.malformed("bad [instruction pointer]")
			return
		}
		i = skipSpaces(line, k+1)
	}
	rest := line[i:]
	if len(rest) == 0 {
		return // blank line
	}
	switch rest[0] {
	case '>':
		return // -k: a stack frame of the previous call
	case '+':
		p.exitLine(rest, pid)
		return
	case '-':
		p.signalLine(rest, pid)
		return
	case '<':
		out.angle = true
		p.resumedLine(rest)
		return
	}
	if bytes.HasPrefix(rest, []byte("strace: ")) || bytes.HasPrefix(rest, []byte("[ Process ")) {
		return // strace's own diagnostics ("Process 123 attached", …)
	}
	p.callLine(rest, pid)
}

// scanTooLong marks a line cut because it was longer than maxLineSize.
func scanTooLong(line []byte, out *scannedLine) {
	out.kind, out.text, out.why = lineMalformed, line, "line longer than 64 MiB"
	out.bracketed, out.angle, out.prefixed = false, false, false
}

// malformed marks the line being scanned as unreadable.
func (p *lineParser) malformed(why string) {
	p.out.kind, p.out.why = lineMalformed, why
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

// callLine reads "name(args) = ret" or the first half "name(args <unfinished ...>"
// (or "name(args <pid changed to N ...>").
func (p *lineParser) callLine(rest []byte, pid int) {
	j := 0
	for j < len(rest) && isNameChar(rest[j]) {
		j++
	}
	if j == 0 || j >= len(rest) || rest[j] != '(' {
		p.malformed("expected a system call")
		return
	}
	call := p.callInfo(rest[:j])
	if bytes.HasSuffix(rest, []byte(detachedSuffix)) {
		return
	}
	if bytes.HasSuffix(rest, []byte(unfinishedSuffix)) {
		p.out.kind, p.out.call = lineUnfinished, call
		p.out.args = rest[j+1 : len(rest)-len(unfinishedSuffix)]
		return
	}
	if k := pidChangedAt(rest); k > j {
		p.out.kind, p.out.call = lineUnfinished, call
		p.out.args = rest[j+1 : k]
		return
	}
	if !call.wanted {
		return
	}
	p.scanCall(call, pid, rest, j+1)
}

// pidChangedAt returns where a line's " <pid changed to N ...>" ending
// starts, or -1 when the line does not end so.
func pidChangedAt(line []byte) int {
	const end = " ...>"
	if !bytes.HasSuffix(line, []byte(end)) {
		return -1
	}
	k := bytes.LastIndex(line, []byte(pidChangedPrefix))
	if k < 0 {
		return -1
	}
	i := k + len(pidChangedPrefix)
	if _, n := parseDigits(line, i); n == i || n != len(line)-len(end) {
		return -1
	}
	return k
}

// resumedLine reads "<... name resumed>rest-of-args) = ret"; apply joins it
// with the pid's pending first half. The event takes this line's number.
func (p *lineParser) resumedLine(rest []byte) {
	const open, close = "<... ", " resumed>"
	if !bytes.HasPrefix(rest, []byte(open)) {
		p.malformed("expected <... NAME resumed>")
		return
	}
	k := len(open)
	for k < len(rest) && isNameChar(rest[k]) {
		k++
	}
	if !hasPrefixAt(rest, k, close) {
		p.malformed("expected <... NAME resumed>")
		return
	}
	p.out.kind = lineResumed
	p.out.name, p.out.args = rest[len(open):k], rest[k+len(close):]
}

// exitLine reads "+++ exited with N +++", "+++ killed by SIGX [(core dumped)] +++"
// and "+++ superseded by execve in pid N +++".
//
// An exit gives Ret = N. A kill gives Ret = -signal and Args[0] = the signal
// (Int its number, Str its name). "superseded" is printed when a thread other
// than the leader calls execve: the thread's pid N disappears (the leader's pid
// carries on with the new program), so it becomes the exit of pid N, and N's
// pending execve moves to the leader so that its "<... execve resumed>" pairs.
func (p *lineParser) exitLine(rest []byte, pid int) {
	ev := p.resetEvent(tracer.KindExit, pid, "")
	switch {
	case bytes.HasPrefix(rest, []byte("+++ exited with ")):
		i := len("+++ exited with ")
		n, k := parseDigits(rest, i)
		if k == i {
			p.malformed("bad exit notice")
			return
		}
		ev.Ret = int64(n)
	case bytes.HasPrefix(rest, []byte("+++ killed by ")):
		i := len("+++ killed by ")
		k := i
		for k < len(rest) && isIdentChar(rest[k]) {
			k++
		}
		if k == i {
			p.malformed("bad kill notice")
			return
		}
		sig, name := p.constant(rest[i:k])
		ev.Ret = -sig
		ev.Args = append(ev.Args, tracer.Arg{Kind: tracer.ArgInt, Int: sig, Str: name})
	case bytes.HasPrefix(rest, []byte("+++ superseded by execve in pid ")):
		i := len("+++ superseded by execve in pid ")
		old, k := parseDigits(rest, i)
		if k == i {
			p.malformed("bad superseded notice")
			return
		}
		ev.Pid = old
		p.out.kind, p.out.old = lineSuperseded, old
		return
	default:
		p.malformed("unknown +++ notice")
		return
	}
	p.out.kind = lineExit
}

// signalLine reads "--- SIGCHLD {…} ---" into a KindSignal event whose
// Args[0] is the signal (Int its number, Str its name). Other "--- " notices
// ("--- stopped by SIGSTOP ---") are skipped.
func (p *lineParser) signalLine(rest []byte, pid int) {
	if !bytes.HasPrefix(rest, []byte("--- ")) {
		p.malformed("expected a --- signal notice")
		return
	}
	if !bytes.HasPrefix(rest, []byte("--- SIG")) {
		return
	}
	i := len("--- ")
	k := i
	for k < len(rest) && isIdentChar(rest[k]) {
		k++
	}
	ev := p.resetEvent(tracer.KindSignal, pid, "")
	sig, name := p.constant(rest[i:k])
	ev.Args = append(ev.Args, tracer.Arg{Kind: tracer.ArgInt, Int: sig, Str: name})
	p.out.kind = lineEvent
}

func (p *lineParser) resetEvent(kind tracer.EventKind, pid int, name string) *tracer.Event {
	ev := &p.out.ev
	ev.Kind, ev.Pid, ev.Syscall = kind, pid, name
	ev.Args = ev.Args[:0]
	ev.Ret, ev.Errno = 0, ""
	p.out.ints = p.out.ints[:0]
	return ev
}

// scanCall decodes "args) = ret …" from b[i:] into the event, the arguments
// in call.args only (0: all). A failed call whose arguments depend on
// Options.LookupArgs is left to apply (lineFailed).
func (p *lineParser) scanCall(call *callInfo, pid int, b []byte, i int) {
	ev := p.resetEvent(tracer.KindSyscall, pid, call.name)
	p.out.call = call
	if ret, errno, ok := failedTail(b[i:]); ok {
		if p.rules.failedErrno(errno) && call.failedWanted {
			ev.Ret, ev.Errno = ret, p.intern(errno)
			p.out.kind, p.out.args, p.out.argsAt = lineFailed, b, i
			return
		}
		if p.rules.failedLookups {
			p.dropped.failed++
			p.out.kind = lineNone // also for a call joined from its halves
			return
		}
	}
	p.decodeArgs(b, i, call.args, -1)
}

// decodeFailed decodes the arguments of a lineFailed call Options.LookupArgs
// asked for: up to the last argument the caller reads (the result is known
// already, the rest of the line is left unread), strings interned.
func (p *lineParser) decodeFailed(out *scannedLine) {
	p.out = out
	last := -1
	if argMask := out.call.args; argMask != 0 {
		last = bits.Len64(argMask) - 1
	}
	p.failedCall = true
	p.decodeArgs(out.args, out.argsAt, out.call.args, last)
	p.failedCall = false
}

// decodeArgs decodes b[i:] as a call's arguments and result, into p.out.
// With last >= 0 it stops after argument last.
func (p *lineParser) decodeArgs(b []byte, i int, argMask uint64, last int) {
	p.b = b
	i, why := p.argList(i, argMask, last)
	if why == "" && (last < 0 || len(p.out.ev.Args) <= last) {
		why = p.result(i)
	}
	if why != "" {
		p.malformed(why)
		return
	}
	p.out.kind = lineEvent
	if p.rules.dropDataless && p.out.call.writes != 0 && !p.failedCall && p.out.ev.Errno == "" && dataless(p.out.ev.Args) {
		p.dropped.writes++
		p.out.kind = lineNone // also for a call joined from its halves
	}
}

// dataless reports whether a write's arguments hold no data (argument 1:
// not decoded, or empty).
func dataless(args []tracer.Arg) bool {
	return len(args) < 2 || args[1].Str == ""
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
	ev := &p.out.ev
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
