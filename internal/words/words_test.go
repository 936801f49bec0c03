package words

import "testing"

// TestThousands checks the digit grouping of the clean report's figures.
func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1234567: "1,234,567", -12345: "-12,345"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{1, "path", "1 path"},
		{0, "path", "0 paths"},
		{2, "other", "2 others"},
		{12345, "related resource pair", "12,345 related resource pairs"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
