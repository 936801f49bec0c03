package container

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// TestE2EStartCancelled cancels Start at moments spread over the create
// and start calls: whatever the engine had done by then, Start returns
// ctx's error (or a started container, when it was faster) and no
// container of this process is left. Docker creates a container even when
// the client has given up on the create call; fsmove must still remove it.
func TestE2EStartCancelled(t *testing.T) {
	required := os.Getenv("FSMOVE_E2E") == "1"
	if testing.Short() && !required {
		t.Skip("e2e test skipped in -short mode")
	}
	eng, err := Connect(context.Background())
	if err != nil {
		if required {
			t.Fatalf("FSMOVE_E2E=1 but Docker is unreachable: %v", err)
		}
		t.Skipf("Docker unreachable (set FSMOVE_E2E=1 to make this a failure): %v", err)
	}
	defer eng.Close()
	img, err := eng.EnsureImage(context.Background(), ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond,
		50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(d, cancel)
		c, err := eng.Start(ctx, Spec{Image: img.ID, Labels: map[string]string{"fsmove.test": "start-cancelled"}})
		timer.Stop()
		cancel()
		switch {
		case err == nil:
			t.Logf("cancel after %v: started %s first", d, c.ShortID())
			if err := c.Remove(context.Background()); err != nil {
				t.Error(err)
			}
		case errors.Is(err, context.Canceled):
			t.Logf("cancel after %v: %v", d, err)
		default:
			t.Errorf("cancel after %v: %v, want context.Canceled", d, err)
		}
		left, err := eng.Labelled(context.Background(), true)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) > 0 {
			t.Errorf("cancel after %v: containers left behind: %v", d, left)
			for _, id := range left {
				(&Container{ID: id, engine: eng}).Remove(context.Background())
			}
		}
	}
}
