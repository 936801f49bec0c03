package fix

import (
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
)

// plantSource is testdata/plant.pp with what Puppet's parser said of it.
func plantSource(t testing.TB) map[string]*Source { return testdataSource(t, "plant") }

// pl is a resource of plant.pp at line, with its relationship
// metaparameters as the catalog gives them (name, then its values).
func pl(typ, title string, line int, params ...string) *catalog.Resource {
	r := &catalog.Resource{Type: typ, Title: title, File: "plant.pp", Line: line, Params: map[string]any{}}
	var name string
	for _, p := range params {
		if !strings.Contains(p, "[") {
			name = p
			continue
		}
		vals, _ := r.Params[name].([]any)
		r.Params[name] = append(vals, p)
	}
	return r
}

// plantCases: each way a module writes a relationship, removed or
// weakened; the edited file must hold want and no longer gone, and differ
// from plant.pp only within lines (the first and last line of plant.pp
// that may change).
var plantCases = []struct {
	name        string
	first, then *catalog.Resource
	notify      bool
	p           Planting
	want, gone  string
	lines       [2]int
	err         string // a part of the error when nothing is planted
}{
	{name: "before on the first's body", first: pl("File", "/etc/one.conf", 7, "before", "Service[s]"), then: pl("Service", "s", 24),
		want: "    ensure => file,\n  }\n", gone: "before => Service['s']", lines: [2]int{9, 9}},
	{name: "an element of an array on one line, weakened", first: pl("File", "/etc/listed.conf", 12, "notify", "Service[s]", "Exec[e]"), then: pl("Service", "s", 24), notify: true, p: Weaken,
		want: "    ensure => file,\n    notify => Exec['e'],\n    before => Service['s'],\n  }\n", lines: [2]int{14, 15}},
	{name: "an element of an array on one line", first: pl("File", "/etc/listed.conf", 12, "notify", "Service[s]", "Exec[e]"), then: pl("Service", "s", 24), notify: true,
		want: "    notify => Exec['e'],\n  }\n", lines: [2]int{14, 14}},
	{name: "an element of an array a line each", first: pl("File", "/etc/lines.conf", 17, "before", "Service[s]", "Exec[e]"), then: pl("Exec", "e", 29),
		want: "      Service['s'],\n    ],\n", gone: "      Exec['e'],\n", lines: [2]int{20, 20}},
	{name: "subscribe on the second's body, weakened", first: pl("File", "/etc/sub.conf", 34), then: pl("Service", "s", 24, "subscribe", "File[/etc/sub.conf]"), notify: true, p: Weaken,
		want: "    ensure    => running,\n    require   => File['/etc/sub.conf'],\n", gone: "subscribe", lines: [2]int{26, 26}},
	{name: "an element written with a variable, by its place", first: pl("Package", "libfoo", 40), then: pl("Exec", "e", 29, "require", "Package[libfoo]", "File[/etc/sub.conf]"),
		want: "    require => File['/etc/sub.conf'],\n", lines: [2]int{31, 31}},
	{name: "an element written with a variable, but the catalog has another count", first: pl("Package", "libfoo", 40), then: pl("Exec", "e", 29, "require", "Package[libfoo]", "Package[bar]", "File[/etc/sub.conf]"),
		err: "no ordering written"},
	{name: "an attribute among others on one line", first: pl("Package", "p", 40), then: pl("File", "/etc/sub.conf", 34, "require", "Package[p]"),
		want: "  file { '/etc/sub.conf': ensure => file, mode => '0644' }\n", lines: [2]int{34, 34}},
	{name: "a resource default, overridden", first: pl("Package", "default", 40), then: pl("File", "/etc/defaulted.conf", 36, "require", "Package[default]"),
		want: "    ensure  => file,\n    require => [],\n  }\n", lines: [2]int{37, 37}},
	{name: "a resource default, weakened", first: pl("File", "/etc/defaulted.conf", 36, "notify", "Service[s]"), then: pl("Service", "s", 24), notify: true, p: Weaken,
		want: "    ensure => file,\n    notify => [],\n    before => Service['s'],\n  }\n", lines: [2]int{37, 37}},
	{name: "a resource default beside another value", first: pl("Package", "default", 40), then: pl("File", "/etc/defaulted.conf", 36, "require", "Package[default]", "Package[x]"),
		err: "no ordering written"},
	{name: "a chain of two references", first: pl("Package", "p", 40, "before", "File[/etc/chained.conf]"), then: pl("File", "/etc/chained.conf", 3),
		want: "\n\n  Package['q'] -> File", gone: "Package['p'] ->", lines: [2]int{42, 42}},
	{name: "the first link of a chain", first: pl("Package", "q", 40, "before", "File[/etc/chained.conf]"), then: pl("File", "/etc/chained.conf", 3),
		want: "  File['/etc/chained.conf'] ~> Service['t']\n", lines: [2]int{43, 43}},
	{name: "the last link of a chain", first: pl("File", "/etc/chained.conf", 3, "notify", "Service[t]"), then: pl("Service", "t", 3), notify: true,
		want: "  Package['q'] -> File['/etc/chained.conf']\n", lines: [2]int{43, 43}},
	{name: "the last link of a chain, weakened", first: pl("File", "/etc/chained.conf", 3, "notify", "Service[t]"), then: pl("Service", "t", 3), notify: true, p: Weaken,
		want: "  Package['q'] -> File['/etc/chained.conf'] -> Service['t']\n", lines: [2]int{43, 43}},
	{name: "an arrow between two declarations", first: pl("File", "/etc/decl.conf", 44, "before", "Exec[after-decl]"), then: pl("Exec", "after-decl", 44),
		want: "  file { '/etc/decl.conf': ensure => file }  exec { 'after-decl'", lines: [2]int{44, 44}},
	{name: "a backward arrow", first: pl("File", "/etc/back.conf", 3, "notify", "Service[t]"), then: pl("Service", "t", 3), notify: true,
		want: "' }\n  Package['x'] ->", gone: "<~", lines: [2]int{45, 45}},
	{name: "a backward arrow, weakened", first: pl("File", "/etc/back.conf", 3, "notify", "Service[t]"), then: pl("Service", "t", 3), notify: true, p: Weaken,
		want: "  Service['t'] <- File['/etc/back.conf']\n", lines: [2]int{45, 45}},
	{name: "two references inside a chain", first: pl("File", "/etc/a", 3, "before", "File[/etc/b]"), then: pl("File", "/etc/b", 3),
		err: "inside a longer chain"},
	{name: "an ordering where only a notification is written", first: pl("File", "/etc/chained.conf", 3, "before", "Service[t]"), then: pl("Service", "t", 3),
		err: "no ordering written"},
	{name: "an ordering is not weakened", first: pl("File", "/etc/one.conf", 7, "before", "Service[s]"), then: pl("Service", "s", 24), p: Weaken,
		err: "only a notification"},
	{name: "nothing written", first: pl("Package", "q", 40), then: pl("Service", "s", 24),
		err: "no ordering written"},
}

