package strace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// maxQuotedLine bounds the bytes ReadLines keeps of one line: evidence is
// shown to a person, and a writev line can be megabytes.
const maxQuotedLine = 4096

// ReadLines returns the lines of the trace file path (plain, gzip or zstd)
// whose numbers are in wanted, counting from 1 as Event.Line does for a
// file. It reads the file once, as a stream, and stops after the last
// wanted line, so that a trace of gigabytes costs no memory: only the
// wanted lines are kept, each cut at maxQuotedLine bytes ("…" marks a cut).
// A number past the end is missing from the result. A directory of
// strace -ff files is refused: its line numbers count a merged order.
func ReadLines(path string, wanted []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(wanted) == 0 {
		return out, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%s: a directory of per-process traces; its line numbers are not a file's", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	text, release, err := decompress(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer release()
	want := slices.Clone(wanted)
	slices.Sort(want)
	want = slices.Compact(want)
	last := want[len(want)-1]
	br := bufio.NewReaderSize(text, 64<<10)
	var no int64
	var line []byte
	for no < last {
		no++
		line = line[:0]
		keep := want[0] == no // want holds last, so it is not empty here
		cut := false
		for {
			chunk, err := br.ReadSlice('\n')
			if keep && !cut {
				room := maxQuotedLine - len(line)
				if len(chunk) > room {
					line = append(line, chunk[:room]...)
					cut = true
				} else {
					line = append(line, chunk...)
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return out, fmt.Errorf("%s: %w", path, err)
			}
			if keep {
				s := string(trimCR(trimNL(line)))
				if cut {
					s += "…"
				}
				if len(chunk) > 0 || len(line) > 0 {
					out[no] = s
				}
				want = want[1:]
			}
			if err != nil { // io.EOF: the end of the trace
				return out, nil
			}
			break
		}
	}
	return out, nil
}

// trimNL drops a final newline.
func trimNL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}
