package strace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsmove/fsmove/bench/gen"
	"github.com/fsmove/fsmove/tracer"
)

// scanShape is how a Reader scans: workers < 1 is the serial path. mapped
// reads the trace from a file, mapped, as Open does (a compressed trace is
// read as it is otherwise).
type scanShape struct {
	workers, chunkSize int
	mapped             bool
}

func (s scanShape) String() string {
	how := "serial"
	if s.workers >= 1 {
		how = fmt.Sprintf("%d workers, %d-byte chunks", s.workers, s.chunkSize)
	}
	if s.mapped {
		how += ", mapped"
	}
	return how
}

// readerCase is a set of Options. make builds them afresh for each read, so
// that an order-dependent LookupArgs starts from the same state.
type readerCase struct {
	name string
	make func() (Options, func(r *Reader, events int))
}

// readerCases: everything decoded; the analysis's shape (Want, Args, the
// failed lookups only and a LookupArgs whose answers depend on the order it
// is asked in, replaced by SetLookupArgs half way); strict.
var readerCases = []readerCase{
	{"all", func() (Options, func(*Reader, int)) { return Options{Failed: tracer.FailedAll}, nil }},
	{"analysis", func() (Options, func(*Reader, int)) {
		asked := 0
		opts := Options{
			Want:         func(name string) bool { return specSyscalls[name] || name == "read" },
			Args:         func(name string) uint64 { return map[bool]uint64{true: 0b11}[strings.HasPrefix(name, "open")] },
			Failed:       tracer.FailedLookups,
			ShortWrites:  true,
			MarkerData:   func(printed []byte) bool { return bytes.Contains(printed, []byte("a")) },
			DropDataless: true,
			LookupArgs: func(ev *tracer.Event) bool {
				asked++
				return asked%3 != 0 // depends on every earlier question
			},
		}
		switchAt := func(r *Reader, events int) {
			if events == 200 {
				r.SetLookupArgs(func(ev *tracer.Event) bool { return ev.Pid%2 == 0 })
			}
		}
		return opts, switchAt
	}},
	{"strict", func() (Options, func(*Reader, int)) { return Options{Strict: true, Failed: tracer.FailedAll}, nil }},
}

// newShapedReader reads data with the Options of rc, scanned as shape says.
func newShapedReader(data []byte, rc readerCase, shape scanShape) (*Reader, func(*Reader, int)) {
	opts, hook := rc.make()
	var r *Reader
	if shape.mapped && !isCompressedMagic(data) { // a compressed file is read as a stream
		r = openTemp(data, opts)
	} else {
		r = NewReader(bytes.NewReader(data), opts)
	}
	r.scanWorkers = shape.workers
	if shape.chunkSize > 0 {
		r.chunkSize = shape.chunkSize
	}
	return r, hook
}

