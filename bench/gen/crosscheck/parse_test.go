// Package crosscheck tests package gen's output with the rest of fsmove:
// the real strace parser reads the trace without a malformed line, and the
// real catalog package orders the conflicts as gen.Conflicts says. It lives
// apart from package gen so that gen's own tests do not depend on packages
// other engineers are changing.
package crosscheck

import (
	"bytes"
	"io"
	"testing"

	"github.com/fsmove/fsmove/bench/gen"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/puppet"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/strace"
)

func TestParseGenerated(t *testing.T) {
	p := gen.Params{Size: 10 << 20, Blocks: 150, Processes: 500, Seed: 3}
	var buf bytes.Buffer
	if err := gen.Generate(&buf, p); err != nil {
		t.Fatal(err)
	}
	lines := int64(bytes.Count(buf.Bytes(), []byte{'\n'}))
	r := strace.NewReader(bytes.NewReader(buf.Bytes()), strace.Options{Failed: tracer.FailedAll})
	var events, exits, begins, ends int64
	var marker puppet.Marker
	pids := map[int]bool{}
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		events++
		pids[ev.Pid] = true
		if ev.Kind == tracer.KindExit {
			exits++
		}
		if ev.Syscall == "writev" && ev.Arg(0).Int == 1 {
			switch op, _ := lastMark(marker, ev.Arg(1).Str); op {
			case fstrace.OpBegin:
				begins++
			case fstrace.OpEnd:
				ends++
			}
		}
	}
	if n := r.Malformed(); n != 0 {
		t.Errorf("%d malformed lines", n)
	}
	if n := r.WarningCount(); n != 0 {
		for _, w := range r.Warnings() {
			t.Errorf("line %d: %s: %q", w.Line, w.Message, w.Text)
		}
		t.Errorf("%d warnings", n)
	}
	if r.Lines() != lines {
		t.Errorf("parser read %d lines, the trace has %d", r.Lines(), lines)
	}
	if events < lines*9/10 {
		t.Errorf("%d events from %d lines", events, lines)
	}
	if len(pids) < p.Processes || exits == 0 {
		t.Errorf("%d pids, %d exits", len(pids), exits)
	}
	// Every resource block, and the whits, begin and end.
	if begins != ends || begins < int64(p.Blocks) {
		t.Errorf("%d begins and %d ends for %d resources", begins, ends, p.Blocks)
	}
}

// lastMark is the last marker of a write (the block open after it), or OpNop.
func lastMark(m puppet.Marker, data string) (fstrace.Op, string) {
	op, name := fstrace.OpNop, ""
	for data != "" {
		o, n, _, rest := m.NextMark(data)
		if o == fstrace.OpNop {
			break
		}
		if o != fstrace.OpFail { // a failure report opens and closes nothing
			op, name = o, n
		}
		data = rest
	}
	return op, name
}
