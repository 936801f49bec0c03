package strace

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/fsmove/fsmove/tracer"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// defaultChunkSize is the least text a parallel scan hands a worker at a
// time; the splitter hands out up to manyBytes of lines at once, so a chunk
// is mostly one such block, 32-64 KiB. Large enough that handing over costs
// nothing next to scanning; small enough that the records of the chunks in
// flight (about 6 bytes of record per byte of wanted text) stay in the
// cores' caches until the Reader applies them. On two cores, chunks of 64
// KiB took 11% less time than chunks of 128 KiB (the 168 MB collectd
// trace, alternating runs: 215 against 240 ms), and 8 KiB chunks were
// as slow as 128 KiB ones.
const defaultChunkSize = 32 << 10

// maxChunksInFlight bounds the chunks in flight of a parallel scan, but for
// 2 per worker.
const maxChunksInFlight = 32

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

// scanChunk is a run of whole lines of the stream and, once a worker has
// scanned it, their scannedLines. Chunks are recycled: a fixed number is in
// flight.
type scanChunk struct {
	text []byte
	segs []chunkSegment
	recs []scannedLine
	done chan struct{} // a worker has scanned the chunk
	// lines is the number of lines in text (counted by the worker).
	lines int64
	// dropped counts the calls the worker dropped (tracer.FailedLookups,
	// DropDataless).
	dropped dropCounts
	// fault is the error of a scan that faulted on a mapped trace file.
	fault error
	// joined holds the calls localPairs joined from their halves.
	joined []byte

	// The source's state after the chunk's last line.
	endBytes int64
	last     bool  // the source ended: err is io.EOF or the read error
	err      error //
	cutLast  bool  // the source ended in the middle of the chunk's last line
}

// chunkSegment is a part of a chunk's text as the splitter handed it out:
// whole lines, or one over-long line (kept cut: only a warning quotes it).
type chunkSegment struct {
	start, end int   // text[start:end]
	before     int64 // the splitter's byte count before the segment
	tooLong    bool
	length     int // bytes the splitter counted for an over-long line
}

// chunkSource hands out the lines of one chunk, for a lineFeed in a
// worker: the same numbering and joining as on the serial path.
type chunkSource struct {
	c        *scanChunk
	seg      int   // current segment
	pos      int   // next byte of text
	consumed int64 // the splitter's byte count after the last line handed out
}

func (s *chunkSource) next() ([]byte, int, error) {
	for s.seg < len(s.c.segs) {
		g := &s.c.segs[s.seg]
		if g.tooLong {
			s.seg++
			s.pos = g.end
			s.consumed = g.before + int64(g.length)
			return s.c.text[g.start:g.end:g.end], 0, errLineTooLong
		}
		if s.pos < g.start {
			s.pos = g.start
		}
		if s.pos >= g.end {
			s.seg++
			continue
		}
		end := g.end
		next := end
		if k := bytes.IndexByte(s.c.text[s.pos:g.end], '\n'); k >= 0 {
			end, next = s.pos+k, s.pos+k+1
		}
		line := s.c.text[s.pos:end:end]
		s.pos = next
		s.consumed = g.before + int64(next-g.start)
		return trimCR(line), 0, nil
	}
	return nil, 0, io.EOF
}

func (s *chunkSource) where() string     { return "" }
func (s *chunkSource) bytesRead() int64  { return s.consumed }
func (s *chunkSource) endsMidLine() bool { return false }
func (s *chunkSource) close() error      { return nil }

// parallelScan reads one stream with several goroutines: a chunker cuts the
// stream into chunks of whole lines, workers scan chunks, and the Reader
// applies the scanned lines of each chunk in trace order
// (Reader.nextScanned). The chunker hands chunks to the Reader in order and
// to the workers at once; the Reader waits for each chunk's scan before it
// applies it.
type parallelScan struct {
	free    chan *scanChunk // chunks to fill
	work    chan *scanChunk // chunks to scan
	ordered chan *scanChunk // filled chunks, in trace order
	quit    chan struct{}
	stopOne sync.Once
	wg      sync.WaitGroup

	cur      *scanChunk // the chunk being applied
	pos      int        // next line of cur
	lineBase int64      // lines before cur
}

