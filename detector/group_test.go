package detector

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// groupRes makes resources by reference for hand-built findings.
func groupRes(refs ...string) map[string]*catalog.Resource {
	g := newFake()
	for i, ref := range refs {
		g.Add(ref, "m.pp", i+1)
	}
	out := map[string]*catalog.Resource{}
	for _, ref := range refs {
		out[ref], _ = g.Lookup(ref)
	}
	return out
}

// mkFinding is a content MOR from producer to consumer on the paths, each
// "path" consumed or "path:relation".
func mkFinding(res map[string]*catalog.Resource, producer, consumer string, paths ...string) Finding {
	f := Finding{Kind: MOR, Producer: res[producer], Consumer: res[consumer], Confidence: Content}
	for _, p := range paths {
		rel := Consumes
		if path, ok := strings.CutSuffix(p, ":overwrites"); ok {
			p, rel = path, Overwrites
		}
		f.Paths = append(f.Paths, PathConflict{Path: p, Producer: f.Producer, Consumer: f.Consumer, Relation: rel,
			ProducerEffect: fstrace.Produced, ConsumerEffect: fstrace.Consumed,
			ProducerEvidence: interp.NewEvidence("rename", 1), ConsumerEvidence: interp.NewEvidence("openat", 2)})
	}
	return f
}

// describe is "by ref members" for each group.
func describe(gs []Group) []string {
	var out []string
	for _, g := range gs {
		out = append(out, fmt.Sprintf("%s %s %v %v", g.By, g.Resource.Ref(), g.Paths, g.Members))
	}
	return out
}

func TestGroupFindings(t *testing.T) {
	res := groupRes("File[/etc/services]", "File[/etc/b]", "Exec[a]", "Exec[b]", "Exec[c]", "Exec[d]", "Exec[e]")
	f := func(p, c string, paths ...string) Finding { return mkFinding(res, p, c, paths...) }
	cases := []struct {
		name     string
		findings []Finding
		want     []string
	}{
		{"one producer, three consumers, same path", []Finding{
			f("File[/etc/services]", "Exec[a]", "/etc/services"),
			f("File[/etc/services]", "Exec[b]", "/etc/services"),
			f("File[/etc/services]", "Exec[c]", "/etc/services"),
		}, []string{"producer File[/etc/services] [/etc/services] [0 1 2]"}},
		{"near miss: same producer, different paths", []Finding{
			f("File[/etc/services]", "Exec[a]", "/etc/services"),
			f("File[/etc/services]", "Exec[b]", "/etc/services", "/etc/protocols"),
		}, nil},
		{"near miss: same producer and path, another relation", []Finding{
			f("File[/etc/services]", "Exec[a]", "/etc/services"),
			f("File[/etc/services]", "Exec[b]", "/etc/services:overwrites"),
		}, nil},
		{"one consumer, two producers, same path", []Finding{
			f("File[/etc/services]", "Exec[e]", "/etc/x"),
			f("File[/etc/b]", "Exec[e]", "/etc/x"),
		}, []string{"consumer Exec[e] [/etc/x] [0 1]"}},
		{"by producer first, the consumer's other finding alone", []Finding{
			f("File[/etc/services]", "Exec[a]", "/etc/x"),
			f("File[/etc/services]", "Exec[b]", "/etc/x"),
			f("File[/etc/b]", "Exec[a]", "/etc/x"),
		}, []string{"producer File[/etc/services] [/etc/x] [0 1]"}},
		{"both kinds, ordered by first member", []Finding{
			f("File[/etc/b]", "Exec[e]", "/etc/y"),
			f("File[/etc/services]", "Exec[a]", "/etc/x"),
			f("File[/etc/services]", "Exec[b]", "/etc/x"),
			f("Exec[d]", "Exec[e]", "/etc/y"),
		}, []string{"consumer Exec[e] [/etc/y] [0 3]", "producer File[/etc/services] [/etc/x] [1 2]"}},
	}
	for _, c := range cases {
		if got := describe(GroupFindings(c.findings)); !slices.Equal(got, c.want) {
			t.Errorf("%s: groups %v, want %v", c.name, got, c.want)
		}
	}

	// What must be the same, one difference at a time: none groups.
	base := func() []Finding {
		return []Finding{
			f("File[/etc/services]", "Exec[a]", "/etc/services"),
			f("File[/etc/services]", "Exec[b]", "/etc/services"),
		}
	}
	if n := len(GroupFindings(base())); n != 1 {
		t.Fatalf("base: %d groups", n)
	}
	for name, change := range map[string]func(*Finding){
		"kind":       func(f *Finding) { f.Kind = MN },
		"held back":  func(f *Finding) { f.HeldBack, f.HeldReason = true, "r" },
		"confidence": func(f *Finding) { f.Confidence = Metadata },
		"verdict":    func(f *Finding) { f.Confirmation = &Confirmation{Verdict: Refuted} },
		"waived":     func(f *Finding) { f.Waived = true },
		"both ways":  func(f *Finding) { f.BothWays = true },
	} {
		fs := base()
		change(&fs[1])
		if gs := GroupFindings(fs); len(gs) != 0 {
			t.Errorf("differing %s: grouped %v", name, describe(gs))
		}
	}
	// A waived path does not count.
	fs := base()
	fs[1].Paths = append(fs[1].Paths, PathConflict{Path: "/var/w", Producer: fs[1].Producer, Consumer: fs[1].Consumer, Waived: true})
	if got := describe(GroupFindings(fs)); !slices.Equal(got, []string{"producer File[/etc/services] [/etc/services] [0 1]"}) {
		t.Errorf("with a waived path: %v", got)
	}
	// Held-back findings group among themselves.
	fs = base()
	for i := range fs {
		fs[i].HeldBack = true
	}
	if gs := GroupFindings(fs); len(gs) != 1 || !gs[0].HeldBack {
		t.Errorf("held back: %v", describe(gs))
	}
}

