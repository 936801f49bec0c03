package tracer

import (
	"errors"
	"io"
	"testing"
)

// fakeSource returns its events, then end (io.EOF when nil).
type fakeSource struct {
	events []Event
	end    error
	read   int
}

func (s *fakeSource) Next() (*Event, error) {
	if s.read == len(s.events) {
		if s.end == nil {
			return nil, io.EOF
		}
		return nil, s.end
	}
	s.read++
	return &s.events[s.read-1], nil
}

// fakeSink records the pids it was given; failAt > 0 makes that write (1-based) fail.
type fakeSink struct {
	pids     []int
	failAt   int
	flushErr error
	flushed  int
}

func (s *fakeSink) Write(ev *Event) error {
	if s.failAt > 0 && len(s.pids)+1 == s.failAt {
		return errors.New("disk full")
	}
	s.pids = append(s.pids, ev.Pid)
	return nil
}

func (s *fakeSink) Flush() error { s.flushed++; return s.flushErr }

func events(n int) []Event {
	evs := make([]Event, n)
	for i := range evs {
		evs[i] = Event{Pid: 100 + i, Syscall: "close"}
	}
	return evs
}

func TestDrain(t *testing.T) {
	readErr := errors.New("ring buffer lost 3 events")
	flushErr := errors.New("flush failed")
	tests := []struct {
		name       string
		src        *fakeSource
		sink       *fakeSink
		wantEvents int64
		wantPids   int
		wantErr    string
	}{
		{"all written", &fakeSource{events: events(3)}, &fakeSink{}, 3, 3, ""},
		{"empty", &fakeSource{}, &fakeSink{}, 0, 0, ""},
		// The source is read to its end after a failed write, so the
		// tracer is not left blocked; the write error is the one returned.
		{"write error", &fakeSource{events: events(5), end: readErr}, &fakeSink{failAt: 2}, 5, 1, "disk full"},
		{"read error", &fakeSource{events: events(2), end: readErr}, &fakeSink{flushErr: flushErr}, 2, 2, readErr.Error()},
		{"flush error", &fakeSource{events: events(2)}, &fakeSink{flushErr: flushErr}, 2, 2, flushErr.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Drain(tt.src, tt.sink)
			if n != tt.wantEvents {
				t.Errorf("events = %d, want %d", n, tt.wantEvents)
			}
			if tt.src.read != len(tt.src.events) {
				t.Errorf("read %d of %d events", tt.src.read, len(tt.src.events))
			}
			if len(tt.sink.pids) != tt.wantPids {
				t.Errorf("wrote %v, want %d events", tt.sink.pids, tt.wantPids)
			}
			for i, pid := range tt.sink.pids {
				if pid != 100+i {
					t.Errorf("event %d has pid %d, want %d (order kept)", i, pid, 100+i)
				}
			}
			if tt.sink.flushed != 1 {
				t.Errorf("flushed %d times, want 1", tt.sink.flushed)
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("err = %q, want %q", got, tt.wantErr)
			}
		})
	}
}
