package strace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestReadLines: the wanted lines of a plain and a zstd trace, by number,
// a long line cut, a number past the end missing, a directory refused.
func TestReadLines(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 3*maxQuotedLine)
	text := "1 a\n2 b\r\n3 " + long + "\n4 d\n5 e"
	plain := filepath.Join(dir, "trace.log")
	if err := os.WriteFile(plain, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	enc, _ := zstd.NewWriter(&z)
	enc.Write([]byte(text))
	enc.Close()
	packed := filepath.Join(dir, "trace.log.zst")
	if err := os.WriteFile(packed, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{plain, packed} {
		got, err := ReadLines(path, []int64{5, 2, 3, 2, 9})
		if err != nil {
			t.Fatal(err)
		}
		if got[2] != "2 b" || got[5] != "5 e" {
			t.Errorf("%s: lines 2 and 5 are %q and %q", path, got[2], got[5])
		}
		if l := got[3]; !strings.HasPrefix(l, "3 xxx") || !strings.HasSuffix(l, "…") || len(l) > maxQuotedLine+len("…") {
			t.Errorf("%s: the long line is %d bytes, not cut", path, len(l))
		}
		if _, ok := got[1]; ok {
			t.Errorf("%s: line 1 was not wanted", path)
		}
		if _, ok := got[9]; ok {
			t.Errorf("%s: line 9 is past the end", path)
		}
	}
	if _, err := ReadLines(dir, []int64{1}); err == nil {
		t.Error("a directory was read")
	}
}

// BenchmarkReadLines reads a few lines near the end of a 64 MB trace, as
// the HTML report does for its evidence: the cost is the pass to them.
func BenchmarkReadLines(b *testing.B) {
	path := filepath.Join(b.TempDir(), "trace.log")
	line := `16    readlink("/usr/lib/ruby/vendor_ruby/facter/resolvers/uptime.rb", 0x7ffdc039fc90, 1023) = -1 EINVAL (Invalid argument)` + "\n"
	n := (64 << 20) / len(line)
	if err := os.WriteFile(path, bytes.Repeat([]byte(line), n), 0o644); err != nil {
		b.Fatal(err)
	}
	wanted := []int64{int64(n) / 2, int64(n) - 10, int64(n) - 9, int64(n) - 8}
	b.SetBytes(int64(n * len(line)))
	for b.Loop() {
		got, err := ReadLines(path, wanted)
		if err != nil || len(got) != len(wanted) {
			b.Fatalf("%d lines, %v", len(got), err)
		}
	}
}
