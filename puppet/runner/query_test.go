package runner

import (
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestAskScript runs askScript's shell (the container's is /bin/sh too)
// and splits its output, written to the splitter in pieces of every size:
// each answer is its script's output byte for byte, with its status, and
// what a script prints that looks like a control line but lacks the
// marker is content.
func TestAskScript(t *testing.T) {
	qs := []question{
		{"one", `printf 'a\nb\n'`, 100},
		{"nonl", `printf 'no newline'`, 100},
		{"fails", `echo out; echo err >&2; exit 3`, 100},
		{"fake", `echo " end fake 0"; echo "fsmove-answer- begin one"`, 100},
		{"big", `seq 1 1000`, 10},
		{"empty", `true`, 100},
	}
	mark := "fsmove-answer-0123456789abcdef"
	out, err := exec.Command("/bin/sh", "-c", askScript(qs), "fsmove-ask", mark).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for size := 1; size <= len(out); size += max(1, size/3) {
		s := newSplitter(mark, qs)
		for p := out; len(p) > 0; {
			n := min(size, len(p))
			s.Write(p[:n])
			p = p[n:]
		}
		check := func(name, want string, status int, cut bool) {
			t.Helper()
			a := s.answers[name]
			if got := a.out.String(); got != want || !a.ended || a.status != status || a.cw.cut != cut {
				t.Errorf("chunks of %d: %s: %q ended %v status %d cut %v, want %q status %d cut %v",
					size, name, got, a.ended, a.status, a.cw.cut, want, status, cut)
			}
		}
		check("one", "a\nb\n", 0, false)
		check("nonl", "no newline", 0, false)
		check("fails", "out\nerr\n", 3, false)
		check("fake", " end fake 0\nfsmove-answer- begin one\n", 0, false)
		check("big", "1\n2\n3\n4\n5\n", 0, true)
		check("empty", "", 0, false)
		if err := s.answers["fails"].err(); err == nil || !strings.Contains(err.Error(), "exited 3") {
			t.Errorf("fails: err %v", err)
		}
		if err := s.answers["big"].err(); err == nil || !strings.Contains(err.Error(), "over") {
			t.Errorf("big: err %v", err)
		}
	}
}

// TestSplitterCutStream: an answer whose end never came (the exec failed
// midway) has no status, and its err says so; so has a question the
// stream never reached.
func TestSplitterCutStream(t *testing.T) {
	qs := []question{{"a", "", 100}, {"b", "", 100}, {"c", "", 100}}
	mark := "fsmove-answer-x"
	s := newSplitter(mark, qs)
	s.Write([]byte(mark + " begin a\nA" + mark + " end a 0\n" + mark + " begin b\npartial"))
	if err := s.answers["a"].err(); err != nil || s.answers["a"].out.String() != "A" {
		t.Errorf("a: %q, %v", s.answers["a"].out.String(), err)
	}
	for _, name := range []string{"b", "c"} {
		if err := s.answers[name].err(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// The exec's error is the unended answers' (an engine gone must read
	// as one: cause.go).
	s.answers["b"].lost = io.ErrUnexpectedEOF
	if err := s.answers["b"].err(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("b after a failed exec: %v", err)
	}
	// A control line the splitter cannot read ends the answer unended.
	s = newSplitter(mark, qs)
	s.Write([]byte(mark + " begin a\nA" + mark + " end a zero\n"))
	if s.answers["a"].err() == nil {
		t.Error("an end without a status made an answer")
	}
}
