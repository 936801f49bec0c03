package lines

import "testing"

func TestFirst(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"one\ntwo\n", "one"},
		{"\ntwo", ""},
		{" one \r\ntwo", " one \r"},
	} {
		if got := First(c.in); got != c.want {
			t.Errorf("First(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLast(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"a\nb\nc\n\n", 2, "b\nc"},
		{"a\nb\nc", 3, "a\nb\nc"},
		{"a\nb\nc", 5, "a\nb\nc"},
		{"a\nb\nc", 1, "c"},
	} {
		if got := Last(c.in, c.n); got != c.want {
			t.Errorf("Last(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
