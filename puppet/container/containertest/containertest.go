// Package containertest gives end-to-end tests a real Docker Engine: one
// rule for every package's Docker tests.
package containertest

import (
	"context"
	"sync"
	"testing"

	"github.com/fsmove/fsmove/internal/testenv"
	"github.com/fsmove/fsmove/puppet/container"
)

// inFlight counts the tests of this process that hold an Engine and have
// not ended. Containers are labelled with the process, not the test, so
// while parallel tests run each other's containers are not leftovers: the
// check for containers left behind is made by the last test to end.
var inFlight struct {
	sync.Mutex
	n int
}

// Engine connects to Docker and makes sure fsmove's image exists. It skips
// the test in -short mode or when Docker is unreachable, unless
// testenv.Required. When the last test of the process that holds an Engine
// ends, it checks that no container of this process's is left.
func Engine(t testing.TB) *container.Engine {
	t.Helper()
	if testing.Short() && !testenv.Required() {
		t.Skip("e2e test skipped in -short mode")
	}
	ctx := context.Background()
	eng, err := container.Connect(ctx)
	if err != nil {
		testenv.Missing(t, "Docker is unreachable: %v", err)
	}
	inFlight.Lock()
	inFlight.n++
	inFlight.Unlock()
	t.Cleanup(func() {
		defer eng.Close()
		inFlight.Lock()
		defer inFlight.Unlock()
		if inFlight.n--; inFlight.n > 0 {
			return
		}
		left, err := eng.Labelled(context.Background(), true)
		if err != nil {
			t.Errorf("list containers: %v", err)
		} else if len(left) > 0 {
			t.Errorf("containers labelled %s=%s left behind: %v", container.LabelKey, container.LabelValue, left)
		}
		if unstarted, err := eng.UnstartedReapers(context.Background()); err != nil || len(unstarted) > 0 {
			t.Errorf("reapers made and never started: %v %v", unstarted, err)
		}
	})
	if _, err := eng.EnsureImage(ctx, container.ImageOptions{}); err != nil {
		t.Fatalf("image: %v", err)
	}
	return eng
}
