// Package strace reads the text output of the strace(1) binary and turns it
// into tracer.Events.
//
// The scanner is hand-written: each line is split with bytes.IndexByte and
// walked once, left to right, without regular expressions and without
// allocating, except for the decoded strings of the events the caller wants
// (see Options.Want).
//
// A single stream is scanned on GOMAXPROCS goroutines, in chunks of whole
// lines; what depends on earlier lines (unfinished/resumed pairing across
// chunks, Options.LookupArgs, warnings) is decided in trace order by Next,
// so the events, warnings and errors are those of a serial read. A plain
// trace file is read through a memory mapping, its lines scanned where
// they are (mapped.go).
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
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/fsmove/fsmove/tracer"
)

// Options tune a Reader.
type Options struct {
	// Want, when set, says which system calls the caller cares about. Calls
	// it rejects are skipped without decoding their arguments; their lines
	// still count, unfinished/resumed halves still pair, and process exits
	// and signals are always delivered. Want is asked once per distinct name,
	// perhaps on one of the Reader's scanning goroutines (one at a time).
	Want func(syscall string) bool
	// Strict makes the first malformed line a fatal error (naming the line)
	// instead of a counted warning.
	Strict bool
	// Failed says which failed calls ("= -1 ENOENT (…)") are delivered
	// (tracer.Failed). By default (tracer.FailedLookups) only the failed
	// lookups, as tracer/linux's table says and as the native tracers do
	// (linux.LooksUp: a call of its lookup column that failed with one of
	// linux.LookupErrnos); the others are counted (Reader.DroppedFailed)
	// without being decoded or paying for an event each. The errno is
	// tested first, on the line (in a Puppet trace most failed calls are
	// readlinks failing with EINVAL), the name once per name. They are
	// half a Puppet trace's lines, and decoding them was most of the
	// reading time. tracer.FailedAll delivers and decodes every line (but
	// for LookupArgs).
	Failed tracer.Failed
	// LookupArgs names the failed lookups whose arguments are decoded; the
	// others are delivered with their Pid, Syscall, Ret and Errno only.
	// Nil decodes every one. It is asked
	// with the event before its arguments are decoded (those four set,
	// from the end of the line); those it selects are decoded up to the
	// last argument Args selects (the rest of the line is left unread:
	// the result is known), their strings interned (a few paths are
	// probed again and again: they cost no allocation each time). The
	// analysis decodes the failed lookups of the processes that act for a
	// block (fstrace.Lowerer.NeedsFailedArgs): a few percent of them.
	// SetLookupArgs replaces it.
	LookupArgs func(ev *tracer.Event) bool
	// ShortWrites decodes the data of a write (write, writev, pwrite64) to
	// an fd other than 1 and 2 only when it is short, as the native tracers
	// deliver it (linux.WriteDataRead); a longer write's data argument is
	// an empty ArgOther, as one Args leaves out. The downloads and archives
	// that a Puppet run writes are a fifth of its trace's text.
	ShortWrites bool
	// MarkerData, with ShortWrites, is asked about the data of a write to
	// fd 1 or 2 that is not short, as strace printed it (within quotes,
	// escaped, perhaps followed by "..."): when it says no, the data is
	// skipped as for another fd. The analysis asks its block marker,
	// which needs only the lines that may mark a block.
	MarkerData func(printed []byte) bool
	// DropDataless, with ShortWrites, does not deliver a successful write
	// whose data is empty or not decoded (a long write to an fd other than
	// 1 and 2, or one MarkerData turns down): a caller that reads nothing
	// else of a write (the analysis reads block markers and pids) counts
	// them (Reader.DroppedWrites). They are a tenth of a Puppet run's calls.
	DropDataless bool
	// Args, when set, says which argument positions of a wanted call the
	// caller reads (bit i for argument i; 0 means all). The others are
	// skipped without decoding and delivered as empty ArgOther values, so
	// positions stay right: a stat buffer or an argv array costs a scan, not
	// a decode. It is asked once per distinct name, like Want (and on the
	// same goroutines).
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
//
// A single stream is scanned in parallel when GOMAXPROCS > 1 (see
// parallelScan): chunks of lines are scanned on worker goroutines, and Next
// applies the scanned lines in trace order. An -ff directory is read on the
// caller's goroutine.
type Reader struct {
	opts  Options
	rules *scanRules
	src   lineSource
	feed  lineFeed
	err   error // sticky: io.EOF or the fatal error

	lineNo int64
	p      lineParser  // scans on the caller's goroutine, and decodes what apply decides
	line   scannedLine // the line being read, when not scanned in parallel

	// What apply decides in trace order.
	pending pendingCalls
	solo    int    // pid of unprefixed lines in "[pid N]" output once known, else 0
	joined  []byte // an unfinished call's text joined with its resumed half

	// The parallel scan: started by the first Next, nil when serial.
	// scanWorkers (0: serial) and chunkSize choose its shape (tests make
	// chunks tiny).
	scan        *parallelScan
	started     bool
	scanWorkers int
	chunkSize   int
	bytesDone   int64 // Bytes() while scanning in parallel
	cutDone     bool  // EndsMidLine() once a parallel scan reached the end

	closedBytes int64 // Bytes() once the source is closed
	cutLast     bool  // EndsMidLine() once the source is closed

	warnings  []tracer.Warning
	warnCount int64
	malformed int64
	// dropped counts the calls of the chunks applied so far that their
	// workers dropped (tracer.FailedLookups, DropDataless); p counts the
	// others.
	dropped dropCounts
}

// A Reader is a tracer.Source.
var _ tracer.Source = (*Reader)(nil)

// Open reads a trace from path: a text file, a gzip or zstd compressed file
// (recognised by their magic bytes), "-" for standard input, or a directory
// of `strace -ff -o PREFIX` files (PREFIX.PID). For a directory, Event.Line
// counts the lines in merged order over all files, and warnings name the file
// and its own line number. A file is open only from its first merged line to its end.
//
// A plain text file is read through a memory mapping (mapped.go): its lines
// are scanned where they are. A file cut short while it is read ends the
// read with an error. A Reader dropped without Close keeps its mapping.
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
	if text := mapFile(f); text != nil {
		src := &streamSource{lines: newWholeSplitter(text), underlying: f,
			release: func() { syscall.Munmap(text) }}
		return newReader(src, opts), nil
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

// scanWorkers is the default number of scanning goroutines: one per core,
// none (a serial scan) on one core. (Leaving one core to the goroutine that
// applies the scanned lines was no faster on two cores.)
func scanWorkers() int {
	if n := runtime.GOMAXPROCS(0); n > 1 {
		return n
	}
	return 0
}

func newReader(src lineSource, opts Options) *Reader {
	r := &Reader{
		opts:        opts,
		rules:       newScanRules(opts),
		src:         src,
		feed:        lineFeed{src: src},
		scanWorkers: scanWorkers(),
		chunkSize:   defaultChunkSize,
	}
	r.p.rules = r.rules
	return r
}

// Next returns the next event, or (nil, io.EOF) at the end of the trace.
// The event and its Args slice are reused by the following call; the strings
// inside are not.
func (r *Reader) Next() (*tracer.Event, error) {
	if s, ok := r.src.(*streamSource); ok && s.lines.whole {
		return r.nextMapped()
	}
	return r.next()
}

// nextMapped is next for a mapped trace file, whose lines it reads in
// place: a fault on the mapping (the file was cut short meanwhile) is the
// error that ends the read, not the end of the process.
func (r *Reader) nextMapped() (ev *tracer.Event, err error) {
	// One deferred call: this runs for every event.
	defer r.endMapped(faultsAsErrors(), &err)
	return r.next()
}

// endMapped ends a call of nextMapped: it restores the goroutine's fault
// mode and makes a fault on the mapping the error that ends the read
// (sticky, as any error that ends it). Deferred, so that recover works.
func (r *Reader) endMapped(faultMode bool, err *error) {
	debug.SetPanicOnFault(faultMode)
	if e := recover(); e != nil {
		*err = faultError(e)
		r.err = *err
	}
}

func (r *Reader) next() (*tracer.Event, error) {
	if !r.started {
		r.started = true
		r.startScan()
	}
	for r.err == nil {
		line, err := r.nextLine()
		if err != nil {
			if r.scan == nil {
				r.lineNo = r.feed.no // lines read after the last logical one
			}
			r.err = err
			break
		}
		r.lineNo = line.no
		if r.scan != nil {
			r.bytesDone = line.bytes
		}
		ev, err := r.apply(line)
		if err != nil {
			r.err = err
			break
		}
		if ev != nil {
			// The event is the line's own: its record is reused only
			// after the following call (nextScanned), as Next promises.
			ev.Line = line.no
			return ev, nil
		}
	}
	if r.scan != nil {
		r.scan.stop()
	}
	return nil, r.err
}

// nextLine returns the next scanned line: from the parallel scan, or
// scanned here.
func (r *Reader) nextLine() (*scannedLine, error) {
	if r.scan != nil {
		return r.nextScanned()
	}
	text, pid, tooLong, err := r.feed.next()
	if err != nil {
		return nil, err
	}
	if tooLong {
		scanTooLong(text, &r.line)
	} else {
		r.p.scan(text, pid, &r.line)
	}
	r.line.no = r.feed.no
	return &r.line, nil
}

// apply decides, in trace order, what a scanned line means given the lines
// before it (see scan), and returns the event to deliver, if any.
func (r *Reader) apply(line *scannedLine) (*tracer.Event, error) {
	pid := line.pid
	if !line.prefixed && r.solo > 0 {
		pid = r.solo
	}
	if line.angle && line.bracketed && r.solo <= 0 && !r.pending.has(pid) {
		r.learnSoloPid(line.srcPid, pid)
	}
	switch line.kind {
	case lineNone:
		return nil, nil
	case lineUnfinished:
		r.pending.start(pid, line.call, line.args)
		return nil, nil
	case linePaired:
		r.pending.drop(pid)
		return nil, nil
	case lineExit:
		// A process that is gone will never resume its pending call.
		r.pending.drop(pid)
		line.ev.Pid = pid
		return &line.ev, nil
	case lineSuperseded:
		r.pending.move(line.old, pid)
		return &line.ev, nil
	case lineResumed:
		call, joined, ok := r.pending.resume(pid, line.name, line.args, r.joined)
		r.joined = joined
		if !ok {
			r.warn(line.no, "resumed call without its start", string(cut(line.text)))
			return nil, nil
		}
		if !call.wanted {
			return nil, nil
		}
		r.p.out = line
		r.p.scanCall(call, pid, joined, 0)
	}
	if line.kind == lineFailed {
		line.ev.Pid = pid
		if r.opts.LookupArgs != nil && !r.opts.LookupArgs(&line.ev) {
			return &line.ev, nil
		}
		r.p.decodeFailed(line)
	}
	switch line.kind {
	case lineMalformed:
		return nil, r.malformedLine(line.text, line.why)
	case lineEvent:
		line.ev.Pid = pid
		return &line.ev, nil
	}
	return nil, nil
}

// learnSoloPid handles strace -f writing to stderr: it prints no "[pid N]"
// while it traces a single process, so the first process's lines carry no
// pid. When one of its calls started unprefixed ("vfork( <unfinished ...>")
// is resumed under "[pid N]", N is that process: its pending call moves to N
// and later unprefixed lines get pid N. (Events before that keep pid 0.)
func (r *Reader) learnSoloPid(unprefixed, pid int) {
	if r.pending.move(unprefixed, pid) {
		r.solo = pid
	}
}

// SetLookupArgs replaces Options.LookupArgs, for a consumer that decides
// as it goes (the analysis asks its lowering, which knows the blocks open
// so far). Call it between calls to Next.
func (r *Reader) SetLookupArgs(f func(ev *tracer.Event) bool) {
	r.opts.LookupArgs = f
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
	switch {
	case r.src == nil:
		return r.cutLast
	case r.scan != nil:
		return r.cutDone
	}
	return r.src.endsMidLine()
}

// DroppedFailed is the number of failed calls that tracer.FailedLookups kept
// from being delivered, once the trace is read to its end.
func (r *Reader) DroppedFailed() int64 { return r.dropped.failed + r.p.dropped.failed }

// DroppedWrites is the number of successful writes that
// Options.DropDataless kept from being delivered, once the trace is read to
// its end.
func (r *Reader) DroppedWrites() int64 { return r.dropped.writes + r.p.dropped.writes }

// Lines is the number of lines read so far.
func (r *Reader) Lines() int64 { return r.lineNo }

// Bytes is the number of (decompressed) text bytes read so far.
func (r *Reader) Bytes() int64 {
	switch {
	case r.src == nil:
		return r.closedBytes
	case r.scan != nil:
		return r.bytesDone
	}
	return r.src.bytesRead()
}

// Close releases the input. Next returns io.EOF afterwards. When the trace
// is scanned in parallel, Close first waits for the scanning goroutines to
// stop: at most until a pending read of the input returns.
func (r *Reader) Close() error {
	if r.src == nil {
		return nil
	}
	if r.scan != nil {
		// The scan's goroutines read the source: stop them first.
		r.scan.stop()
		r.scan.wait()
	}
	r.closedBytes, r.cutLast = r.Bytes(), r.EndsMidLine()
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

// streamSource is one trace stream (a file, stdin, a decompressed stream).
type streamSource struct {
	lines      *lineSplitter
	release    func()
	underlying io.Closer    // the file Open opened, nil for NewReader's reader
	compressed bool         // lines reads a decompressor
	async      *asyncReader // the decompressor's goroutine, when a parallel scan started one
}

func newStreamSource(r io.Reader, c io.Closer, bufferSize int) (*streamSource, error) {
	text, release, err := decompress(r)
	if err != nil {
		return &streamSource{lines: newLineSplitter(eofReader{}, 0), release: func() {}, underlying: c}, err
	}
	return &streamSource{lines: newLineSplitter(text, bufferSize), release: release, underlying: c,
		compressed: isCompressed(text)}, nil
}

func (s *streamSource) next() ([]byte, int, error) {
	line, err := s.lines.next()
	return line, 0, err
}

func (s *streamSource) where() string     { return "" }
func (s *streamSource) endsMidLine() bool { return s.lines.cutLast }
func (s *streamSource) bytesRead() int64  { return s.lines.consumed }

func (s *streamSource) close() error {
	if s.async != nil {
		s.async.close()
		s.async = nil
	}
	s.release()
	if s.underlying != nil {
		return s.underlying.Close()
	}
	return nil
}

// eofReader is an empty stream.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
