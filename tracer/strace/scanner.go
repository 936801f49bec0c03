package strace

import (
	"bytes"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// defaultChunkSize is the text a parallel scan hands a worker at a time:
// large enough that handing over costs nothing next to scanning, small
// enough that chunks in flight stay a few megabytes.
const defaultChunkSize = 1 << 20

// lineFeed numbers a source's lines and joins a call cut by strace -f's
// "strace: Process N attached" into the logical lines the scanner reads.
type lineFeed struct {
	src   lineSource
	no    int64  // number of the last line read
	carry []byte // first part of a call cut by "strace: Process N attached"
}

// next returns the next logical line, the source's pid for it, and whether
// it was cut for being longer than maxLineSize. The line is valid until the
// next call.
func (f *lineFeed) next() (line []byte, pid int, tooLong bool, err error) {
	for {
		line, pid, err := f.src.next()
		if err == errLineTooLong {
			f.no++
			return line, pid, true, nil
		}
		if err != nil {
			return nil, 0, false, err
		}
		f.no++
		if len(f.carry) > 0 {
			f.carry = append(f.carry, line...)
			line = f.carry
		}
		if bytes.HasSuffix(line, []byte(" attached")) {
			// strace -f writing to stderr prints "strace: Process N attached"
			// in the middle of the line of the call that created N; the call
			// goes on at the start of the next line. Keep the first part.
			if k := bytes.Index(line, []byte("strace: Process ")); k > 0 {
				f.carry = append(f.carry[:0], line[:k]...)
				continue
			}
		}
		f.carry = f.carry[:0]
		return line, pid, false, nil
	}
}

// scanChunk is a run of whole logical lines and, once a worker has scanned
// it, their scannedLines. Chunks are recycled: a fixed number is in flight.
type scanChunk struct {
	text  []byte
	lines []chunkLine
	recs  []scannedLine
	done  chan struct{} // a worker has scanned the chunk

	// The source's state after the chunk's last line.
	endNo    int64
	endBytes int64
	last     bool  // the source ended: err is io.EOF or the read error
	err      error //
	cutLast  bool  // the source ended in the middle of a line
}

// chunkLine is one logical line of a chunk.
type chunkLine struct {
	start, end int   // text[start:end]
	pid        int   // the source's pid for a line without a prefix
	tooLong    bool  // cut for being longer than maxLineSize
	no         int64 // line number
	bytes      int64 // text bytes read up to its end
	cutLast    bool  // the source ended in the middle of this line
}

// parallelScan reads one stream with several goroutines: a chunker cuts the
// feed's lines into chunks, workers scan chunks, and the Reader applies the
// scanned lines of each chunk in trace order (Reader.nextScanned). The
// chunker hands chunks to the Reader in order and to the workers at once;
// the Reader waits for each chunk's scan before it applies it.
type parallelScan struct {
	free    chan *scanChunk // chunks to fill
	work    chan *scanChunk // chunks to scan
	ordered chan *scanChunk // filled chunks, in trace order
	quit    chan struct{}
	stopped bool
	wg      sync.WaitGroup

	cur *scanChunk // the chunk being applied
	pos int        // next line of cur
}

// startScan starts a parallel scan when the input is one stream and more
// than one goroutine can run.
func (r *Reader) startScan() {
	stream, ok := r.src.(*streamSource)
	if !ok || r.err != nil || r.scanWorkers < 2 {
		return
	}
	if stream.compressed {
		// Decompress on a goroutine of its own, ahead of the chunker.
		stream.lines.r = newAsyncReader(stream.lines.r)
		stream.async = stream.lines.r.(*asyncReader)
	}
	inFlight := 2 * r.scanWorkers
	s := &parallelScan{
		free:    make(chan *scanChunk, inFlight),
		work:    make(chan *scanChunk, inFlight),
		ordered: make(chan *scanChunk, inFlight),
		quit:    make(chan struct{}),
	}
	for range inFlight {
		s.free <- &scanChunk{done: make(chan struct{}, 1)}
	}
	s.wg.Add(1 + r.scanWorkers)
	go s.chunker(&r.feed, r.src, r.chunkSize)
	for range r.scanWorkers {
		go s.worker(r.rules)
	}
	r.scan = s
}

// chunker fills chunks with the feed's lines, chunkSize bytes of text or
// more each, until the source ends or the scan stops.
func (s *parallelScan) chunker(feed *lineFeed, src lineSource, chunkSize int) {
	defer s.wg.Done()
	defer close(s.work)
	for {
		var c *scanChunk
		select {
		case c = <-s.free:
		case <-s.quit:
			return
		}
		c.text, c.lines = c.text[:0], c.lines[:0]
		for len(c.text) < chunkSize {
			line, pid, tooLong, err := feed.next()
			if err != nil {
				c.last, c.err, c.cutLast = true, err, src.endsMidLine()
				break
			}
			if tooLong {
				line = cut(line) // only a warning quotes it
			}
			start := len(c.text)
			c.text = append(c.text, line...)
			c.lines = append(c.lines, chunkLine{start: start, end: len(c.text), pid: pid,
				tooLong: tooLong, no: feed.no, bytes: src.bytesRead(), cutLast: src.endsMidLine()})
		}
		c.endNo, c.endBytes = feed.no, src.bytesRead()
		// Neither send blocks: each channel holds every chunk there is.
		s.ordered <- c
		s.work <- c
		if c.last {
			return
		}
	}
}

// worker scans chunks with a lineParser of its own.
func (s *parallelScan) worker(rules *scanRules) {
	defer s.wg.Done()
	p := lineParser{rules: rules}
	for c := range s.work {
		if cap(c.recs) < len(c.lines) {
			c.recs = append(c.recs[:cap(c.recs)], make([]scannedLine, len(c.lines)-cap(c.recs))...)
		}
		c.recs = c.recs[:len(c.lines)]
		for i, l := range c.lines {
			rec := &c.recs[i]
			text := c.text[l.start:l.end:l.end]
			if l.tooLong {
				scanTooLong(text, rec)
			} else {
				p.scan(text, l.pid, rec)
			}
			rec.no, rec.bytes = l.no, l.bytes
		}
		p.out = nil
		c.done <- struct{}{}
	}
}

// nextScanned returns the next scanned line in trace order, recycling each
// chunk once it is applied (the event returned last may point into it: it
// is reused by the following call, as Next promises).
func (r *Reader) nextScanned() (*scannedLine, error) {
	s := r.scan
	for {
		if c := s.cur; c != nil {
			if s.pos < len(c.recs) {
				s.pos++
				if c.lines[s.pos-1].cutLast {
					// The serial path knows as soon as it hands out a
					// last line without a newline.
					r.cutDone = true
				}
				return &c.recs[s.pos-1], nil
			}
			r.lineNo, r.bytesDone = c.endNo, c.endBytes
			if c.last {
				r.cutDone = c.cutLast
				return nil, c.err
			}
			s.cur = nil
			s.free <- c
		}
		c, ok := <-s.ordered
		if !ok {
			return nil, io.EOF // not reached: the last chunk ends the loop
		}
		<-c.done
		s.cur, s.pos = c, 0
	}
}

// stop asks the scan's goroutines to end; wait waits until they have.
func (s *parallelScan) stop() {
	if !s.stopped {
		s.stopped = true
		close(s.quit)
	}
}

func (s *parallelScan) wait() { s.wg.Wait() }

// isCompressed reports whether decompress returned a decoder.
func isCompressed(text io.Reader) bool {
	switch text.(type) {
	case *zstd.Decoder, *gzip.Reader:
		return true
	}
	return false
}

// asyncReader reads its source on a goroutine of its own, a few blocks
// ahead, so that decompression runs beside the chunker.
type asyncReader struct {
	blocks chan asyncBlock
	free   chan []byte
	quit   chan struct{}
	done   chan struct{}
	cur    asyncBlock
	off    int
	err    error
}

type asyncBlock struct {
	data []byte
	err  error
}

const (
	asyncBlockSize = 256 << 10
	asyncBlocks    = 4
)

func newAsyncReader(src io.Reader) *asyncReader {
	a := &asyncReader{
		blocks: make(chan asyncBlock, asyncBlocks),
		free:   make(chan []byte, asyncBlocks),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	for range asyncBlocks {
		a.free <- make([]byte, asyncBlockSize)
	}
	go a.run(src)
	return a
}

func (a *asyncReader) run(src io.Reader) {
	defer close(a.done)
	for {
		var buf []byte
		select {
		case buf = <-a.free:
		case <-a.quit:
			return
		}
		n, err := io.ReadFull(src, buf)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		a.blocks <- asyncBlock{data: buf[:n], err: err} // never blocks: one slot per buffer
		if err != nil {
			return
		}
	}
}

func (a *asyncReader) Read(p []byte) (int, error) {
	for a.off >= len(a.cur.data) {
		if a.err != nil {
			return 0, a.err
		}
		if a.cur.data != nil {
			a.free <- a.cur.data[:cap(a.cur.data)]
		}
		a.cur, a.off = <-a.blocks, 0
		a.err = a.cur.err
	}
	n := copy(p, a.cur.data[a.off:])
	a.off += n
	return n, nil
}

// close stops the reading goroutine and waits for it, so that the source
// can be released.
func (a *asyncReader) close() {
	close(a.quit)
	<-a.done
}
