package tracer

import (
	"errors"
	"io"
)

// Sink receives events one by one and is flushed at the end: strace.Writer,
// which prints the strace text form every capture is saved in.
type Sink interface {
	Write(ev *Event) error
	Flush() error
}

// Drain writes every event of src to dst until src ends, then flushes dst.
// It is the one loop that saves a live capture (fsmove trace, fsmove ebpf,
// fsmove run's host eBPF trace).
//
// A write error does not stop the reading: a tracer whose events are not
// read blocks, or loses events, while its command runs on; the remaining
// events are read and dropped. Drain returns the number of events read and
// the first error: a write error, else the error that ended src (io.EOF is
// the normal end, not an error), else the flush error. The caller decides
// what an error of src means (the eBPF tracer ends with ErrDropped when it
// lost events, which Stop reports again).
func Drain(src Source, dst Sink) (events int64, err error) {
	var writeErr, readErr error
	for {
		ev, err := src.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		events++
		if writeErr == nil {
			writeErr = dst.Write(ev)
		}
	}
	flushErr := dst.Flush()
	switch {
	case writeErr != nil:
		return events, writeErr
	case readErr != nil:
		return events, readErr
	}
	return events, flushErr
}
