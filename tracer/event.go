// Package tracer owns the event model shared by every capture backend
// (strace text, the native ptrace tracer, eBPF) and the backends themselves.
//
// An Event is one completed system call (or a process exit). Backends fill
// the same fields the same way, so the lowering in package fstrace never
// needs to know where an event came from.
package tracer

// ArgKind says how an argument was decoded.
type ArgKind uint8

const (
	ArgInt    ArgKind = iota // a number or a symbolic constant/flag set decoded to a number (Int)
	ArgStr                   // a string; Str holds the decoded bytes (C escapes undone)
	ArgNull                  // the NULL pointer
	ArgPtr                   // an opaque pointer (0x7ff…); Int holds its value when known
	ArgStruct                // a {…} struct; Int holds its flags= member if any, Str its strings
	ArgArray                 // a […] array; Str holds the concatenation of its strings (iov_base data)
	ArgOther                 // anything else; Str holds the raw text
)

// Arg is one decoded system-call argument.
//
// Positional meaning is fixed by the syscall (see fstrace's lowering table).
// Name is set when the backend printed the argument as name=value (strace
// does this for clone's flags=, child_stack=…).
type Arg struct {
	Kind ArgKind
	// Truncated is true when a string was cut by the tracer (strace -s N
	// "..."...). (Next to Kind, so that the two share a word.)
	Truncated bool
	Name      string
	Int       int64
	Str       string
	// Ints holds the integer elements of an array argument ([3, 4] from pipe2,
	// socketpair). Backends may reuse it between events.
	Ints []int64
}

// EventKind distinguishes system calls from process life-cycle notices.
type EventKind uint8

const (
	KindSyscall EventKind = iota
	KindExit              // +++ exited with N +++ / +++ killed by SIG +++: the process is gone
	KindSignal            // --- SIGCHLD … ---: informative only
)

// Event is one completed system call, or a process exit.
//
// Backends may reuse an Event (and its Args slice) between calls: a consumer
// that keeps anything must copy it. Strings inside Args are never reused.
type Event struct {
	Kind    EventKind
	Pid     int
	Syscall string // name as on x86_64, e.g. "openat"; "" for exits and signals
	Args    []Arg
	// Ret is the return value of a successful call (a new fd, a child pid, 0).
	Ret int64
	// Errno is "" for a successful call, else the error name ("ENOENT").
	// A failed call has no effect on the model but a failed lookup's
	// (docs/DESIGN.md, "Effects of system calls").
	Errno string
	// Line is the source position: the trace line number for strace text
	// (1-based; for a resumed call, the line of the <... resumed> part), or a
	// sequence number for the native backends.
	Line int64
}

// Failed reports whether the call returned an error.
func (e *Event) Failed() bool { return e.Errno != "" }

// Arg returns the i-th argument, or a zero Arg of kind ArgOther when the
// call printed fewer arguments (truncated or malformed lines).
func (e *Event) Arg(i int) Arg {
	if i < 0 || i >= len(e.Args) {
		return Arg{Kind: ArgOther}
	}
	return e.Args[i]
}

// NamedArg returns the argument printed as name=value, or ok=false.
func (e *Event) NamedArg(name string) (Arg, bool) {
	for _, a := range e.Args {
		if a.Name == name {
			return a, true
		}
	}
	return Arg{}, false
}

// Source is a stream of events from one capture. Next returns the next event,
// or (nil, io.EOF) at the end. The returned Event is valid until the next call.
type Source interface {
	Next() (*Event, error)
}

// Warning is a counted, non-fatal problem found while reading a capture
// (a malformed line, a resumed call without its start).
type Warning struct {
	Line    int64
	Message string
	Text    string // the offending input, cut to a readable length
}