// startScan starts a parallel scan when the input is one stream and there
// is a core for a scanner besides the Reader's (scanWorkers > 0).
func (r *Reader) startScan() {
	stream, ok := r.src.(*streamSource)
	if !ok || r.err != nil || r.scanWorkers < 1 {
		return
	}
	if stream.compressed {
		// Decompress on a goroutine of its own, ahead of the chunker.
		stream.async = newAsyncReader(stream.lines.r)
		stream.lines.r = stream.async
	}
	// Chunks in flight: enough that a worker slow on one chunk does not
	// leave the others without work while the Reader waits for it (on two
	// cores, 2 per worker kept 1.79 cores busy on average, 8 per worker
	// 1.88), few enough that a mapped trace's pages in flight stay within
	// keptBehind.
	inFlight := max(2*r.scanWorkers, min(8*r.scanWorkers, maxChunksInFlight))
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
	go s.chunker(stream.lines, r.chunkSize)
	for range r.scanWorkers {
		go s.worker(r.rules)
	}
	r.scan = s
	// The goroutines do not hold the Reader: one dropped before its end
	// without Close stops them when it is collected.
	runtime.AddCleanup(r, func(s *parallelScan) { s.stop() }, s)
}

// chunker fills chunks with the splitter's lines, chunkSize bytes of text
// or more each, until the source ends or the scan stops. A chunk never ends
// with a line that ends in " attached": strace -f may have cut a call there
// (see lineFeed), and the lines joined must be scanned together.
func (s *parallelScan) chunker(lines *lineSplitter, chunkSize int) {
	defer s.wg.Done()
	defer close(s.work)
	faultsAsErrors()
	for {
		var c *scanChunk
		select {
		case c = <-s.free:
		case <-s.quit:
			return
		}
		if cap(c.text) < chunkSize && !lines.whole {
			c.text = make([]byte, 0, chunkSize+readBufferSize)
		}
		c.text, c.segs = c.text[:0], c.segs[:0]
		if err := s.fill(c, lines, chunkSize); err != nil {
			c.last, c.err = true, err
		}
		if c.err == errScanStopped {
			return // Close waits for this goroutine: stop between reads
		}
		// The splitter knows the stream ended mid-line once it has handed
		// out that last line, perhaps before it reports the end.
		c.endBytes, c.cutLast = lines.consumed, lines.cutLast
		// Neither send blocks: each channel holds every chunk there is.
		s.ordered <- c
		s.work <- c
		if c.last {
			return
		}
	}
}

// errScanStopped ends a chunk the chunker stopped filling: the scan stops.
var errScanStopped = errors.New("scan stopped")

// fill fills c with lines, chunkSize bytes or more, until the source ends
// (c.last). Its error is a read error, a fault on a mapped trace file, or
// errScanStopped.
func (s *parallelScan) fill(c *scanChunk, lines *lineSplitter, chunkSize int) (err error) {
	if lines.whole {
		defer catchFault(&err)
	}
	// A whole text's chunk is the span of its blocks where they are: from
	// base on.
	base := lines.start
	attached := false // the last whole line ends in " attached"
	for len(c.text) < chunkSize || attached {
		select {
		case <-s.quit:
			return errScanStopped
		default:
		}
		block, err := lines.nextLines()
		if err != nil && err != errLineTooLong {
			return err // the end of the source (io.EOF) or a read error
		}
		// The count before the block, not before the call: skipping the
		// rest of an over-long line counts too.
		seg := chunkSegment{before: lines.consumed - int64(len(block))}
		at := lines.start - len(block) - base // where a whole text's block is
		if err == errLineTooLong {
			seg.tooLong, seg.length = true, len(block)
			block = cut(block)
		} else {
			attached = endsAttached(block)
		}
		if lines.whole {
			seg.start, seg.end = at, at+len(block)
			c.text = lines.buf[base : base+seg.end]
		} else {
			seg.start = len(c.text)
			c.text = append(c.text, block...)
			seg.end = len(c.text)
		}
		c.segs = append(c.segs, seg)
	}
	return nil
}

