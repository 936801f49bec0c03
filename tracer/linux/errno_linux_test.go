package linux

import (
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestErrnosMatchLibc: every name Go's copy of the C library's table gives
// has the same number here, and the same text (Go's are in lower case; it
// has none for the newest). Go names some numbers differently (117 is
// EFSCORRUPTED there, EUCLEAN in the headers and for strace): those are
// skipped, the headers are what strace prints.
func TestErrnosMatchLibc(t *testing.T) {
	for n := syscall.Errno(1); n < 134; n++ {
		name := unix.ErrnoName(n)
		if name == "" {
			continue
		}
		e, ok := errnoByName[name]
		if !ok {
			continue
		}
		if e.Nr != int(n) {
			t.Errorf("%s: %d, the C library says %d", name, e.Nr, n)
		}
		text, ok := ErrnoMessage(name)
		if !ok || strings.HasPrefix(n.Error(), "errno ") {
			continue
		}
		if !strings.EqualFold(text, n.Error()) {
			t.Errorf("%s: %q, the C library says %q", name, text, n.Error())
		}
	}
}
