package linux

import (
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
)

// TestNumbersMatchSeccompTable: the seccomp filter library's x86_64 table
// (which ptrace's filter is built with) agrees on every call it knows.
func TestNumbersMatchSeccompTable(t *testing.T) {
	known := 0
	for _, s := range Syscalls {
		nr, ok := arch.X86_64.SyscallNames[s.Name]
		if !ok {
			continue
		}
		known++
		if nr != s.Nr {
			t.Errorf("%s: number %d, the seccomp table says %d", s.Name, s.Nr, nr)
		}
	}
	if known < len(Syscalls)/2 {
		t.Errorf("the seccomp table knows only %d of %d calls", known, len(Syscalls))
	}
}