// endsAttached reports whether the last line of block ends in " attached".
func endsAttached(block []byte) bool {
	line := block
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	return bytes.HasSuffix(trimCR(line), []byte(" attached"))
}

// worker scans chunks with a lineParser of its own. Line numbers are
// counted from the chunk's start; nextScanned adds the lines before it.
func (s *parallelScan) worker(rules *scanRules) {
	defer s.wg.Done()
	faultsAsErrors()
	w := scanWorker{p: lineParser{rules: rules}}
	for c := range s.work {
		c.fault = w.scan(c)
		w.p.out = nil
		c.done <- struct{}{}
		// Let the Reader's goroutine (and its consumer's) run. Go's
		// scheduler has no priorities: woken by done, the Reader waits
		// behind the workers until they block, and they block only
		// once every chunk in flight is scanned; then it runs alone
		// while they wait for chunks it frees. Yielding after each
		// chunk keeps the two busy side by side: on two cores, 1.90
		// busy cores instead of 1.80, and 213 against 266 ms on the
		// collectd trace (runtime traces of the analyze benchmark).
		runtime.Gosched()
	}
}

// scanWorker is what a worker keeps from chunk to chunk.
type scanWorker struct {
	p     lineParser
	src   chunkSource
	feed  lineFeed
	pairs localPairs
}

// scan scans the lines of c into c.recs. Its error is a fault on a mapped
// trace file.
func (w *scanWorker) scan(c *scanChunk) (err error) {
	defer catchFault(&err)
	p, src, pairs := &w.p, &w.src, &w.pairs
	*src = chunkSource{c: c}
	w.feed = lineFeed{src: src, carry: w.feed.carry[:0]}
	feed := &w.feed
	c.recs, c.joined = c.recs[:0], c.joined[:0]
	pairs.reset()
	dropped := p.dropped
	for {
		text, pid, tooLong, err := feed.next()
		if err != nil {
			break
		}
		rec := c.nextRec()
		if tooLong {
			scanTooLong(text, rec)
		} else {
			p.scan(text, pid, rec)
			pairs.see(p, c)
		}
		if rec.kind == lineNone {
			// Nothing for apply to do (most lines of a trace: calls
			// not wanted): the slot takes the next line.
			c.recs = c.recs[:len(c.recs)-1]
			continue
		}
		rec.no, rec.bytes = feed.no, src.bytesRead()
	}
	c.lines, c.dropped = feed.no, p.dropped.minus(dropped)
	return nil
}

// Records are made recsPerGrowth at a time, each with room for
// argsPerRecord arguments: a fresh scan's chunks fill hundreds of records
// each, and growing them one at a time, each with its own Args, took a
// tenth of a parallel scan's CPU.
const (
	recsPerGrowth = 512
	argsPerRecord = 6
)

// nextRec returns the next record of c, one used before with its buffers
// when there is one.
func (c *scanChunk) nextRec() *scannedLine {
	n := len(c.recs)
	if n == cap(c.recs) {
		more := max(n, recsPerGrowth)
		recs := make([]scannedLine, n, n+more)
		copy(recs, c.recs)
		args := make([]tracer.Arg, more*argsPerRecord)
		fresh := recs[n : n+more]
		for i := range fresh {
			k := i * argsPerRecord
			fresh[i].ev.Args = args[k : k : k+argsPerRecord]
		}
		c.recs = recs
	}
	c.recs = c.recs[:n+1]
	return &c.recs[n]
}

