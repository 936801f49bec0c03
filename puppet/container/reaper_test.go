package container

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// frame is one frame of the engine's multiplexed attach stream.
func frame(stream byte, text string) []byte {
	hdr := make([]byte, 8)
	hdr[0] = stream
	binary.BigEndian.PutUint32(hdr[4:], uint32(len(text)))
	return append(hdr, text...)
}

func TestWaitReady(t *testing.T) {
	var split bytes.Buffer
	split.Write(frame(1, "fsmove-reaper "))
	split.Write(frame(1, "ready\n"))
	for _, c := range []struct {
		name   string
		stream []byte
		err    string // "" ready
	}{
		{"one frame", frame(1, reaperReady+"\n"), ""},
		{"split over frames", split.Bytes(), ""},
		{"exited saying why", frame(1, "fsmove reaper: the engine: permission denied\n"), "it exited: fsmove reaper: the engine: permission denied"},
		{"exited silently", nil, "it exited before it was ready"},
		{"cut inside a frame", frame(1, reaperReady)[:10], "it exited before it was ready"},
	} {
		err := waitReady(bytes.NewReader(c.stream))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}

func TestKeptNames(t *testing.T) {
	if !kept([]string{"/fsmove-kept-0a1b2c"}) {
		t.Error("a kept container's name not recognised")
	}
	for _, n := range []string{"/fsmove-0a1b2c", "/fsmove-reaper-0a1b", "/other-fsmove-kept-1"} {
		if kept([]string{n}) {
			t.Errorf("%s taken for a kept container", n)
		}
	}
}
