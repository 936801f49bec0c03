package corpusrun

import (
	"context"
	"testing"
)

func TestDockerBackendWithoutEngine(t *testing.T) {
	b := &DockerBackend{}
	if _, err := b.Traced(context.Background(), 0, runnerOptionsForTest()); err != ErrNoEngine {
		t.Errorf("Traced without engines: %v, want ErrNoEngine", err)
	}
}
