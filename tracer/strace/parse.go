package strace

// The parser is split by concern: parse.go holds the lineParser and its
// interning of names, parse_framing.go reads the structure of a line (pid,
// timestamp, name, unfinished and resumed halves, result), parse_values.go
// decodes argument values (strings, flags, structs, arrays), and
// parse_bytes.go has the byte-level helpers (numbers, escapes, spaces).

import "github.com/fsmove/fsmove/tracer"

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
