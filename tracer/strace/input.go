package strace

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Magic numbers of the compressed formats we accept (see RFC 1952 and RFC 8878).
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// isCompressedMagic reports whether b starts with a magic number decompress
// knows.
func isCompressedMagic(b []byte) bool {
	return bytes.HasPrefix(b, gzipMagic) || bytes.HasPrefix(b, zstdMagic)
}

// decompress looks at the first bytes of r and, when they are a gzip or zstd
// magic number, returns a reader of the decompressed text. The returned closer
// releases the decoder (it does not close r).
func decompress(r io.Reader) (io.Reader, func(), error) {
	var head [4]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	// Put the bytes we peeked back in front of the stream.
	whole := io.MultiReader(bytes.NewReader(head[:n]), r)
	switch {
	case bytes.HasPrefix(head[:n], zstdMagic):
		d, err := zstd.NewReader(whole)
		if err != nil {
			return nil, nil, fmt.Errorf("zstd: %w", err)
		}
		return d, d.Close, nil
	case bytes.HasPrefix(head[:n], gzipMagic):
		g, err := gzip.NewReader(whole)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		return g, func() { g.Close() }, nil
	}
	return whole, func() {}, nil
}

// Buffer sizes of the line splitter. Lines are normally a few hundred bytes
// (strace -s 300), but a writev of many buffers can be long; a line longer
// than maxLineSize is reported as malformed and skipped.
const readBufferSize = 1 << 20

// maxLineSize is a variable only so that a test can lower it.
var maxLineSize = 64 << 20

// errLineTooLong marks a line cut because it exceeded maxLineSize.
var errLineTooLong = errors.New("line too long")

// lineSplitter cuts a byte stream into lines with one large buffer and
// bytes.IndexByte, so that a line costs no allocation.
type lineSplitter struct {
	r          io.Reader
	buf        []byte
	start, end int   // unread bytes are buf[start:end]
	err        error // sticky read error (io.EOF at the end)
	consumed   int64 // bytes handed out as lines, newlines included
	skipping   bool  // inside an over-long line: drop bytes up to the next newline
	// cutLast: the stream ended in the middle of a line (no final
	// newline), as a trace does when the tracer is killed mid-write.
	cutLast bool
	// whole: buf is the whole text, a mapped file (mapped.go). Nothing is
	// read, and the lines handed out stay valid: a chunk keeps them where
	// they are. dropped is the offset up to which its pages were given
	// back.
	whole   bool
	dropped int
}

// newLineSplitter reads r with a buffer of size bytes (grown for longer lines).
func newLineSplitter(r io.Reader, size int) *lineSplitter {
	return &lineSplitter{r: r, buf: make([]byte, max(size, 64))}
}

// newWholeSplitter hands out the lines of text, a mapped file.
func newWholeSplitter(text []byte) *lineSplitter {
	return &lineSplitter{buf: text, end: len(text), err: io.EOF, whole: true}
}

// next returns the next line without its newline (and without a trailing
// carriage return). The slice is valid until the next call. At the end it
// returns io.EOF; a last line without a newline is still returned.
// An over-long line is returned cut, with errLineTooLong.
func (s *lineSplitter) next() ([]byte, error) {
	line, err := s.read(false)
	if err == nil && !s.cutLast {
		line = line[:len(line)-1]
	}
	if err == nil {
		line = trimCR(line)
	}
	return line, err
}

// nextLines returns all the whole lines buffered, newlines included (at
// least one line), or what next would return when that is a last line
// without a newline or an over-long line. The slice is valid until the
// next call.
func (s *lineSplitter) nextLines() ([]byte, error) {
	return s.read(true)
}

// manyBytes bounds the lines nextLines hands out at once.
const manyBytes = 64 << 10

// read returns the next line, or with many the whole lines buffered (up to
// manyBytes), with their newlines.
func (s *lineSplitter) read(many bool) ([]byte, error) {
	for {
		if s.skipping {
			if k := bytes.IndexByte(s.buf[s.start:s.end], '\n'); k >= 0 {
				s.start += k + 1
				s.consumed += int64(k + 1)
				s.skipping = false
				continue
			}
		} else {
			var k int
			if many {
				// At most manyBytes of whole lines (one longer line
				// whole), so that a chunk is about the size asked for.
				end := min(s.end, s.start+manyBytes)
				k = bytes.LastIndexByte(s.buf[s.start:end], '\n')
				if k < 0 && end < s.end {
					k = bytes.IndexByte(s.buf[s.start:s.end], '\n')
				}
			} else {
				k = bytes.IndexByte(s.buf[s.start:s.end], '\n')
			}
			if k >= maxLineSize || k < 0 && s.whole && s.end-s.start >= maxLineSize {
				// Only a whole text has lines longer than the buffer
				// can grow: cut them as a stream's are cut. (k is one
				// line's end here: a block of several lines is at most
				// manyBytes, less than maxLineSize.)
				return s.tooLong(maxLineSize)
			}
			if k >= 0 {
				lines := s.buf[s.start : s.start+k+1]
				s.start += k + 1
				s.consumed += int64(k + 1)
				if s.whole {
					s.dropBehind()
				}
				return lines, nil
			}
		}
		if s.err != nil {
			if s.skipping {
				// An over-long last line: the text ends with it.
				s.consumed += int64(s.end - s.start)
				s.start = s.end
			}
			if s.start < s.end && !s.skipping {
				s.cutLast = true
				line := s.buf[s.start:s.end]
				s.consumed += int64(s.end - s.start)
				s.start = s.end
				return line, nil
			}
			return nil, s.err
		}
		if s.start > 0 {
			copy(s.buf, s.buf[s.start:s.end])
			s.end -= s.start
			s.start = 0
		}
		if s.end == len(s.buf) {
			if s.skipping {
				s.consumed += int64(s.end)
				s.end = 0
			} else if len(s.buf) >= maxLineSize {
				return s.tooLong(s.end)
			} else {
				bigger := make([]byte, 2*len(s.buf))
				copy(bigger, s.buf[:s.end])
				s.buf = bigger
			}
		}
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.err = err
		}
	}
}

// tooLong hands out the first n bytes of an over-long line, cut, and skips
// the rest of it.
func (s *lineSplitter) tooLong(n int) ([]byte, error) {
	line := s.buf[s.start : s.start+n]
	s.consumed += int64(n)
	s.start += n
	s.skipping = true
	return line, errLineTooLong
}

func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}
