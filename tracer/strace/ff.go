package strace

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// perPidFile is one file PREFIX.PID of an `strace -ff -o PREFIX` directory.
//
// A run can leave thousands of files, so a file is open only while its
// process's lines are being merged: from its first line to its end.
type perPidFile struct {
	path     string
	name     string
	pid      int
	src      *streamSource // nil while the file is closed
	finished bool          // read to the end (and closed)
	lineNo   int64         // line number inside this file

	// The current (read but not yet handed out) line, for the merge.
	line  []byte
	err   error
	at    int64 // its timestamp in microseconds
	timed bool  // whether the line carried a -tt/-ttt timestamp
	day   int64 // microseconds added for -tt timestamps that passed midnight
	last  int64 // previous -tt time of day, to see midnight go by
}

// perPidSource hands out the lines of several per-pid files: merged by their
// -tt/-ttt timestamps when every file has them, else file after file in pid
// order (and the Reader warns that the order across processes is lost).
type perPidSource struct {
	files   []*perPidFile
	merge   bool
	heap    []*perPidFile // merge mode: files with a current line, earliest first
	seq     int           // sequential mode: index of the file being read
	current *perPidFile   // file of the line handed out last
	latest  int64         // latest timestamp read from any file
	read    int64         // bytes of the files already finished
	cut     bool          // a finished file ended in the middle of a line
}

// Buffer sizes for per-pid files: a small one to peek at the first line, a
// larger one while reading (both grow for longer lines).
const (
	peekBufferSize   = 4 << 10
	perPidBufferSize = 64 << 10
)

// openPerPidDir lists the PREFIX.PID files in dir and peeks at the first line
// of each. The returned warning is non-empty when the files cannot be merged
// by time.
func openPerPidDir(dir string) (*perPidSource, string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, "", err
	}
	s := &perPidSource{}
	for _, e := range entries {
		dot := strings.LastIndexByte(e.Name(), '.')
		if e.IsDir() || dot < 0 {
			continue
		}
		pid, err := strconv.Atoi(e.Name()[dot+1:])
		if err != nil || pid <= 0 {
			continue
		}
		s.files = append(s.files, &perPidFile{path: filepath.Join(dir, e.Name()), name: e.Name(), pid: pid})
	}
	if len(s.files) == 0 {
		return nil, "", fmt.Errorf("%s: no strace -ff files (PREFIX.PID) in this directory", dir)
	}
	sort.Slice(s.files, func(i, j int) bool { return s.files[i].pid < s.files[j].pid })
	// Merge by time only if every file's first line has a precise timestamp.
	s.merge = true
	for _, f := range s.files {
		if err := s.open(f, peekBufferSize); err != nil {
			return nil, "", err
		}
		s.advance(f)
		f.src.close()
		f.src = nil
		switch f.err {
		case nil, errLineTooLong:
			if !f.timed {
				s.merge = false
			}
		case io.EOF:
			f.finished = true // an empty file
		default:
			return nil, "", fmt.Errorf("%s: %w", f.name, f.err)
		}
	}
	if !s.merge {
		return s, "-ff files have no -tt/-ttt timestamps: read one after the other in pid order, so the order of calls across processes is lost", nil
	}
	for _, f := range s.files {
		if !f.finished {
			s.push(f) // keyed by the first line's time, still closed
		}
	}
	return s, "", nil
}

// open opens f for reading from its start.
func (s *perPidSource) open(f *perPidFile, bufferSize int) error {
	fh, err := os.Open(f.path)
	if err != nil {
		return err
	}
	src, err := newStreamSource(fh, fh, bufferSize)
	if err != nil {
		fh.Close()
		return fmt.Errorf("%s: %w", f.name, err)
	}
	f.src = src
	return nil
}

// reopen opens a file whose first line was peeked at, and reads that line
// again (its time, already known, is kept).
func (s *perPidSource) reopen(f *perPidFile) error {
	if err := s.open(f, perPidBufferSize); err != nil {
		return err
	}
	f.line, f.err = f.src.lines.next()
	f.lineNo = 1
	if f.err != nil && f.err != errLineTooLong {
		return fmt.Errorf("%s: first line gone: %w", f.name, f.err)
	}
	return nil
}

// finish closes a file read to its end.
func (s *perPidSource) finish(f *perPidFile) {
	s.read += f.src.bytesRead()
	s.cut = s.cut || f.src.endsMidLine()
	f.src.close()
	f.src = nil
	f.finished = true
}

// advance reads f's next line and its timestamp. A line without one (a
// corrupt line) keeps the previous line's time, so it stays in place.
func (s *perPidSource) advance(f *perPidFile) {
	f.line, f.err = f.src.lines.next()
	if f.err != nil && f.err != errLineTooLong {
		return
	}
	f.lineNo++
	t := lineTime(f.line)
	f.timed = t >= 0
	if !f.timed {
		f.at = f.last
		return
	}
	if isTimeOfDay(f.line) {
		// -tt: a time of day. Midnight passed if the clock went back by more
		// than half a day since this file's previous line (or, for a file's
		// first line, since the latest time seen in any file: a process
		// started after midnight).
		ref := f.last
		if f.lineNo == 1 {
			ref = s.latest
		}
		for t+f.day < ref-12*3600*1e6 {
			f.day += secondsPerDay * 1e6
		}
		t += f.day
	}
	f.at, f.last = t, t
	s.latest = max(s.latest, t)
}

