package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/fsmove/fsmove/puppet/container"
	"golang.org/x/sys/unix"
)

// A failure whose cause is outside the run (the Docker engine went away,
// the disk that receives the run is full) is said once, by that cause, in
// one line; what merely follows from it (an artifact that could not be
// copied, a query that could not run) is not said again.

// causeError is a run's error said by its cause; run.json's error_chain
// keeps what the failing call saw.
type causeError struct {
	line string
	err  error
}

func (e *causeError) Error() string { return e.line }
func (e *causeError) Unwrap() error { return e.err }

// underlying is err without the layers that say its cause: what the call
// that failed saw.
func underlying(err error) error {
	for {
		var said *causeError
		var gone *container.EngineGoneError
		switch {
		case errors.As(err, &said):
			err = said.err
		case errors.As(err, &gone):
			err = gone.Err
		default:
			return err
		}
	}
}

// byCause is err said by its cause when that is outside the run (an
// *container.EngineGoneError, or a *causeError for a full disk), or nil.
func (r *run) byCause(err error) error {
	var said *causeError
	if errors.As(err, &said) {
		return said
	}
	if gone := r.gone(err); gone != nil {
		return gone
	}
	if errors.Is(err, syscall.ENOSPC) {
		return &causeError{line: diskFull(r.opts.OutDir), err: err}
	}
	return nil
}

// gone is err as an *container.EngineGoneError when the engine's
// connection is its cause (container.Engine.Gone).
func (r *run) gone(err error) *container.EngineGoneError {
	if r.eng == nil {
		return nil
	}
	return r.eng.Gone(err)
}

// followsFailure says whether err only follows from a failure whose cause
// is said (cause): a warning about it would blame the wrong thing. A
// context that ended is one: the run's ends by an interrupt, --timeout or
// the disk budget, which the run says, and the copy's also by its own
// deadline, which the copy step's failure says (copyOut).
func followsFailure(err error) bool {
	return container.EngineGone(err) || errors.Is(err, syscall.ENOSPC) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// followsMark ends a warning that --debug prints though it only follows
// from the failure said by its cause.
const followsMark = "[debug: follows from the failure]"

// warnf prints a warning about err on the run's log, unless err follows
// from a failure said by its cause; with Options.Debug it prints that one
// too, saying so.
func (r *run) warnf(err error, format string, a ...any) {
	if followsFailure(err) {
		if r.opts.Debug {
			msg := strings.TrimSuffix(fmt.Sprintf(format, a...), "\n")
			fmt.Fprintf(r.opts.Log, "%s %s\n", msg, followsMark)
		}
		return
	}
	fmt.Fprintf(r.opts.Log, format, a...)
}

// diskFull says that the disk holding dir is full, and how much is free.
func diskFull(dir string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fmt.Sprintf("the disk holding %s is full", dir)
	}
	return fmt.Sprintf("the disk holding %s is full (%s free)", dir, container.FormatBytes(int64(st.Bavail)*st.Bsize))
}
