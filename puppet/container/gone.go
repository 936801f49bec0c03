package container

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"syscall"
	"time"

	"github.com/docker/docker/client"
)

// EngineGoneError is a failure whose cause is that the Docker engine's
// connection failed (the engine stopped or restarted, its socket was
// closed): said as that, in one line, whatever call it broke.
type EngineGoneError struct {
	Host string
	// Answering: the engine answered again right after (the connection
	// was cut, the engine was not stopped).
	Answering bool
	Err       error
}

func (e *EngineGoneError) Error() string {
	if e.Answering {
		return fmt.Sprintf("the connection to the Docker engine at %s was cut", e.Host)
	}
	return fmt.Sprintf("the Docker engine at %s went away", e.Host)
}

func (e *EngineGoneError) Unwrap() error { return e.Err }

// EngineGone says whether err (a chain) comes from the engine's connection
// failing, rather than from what the engine answered.
func EngineGone(err error) bool {
	if err == nil {
		return false
	}
	if client.IsErrConnectionFailed(err) {
		return true
	}
	for _, errno := range []syscall.Errno{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE} {
		if errors.Is(err, errno) {
			return true
		}
	}
	// The engine closed the connection in the middle of an answer.
	var ue *url.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ue) && errors.Is(ue.Err, io.EOF)
}

// Gone makes err an *EngineGoneError when its cause is the engine's
// connection (EngineGone), after asking the engine whether it answers
// again; nil otherwise.
func (e *Engine) Gone(err error) *EngineGoneError {
	var gone *EngineGoneError
	if errors.As(err, &gone) {
		return gone
	}
	if !EngineGone(err) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, perr := e.cli.Ping(ctx)
	return &EngineGoneError{Host: e.cli.DaemonHost(), Answering: perr == nil, Err: err}
}