// openTemp opens data as a file, with Open (which maps it when it can).
// The file is removed at once: the Reader keeps it open.
func openTemp(data []byte, opts Options) *Reader {
	f, err := os.CreateTemp("", "trace-*.log")
	if err != nil {
		panic(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
	r, err := Open(f.Name(), opts)
	if err != nil {
		panic(err)
	}
	return r
}

// describeEvent writes every field of ev, with the Reader's counters.
func describeEvent(ev *tracer.Event, r *Reader) string {
	return fmt.Sprintf("%+v lines=%d bytes=%d", *ev, r.Lines(), r.Bytes())
}

// describeEnd writes the error that ended a read and the Reader's counters
// and warnings, before and after Close.
func describeEnd(r *Reader, err error) string {
	s := fmt.Sprintf("end: %v\nwarnings %d: %+v\nmalformed %d unfinished %d dropped %d and %d writes lines %d bytes %d cut %v\n",
		err, r.WarningCount(), r.Warnings(), r.Malformed(), r.Unfinished(), r.DroppedFailed(), r.DroppedWrites(), r.Lines(), r.Bytes(), r.EndsMidLine())
	if err := r.Close(); err != nil {
		s += fmt.Sprintf("close: %v\n", err)
	}
	return s + fmt.Sprintf("closed: bytes %d cut %v", r.Bytes(), r.EndsMidLine())
}

// sameEvent compares two events field by field (cheaper than formatting
// megabytes of them).
func sameEvent(a, b *tracer.Event) bool {
	if a.Kind != b.Kind || a.Pid != b.Pid || a.Syscall != b.Syscall || a.Ret != b.Ret ||
		a.Errno != b.Errno || a.Line != b.Line || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		x, y := &a.Args[i], &b.Args[i]
		if x.Kind != y.Kind || x.Name != y.Name || x.Int != y.Int || x.Str != y.Str ||
			x.Truncated != y.Truncated || !slices.Equal(x.Ints, y.Ints) || (x.Ints == nil) != (y.Ints == nil) {
			return false
		}
	}
	return true
}

// checkSameAsSerial fails when a parallel scan of data gives anything else
// than the serial one: the events, the counters after each, the error that
// ends the read, the warnings and the final counters.
func checkSameAsSerial(t *testing.T, name string, data []byte, shapes ...scanShape) {
	t.Helper()
	for _, rc := range readerCases {
		for _, shape := range shapes {
			if why := compareReads(data, rc, shape); why != "" {
				t.Errorf("%s, %s, %v: differs from the serial read: %s", name, rc.name, shape, why)
			}
		}
	}
}

// compareReads reads data serially and as shape says, in step, and
// describes the first difference ("" if none).
func compareReads(data []byte, rc readerCase, shape scanShape) string {
	serial, serialHook := newShapedReader(data, rc, scanShape{workers: 0})
	parallel, parallelHook := newShapedReader(data, rc, shape)
	for events := 1; ; events++ {
		want, werr := serial.Next()
		got, gerr := parallel.Next()
		if werr != nil || gerr != nil {
			w, g := describeEnd(serial, werr), describeEnd(parallel, gerr)
			if w != g {
				return fmt.Sprintf("after %d events:\n%s", events-1, firstDifference(w, g))
			}
			return ""
		}
		if !sameEvent(want, got) || serial.Lines() != parallel.Lines() || serial.Bytes() != parallel.Bytes() {
			return fmt.Sprintf("event %d:\nserial:   %s\nparallel: %s", events, describeEvent(want, serial), describeEvent(got, parallel))
		}
		if serialHook != nil {
			serialHook(serial, events)
			parallelHook(parallel, events)
		}
	}
}

// firstDifference shows the first line where two descriptions differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nserial:   %.400s\nparallel: %.400s", i+1, wl, gl)
		}
	}
	return "(same)"
}

// equivalenceTraces returns the committed strace traces (and some generated
// ones), decompressed and cut to at most limit bytes (a cut may fall in the
// middle of a line, which tests EndsMidLine too), plus the compressed files
// as they are.
func equivalenceTraces(t *testing.T, limit int) map[string][]byte {
	t.Helper()
	root := filepath.Join("..", "..", "testdata")
	var paths []string
	for _, pattern := range []string{"strace/*.log*", "strace/puppet7/*.log*", "strace/ff/*", "analyze/*/trace.log*", "runs/*/trace.log*"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) < 10 {
		t.Fatalf("found only %d committed traces: %v", len(paths), paths)
	}
	traces := map[string][]byte{}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text, release, err := decompress(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		data, err := io.ReadAll(io.LimitReader(text, int64(limit)))
		release()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		traces[p] = data
		if isCompressedMagic(raw) && len(raw) <= limit {
			traces[p+" (compressed)"] = raw
			// A cut compressed stream ends with the decompressor's error.
			traces[p+" (compressed, cut)"] = raw[:len(raw)*2/3]
		}
	}
	for seed := int64(1); seed <= 2; seed++ {
		var buf bytes.Buffer
		if err := gen.Generate(&buf, gen.Params{Size: int64(limit), Seed: seed}); err != nil {
			t.Fatal(err)
		}
		traces[fmt.Sprintf("generated, seed %d", seed)] = buf.Bytes()
	}
	traces["synthetic"] = syntheticTrace(limit)
	return traces
}

