package strace

import (
	"io"
	"strings"
	"testing"
)

// drain reads every event of text and returns the reader.
func drain(t *testing.T, text string) *Reader {
	t.Helper()
	r := NewReader(strings.NewReader(text), Options{})
	for {
		_, err := r.Next()
		if err == io.EOF {
			return r
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestEndsMidLine: a trace whose last line has no newline was cut.
func TestEndsMidLine(t *testing.T) {
	whole := "1 close(3) = 0\n1 close(4) = 0\n"
	if drain(t, whole).EndsMidLine() {
		t.Error("a whole trace ends mid-line")
	}
	if !drain(t, whole[:len(whole)-4]).EndsMidLine() {
		t.Error("a cut trace does not end mid-line")
	}
	r := drain(t, whole[:len(whole)-1])
	r.Close()
	if !r.EndsMidLine() {
		t.Error("EndsMidLine forgotten by Close")
	}
}

// TestUnfinishedAndDetached: a call left "<unfinished ...>" at the end is
// counted; one that strace printed "<detached ...>" is neither an event nor
// a malformed line.
func TestUnfinishedAndDetached(t *testing.T) {
	r := drain(t, "1 openat(AT_FDCWD, \"/x\", O_RDONLY <unfinished ...>\n"+
		"2 openat(AT_FDCWD, \"/y\", O_RDONLY <detached ...>\n")
	if r.Unfinished() != 1 {
		t.Errorf("unfinished %d, want 1", r.Unfinished())
	}
	if r.Malformed() != 0 {
		t.Errorf("malformed %d, want 0: %+v", r.Malformed(), r.Warnings())
	}
	r = drain(t, "1 openat(AT_FDCWD, \"/x\", O_RDONLY <unfinished ...>\n1 <... openat resumed>) = 3\n")
	if r.Unfinished() != 0 {
		t.Errorf("unfinished %d after the resumed half, want 0", r.Unfinished())
	}
}

// TestCutBufferMarksArray: a writev buffer cut by strace -s marks the
// array argument as truncated, as a cut string argument is.
func TestCutBufferMarksArray(t *testing.T) {
	r := NewReader(strings.NewReader(
		"1 writev(1, [{iov_base=\"Info: /Stage[main]/Main/F\"..., iov_len=80}, {iov_base=\"\\n\", iov_len=1}], 2) = 81\n"+
			"1 writev(1, [{iov_base=\"whole\", iov_len=5}], 1) = 5\n"), Options{})
	ev, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if a := ev.Arg(1); !a.Truncated {
		t.Errorf("cut buffer: %+v not truncated", a)
	}
	ev, err = r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if a := ev.Arg(1); a.Truncated {
		t.Errorf("whole buffer: %+v truncated", a)
	}
}
