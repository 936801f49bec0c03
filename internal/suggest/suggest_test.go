package suggest

import "testing"

// TestNearest: close words only, case ignored.
func TestNearest(t *testing.T) {
	names := []string{"run", "analyze", "confirm", "tracer", "out", "output"}
	for word, want := range map[string]string{
		"rn": "run", "RUN": "run", "tracr": "tracer", "TRACRE": "tracer", "outptu": "output",
		"x": "", "ru": "run", "zzzzzz": "", "": "", "confrim": "confirm",
	} {
		if got := Nearest(word, names); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", word, got, want)
		}
	}
}
