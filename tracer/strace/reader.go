// Package strace reads the text output of the strace(1) binary and turns it
// into tracer.Events.
//
// The scanner is hand-written: each line is split with bytes.IndexByte and
// walked once, left to right, without regular expressions and without
// allocating, except for the decoded strings of the events the caller wants
// (see Options.Want).
//
// Accepted shapes (checked against strace 6.1):
//   - the pid prefix of `strace -f -o FILE` ("123 openat(…)"), the "[pid 123] "
//     prefix of `strace -f` writing to stderr, or no pid at all;
//   - timestamps -t, -tt, -ttt and -r before the call, -T durations (<0.000012>)
//     after it, -y/-yy fd annotations (3</etc/x>, = 3</etc/x>), -X raw, abbrev
//     or verbose (0x80000 /* O_CLOEXEC */), any -s;
//   - "<unfinished ...>" and "<... NAME resumed>" halves, paired per pid, with
//     any lines in between; the event takes the resumed line's number;
//   - "+++ exited with N +++", "+++ killed by SIG… +++" and "+++ superseded by
//     execve in pid N +++" (KindExit events), "--- SIGCHLD {…} ---" (KindSignal
//     events), "strace: …" diagnostics (skipped silently, also when strace -f
//     writing to stderr cuts a call line with "strace: Process N attached").
//
// Decisions a consumer should know:
//   - Lines without a pid get pid 0; in an -ff directory, the file's pid. With
//     strace -f writing to stderr, the first process has no "[pid N]" until it
//     has children; once one of its calls is resumed under "[pid N]", later
//     unprefixed lines get pid N (earlier events keep pid 0).
//   - Signals are delivered as KindSignal events (Args[0]: Int the signal
//     number, Str its name), whatever Want says. Exits too: Ret is the exit
//     status, or minus the signal number for a kill (Args[0] names it).
//   - "= ?" (the call never returned) gives Errno "?", so Failed() is true.
//   - Symbolic names are decoded with one table of Linux x86_64 values
//     (constants.go); a name missing from it adds nothing to the value and is
//     not counted as a problem.
//   - A hex number of more than 8 digits is a pointer (ArgPtr); shorter ones
//     (flags printed by -X raw) are ArgInt. Both keep the value in Int.
//   - Arrays and structs keep the concatenation of their strings in Str
//     (writev's iov_base data; execve's argv without separators).
//   - Malformed lines are counted (Malformed) and kept as warnings (the first
//     100); Options.Strict makes the first one fatal. A resumed half without
//     its start is a warning only, never fatal.
package strace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fsmove/fsmove/tracer"
)

// Options tune a Reader.
type Options struct {
	// Want, when set, says which system calls the caller cares about. Calls
	// it rejects are skipped without decoding their arguments; their lines
	// still count, unfinished/resumed halves still pair, and process exits
	// and signals are always delivered. Want is asked once per distinct name.
	Want func(syscall string) bool
	// Strict makes the first malformed line a fatal error (naming the line)
	// instead of a counted warning.
	Strict bool
	// SkipFailedArgs delivers failed calls ("= -1 ENOENT (…)") with their
	// Ret and Errno but without decoding their arguments. A caller that
	// gives failed calls no effect (the analysis does, as the paper does)
	// sets it: in a real Puppet trace four lines in five are failed lookups
	// (Ruby's readlink probing of its load path), and decoding them is most
	// of the reading time.
	SkipFailedArgs bool
	// FailedArgs, with SkipFailedArgs, names the failed calls whose
	// arguments are decoded all the same: those Args selects, up to the
	// last of them (the rest of the line is left unread: the result is
	// known), their strings interned (a few paths are probed again and
	// again: they cost no allocation each time). It is asked
	// for each failed call of a wanted name, with the event before its
	// arguments are decoded: Pid, Syscall, Ret and Errno ("ENOENT") are
	// set, from the end of the line. The analysis decodes the failed
	// lookups (ENOENT or ENOTDIR of a call that looks a path up) of the
	// processes that may act for a block (fstrace.Lowerer.NeedsFailedArgs):
	// a few percent of the failed calls. SetFailedArgs replaces it.
	FailedArgs func(ev *tracer.Event) bool
	// FailedErrnos, when set, limits the failed calls FailedArgs is asked
	// about to those with one of these errnos: a cheap test on the line
	// before any call (in a Puppet trace most failed calls are readlinks
	// failing with EINVAL, which the analysis never needs).
	FailedErrnos []string
	// Args, when set, says which argument positions of a wanted call the
	// caller reads (bit i for argument i; 0 means all). The others are
	// skipped without decoding and delivered as empty ArgOther values, so
	// positions stay right: a stat buffer or an argv array costs a scan, not
	// a decode. It is asked once per distinct name, like Want.
	Args func(syscall string) uint64
}