// TestParallelScanMatchesSerial: the parallel scan, with chunks so small
// that unfinished and resumed halves (and the lines joined around "strace:
// Process N attached") fall in different chunks, delivers exactly the
// serial path's events, line numbers, counters, warnings and errors.
func TestParallelScanMatchesSerial(t *testing.T) {
	limit := 512 << 10
	if testing.Short() {
		limit = 128 << 10
	}
	traces := equivalenceTraces(t, limit)
	for name, data := range traces {
		shapes := []scanShape{{1, 1 << 10, false}, {2, 1 << 10, false}, {3, 64 << 10, false},
			{0, 0, true}, {2, 1 << 10, true}}
		if len(data) <= 200<<10 {
			shapes = append(shapes, scanShape{2, 64, false}, scanShape{4, 1, false}, scanShape{2, 64, true})
		}
		checkSameAsSerial(t, name, data, shapes...)
	}
}

// TestParallelScanEdgeCases covers what a chunk boundary could break.
func TestParallelScanEdgeCases(t *testing.T) {
	cases := map[string]string{
		"empty":            "",
		"no final newline": "1 openat(AT_FDCWD, \"/a\", O_RDONLY) = 3\n1 close(3",
		"attached join": "[pid 5] clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLDstrace: Process 6 attached\n" +
			", child_tidptr=0x7f) = 6\n[pid 6] openat(AT_FDCWD, \"/b\", O_RDONLY) = 3\n",
		"solo pid": "vfork( <unfinished ...>\n[pid 7] execve(\"/bin/true\", [\"true\"], 0x7ffd /* 20 vars */) = 0\n" +
			"[pid 6] <... vfork resumed>) = 7\nopenat(AT_FDCWD, \"/c\", O_RDONLY) = 3\n",
		"superseded": "10 execve(\"/bin/x\", [\"x\"], 0x7ffd /* 1 var */ <unfinished ...>\n" +
			"9 +++ superseded by execve in pid 10 +++\n9 <... execve resumed>) = 0\n",
		"superseded, pid changed": "10 execve(\"/bin/x\", [\"x\"], 0x7ffd /* 1 var */ <pid changed to 9 ...>\n" +
			"9 +++ superseded by execve in pid 10 +++\n9 <... execve resumed>) = 0\n",
		// The call in flight moves to the leader: the thread's own resumed
		// half has no start, though both halves carry its pid.
		"superseded, then the thread resumes": "10 execve(\"/bin/x\", [\"x\"], 0x7ffd /* 1 var */ <unfinished ...>\n" +
			"9 +++ superseded by execve in pid 10 +++\n10 <... execve resumed>) = 0\n9 <... execve resumed>) = 0\n",
		// A pair under "[pid N]" in one chunk is no sign of the solo pid:
		// the unprefixed vfork is pid 6's.
		"solo pid after a pair": "vfork( <unfinished ...>\n[pid 7] openat(AT_FDCWD, \"/d\", O_RDONLY <unfinished ...>\n" +
			"[pid 7] <... openat resumed>) = 3\n[pid 6] <... vfork resumed>) = 7\nopenat(AT_FDCWD, \"/c\", O_RDONLY) = 3\n",
		"pairs": "1 openat(AT_FDCWD, \"/a\", O_RDONLY <unfinished ...>\n2 close(4 <unfinished ...>\n" +
			"1 <... openat resumed>) = 3\n2 <... close resumed>) = 0\n1 read(3, <unfinished ...>\n" +
			"1 read(3, <unfinished ...>\n1 <... read resumed>\"x\", 1) = 1\n2 +++ exited with 0 +++\n" +
			"3 openat(AT_FDCWD, \"/e\", O_RDONLY <unfinished ...>\n3 <... close resumed>) = 0\n",
		// Under Strict the read stops at the malformed line, with the
		// call still in flight.
		"malformed between halves": "24923 vfork( <unfinished ...>\n1 0\n24923 <... vfork resumed>) = 5\n",
		"resumed without start":    "1 <... openat resumed>) = 3\n1 close(3) = 0\n",
		"malformed":                "1 openat(\n1 ???\n1 close(3) = 0\n1 +++ exited with 0 +++\n",
		"failed": "1 openat(AT_FDCWD, \"/x\", O_RDONLY) = -1 ENOENT (No such file or directory)\n" +
			"2 openat(AT_FDCWD, \"/y\", O_RDONLY <unfinished ...>\n1 stat(\"/z\", 0x7f) = -1 ENOTDIR (Not a directory)\n" +
			"2 <... openat resumed>) = -1 ENOENT (No such file or directory)\n",
	}
	for name, text := range cases {
		data := []byte(strings.Repeat(text, 3))
		checkSameAsSerial(t, name, data, scanShape{2, 1, false}, scanShape{2, 16, false}, scanShape{3, 100, false},
			scanShape{2, 4096, false}, scanShape{0, 0, true}, scanShape{2, 16, true})
	}
}

