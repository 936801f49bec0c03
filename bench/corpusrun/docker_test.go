package corpusrun

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// ConnectHost reaches the engine it is given, not DOCKER_HOST's, and puts
// DOCKER_HOST back.
func TestConnectHostRestoresEnvironment(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/original.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := ConnectHost(ctx, "unix:///nonexistent/other.sock")
	if err == nil || !strings.Contains(err.Error(), "other.sock") {
		t.Errorf("ConnectHost to a missing socket: %v, want an error naming it", err)
	}
	if got := os.Getenv("DOCKER_HOST"); got != "unix:///nonexistent/original.sock" {
		t.Errorf("DOCKER_HOST = %q after ConnectHost, want the original back", got)
	}
}

func TestDockerBackendWithoutEngine(t *testing.T) {
	b := &DockerBackend{}
	if _, err := b.Traced(context.Background(), 0, runnerOptionsForTest()); err != ErrNoEngine {
		t.Errorf("Traced without engines: %v, want ErrNoEngine", err)
	}
}
