package runner

// Questions to the node: the short scripts whose answers a run keeps (what
// dpkg and systemd know after the apply, the image's links and accounts
// before it) are asked in one exec of the container, not one each. An exec
// costs the engine, containerd and runc about 0.17 s of CPU whatever it
// runs (measured here with 20 "docker exec true"), and a run asked eleven
// of them; the scripts themselves take a few hundredths of a second but
// systemctl's.
//
// The answers come back on one stream, each between a begin and an end
// line that start with a marker drawn at random for the exec. The scripts
// are the node's programs, which a module may have replaced: what they say
// is a hint to the analysis and is bounded (each answer has its budget),
// never trusted further than that.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/puppet/container"
)

// A question is a script run in the container, named, with the most of
// its output (stdout and stderr) the run keeps.
type question struct {
	name   string
	script string
	budget int64
}

// An answer is what one question's script printed and how it exited.
type answer struct {
	out    bytes.Buffer
	cw     capWriter
	budget int64
	status int   // the script's exit status
	ended  bool  // its end line was seen (status is known)
	lost   error // the exec's error, when it failed before the end
}

// err says why the answer is not whole: the script did not end (the exec
// failed or was cut), exited non-zero, or printed more than its budget.
func (a *answer) err() error {
	switch {
	case a == nil:
		return errors.New("no answer")
	case !a.ended && a.lost != nil:
		return fmt.Errorf("no answer: %w", a.lost)
	case !a.ended:
		return errors.New("no answer")
	case a.status != 0:
		return fmt.Errorf("the query exited %d", a.status)
	case a.cw.cut:
		return fmt.Errorf("over %s", container.FormatBytes(a.budget))
	}
	return nil
}

// ask runs the questions in one exec, in their order, and returns their
// answers by name. An exec that fails leaves the answers it did not reach
// without their end: answer.err says so with the exec's error (an engine
// gone is then a failure that follows another: cause.go).
func (r *run) ask(ctx context.Context, qs ...question) map[string]*answer {
	var b [16]byte
	rand.Read(b[:])
	s := newSplitter("fsmove-answer-"+hex.EncodeToString(b[:]), qs)
	_, err := r.c.Exec(ctx, []string{"/bin/sh", "-c", askScript(qs), "fsmove-ask", s.mark}, []string{"LANG=C.UTF-8"}, s)
	if err != nil {
		for _, a := range s.answers {
			a.lost = err
		}
	}
	return s.answers
}

// askScript runs each question's script in a subshell between its begin
// and end lines; the marker is the script's $1.
func askScript(qs []question) string {
	var sb strings.Builder
	for _, q := range qs {
		fmt.Fprintf(&sb, "printf '%%s begin %s\\n' \"$1\"\n(\n%s\n)\nprintf '%%s end %s %%d\\n' \"$1\" \"$?\"\n", q.name, q.script, q.name)
	}
	return sb.String()
}

// splitter is the writer of ask's exec: it finds the marker's lines in the
// stream and writes what is between a begin and its end to that answer,
// within the question's budget. What is outside every answer is dropped.
type splitter struct {
	mark    string
	answers map[string]*answer
	cur     *answer
	pending []byte // bytes not yet known to hold no marker
}

func newSplitter(mark string, qs []question) *splitter {
	s := &splitter{mark: mark, answers: map[string]*answer{}}
	for _, q := range qs {
		a := &answer{budget: q.budget, status: -1}
		a.cw = capWriter{w: &a.out, left: q.budget}
		s.answers[q.name] = a
	}
	return s
}

// maxControl bounds a control line after the marker (" end NAME STATUS").
const maxControl = 256

func (s *splitter) Write(p []byte) (int, error) {
	s.pending = append(s.pending, p...)
	for {
		i := bytes.Index(s.pending, []byte(s.mark))
		if i < 0 {
			// Keep what could be the start of a marker.
			keep := min(len(s.pending), len(s.mark)-1)
			s.emit(s.pending[:len(s.pending)-keep])
			s.pending = append(s.pending[:0], s.pending[len(s.pending)-keep:]...)
			return len(p), nil
		}
		s.emit(s.pending[:i])
		rest := s.pending[i+len(s.mark):]
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 && len(rest) <= maxControl {
			s.pending = append(s.pending[:0], s.pending[i:]...)
			return len(p), nil
		}
		if nl < 0 {
			nl = maxControl
		}
		s.control(string(rest[:nl]))
		s.pending = append(s.pending[:0], rest[min(nl+1, len(rest)):]...)
	}
}

// emit writes content to the current answer, if any.
func (s *splitter) emit(b []byte) {
	if s.cur != nil && len(b) > 0 {
		s.cur.cw.Write(b)
	}
}

// control reads a line after the marker: " begin NAME" or " end NAME
// STATUS". Anything else ends the current answer unended.
func (s *splitter) control(line string) {
	f := strings.Fields(line)
	switch {
	case len(f) == 2 && f[0] == "begin":
		s.cur = s.answers[f[1]]
	case len(f) == 3 && f[0] == "end" && s.cur != nil && s.answers[f[1]] == s.cur:
		if n, err := strconv.Atoi(f[2]); err == nil {
			s.cur.status, s.cur.ended = n, true
		}
		s.cur = nil
	default:
		s.cur = nil
	}
}
