package strace

// The parser is split by concern: parse.go holds the lineParser and its
// interning of names, parse_framing.go reads the structure of a line (pid,
// timestamp, name, unfinished and resumed halves, result), parse_values.go
// decodes argument values (strings, flags, structs, arrays), and
// parse_bytes.go has the byte-level helpers (numbers, escapes, spaces).

import (
	"sync"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
)

// unfinishedSuffix ends the first half of a call interrupted by another
// process's line.
const unfinishedSuffix = " <unfinished ...>"

// pidChangedPrefix starts the other ending of a first half: a thread's
// execve, printed as "execve(... <pid changed to N ...>" when strace has
// already seen the leader take the thread's place. Its second half comes
// under the leader's pid, after "+++ superseded by execve in pid … +++".
const pidChangedPrefix = " <pid changed to "

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
	// writes is set for a call that writes data (linux.Syscall.Writes)
	// under Options.ShortWrites: argument 1's kind.
	writes linux.ArgKind
	// failedWanted: the call is a lookup (linux.LooksUp), whose failures
	// are kept whatever Options.Failed says.
	failedWanted bool
}

// dropCounts counts the calls a Reader scanned and did not deliver.
type dropCounts struct {
	failed int64 // tracer.FailedLookups
	writes int64 // Options.DropDataless
}

func (d *dropCounts) add(e dropCounts) { d.failed += e.failed; d.writes += e.writes }

func (d dropCounts) minus(e dropCounts) dropCounts {
	return dropCounts{d.failed - e.failed, d.writes - e.writes}
}

// lineParser scans lines (see scan) into scannedLines. Its buffers are
// reused from line to line. Each scanning goroutine has its own.
type lineParser struct {
	rules      *scanRules
	out        *scannedLine             // the line being scanned
	b          []byte                   // the call text being decoded
	strBuf     []byte                   // decoded string bytes of the current argument
	exprBuf    []byte                   // an expression without its comments
	sawComment bool                     // skipExpr passed over a /* comment */
	elems      [maxDepth + 1]tracer.Arg // scratch Args for nested elements, one per depth
	calls      map[string]*callInfo     // per syscall name: interned name and Want's answer
	recent     [256]*callInfo           // cache of calls, indexed by a cheap hash of the name
	names      map[string]string        // interned argument names (name=value) and errno names
	// failedStrs interns the strings of the failed calls decoded for
	// Options.LookupArgs (the same few paths probed again and again), so
	// that they cost no allocation; failedCall is set while one is decoded.
	failedStrs map[string]string
	failedCall bool
	// dropped counts the calls scanned and dropped (tracer.FailedLookups,
	// DropDataless).
	dropped dropCounts
	// recentExprs caches the values of symbolic expressions (expr).
	recentExprs [recentExprSlots]exprSlot
}

// recentExprSlots is the size of lineParser.recentExprs.
const recentExprSlots = 256

// maxFailedStrs bounds failedStrs; it is emptied when full.
const maxFailedStrs = 1 << 14

// callInfo interns a syscall name and remembers Want's answer for it. The
// callInfo is shared (never changed): lines point to it.
//
// A small direct-mapped cache in front of the map saves hashing the name on
// most lines: a trace uses a few dozen distinct calls.
func (p *lineParser) callInfo(name []byte) *callInfo {
	slot := &p.recent[(uint(len(name))*7+uint(name[0])*3+uint(name[len(name)-1])+uint(name[len(name)/2])*5)%uint(len(p.recent))]
	if c := *slot; c != nil && c.name == string(name) {
		return c
	}
	if c, ok := p.calls[string(name)]; ok {
		*slot = c
		return c
	}
	if p.calls == nil {
		p.calls = make(map[string]*callInfo)
	}
	c, known := p.rules.calls.lookup(name)
	if known || len(p.calls) < maxUnknownNames {
		p.calls[c.name] = c
	}
	return c
}

// callTable is the answers of Options.Want and Options.Args per syscall
// name, shared by the scanning goroutines: each name is asked about once,
// under the lock, whichever goroutine meets it first.
type callTable struct {
	mu          sync.Mutex
	want        func(syscall string) bool
	args        func(syscall string) uint64
	shortWrites bool
	calls       map[string]*callInfo
}

// lookup returns the callInfo of name, asking Want and Args on first sight.
// known is false for a name not in internTable (its callInfo is kept only
// up to maxUnknownNames of them).
func (t *callTable) lookup(name []byte) (c *callInfo, known bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.calls[string(name)]; ok {
		return c, true
	}
	s, known := internTable[string(name)]
	if !known {
		s = string(name)
	}
	c = &callInfo{name: s, wanted: t.want == nil || t.want(s)}
	c.failedWanted = !c.wanted || linux.LooksUp(s)
	if c.wanted && t.args != nil {
		c.args = t.args(s)
	}
	if sc := linux.Lookup(s); c.wanted && t.shortWrites && sc != nil && sc.Writes() {
		c.writes = sc.Args[1]
	}
	if t.calls == nil {
		t.calls = make(map[string]*callInfo)
	}
	if known || len(t.calls) < maxUnknownNames {
		t.calls[s] = c
	}
	return c, known
}

// scanRules is what scanning needs of the Options: fixed once the Reader
// is made, read by every scanning goroutine.
type scanRules struct {
	// failedLookups: of the failed calls only the failed lookups are
	// kept (tracer.FailedLookups). Either way a failed lookup's arguments
	// are left to LookupArgs.
	failedLookups bool
	dropDataless  bool
	markerData    func(printed []byte) bool
	// errnoPick[len][last byte] is set for linux.LookupErrnos.
	errnoPick [16][256]bool
	calls     callTable
}

func newScanRules(opts Options) *scanRules {
	s := &scanRules{
		failedLookups: opts.Failed != tracer.FailedAll,
		dropDataless:  opts.DropDataless && opts.ShortWrites,
		markerData:    opts.MarkerData,
		calls:         callTable{want: opts.Want, args: opts.Args, shortWrites: opts.ShortWrites},
	}
	for _, e := range linux.LookupErrnos {
		if n := len(e); n > 0 && n < len(s.errnoPick) {
			s.errnoPick[n][e[n-1]] = true
		}
	}
	return s
}

// failedErrno reports whether errno is a failed lookup's (linux.LookupErrnos).
func (s *scanRules) failedErrno(errno []byte) bool {
	// Length and last letter first, from a table: most failed calls are
	// rejected in a few instructions.
	n := len(errno)
	if n == 0 || n >= len(s.errnoPick) || !s.errnoPick[n][errno[n-1]] {
		return false
	}
	for _, e := range linux.LookupErrnos {
		if string(errno) == e {
			return true
		}
	}
	return false
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