// TestParallelScanStops: a Reader closed before its end stops its scan's
// goroutines (Close waits for them), and a strict error ends the read.
func TestParallelScanStops(t *testing.T) {
	data := syntheticTrace(1 << 20)
	r := NewReader(bytes.NewReader(data), Options{})
	r.scanWorkers, r.chunkSize = 2, 1<<10
	for range 100 {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if r.scan == nil {
		t.Fatal("the read did not scan in parallel")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next after Close: %v, want EOF", err)
	}
	if r.Bytes() <= 0 || r.Bytes() >= int64(len(data)) {
		t.Fatalf("Bytes after an early Close: %d of %d", r.Bytes(), len(data))
	}

	bad := append(append([]byte{}, data[:4096]...), "\n1 openat(\n"...)
	bad = append(bad, data...)
	r = NewReader(bytes.NewReader(bad), Options{Strict: true})
	r.scanWorkers, r.chunkSize = 2, 256
	var err error
	for err == nil {
		_, err = r.Next()
	}
	if !strings.Contains(err.Error(), "malformed") || r.Close() != nil {
		t.Fatalf("strict read: %v", err)
	}
}

// TestParallelScanOverlongLines: lines longer than maxLineSize (cut and
// counted as malformed, the rest skipped), next to a call cut by "strace:
// Process N attached", read the same in parallel, in any chunks.
func TestParallelScanOverlongLines(t *testing.T) {
	saved := maxLineSize
	maxLineSize = 2 << 20
	defer func() { maxLineSize = saved }()
	long := `1 write(1, "` + strings.Repeat("x", 5<<20) + `", 5242880) = 5242880`
	text := "[pid 1] close(3) = 0\n" + long + "\n[pid 2] clone(child_stack=NULL, flags=SIGCHLDstrace: Process 6 attached\n" +
		long + "\n" + ", child_tidptr=0x7f) = 6\n[pid 1] close(4) = 0\n" + long
	checkSameAsSerial(t, "over-long lines", []byte(text), scanShape{2, 1, false}, scanShape{3, 100, false}, scanShape{2, 4 << 20, false},
		scanShape{0, 0, true}, scanShape{2, 100, true})
	checkSameAsSerial(t, "over-long lines, final newline", []byte(text+"\n"), scanShape{2, 100, false}, scanShape{0, 0, true}, scanShape{2, 100, true})
	if _, r := events(t, text, Options{}); r.Bytes() != int64(len(text)) {
		t.Errorf("read %d bytes of %d", r.Bytes(), len(text))
	}
	_, r := events(t, text, Options{})
	if r.Malformed() != 3 || r.Lines() != 7 {
		t.Fatalf("malformed %d lines %d, want 3 and 7", r.Malformed(), r.Lines())
	}
}

// TestParallelScanDroppedReader: a Reader dropped in the middle of a trace,
// without Close, does not leave its scanning goroutines behind.
func TestParallelScanDroppedReader(t *testing.T) {
	data := syntheticTrace(4 << 20)
	func() {
		r := NewReader(bytes.NewReader(data), Options{})
		r.scanWorkers, r.chunkSize = 2, 1<<10
		for range 10 {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if r.scan == nil {
			t.Fatal("the read did not scan in parallel")
		}
		if n := scanGoroutines(); n < 3 {
			t.Fatalf("%d scanning goroutines while scanning, want the chunker and 2 workers", n)
		}
	}()
	// Counted by their functions, not in all: goroutines that other
	// tests left to the collector may end at any time.
	deadline := time.Now().Add(10 * time.Second)
	for scanGoroutines() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d scanning goroutines left", scanGoroutines())
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// scanGoroutines counts the goroutines of parallel scans (chunkers and
// workers) in the process.
func scanGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "strace.(*parallelScan).chunker") || strings.Contains(g, "strace.(*parallelScan).worker") {
			n++
		}
	}
	return n
}

