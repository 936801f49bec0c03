package container

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestE2EStartCancelled cancels Start at moments spread over the create
// and start calls: whatever the engine had done by then, Start returns
// ctx's error (or a started container, when it was faster) and no
// container of this process is left. Docker creates a container even when
// the client has given up on the create call; fsmove must still remove it.
func TestE2EStartCancelled(t *testing.T) {
	eng, img := e2eEngine(t)
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
		// The session's reaper, made with the first container, is
		// cancelled as well: it must not be left either.
		if unstarted, err := eng.UnstartedReapers(context.Background()); err != nil || len(unstarted) > 0 {
			t.Errorf("cancel after %v: reapers made and never started: %v %v", d, unstarted, err)
		}
		if len(left) > 0 {
			t.Errorf("cancel after %v: containers left behind: %v", d, left)
			for _, id := range left {
				(&Container{ID: id, engine: eng}).Remove(context.Background())
			}
		}
	}
}