func TestPlant(t *testing.T) {
	for _, c := range plantCases {
		t.Run(c.name, func(t *testing.T) {
			sources := plantSource(t)
			edits, err := Plant(sources, c.first, c.then, c.notify, c.p)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want one saying %q (edits %+v)", err, c.err, edits)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			says := false
			for _, e := range edits {
				says = says || e.Says != ""
			}
			if !says {
				t.Errorf("no edit says what it does: %+v", edits)
			}
			edited, err := Apply(edits, sources)
			if err != nil {
				t.Fatal(err)
			}
			old, got := string(sources["plant.pp"].Text), string(edited["plant.pp"])
			if !strings.Contains(got, c.want) {
				t.Errorf("the edited file lacks\n%s\nedits: %+v\n%s", c.want, edits, got)
			}
			if c.gone != "" && strings.Count(got, c.gone) != strings.Count(old, c.gone)-1 {
				t.Errorf("%q should be gone once from the edited file:\n%s", c.gone, got)
			}
			if from, to := changedLines(old, got); from < c.lines[0] || to > c.lines[1] {
				t.Errorf("lines %d-%d changed, want only within %d-%d:\n%s", from, to, c.lines[0], c.lines[1], got)
			}
		})
	}
}

// changedLines returns the first and last line of old that new changes,
// as one region of whole lines: the lines the two share at their start
// and at their end are kept.
func changedLines(old, new string) (int, int) {
	o, n := strings.SplitAfter(old, "\n"), strings.SplitAfter(new, "\n")
	pre := 0
	for pre < len(o) && pre < len(n) && o[pre] == n[pre] {
		pre++
	}
	suf := 0
	for suf < len(o)-pre && suf < len(n)-pre && o[len(o)-1-suf] == n[len(n)-1-suf] {
		suf++
	}
	return pre + 1, len(o) - suf
}