// maxKeptWarnings is how many warnings are kept in full; later ones are only
// counted (see WarningCount).
const maxKeptWarnings = 100

// warnTextLimit cuts the offending line kept in a Warning to a readable length.
const warnTextLimit = 200

// lineSource hands the Reader one trace line at a time: a single stream, or
// the merge of an -ff directory's per-pid files.
type lineSource interface {
	// next returns the next line, the pid to use when the line has no pid
	// prefix, and io.EOF at the end. The line is valid until the next call.
	next() (line []byte, pid int, err error)
	// where names the current line's origin for warnings ("" for one stream).
	where() string
	// bytesRead is the number of text bytes handed out so far.
	bytesRead() int64
	// endsMidLine reports whether a stream read to its end had no final
	// newline.
	endsMidLine() bool
	close() error
}

// Reader turns strace text into events. It implements tracer.Source.
// A Reader is not safe for concurrent use.
type Reader struct {
	opts Options
	src  lineSource
	err  error // sticky: io.EOF or the fatal error

	ev      tracer.Event // reused between calls to Next
	lineNo  int64
	p       lineParser
	pending pendingCalls
	carry   []byte // first part of a call cut by "strace: Process N attached"

	closedBytes int64 // Bytes() once the source is closed
	cutLast     bool  // EndsMidLine() once the source is closed

	warnings  []tracer.Warning
	warnCount int64
	malformed int64

	// errnoPick[len][last byte] is set for the Options.FailedErrnos.
	errnoPick [16][256]bool
}

// A Reader is a tracer.Source.
var _ tracer.Source = (*Reader)(nil)