const secondsPerDay = 24 * 3600

func (s *perPidSource) next() ([]byte, int, error) {
	if s.merge {
		return s.nextByTime()
	}
	for s.seq < len(s.files) {
		f := s.files[s.seq]
		switch {
		case f.finished:
			s.seq++
			continue
		case f.src == nil:
			if err := s.reopen(f); err != nil {
				return nil, 0, err
			}
		case s.current == f:
			s.advance(f)
		}
		s.current = f
		if f.err == nil || f.err == errLineTooLong {
			return f.line, f.pid, f.err
		}
		if f.err != io.EOF {
			return nil, 0, fmt.Errorf("%s: %w", f.name, f.err)
		}
		s.finish(f)
		s.seq++
	}
	return nil, 0, io.EOF
}

// nextByTime hands out the earliest current line of all files.
func (s *perPidSource) nextByTime() ([]byte, int, error) {
	if f := s.current; f != nil {
		// The file whose line was handed out last moves to its next line.
		s.current = nil
		s.advance(f)
		switch f.err {
		case nil, errLineTooLong:
			s.push(f)
		case io.EOF:
			s.finish(f)
		default:
			return nil, 0, fmt.Errorf("%s: %w", f.name, f.err)
		}
	}
	if len(s.heap) == 0 {
		return nil, 0, io.EOF
	}
	f := s.pop()
	if f.src == nil {
		if err := s.reopen(f); err != nil {
			return nil, 0, err
		}
	}
	s.current = f
	return f.line, f.pid, f.err
}

func (s *perPidSource) endsMidLine() bool { return s.cut }

func (s *perPidSource) where() string {
	if s.current == nil {
		return ""
	}
	return fmt.Sprintf("%s line %d", s.current.name, s.current.lineNo)
}

func (s *perPidSource) bytesRead() int64 {
	n := s.read
	for _, f := range s.files {
		if f.src != nil {
			n += f.src.bytesRead()
		}
	}
	return n
}

func (s *perPidSource) close() error {
	var first error
	for _, f := range s.files {
		if f.src != nil {
			if err := f.src.close(); err != nil && first == nil {
				first = err
			}
			f.src = nil
		}
	}
	return first
}

// The merge heap: a binary min-heap on (timestamp, pid). Hand-written rather
// than container/heap so that pushing does not box into an interface.
func (s *perPidSource) less(a, b *perPidFile) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.pid < b.pid
}

func (s *perPidSource) push(f *perPidFile) {
	s.heap = append(s.heap, f)
	i := len(s.heap) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !s.less(s.heap[i], s.heap[parent]) {
			break
		}
		s.heap[i], s.heap[parent] = s.heap[parent], s.heap[i]
		i = parent
	}
}

func (s *perPidSource) pop() *perPidFile {
	h := s.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s.less(h[l], h[m]) {
			m = l
		}
		if r < n && s.less(h[r], h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	s.heap = h
	return top
}

// lineTime reads the -tt (12:34:56.123456) or -ttt (1700000000.123456)
// timestamp at the start of a line without pid, in microseconds; -1 when the
// line has none or only a -t/-r one (seconds only, or relative times, which
// cannot order lines of different files).
func lineTime(line []byte) int64 {
	i := 0
	var fields [3]int64
	nf := 0
	for {
		n, k := 0, i
		for k < len(line) && isDigit(line[k]) && k-i < 12 {
			n = n*10 + int(line[k]-'0')
			k++
		}
		if k == i || nf == 3 {
			return -1
		}
		fields[nf] = int64(n)
		nf++
		i = k
		if i < len(line) && line[i] == ':' {
			i++
			continue
		}
		break
	}
	if i >= len(line) || line[i] != '.' {
		return -1 // -t, or no timestamp
	}
	var secs int64
	switch nf {
	case 3:
		secs = fields[0]*3600 + fields[1]*60 + fields[2]
	case 1:
		if i < 9 {
			return -1 // -r relative time (a few digits), not -ttt epoch seconds
		}
		secs = fields[0]
	default:
		return -1
	}
	i++
	var micros int64
	digits := 0
	for i < len(line) && isDigit(line[i]) && digits < 9 {
		micros = micros*10 + int64(line[i]-'0')
		digits++
		i++
	}
	if digits == 0 {
		return -1
	}
	for ; digits < 6; digits++ {
		micros *= 10
	}
	for ; digits > 6; digits-- {
		micros /= 10
	}
	return secs*1e6 + micros
}

// isTimeOfDay tells a -tt timestamp (with ':') from a -ttt one.
func isTimeOfDay(line []byte) bool {
	return len(line) > 2 && line[2] == ':'
}
