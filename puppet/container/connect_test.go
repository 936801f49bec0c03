package container

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestConnectHostUsesTheGivenHost: the host given wins over DOCKER_HOST, and
// "" falls back to it; an unreachable engine is ErrUnreachable naming it.
func TestConnectHostUsesTheGivenHost(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/env.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := ConnectHost(ctx, "unix:///nonexistent/given.sock")
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "given.sock") {
		t.Errorf("ConnectHost(given): %v, want ErrUnreachable naming given.sock", err)
	}
	_, err = ConnectHost(ctx, "")
	if err == nil || !strings.Contains(err.Error(), "env.sock") {
		t.Errorf("ConnectHost(\"\"): %v, want an error naming DOCKER_HOST's env.sock", err)
	}
}