// Open reads a trace from path: a text file, a gzip or zstd compressed file
// (recognised by their magic bytes), "-" for standard input, or a directory
// of `strace -ff -o PREFIX` files (PREFIX.PID). For a directory, Event.Line
// counts the lines in merged order over all files, and warnings name the file
// and its own line number. A file is open only from its first merged line to its end.
func Open(path string, opts Options) (*Reader, error) {
	if path == "-" {
		return NewReader(os.Stdin, opts), nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		src, warn, err := openPerPidDir(path)
		if err != nil {
			return nil, err
		}
		r := newReader(src, opts)
		if warn != "" {
			r.warn(0, warn, "")
		}
		return r, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	src, err := newStreamSource(f, f, readBufferSize)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return newReader(src, opts), nil
}

// NewReader reads a trace from r (plain, gzip or zstd text). Lines without a
// pid prefix get pid 0. Close releases the decompressor, not r.
func NewReader(r io.Reader, opts Options) *Reader {
	src, err := newStreamSource(r, nil, readBufferSize)
	rd := newReader(src, opts)
	if err != nil {
		rd.err = err
	}
	return rd
}

func newReader(src lineSource, opts Options) *Reader {
	r := &Reader{
		opts: opts,
		src:  src,
	}
	for _, e := range opts.FailedErrnos {
		if n := len(e); n > 0 && n < len(r.errnoPick) {
			r.errnoPick[n][e[n-1]] = true
		}
	}
	r.p.r = r
	return r
}

// Next returns the next event, or (nil, io.EOF) at the end of the trace.
// The event and its Args slice are reused by the following call; the strings
// inside are not.
func (r *Reader) Next() (*tracer.Event, error) {
	for r.err == nil {
		line, pid, err := r.src.next()
		if err == errLineTooLong {
			r.lineNo++
			if ferr := r.malformedLine(line, "line longer than 64 MiB"); ferr != nil {
				r.err = ferr
				return nil, ferr
			}
			continue
		}
		if err != nil {
			r.err = err
			break
		}
		r.lineNo++
		if len(r.carry) > 0 {
			r.carry = append(r.carry, line...)
			line = r.carry
		}
		if bytes.HasSuffix(line, []byte(" attached")) {
			// strace -f writing to stderr prints "strace: Process N attached"
			// in the middle of the line of the call that created N; the call
			// goes on at the start of the next line. Keep the first part.
			if k := bytes.Index(line, []byte("strace: Process ")); k > 0 {
				r.carry = append(r.carry[:0], line[:k]...)
				continue
			}
		}
		r.carry = r.carry[:0]
		ok, err := r.p.parseLine(line, pid)
		if err != nil {
			r.err = err
			return nil, err
		}
		if ok {
			r.ev.Line = r.lineNo
			return &r.ev, nil
		}
	}
	return nil, r.err
}

// SetFailedArgs replaces Options.FailedArgs, for a consumer that decides
// as it goes (the analysis asks its lowering, which knows the blocks open
// so far). Call it between calls to Next.
func (r *Reader) SetFailedArgs(f func(ev *tracer.Event) bool) {
	r.opts.FailedArgs = f
}

// Warnings returns the first 100 warnings (malformed lines, resumed calls
// without their start, lost ordering of -ff files).
func (r *Reader) Warnings() []tracer.Warning { return r.warnings }

// WarningCount is the number of warnings, including those not kept.
func (r *Reader) WarningCount() int64 { return r.warnCount }

// Malformed is the number of lines skipped because their syntax could not be
// read. (A resumed call whose start was never seen is a warning, not counted
// here.)
func (r *Reader) Malformed() int64 { return r.malformed }

// Unfinished is the number of calls printed as "<unfinished ...>" whose
// "resumed" half has not been read: at the end of a trace, calls the
// tracer saw start but not return. (A call cut by the tracer detaching
// is printed "<detached ...>" and is not counted.)
func (r *Reader) Unfinished() int { return r.pending.count() }

// EndsMidLine reports whether the trace, read to its end, stopped in the
// middle of a line: the tracer was killed while writing, or the file was
// cut.
func (r *Reader) EndsMidLine() bool {
	if r.src == nil {
		return r.cutLast
	}
	return r.src.endsMidLine()
}

// Lines is the number of lines read so far.
func (r *Reader) Lines() int64 { return r.lineNo }

// Bytes is the number of (decompressed) text bytes read so far.
func (r *Reader) Bytes() int64 {
	if r.src == nil {
		return r.closedBytes
	}
	return r.src.bytesRead()
}

// Close releases the input. Next returns io.EOF afterwards.
func (r *Reader) Close() error {
	if r.src == nil {
		return nil
	}
	r.closedBytes = r.src.bytesRead()
	r.cutLast = r.src.endsMidLine()
	err := r.src.close()
	r.src = nil
	if r.err == nil {
		r.err = io.EOF
	}
	return err
}

// ErrMalformed is wrapped by the error Next returns in strict mode.
var ErrMalformed = errors.New("malformed strace line")

// malformedLine counts a line that could not be read. In strict mode it
// returns the fatal error naming the line.
func (r *Reader) malformedLine(line []byte, why string) error {
	r.malformed++
	if r.opts.Strict {
		where := r.src.where()
		if where != "" {
			where = " (" + where + ")"
		}
		return fmt.Errorf("line %d%s: %w: %s: %q", r.lineNo, where, ErrMalformed, why, cut(line))
	}
	r.warn(r.lineNo, why, string(cut(line)))
	return nil
}

// warn records a warning; only the first maxKeptWarnings are kept in full.
func (r *Reader) warn(line int64, msg, text string) {
	r.warnCount++
	if len(r.warnings) >= maxKeptWarnings {
		return
	}
	if where := r.src.where(); where != "" && line > 0 {
		msg += " (" + where + ")"
	}
	r.warnings = append(r.warnings, tracer.Warning{Line: line, Message: msg, Text: text})
}

func cut(line []byte) []byte {
	if len(line) > warnTextLimit {
		return line[:warnTextLimit]
	}
	return line
}

// wanted asks Options.Want about a syscall name. The parser remembers the
// answer per name (lineParser.callInfo), so Want is asked once per name.
func (r *Reader) wanted(name string) bool {
	return r.opts.Want == nil || r.opts.Want(name)
}

// streamSource is one trace stream (a file, stdin, a decompressed stream).
type streamSource struct {
	lines      *lineSplitter
	release    func()
	underlying io.Closer // the file Open opened, nil for NewReader's reader
}

func newStreamSource(r io.Reader, c io.Closer, bufferSize int) (*streamSource, error) {
	text, release, err := decompress(r)
	if err != nil {
		return &streamSource{lines: newLineSplitter(eofReader{}, 0), release: func() {}, underlying: c}, err
	}
	return &streamSource{lines: newLineSplitter(text, bufferSize), release: release, underlying: c}, nil
}

func (s *streamSource) next() ([]byte, int, error) {
	line, err := s.lines.next()
	return line, 0, err
}

func (s *streamSource) where() string     { return "" }
func (s *streamSource) endsMidLine() bool { return s.lines.cutLast }
func (s *streamSource) bytesRead() int64  { return s.lines.consumed }

func (s *streamSource) close() error {
	s.release()
	if s.underlying != nil {
		return s.underlying.Close()
	}
	return nil
}

// eofReader is an empty stream.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
