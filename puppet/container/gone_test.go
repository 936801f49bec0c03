package container

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
)

func TestEngineGone(t *testing.T) {
	opErr := func(errno syscall.Errno) error {
		return &net.OpError{Op: "read", Net: "unix", Err: os.NewSyscallError("read", errno)}
	}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection reset, wrapped", fmt.Errorf("exec sh -c (a script): read output: %w", opErr(syscall.ECONNRESET)), true},
		{"refused", &url.Error{Op: "Post", URL: "/v1.41/containers/x/json", Err: opErr(syscall.ECONNREFUSED)}, true},
		{"broken pipe", fmt.Errorf("copy: %w", opErr(syscall.EPIPE)), true},
		{"answer cut short", &url.Error{Op: "Get", URL: "/v1.41/containers/x/json", Err: io.EOF}, true},
		{"unexpected EOF", fmt.Errorf("copy out: %w", io.ErrUnexpectedEOF), true},
		{"a stream's normal end", io.EOF, false},
		{"the engine's answer", errors.New("Error response from daemon: No such container: x"), false},
		{"disk full", fmt.Errorf("write: %w", syscall.ENOSPC), false},
		{"nil", nil, false},
	} {
		if got := EngineGone(c.err); got != c.want {
			t.Errorf("%s: EngineGone = %v, want %v", c.name, got, c.want)
		}
	}
}
