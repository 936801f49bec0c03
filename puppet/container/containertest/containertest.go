// Package containertest gives end-to-end tests a real Docker Engine: one
// rule for every package's Docker tests.
package containertest

import (
	"context"
	"testing"

	"github.com/fsmove/fsmove/internal/testenv"
	"github.com/fsmove/fsmove/puppet/container"
)

// Engine connects to Docker and makes sure fsmove's image exists. It skips
// the test in -short mode or when Docker is unreachable, unless
// testenv.Required;
// after the test it checks that no container of fsmove's is left.
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
	t.Cleanup(func() {
		defer eng.Close()
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
