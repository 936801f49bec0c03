package strace

import (
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestErrnoTextsMatchLibc: the texts are the C library's (Go's copy of
// them, in lower case; Go has none for the newest).
func TestErrnoTextsMatchLibc(t *testing.T) {
	for n := syscall.Errno(1); n < 134; n++ {
		name := unix.ErrnoName(n)
		text, ok := errnoText[name]
		if name == "" || !ok || strings.HasPrefix(n.Error(), "errno ") {
			continue
		}
		if !strings.EqualFold(text, n.Error()) {
			t.Errorf("%s: %q, the C library says %q", name, text, n.Error())
		}
	}
}
