package project

import (
	"slices"
	"strings"
	"testing"
)

// flags stand for the flags cmd/fsmove lets a project file set (its own
// tests check the file against the real command line).
var flags = []string{"fail-on", "format", "init", "modulepath", "param", "setup", "timeout", "tracer"}

const example = `tracer: strace
init: none
fail_on: MN,content
filters: [/var/cache/mymod]
waivers:
  - {a: "File['/etc/x']", b: "Exec[use]", path: /etc/x, reason: written once at install}
`

func TestParse(t *testing.T) {
	c, err := Parse("p.yml", []byte(example), flags)
	if err != nil {
		t.Fatal(err)
	}
	want := []Flag{{"tracer", "tracer", []string{"strace"}}, {"init", "init", []string{"none"}}, {"fail_on", "fail-on", []string{"MN,content"}}}
	if !slices.EqualFunc(c.Flags, want, func(a, b Flag) bool {
		return a.Key == b.Key && a.Name == b.Name && slices.Equal(a.Values, b.Values)
	}) {
		t.Errorf("flags %+v, want %+v", c.Flags, want)
	}
	if len(c.Filters) != 1 || len(c.Waivers) != 1 || c.Waivers[0].Source != "p.yml waivers[1]" {
		t.Errorf("filters %q waivers %+v", c.Filters, c.Waivers)
	}
	if c.String() != "p.yml (5 settings)" {
		t.Errorf("String() = %q", c)
	}
}

func TestParseErrors(t *testing.T) {
	for text, want := range map[string]string{
		"tracr: ebpf\n":             `unknown key "tracr" (line 1) (did you mean "tracer"?)`,
		"filter: [/x]\n":            `(did you mean "filters"?)`,
		"colour_scheme: dark\n":     `unknown key "colour_scheme" (line 1)` + "\x00",
		"filters: [var/cache]\n":    "not an absolute path prefix",
		"- tracer\n":                "want a mapping of settings",
		"tracer: {a: b}\n":          "not a mapping",
		"tracer:\n":                 "tracer (line 1): no value",
		"tracer: a\n---\ninit: b\n": "want one YAML document",
	} {
		_, err := Parse("p.yml", []byte(text), flags)
		msg := ""
		if err != nil {
			msg = err.Error() + "\x00"
		}
		if !strings.Contains(msg, want) || !strings.HasPrefix(msg, "p.yml: ") {
			t.Errorf("%q: error %q, want one naming the file and %q", text, msg, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(example))
	f.Add([]byte("tracer: [a, b]\nwaivers: [{a: 'File[x]', b: 'Exec[y]', reason: r}]\n"))
	f.Add([]byte("&a x: *a\n"))
	f.Add([]byte("fail_on: ~\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.yml", data, flags)
		if err != nil {
			if !strings.Contains(err.Error(), "f.yml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, fl := range c.Flags {
			if !slices.Contains(flags, fl.Name) || !slices.Contains(c.Settings, fl.Key) {
				t.Fatalf("flag %+v not a known flag or not a setting", fl)
			}
		}
		for _, w := range c.Waivers {
			if w.Reason == "" {
				t.Fatalf("waiver without a reason: %+v", w)
			}
		}
	})
}