// localPairs joins, inside one chunk, the two halves of a call that strace
// printed as "<unfinished ...>" and "<... NAME resumed>", and scans the call
// in the worker: otherwise the Reader would scan it while it applies lines
// in order, on one core. A pair is joined only when applying the lines in
// order would join it whatever came before the chunk: both halves carry the
// same pid prefix, and no line between them touches that pid's call in
// flight. The first half becomes linePaired (the pid's call in flight
// ends), the second half the call's event. Any other half is left to the
// Reader, as on the serial path.
type localPairs struct {
	open map[int]int // pid → index in the chunk's recs of its first half
}

func (lp *localPairs) reset() {
	if lp.open == nil {
		lp.open = make(map[int]int)
	}
	clear(lp.open)
}

// see looks at the last of recs, just scanned by p.
func (lp *localPairs) see(p *lineParser, c *scanChunk) {
	recs := c.recs
	i := len(recs) - 1
	rec := &recs[i]
	switch {
	case rec.kind == lineNone, len(lp.open) == 0 && rec.kind != lineUnfinished:
		// With no first half open, only a first half changes anything:
		// most lines cost no map operation.
		return
	case !rec.prefixed || rec.pid == rec.srcPid || rec.kind == lineMalformed:
		// The pid of a line without a prefix is known only in order
		// (Reader.solo): it may be any pid's. A malformed line may end
		// the read (Options.Strict): a call started before it must then
		// still be in flight.
		clear(lp.open)
		return
	}
	switch rec.kind {
	case lineUnfinished:
		// A pid has one call in flight: a newer first half replaces an
		// older one, which the Reader starts and this pair's end drops.
		lp.open[rec.pid] = i
		return
	case lineSuperseded:
		delete(lp.open, rec.old)
	case lineResumed:
		u, ok := lp.open[rec.pid]
		if !ok || recs[u].call.name != string(rec.name) {
			break // the Reader warns, or drops the other call
		}
		delete(lp.open, rec.pid)
		first := &recs[u]
		first.kind = linePaired
		if !first.call.wanted {
			rec.kind = lineNone
			return
		}
		// The halves joined, in the chunk's buffer: a record's own would be
		// allocated for each record the first time.
		start := len(c.joined)
		c.joined = append(append(c.joined, first.args...), rec.args...)
		joined := c.joined[start:len(c.joined):len(c.joined)] // a failed call's args point into it
		p.out = rec
		p.scanCall(first.call, rec.pid, joined, 0)
		// No longer a resumed half: the Reader must not take it for the
		// first sign of strace -f's pid prefixes (Reader.learnSoloPid).
		rec.angle = false
		return
	}
	// An exit, a resumed half of another call, or any other line of the
	// pid: the Reader decides.
	delete(lp.open, rec.pid)
}

// nextScanned returns the next scanned line in trace order, recycling each
// chunk once it is applied (the event returned last may point into it: it
// is reused by the following call, as Next promises).
func (r *Reader) nextScanned() (*scannedLine, error) {
	s := r.scan
	for {
		if c := s.cur; c != nil {
			if s.pos < len(c.recs) {
				rec := &c.recs[s.pos]
				s.pos++
				if c.cutLast && rec.no == c.lines {
					// The serial path knows as soon as it hands out a
					// last line without a newline.
					r.cutDone = true
				}
				rec.no += s.lineBase
				return rec, nil
			}
			s.lineBase += c.lines
			r.dropped.add(c.dropped)
			r.lineNo, r.bytesDone = s.lineBase, c.endBytes
			r.cutDone = r.cutDone || c.cutLast
			if c.last {
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
		if c.fault != nil {
			return nil, c.fault
		}
		s.cur, s.pos = c, 0
	}
}

// stop asks the scan's goroutines to end; wait waits until they have.
func (s *parallelScan) stop() {
	s.stopOne.Do(func() { close(s.quit) })
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
		// Fill the block, keeping the error as the source gave it (a cut
		// gzip stream's io.ErrUnexpectedEOF is not the end of the trace).
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var m int
			m, err = src.Read(buf[n:])
			n += m
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
