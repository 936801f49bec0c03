package printable

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"File[/etc/app.conf]":               "File[/etc/app.conf]",
		"Exec[\x1b]0;pwned\x07\x1b[31mred]": `Exec[\x1b]0;pwned\x07\x1b[31mred]`,
		"tab\there":                         "tab\there",
		"a\nb":                              `a\x0ab`,
		"C1 \u009b31m":                      `C1 \u009b31m`,
		"DEL\x7f":                           `DEL\x7f`,
		"bad \xff utf8":                     `bad \xff utf8`,
		"café ✓":                            "café ✓",
		`C:\dir`:                            `C:\dir`,
		"\x1b\\":                            `\x1b\\`,
		strings.Repeat("x", 3) + "\r" + "overwritten": `xxx\x0doverwritten`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Lines("Error: \x1b[31mbad\x1b[0m\nline 2"); got != "Error: \\x1b[31mbad\\x1b[0m\nline 2" {
		t.Errorf("Lines = %q", got)
	}
}

// Whatever the input, the output has no control character but tab.
func FuzzString(f *testing.F) {
	f.Add("Exec[\x1b]0;t\x07]")
	f.Add("\u009b\xff\\")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range String(s) {
			if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("String(%q) keeps %U", s, r)
			}
		}
	})
}
