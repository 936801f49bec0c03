package container

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
)

// TestE2ERemoveReplaced: a rebuild that takes the tag removes the image
// it took it from, unless something still uses that image (here a
// container made from it: the near miss).
func TestE2ERemoveReplaced(t *testing.T) {
	eng, _ := e2eEngine(t)
	ctx := context.Background()
	const tag = "fsmove-test/replaced:latest"
	importImage := func(content string) string {
		t.Helper()
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Name: "marker", Mode: 0o644, Size: int64(len(content))})
		io.WriteString(tw, content)
		tw.Close()
		rc, err := eng.cli.ImageImport(ctx, image.ImportSource{Source: &buf, SourceName: "-"}, tag, image.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, rc)
		rc.Close()
		id, _, err := eng.imageID(ctx, tag)
		if err != nil || id == "" {
			t.Fatalf("imported %s: %q %v", tag, id, err)
		}
		t.Cleanup(func() { eng.cli.ImageRemove(ctx, id, image.RemoveOptions{Force: true}) })
		return id
	}
	exists := func(id string) bool {
		got, _, err := eng.imageID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return got != ""
	}

	first := importImage("first")
	second := importImage("second")
	eng.removeReplaced(ctx, first, second)
	if exists(first) || !exists(second) {
		t.Errorf("after a rebuild: the replaced image exists %v, the new one %v; want false, true", exists(first), exists(second))
	}

	// The near miss: a container made from the replaced image keeps it.
	used, err := eng.cli.ContainerCreate(ctx, &container.Config{Image: second, Cmd: []string{"/marker"}}, nil, nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer eng.removeName(ctx, used.ID)
	third := importImage("third")
	eng.removeReplaced(ctx, second, third)
	if !exists(second) {
		t.Errorf("an image a container uses was removed")
	}
}