func TestGroupFix(t *testing.T) {
	res := groupRes("File[/etc/x]", "Exec[a]", "Exec[b]", "Service[s]", "Service[t]")
	cases := []struct {
		by   GroupBy
		kind Kind
		fs   [][2]string
		want string
	}{
		{ByProducer, MOR, [][2]string{{"File[/etc/x]", "Exec[a]"}, {"File[/etc/x]", "Exec[b]"}},
			"File['/etc/x'] must come before each of them: add before => [Exec['a'], Exec['b']] to File['/etc/x'] (m.pp:1), or File['/etc/x'] -> [Exec['a'], Exec['b']]"},
		{ByProducer, MN, [][2]string{{"File[/etc/x]", "Service[s]"}, {"File[/etc/x]", "Service[t]"}},
			"File['/etc/x'] must notify each of them: add notify => [Service['s'], Service['t']] to File['/etc/x'] (m.pp:1), or File['/etc/x'] ~> [Service['s'], Service['t']]"},
		{ByConsumer, MOR, [][2]string{{"Exec[a]", "File[/etc/x]"}, {"Exec[b]", "File[/etc/x]"}},
			"File['/etc/x'] requires each of them: add require => [Exec['a'], Exec['b']] to File['/etc/x'] (m.pp:1), or [Exec['a'], Exec['b']] -> File['/etc/x']"},
		{ByConsumer, MN, [][2]string{{"Exec[a]", "Service[s]"}, {"Exec[b]", "Service[s]"}},
			"Service['s'] must be notified by each of them: add subscribe => [Exec['a'], Exec['b']] to Service['s'] (m.pp:4), or [Exec['a'], Exec['b']] ~> Service['s']"},
	}
	for _, c := range cases {
		var fs []Finding
		for _, pc := range c.fs {
			f := mkFinding(res, pc[0], pc[1], "/etc/x")
			f.Kind = c.kind
			fs = append(fs, f)
		}
		gs := GroupFindings(fs)
		if len(gs) != 1 || gs[0].By != c.by {
			t.Fatalf("%v %v: groups %v", c.by, c.kind, describe(gs))
		}
		if got := gs[0].Fix(fs); got != c.want {
			t.Errorf("%v %v fix:\n got %s\nwant %s", c.by, c.kind, got, c.want)
		}
	}
}