// TestMappedDropsPages: a mapped trace gives back the pages its scan has
// left behind, so that its resident memory stays bounded, and reads the
// same with pages given back as it goes (even those of chunks still in
// flight: they are read again).
func TestMappedDropsPages(t *testing.T) {
	savedKept, savedBatch := keptBehind, dropBatch
	keptBehind, dropBatch = 0, 4096
	defer func() { keptBehind, dropBatch = savedKept, savedBatch }()
	data := syntheticTrace(32 << 20)
	checkSameAsSerial(t, "synthetic, pages given back", data, scanShape{0, 0, true}, scanShape{2, 4096, true})

	// What is kept behind must cover the chunks in flight (2 workers × 8
	// chunks of up to 64 KiB here) and the reader's lag behind them, as
	// the default's 8 MiB does: pages given back before a worker reads
	// them are read again and never given back.
	keptBehind, dropBatch = 4<<20, 1<<20
	for _, shape := range []scanShape{{0, 0, true}, {2, 64 << 10, true}} {
		r, _ := newShapedReader(data, readerCases[0], shape)
		var most int64
		for events := 0; ; events++ {
			if _, err := r.Next(); err != nil {
				break
			}
			if events%5000 == 0 {
				most = max(most, mappedRss(t))
			}
		}
		r.Close()
		// What is kept behind, a batch not given back yet, the chunks in
		// flight, and the kernel's mapping granules at both ends (it maps
		// a file's large folios whole: up to 2 MiB each).
		if bound := int64(keptBehind + dropBatch + 8<<20); most <= 0 || most > bound {
			t.Errorf("%v: the mapping of a %d MB trace held up to %d KB", shape, len(data)>>20, most>>10)
		}
	}
}

// mappedRss is the resident memory of the mapped trace files (deleted
// temporary files: see openTemp) in /proc/self/smaps.
func mappedRss(t *testing.T) int64 {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		if fields := strings.Fields(line); len(fields) >= 5 && strings.Contains(fields[0], "-") {
			in = strings.Contains(line, "/trace-") && strings.HasSuffix(line, "(deleted)")
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb)
			total += kb << 10
		}
	}
	return total
}

// TestMappedFileCutShort: a mapped trace file cut short while it is read
// (its pages past the new end fault) ends the read with an error, serial
// or parallel, instead of ending the process.
func TestMappedFileCutShort(t *testing.T) {
	data := syntheticTrace(8 << 20)
	for _, workers := range []int{0, 2} {
		path := filepath.Join(t.TempDir(), "trace.log")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r.scanWorkers = workers
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, int64(len(data)/2)); err != nil {
			t.Fatal(err)
		}
		for err == nil {
			_, err = r.Next()
		}
		if !errors.Is(err, errFileChanged) {
			t.Errorf("%d workers: the read ended with %v, want %v", workers, err, errFileChanged)
		}
		if _, again := r.Next(); again != err {
			t.Errorf("%d workers: then %v", workers, again)
		}
		if err := r.Close(); err != nil {
			t.Errorf("%d workers: close: %v", workers, err)
		}
	}
}
