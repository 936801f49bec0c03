package container

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/docker/docker/client"
)

// TestForceRemoveRetries: an engine whose kill gave up before the exit
// event (what a busy machine's engine answered in CI) is asked again once
// the container has stopped, and the removal succeeds.
func TestForceRemoveRetries(t *testing.T) {
	for _, c := range []struct {
		name    string
		answers []int // the engine's status for each DELETE, in turn
		want    int   // DELETEs made
	}{
		{"removed at once", []int{http.StatusNoContent}, 1},
		{"already gone", []int{http.StatusNotFound}, 1},
		{"kill gave up, then removed", []int{http.StatusInternalServerError, http.StatusNoContent}, 2},
		{"kill gave up twice, then gone", []int{http.StatusInternalServerError, http.StatusConflict, http.StatusNotFound}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			deletes, waits := 0, 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/containers/x"):
					status := c.answers[min(deletes, len(c.answers)-1)]
					deletes++
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(status)
					if status >= 400 {
						w.Write([]byte(`{"message":"Could not kill running container x, cannot remove - tried to kill container, but did not receive an exit event"}`))
					}
				case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/containers/x/wait"):
					waits++
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte(`{"StatusCode":137}`))
				default:
					t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
					w.WriteHeader(http.StatusNotImplemented)
				}
			}))
			cli := fakeEngine(t, srv)
			if err := forceRemove(context.Background(), cli, "x"); err != nil {
				t.Fatalf("forceRemove: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if deletes != c.want || waits != c.want-1 {
				t.Errorf("%d removals and %d waits, want %d and %d", deletes, waits, c.want, c.want-1)
			}
		})
	}
}

// TestForceRemoveCancelled: a cancelled ctx (the way out of an interrupted
// run) does not stop the removal.
func TestForceRemoveCancelled(t *testing.T) {
	deletes := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		deletes++
		w.WriteHeader(http.StatusNoContent)
	}))
	cli := fakeEngine(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := forceRemove(ctx, cli, "x"); err != nil || deletes != 1 {
		t.Errorf("forceRemove after cancel: %v, %d removals; want nil, 1", err, deletes)
	}
}

// fakeEngine is a client of the fake engine srv, both closed at the
// test's end.
func fakeEngine(t *testing.T, srv *httptest.Server) *client.Client {
	t.Helper()
	t.Cleanup(srv.Close)
	cli, err := client.NewClientWithOpts(client.WithHost("tcp://"+strings.TrimPrefix(srv.URL, "http://")), client.WithVersion("1.41"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}
