package linux

import "testing"

// TestErrnoNames: a number gives its first name (not an alias), the
// kernel-internal restart codes have names, and an unknown number prints
// as E<n>.
func TestErrnoNames(t *testing.T) {
	for nr, want := range map[int]string{2: "ENOENT", 11: "EAGAIN", 35: "EDEADLK", 95: "EOPNOTSUPP", 512: "ERESTARTSYS", 516: "ERESTART_RESTARTBLOCK", 4000: "E4000"} {
		if got := ErrnoName(nr); got != want {
			t.Errorf("ErrnoName(%d) = %s, want %s", nr, got, want)
		}
	}
	seen := map[string]bool{}
	for _, e := range Errnos {
		if seen[e.Name] {
			t.Errorf("%s: two rows", e.Name)
		}
		seen[e.Name] = true
		if e.Nr <= 0 || e.Nr >= 4096 {
			t.Errorf("%s: number %d is not an errno", e.Name, e.Nr)
		}
	}
	if _, ok := ErrnoMessage("EWOULDBLOCK"); ok {
		t.Error("the alias EWOULDBLOCK has a text; strace prints EAGAIN's")
	}
	if m, ok := ErrnoMessage("ERESTARTSYS"); !ok || m != "To be restarted if SA_RESTART is set" {
		t.Errorf("ERESTARTSYS: %q %v", m, ok)
	}
}
