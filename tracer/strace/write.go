package strace

import (
	"bufio"
	"io"
	"strconv"

	"github.com/fsmove/fsmove/tracer"
)

// Writer prints events in the text form of `strace -f -o FILE`, so that a
// capture made by another backend (the native ptrace tracer) can be saved
// and read again by Reader to equal events.
//
// The form, one line per event:
//
//	PID name(arg, arg, …) = RET
//	PID name(arg, …) = -1 ENAME
//	PID name(arg, …) = ?                      (Errno "?": the call never returned)
//	PID +++ exited with N +++                 (KindExit, Ret ≥ 0)
//	PID +++ killed by SIGNAME +++             (KindExit, Ret < 0)
//	PID --- SIGNAME {si_signo=SIGNAME} ---    (KindSignal)
//
// Arguments, by kind (what Reader decodes them back to):
//   - ArgInt: decimal ("-100", "524288"). Flags are printed as numbers, not
//     symbols: the reader or-s symbols to numbers anyway, and a number needs
//     no table. Decimal never reads back as a pointer (only hex does).
//   - ArgPtr: hex with at least 9 digits ("0x0000001f0"): Reader takes a hex
//     number of more than 8 digits for a pointer.
//   - ArgNull: NULL.
//   - ArgStr: a C string literal ("\n", "\"", octal \ooo for other bytes),
//     followed by ... when Truncated.
//   - ArgStruct: {flags=INT} and, when Str is set, a data="…" member.
//   - ArgArray: [INT, INT, …, "STR"]: the Ints, then Str as one string.
//   - ArgOther: its raw text when that is one line, else ?.
//
// Arg.Name, when set, is printed as name=value (clone's flags=). Line is
// not printed: the reader numbers lines itself.
type Writer struct {
	w   *bufio.Writer
	buf []byte // the line being built
}

// NewWriter returns a Writer printing to w. Call Flush (or Close) at the end.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10)}
}

// Write prints one event as one line.
func (w *Writer) Write(ev *tracer.Event) error {
	b := w.buf[:0]
	b = strconv.AppendInt(b, int64(ev.Pid), 10)
	b = append(b, ' ')
	switch ev.Kind {
	case tracer.KindExit:
		if ev.Ret >= 0 {
			b = append(b, "+++ exited with "...)
			b = strconv.AppendInt(b, ev.Ret, 10)
			b = append(b, " +++"...)
		} else {
			b = append(b, "+++ killed by "...)
			b = append(b, signalName(ev, -ev.Ret)...)
			b = append(b, " +++"...)
		}
	case tracer.KindSignal:
		var sig int64
		if len(ev.Args) > 0 {
			sig = ev.Args[0].Int
		}
		name := signalName(ev, sig)
		b = append(b, "--- "...)
		b = append(b, name...)
		b = append(b, " {si_signo="...)
		b = append(b, name...)
		b = append(b, "} ---"...)
	default:
		b = append(b, ev.Syscall...)
		b = append(b, '(')
		for i := range ev.Args {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendArg(b, &ev.Args[i])
		}
		b = append(b, ") = "...)
		switch {
		case ev.Errno == "?":
			b = append(b, '?')
		case ev.Errno != "":
			b = strconv.AppendInt(b, ev.Ret, 10)
			b = append(b, ' ')
			b = append(b, ev.Errno...)
		default:
			b = strconv.AppendInt(b, ev.Ret, 10)
		}
	}
	b = append(b, '\n')
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// Flush writes any buffered lines to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }

// signalName names a signal for an exit or signal notice: the event's own
// name if it has one (Args[0].Str), else the table's, else SIG<number>,
// which Reader decodes as an unknown name (0).
func signalName(ev *tracer.Event, sig int64) string {
	if len(ev.Args) > 0 && ev.Args[0].Str != "" && isSignalName(ev.Args[0].Str) {
		return ev.Args[0].Str
	}
	if sig > 0 && sig < int64(len(signalNames)) && signalNames[sig] != "" {
		return signalNames[sig]
	}
	return "SIG" + strconv.FormatInt(sig, 10)
}

func isSignalName(s string) bool {
	if len(s) < 4 || s[:3] != "SIG" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// signalNames names the standard signals by number (x86_64).
var signalNames = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
	7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2",
	13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGSTKFLT", 17: "SIGCHLD",
	18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGURG",
	24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH",
	29: "SIGIO", 30: "SIGPWR", 31: "SIGSYS",
}

// SignalName returns the name of a standard signal ("SIGKILL"), or "" when
// sig is not one.
func SignalName(sig int) string {
	if sig > 0 && sig < len(signalNames) {
		return signalNames[sig]
	}
	return ""
}

func appendArg(b []byte, a *tracer.Arg) []byte {
	if a.Name != "" {
		b = append(b, a.Name...)
		b = append(b, '=')
	}
	switch a.Kind {
	case tracer.ArgInt:
		b = strconv.AppendInt(b, a.Int, 10)
	case tracer.ArgPtr:
		b = appendPointer(b, uint64(a.Int))
	case tracer.ArgNull:
		b = append(b, "NULL"...)
	case tracer.ArgStr:
		b = appendQuoted(b, a.Str)
		if a.Truncated {
			b = append(b, "..."...)
		}
	case tracer.ArgStruct:
		b = append(b, "{flags="...)
		b = strconv.AppendInt(b, a.Int, 10)
		if a.Str != "" {
			b = append(b, ", data="...)
			b = appendQuoted(b, a.Str)
		}
		b = append(b, '}')
	case tracer.ArgArray:
		b = append(b, '[')
		for i, n := range a.Ints {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, n, 10)
		}
		if a.Str != "" {
			if len(a.Ints) > 0 {
				b = append(b, ", "...)
			}
			b = appendQuoted(b, a.Str)
		}
		b = append(b, ']')
	default:
		if a.Str == "" || !isOneLine(a.Str) {
			b = append(b, '?')
		} else {
			b = append(b, a.Str...)
		}
	}
	return b
}

// appendPointer prints p in hex with at least 9 digits, so that Reader
// reads it back as a pointer and not as a flag value.
func appendPointer(b []byte, p uint64) []byte {
	b = append(b, "0x"...)
	var digits [16]byte
	n := 0
	for p != 0 || n < 9 {
		digits[len(digits)-1-n] = "0123456789abcdef"[p&0xf]
		p >>= 4
		n++
	}
	return append(b, digits[len(digits)-n:]...)
}

func isOneLine(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' || s[i] == '\r' {
			return false
		}
	}
	return true
}

// appendQuoted prints s as a C string literal, as strace does: the usual
// backslash escapes, printable ASCII as is, every other byte as a
// three-digit octal escape (three digits, so that a following digit is not
// taken into it).
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		case '\v':
			b = append(b, '\\', 'v')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			if c >= 0x20 && c < 0x7f {
				b = append(b, c)
			} else {
				b = append(b, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
			}
		}
	}
	return append(b, '"')
}
