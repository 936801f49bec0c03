package detector

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"

	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// summary renders findings compactly: "MOR File[/etc/x]->Exec[use] /etc/x".
func summary(rep *Report) []string {
	var out []string
	for _, f := range rep.Findings {
		var paths []string
		for _, pc := range f.Paths {
			paths = append(paths, pc.Path)
		}
		s := fmt.Sprintf("%s %s->%s %s", f.Kind, f.Producer.Ref(), f.Consumer.Ref(), strings.Join(paths, ","))
		if f.Waived {
			s += " waived(" + f.WaiverReason + ")"
		}
		out = append(out, s)
	}
	return out
}

func expect(t *testing.T, rep *Report, want ...string) {
	t.Helper()
	got := summary(rep)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n got  %q\n want %q", got, want)
	}
}

// confExec is the paper's running example: a File producing a file that an
// Exec reads.
func confExec() *fakeGraph {
	g := newFake()
	g.Add("File[/etc/x]", "site.pp", 1)
	g.Add("Exec[use-conf]", "site.pp", 5)
	return g
}

func TestMORWhenUnordered(t *testing.T) {
	g := confExec()
	res := result(p("/etc/x", a("File[/etc/x]", "p", 10), a("Exec[use-conf]", "c", 20)))
	rep := Detect(res, g, Options{})
	expect(t, rep, "MOR File[/etc/x]->Exec[use-conf] /etc/x")
	f := rep.Findings[0]
	pc := f.Paths[0]
	if pc.ProducerEffect != fstrace.Produced || pc.ConsumerEffect != fstrace.Consumed {
		t.Errorf("effects %v %v", pc.ProducerEffect, pc.ConsumerEffect)
	}
	if pc.ProducerEvidence != (interp.NewEvidence("openat", 10)) || pc.ConsumerEvidence.Line != 20 {
		t.Errorf("evidence %+v %+v", pc.ProducerEvidence, pc.ConsumerEvidence)
	}
	wantFix := "Exec['use-conf'] requires File['/etc/x']: add require => File['/etc/x'] to Exec['use-conf'] (site.pp:5), or File['/etc/x'] -> Exec['use-conf']"
	if f.Fix != wantFix {
		t.Errorf("fix:\n got  %s\n want %s", f.Fix, wantFix)
	}
	if rep.Faults() != 1 || rep.Stats.MOR != 1 || rep.Stats.MN != 0 || rep.Stats.RelatedPairs != 1 {
		t.Errorf("counts: faults %d stats %+v", rep.Faults(), rep.Stats)
	}
}

func TestNoMORWhenOrderedEitherWay(t *testing.T) {
	res := result(p("/etc/x", a("File[/etc/x]", "p", 10), a("Exec[use-conf]", "c", 20)))
	for _, dir := range [][2]string{{"File[/etc/x]", "Exec[use-conf]"}, {"Exec[use-conf]", "File[/etc/x]"}} {
		g := confExec()
		g.Edge(dir[0], dir[1], before)
		expect(t, Detect(res, g, Options{}))
	}
	// Ordered through a third resource.
	g := confExec()
	g.Add("Class[Foo]", "foo.pp", 1)
	g.Edge("File[/etc/x]", "Class[Foo]", before)
	g.Edge("Class[Foo]", "Exec[use-conf]", contain)
	expect(t, Detect(res, g, Options{}))
}

func TestRelationRules(t *testing.T) {
	cases := []struct {
		name string
		p    pathSpec
		want []string
	}{
		{"produced then expunged", p("/tmp/x", a("File[/etc/x]", "p", 1), a("Exec[use-conf]", "e", 2)),
			[]string{"MOR File[/etc/x]->Exec[use-conf] /tmp/x"}},
		{"consumer writes after, blindly: overwrites", p("/tmp/x", a("File[/etc/x]", "p", 1), at("Exec[use-conf]", "p@2", "c@3")),
			[]string{"MOR File[/etc/x]->Exec[use-conf] /tmp/x"}},
		{"consumer reads then writes: modifies", p("/tmp/x", a("File[/etc/x]", "p", 1), at("Exec[use-conf]", "c@2", "p:rename@3")),
			[]string{"MOR File[/etc/x]->Exec[use-conf] /tmp/x"}},
		{"consumer made it before the producer wrote it: the producer overwrites", p("/tmp/x", at("Exec[use-conf]", "p@1", "c@2"), a("File[/etc/x]", "p", 3)),
			[]string{"MOR Exec[use-conf]->File[/etc/x] /tmp/x"}},
		{"consumer reads its own product only", p("/tmp/x", a("File[/etc/x]", "c", 1), at("Exec[use-conf]", "p@2", "c@3")), nil},
		{"two directories made by both commute", dir("/tmp/d", a("File[/etc/x]", "p", 1), a("Exec[use-conf]", "p", 2)), nil},
		{"both only consume", p("/tmp/x", a("File[/etc/x]", "c", 1), a("Exec[use-conf]", "c", 2)), nil},
		{"both only expunge", p("/tmp/x", a("File[/etc/x]", "e", 1), a("Exec[use-conf]", "e", 2)), nil},
		{"expunged then consumed is no relation", p("/tmp/x", a("File[/etc/x]", "e", 1), a("Exec[use-conf]", "c", 2)), nil},
		{"read before the producer wrote: the trace shows no use", p("/tmp/x", a("Exec[use-conf]", "c", 1), a("File[/etc/x]", "p", 2)), nil},
		{"producer listed second, acting first", p("/tmp/x", a("Exec[use-conf]", "c", 2), a("File[/etc/x]", "p", 1)),
			[]string{"MOR File[/etc/x]->Exec[use-conf] /tmp/x"}},
		{"one access only", p("/tmp/x", a("File[/etc/x]", "p", 1)), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expect(t, Detect(result(c.p), confExec(), Options{}), c.want...)
		})
	}
}

func TestConsumerEffectExpungedWhenNotConsumed(t *testing.T) {
	rep := Detect(result(p("/tmp/x", a("File[/etc/x]", "p", 1), a("Exec[use-conf]", "e", 2))), confExec(), Options{})
	if len(rep.Findings) != 1 || rep.Findings[0].Paths[0].ConsumerEffect != fstrace.Expunged {
		t.Fatalf("got %v", summary(rep))
	}
}

func serviceGraph() *fakeGraph {
	g := newFake()
	g.Add("File[/etc/x.conf]", "x.pp", 3)
	g.Add("Service[x]", "x.pp", 9)
	g.Add("Package[x]", "x.pp", 1)
	g.Add("Class[X]", "x.pp", 1)
	return g
}

func TestMissingNotifier(t *testing.T) {
	res := result(p("/etc/x.conf", a("File[/etc/x.conf]", "p", 10), a("Service[x]", "c", 20)))
	const mn = "MN File[/etc/x.conf]->Service[x] /etc/x.conf"

	// Unordered and a service consumer: reported once, as MN.
	rep := Detect(res, serviceGraph(), Options{})
	expect(t, rep, mn)
	if rep.Stats.MOR != 0 {
		t.Errorf("MOR counted too: %+v", rep.Stats)
	}
	if !rep.Findings[0].Unordered {
		t.Errorf("an MN of an unordered pair does not say the order is missing too")
	}
	wantFix := "Service['x'] must be notified by File['/etc/x.conf']: add notify => Service['x'] to File['/etc/x.conf'] (x.pp:3), or File['/etc/x.conf'] ~> Service['x']"
	if rep.Findings[0].Fix != wantFix {
		t.Errorf("fix:\n got  %s\n want %s", rep.Findings[0].Fix, wantFix)
	}

	// Ordered without notify: still MN, with the order there.
	g := serviceGraph()
	g.Edge("File[/etc/x.conf]", "Service[x]", before)
	rep = Detect(res, g, Options{})
	expect(t, rep, mn)
	if rep.Findings[0].Unordered {
		t.Errorf("an MN of an ordered pair says it is unordered")
	}

	// Notified directly.
	g = serviceGraph()
	g.Edge("File[/etc/x.conf]", "Service[x]", notify)
	expect(t, Detect(res, g, Options{}))

	// Notified through containment: File ~> Class[X], which contains the service.
	g = serviceGraph()
	g.Edge("File[/etc/x.conf]", "Class[X]", notify)
	g.Edge("Class[X]", "Service[x]", contain)
	expect(t, Detect(res, g, Options{}))

	// A before hop breaks the notify path: File -> Class[X] ~> … is not a notification.
	g = serviceGraph()
	g.Edge("File[/etc/x.conf]", "Class[X]", before)
	g.Edge("Class[X]", "Service[x]", contain)
	expect(t, Detect(res, g, Options{}), mn)

	// The notification goes the wrong way: ordered, but the service is not notified.
	g = serviceGraph()
	g.Add("Service[y]", "x.pp", 12)
	res2 := result(p("/etc/x.conf", a("File[/etc/x.conf]", "p", 10), a("Service[x]", "c", 20)))
	g.Edge("Service[x]", "File[/etc/x.conf]", notify)
	expect(t, Detect(res2, g, Options{}), mn)
}

func TestServiceThatAlsoProducesIsNotified(t *testing.T) {
	// A service that writes its log after the File created it still
	// consumes it (paper: orphaned log inode), so ⇝ holds.
	res := result(p("/var/log/x.log", a("File[/etc/x.conf]", "p", 10), a("Service[x]", "cp", 20)))
	expect(t, Detect(res, serviceGraph(), Options{}), "MN File[/etc/x.conf]->Service[x] /var/log/x.log")
}

func TestPackageNotify(t *testing.T) {
	res := result(p("/usr/sbin/xd", a("Package[x]", "p", 10), a("Service[x]", "c", 20)))
	// Off: an unordered pair is still a missing order.
	expect(t, Detect(res, serviceGraph(), Options{}), "MOR Package[x]->Service[x] /usr/sbin/xd")
	// Off and ordered: nothing.
	g := serviceGraph()
	g.Edge("Package[x]", "Service[x]", before)
	expect(t, Detect(res, g, Options{}))
	// On: a missing notifier, ordered or not.
	expect(t, Detect(res, g, Options{PackageNotify: true}), "MN Package[x]->Service[x] /usr/sbin/xd")
	expect(t, Detect(res, serviceGraph(), Options{PackageNotify: true}), "MN Package[x]->Service[x] /usr/sbin/xd")
}

func TestDirectoryMakesNoMN(t *testing.T) {
	res := result(dir("/etc/x.d", a("File[/etc/x.conf]", "p", 10), a("Service[x]", "c", 20)))
	// Unordered: still a missing order (MOR), not MN.
	expect(t, Detect(res, serviceGraph(), Options{}), "MOR File[/etc/x.conf]->Service[x] /etc/x.d")
	g := serviceGraph()
	g.Edge("File[/etc/x.conf]", "Service[x]", before)
	expect(t, Detect(res, g, Options{}))
}

func TestMNPairCollectsAllPaths(t *testing.T) {
	// Unordered: the MN finding carries the directory path too (~> fixes both).
	res := result(
		dir("/etc/x", a("File[/etc/x.conf]", "p", 1), a("Service[x]", "c", 2)),
		p("/etc/x/a.conf", a("File[/etc/x.conf]", "p", 3), a("Service[x]", "c", 4)),
	)
	expect(t, Detect(res, serviceGraph(), Options{}), "MN File[/etc/x.conf]->Service[x] /etc/x,/etc/x/a.conf")
	// Ordered: only the path that needs the notification.
	g := serviceGraph()
	g.Edge("File[/etc/x.conf]", "Service[x]", before)
	expect(t, Detect(res, g, Options{}), "MN File[/etc/x.conf]->Service[x] /etc/x/a.conf")
}

func TestFileOwnPath(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/foo]", "f.pp", 1, "content", "x")
	g.Add("File[conf]", "f.pp", 2, "path", "/etc/conf", "source", "puppet:///m/conf")
	g.Add("File[/srv/tree]", "f.pp", 3, "recurse", true, "source", "puppet:///m/tree")
	g.Add("File[/srv/flat]", "f.pp", 4)
	g.Add("Exec[gen]", "f.pp", 5)
	g.Add("Exec[use]", "f.pp", 6)
	cases := []struct {
		name string
		p    pathSpec
		want []string
	}{
		{"stat of own path makes the File the producer",
			p("/etc/foo", a("File[/etc/foo]", "c", 1), a("Exec[use]", "c", 2)),
			[]string{"MOR File[/etc/foo]->Exec[use] /etc/foo"}},
		{"two producers of one path are no relation",
			p("/etc/foo", a("Exec[gen]", "p", 1), a("File[/etc/foo]", "c", 2)), nil},
		{"a sibling with a longer name is not own path",
			p("/etc/foobar", a("Exec[gen]", "p", 1), a("File[/etc/foo]", "c", 2)),
			[]string{"MOR Exec[gen]->File[/etc/foo] /etc/foobar"}},
		{"path parameter, not title",
			p("/etc/conf", a("File[conf]", "c", 1), a("Exec[use]", "c", 2)),
			[]string{"MOR File[conf]->Exec[use] /etc/conf"}},
		{"recurse owns descendants",
			p("/srv/tree/a/b", a("File[/srv/tree]", "c", 1), a("Exec[use]", "c", 2)),
			[]string{"MOR File[/srv/tree]->Exec[use] /srv/tree/a/b"}},
		{"recurse does not own siblings",
			p("/srv/treehouse", a("File[/srv/tree]", "c", 1), a("Exec[use]", "c", 2)), nil},
		{"without recurse descendants are consumed",
			p("/srv/flat/a", a("Exec[gen]", "p", 1), a("File[/srv/flat]", "c", 2)),
			[]string{"MOR Exec[gen]->File[/srv/flat] /srv/flat/a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expect(t, Detect(result(c.p), g, Options{}), c.want...)
		})
	}
	// The producer evidence of an own-path read is the read itself.
	rep := Detect(result(p("/etc/foo", a("File[/etc/foo]", "c", 7), a("Exec[use]", "c", 8))), g, Options{})
	if ev := rep.Findings[0].Paths[0].ProducerEvidence; ev.Line != 7 {
		t.Errorf("producer evidence %+v", ev)
	}
}

func TestFilebucketIsNotAFile(t *testing.T) {
	g := newFake()
	g.Add("Filebucket[puppet]", "", 0, "path", false)
	g.Add("Exec[use]", "f.pp", 6)
	// Filebucket reading "its path" must not count as producing it.
	expect(t, Detect(result(p("/puppet", a("Filebucket[puppet]", "c", 1), a("Exec[use]", "c", 2))), g, Options{}))
}

func TestUnresolvedBlocksAreCounted(t *testing.T) {
	g := confExec()
	res := result(
		p("/etc/x", a("File[/etc/x]", "p", 10), a("Schedule[daily]", "c", 11), a("Exec[use-conf]", "c", 20)),
		p("/etc/y", a("Schedule[daily]", "p", 12), a("Whatever[z]", "c", 13)),
	)
	// A NoBlock access (outside any block) is neither a resource nor an error.
	res.Paths[0].Accesses = append(res.Paths[0].Accesses, interp.Access{Block: interp.NoBlock, Produced: true})
	rep := Detect(res, g, Options{})
	expect(t, rep, "MOR File[/etc/x]->Exec[use-conf] /etc/x")
	if got := strings.Join(rep.UnresolvedBlocks, ","); got != "Schedule[daily],Whatever[z]" {
		t.Errorf("unresolved blocks %q", got)
	}
	if rep.Stats.UnresolvedBlocks != 2 || rep.Stats.UnresolvedAccesses != 3 {
		t.Errorf("stats %+v", rep.Stats)
	}
	// Each block is looked up once (the waiver-free run), not once per path.
	if g.Lookups != 4 {
		t.Errorf("%d lookups, want 4", g.Lookups)
	}
}

func TestClassWhitResolvesCaseInsensitively(t *testing.T) {
	g := newFake()
	g.Add("Class[main]", "", 0)
	g.Add("File[/etc/x]", "site.pp", 1)
	res := result(p("/etc/x", a("File[/etc/x]", "p", 1), a("Class[Main]", "c", 2)))
	g.Edge("Class[main]", "File[/etc/x]", contain)
	rep := Detect(res, g, Options{})
	expect(t, rep)
	if len(rep.UnresolvedBlocks) != 0 {
		t.Errorf("unresolved %v", rep.UnresolvedBlocks)
	}
}

func TestSameResourceTwoBlocksIsNoPair(t *testing.T) {
	g := newFake()
	g.Add("Class[main]", "", 0)
	res := result(p("/x", a("Class[Main]", "p", 1), a("Class[main]", "c", 2)))
	rep := Detect(res, g, Options{})
	expect(t, rep)
	if rep.Stats.RelatedPairs != 0 {
		t.Errorf("related pairs %d", rep.Stats.RelatedPairs)
	}
}

func TestFiltersInDetect(t *testing.T) {
	res := result(
		p("/proc/1/status", a("File[/etc/x]", "p", 1), a("Exec[use-conf]", "c", 2)),
		p("/procx", a("File[/etc/x]", "p", 3), a("Exec[use-conf]", "c", 4)),
		p("/srv/data/a", a("File[/etc/x]", "p", 5), a("Exec[use-conf]", "c", 6)),
	)
	rep := Detect(res, confExec(), Options{})
	expect(t, rep, "MOR File[/etc/x]->Exec[use-conf] /procx,/srv/data/a")
	if rep.Stats.FilteredPaths != 1 {
		t.Errorf("filtered %d", rep.Stats.FilteredPaths)
	}
	expect(t, Detect(res, confExec(), Options{Filters: []string{"/srv/data/"}}),
		"MOR File[/etc/x]->Exec[use-conf] /procx")
	expect(t, Detect(res, confExec(), Options{NoDefaultFilters: true}),
		"MOR File[/etc/x]->Exec[use-conf] /proc/1/status,/procx,/srv/data/a")
}

func TestPathsGoingBothWays(t *testing.T) {
	// A cycle of uses is one pair, one finding; each path keeps its own direction.
	res := result(
		p("/a", a("Exec[use-conf]", "p", 1), a("File[/etc/x]", "c", 2)),
		p("/b", a("File[/etc/x]", "p", 3), a("Exec[use-conf]", "c", 4)),
	)
	rep := Detect(res, confExec(), Options{})
	expect(t, rep, "MOR Exec[use-conf]->File[/etc/x] /a,/b")
	if pc := rep.Findings[0].Paths[1]; pc.Producer.Ref() != "File[/etc/x]" || pc.Consumer.Ref() != "Exec[use-conf]" {
		t.Errorf("second path direction %s -> %s", pc.Producer.Ref(), pc.Consumer.Ref())
	}
}

// orderGraph has resources at distinct positions for ordering tests.
func orderGraph() (*fakeGraph, *interp.Result) {
	g := newFake()
	g.Add("File[/etc/a.conf]", "b.pp", 2)
	g.Add("File[/etc/b.conf]", "a.pp", 7)
	g.Add("Exec[one]", "a.pp", 9)
	g.Add("Exec[two]", "b.pp", 1)
	g.Add("Service[svc]", "a.pp", 1)
	res := result(
		p("/etc/a.conf", a("File[/etc/a.conf]", "p", 1), a("Exec[one]", "c", 2), a("Exec[two]", "c", 3), a("Service[svc]", "c", 4)),
		p("/etc/b.conf", a("File[/etc/b.conf]", "p", 5), a("Exec[two]", "c", 6), a("Service[svc]", "c", 7)),
		p("/var/z", a("Exec[two]", "p", 8), a("Exec[one]", "c", 9)),
		p("/var/y", a("Exec[two]", "p", 10), a("Exec[one]", "e", 11)),
	)
	return g, res
}

func TestDeterministicOrder(t *testing.T) {
	g, res := orderGraph()
	want := []string{
		"MOR File[/etc/b.conf]->Exec[two] /etc/b.conf",
		"MOR Exec[two]->Exec[one] /var/y,/var/z",
		"MOR File[/etc/a.conf]->Exec[one] /etc/a.conf",
		"MOR File[/etc/a.conf]->Exec[two] /etc/a.conf",
		"MN File[/etc/b.conf]->Service[svc] /etc/b.conf",
		"MN File[/etc/a.conf]->Service[svc] /etc/a.conf",
	}
	rep := Detect(res, g, Options{})
	expect(t, rep, want...)
	// Shuffle the block numbering and the access order: same report, to
	// the last field (the phases' times aside).
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		shuffled := shuffleResult(res, rng)
		rep := Detect(shuffled, g, Options{})
		rep.Stats.Phases = nil
		rep0 := Detect(res, g, Options{})
		rep0.Stats.Phases = nil
		if !reflect.DeepEqual(rep, rep0) {
			t.Fatalf("round %d: report depends on block order:\n%q\nvs\n%q", round, summary(rep), summary(rep0))
		}
	}
}

// shuffleResult renumbers the blocks and permutes each path's accesses.
func shuffleResult(res *interp.Result, rng *rand.Rand) *interp.Result {
	perm := rng.Perm(len(res.Blocks))
	out := &interp.Result{Blocks: make([]string, len(res.Blocks))}
	for old, nu := range perm {
		out.Blocks[nu] = res.Blocks[old]
	}
	for _, pa := range res.Paths {
		np := interp.PathAccesses{Path: pa.Path, IsDir: pa.IsDir}
		for _, i := range rng.Perm(len(pa.Accesses)) {
			x := pa.Accesses[i]
			x.Block = interp.BlockID(perm[x.Block])
			np.Accesses = append(np.Accesses, x)
		}
		out.Paths = append(out.Paths, np)
	}
	return out
}

func TestNilAndEmptyInput(t *testing.T) {
	rep := Detect(nil, newFake(), Options{})
	if len(rep.Findings) != 0 || rep.Faults() != 0 {
		t.Fatal("findings from nothing")
	}
	// Out-of-range block IDs are counted, not a crash.
	res := &interp.Result{Blocks: []string{"File[/etc/x]"}, Paths: []interp.PathAccesses{
		{Path: "/x", Accesses: []interp.Access{{Block: 0, Produced: true}, {Block: 7, Consumed: true}}},
	}}
	rep = Detect(res, confExec(), Options{})
	if rep.Stats.UnresolvedAccesses != 1 {
		t.Errorf("stats %+v", rep.Stats)
	}
}

func TestPuppetRef(t *testing.T) {
	g := newFake()
	cases := map[string]string{
		"File[/etc/x]":         "File['/etc/x']",
		"Class[Foo::Bar]":      "Class['foo::bar']",
		"apt::source[main]":    "Apt::Source['main']",
		"Exec[echo 'hi' \\ x]": `Exec['echo \'hi\' \\ x']`,
		"Notify[a [b] c]":      "Notify['a [b] c']",
	}
	for in, want := range cases {
		if got := PuppetRef(g.Add(in, "", 0)); got != want {
			t.Errorf("PuppetRef(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestNilGraph(t *testing.T) {
	res := result(p("/etc/x", a("File[/etc/x]", "p", 10), a("Exec[use-conf]", "c", 20)))
	rep := Detect(res, nil, Options{})
	if len(rep.Findings) != 0 || rep.Stats.UnresolvedBlocks != 2 {
		t.Errorf("nil graph: %v %+v", summary(rep), rep.Stats)
	}
}

func TestPairs(t *testing.T) {
	res := result(p("/etc/x", a("File[/etc/x]", "p", 10), a("Exec[use-conf]", "c", 20)))
	rep := Detect(res, confExec(), Options{})
	if ps := rep.Pairs(); len(ps) != 1 || ps[0][0].Ref() != "File[/etc/x]" || ps[0][1].Ref() != "Exec[use-conf]" {
		t.Errorf("pairs %v", ps)
	}
	rep = Detect(res, confExec(), Options{Waivers: []Waiver{{Ref1: mustRef("File[/etc/x]"), Ref2: mustRef("Exec[use-conf]"), Reason: "r"}}})
	if ps := rep.Pairs(); len(ps) != 0 {
		t.Errorf("waived pair highlighted: %v", ps)
	}
}

// containerGraph adds IsContainer to the fake graph.
type containerGraph struct {
	*fakeGraph
	containers map[string]bool
}

func (c containerGraph) IsContainer(r *catalog.Resource) bool { return c.containers[r.Ref()] }

func TestContainerBlocksAreNotResources(t *testing.T) {
	g := confExec()
	g.Add("Class[main]", "", 0)
	g.Add("Stage[main]", "", 0)
	g.Add("Apt::Source[main]", "apt.pp", 3)
	res := result(
		p("/etc/x", a("Class[Main]", "c", 1), a("File[/etc/x]", "p", 2), a("Stage[main]", "e", 3)),
		p("/etc/y", a("Apt::Source[main]", "p", 4), a("Exec[use-conf]", "c", 5)),
	)
	// Without containment knowledge, a defined type's block is a resource.
	rep := Detect(res, g, Options{})
	expect(t, rep, "MOR Apt::Source[main]->Exec[use-conf] /etc/y")
	if rep.Stats.ContainerAccesses != 2 || rep.Stats.UnresolvedBlocks != 0 {
		t.Errorf("stats %+v", rep.Stats)
	}
	// With it, the defined type's whits are skipped too.
	cg := containerGraph{g, map[string]bool{"Apt::Source[main]": true}}
	rep = Detect(res, cg, Options{})
	expect(t, rep)
	if rep.Stats.ContainerAccesses != 3 {
		t.Errorf("stats %+v", rep.Stats)
	}
}

func TestRecurseValues(t *testing.T) {
	cases := []struct {
		v    any
		want bool
	}{{true, true}, {false, false}, {"true", true}, {"remote", true}, {"inf", true},
		{"false", false}, {"no", false}, {"", false}, {nil, false}, {1.0, false}}
	for _, c := range cases {
		r := &catalog.Resource{Type: "File", Title: "/x", Params: map[string]any{"recurse": c.v}}
		if got := r.Recurses(); got != c.want {
			t.Errorf("recurse => %#v: %v, want %v", c.v, got, c.want)
		}
	}
	g := newFake()
	r := g.Add("File[/srv/tree/]", "", 0, "recurse", "remote")
	role := roleOf(r)
	if !role.ownsPath("/srv/tree") || !role.ownsPath("/srv/tree/x") || role.ownsPath("/srv/treex") {
		t.Errorf("trailing slash title / remote recurse: %+v", role)
	}
	root := roleOf(g.Add("File[/]", "", 0, "recurse", true))
	if !root.ownsPath("/etc") {
		t.Error("recursive File[/] does not own /etc")
	}
}

// TestPackagePairsAreNotChecked: two packages meeting in dpkg's state are
// apt's business; a package against an Exec (apt-get update) is not.
func TestPackagePairsAreNotChecked(t *testing.T) {
	g := newFake()
	g.Add("Package[a]", "site.pp", 1)
	g.Add("Package[b]", "site.pp", 2)
	g.Add("Exec[apt-get update]", "site.pp", 3)
	res := result(
		p("/var/lib/dpkg/status", a("Package[a]", "p", 10), a("Package[b]", "c", 20)),
		p("/var/lib/apt/lists/x_Packages", a("Exec[apt-get update]", "p", 5), a("Package[b]", "c", 21)),
	)
	expect(t, Detect(res, g, Options{}), "MOR Exec[apt-get update]->Package[b] /var/lib/apt/lists/x_Packages")
}

// An Exec that runs only when notified (refreshonly) is notified like a
// Service: one that read what an ordered File wrote must be notified by it
// (MN), or a later change of the File alone leaves its work stale. Near
// misses: the same Exec without refreshonly, which runs on every apply,
// needs only the order; a notified one; a Package producer, as toward a
// Service, only with PackageNotify.
func TestRefreshOnlyExecIsNotified(t *testing.T) {
	res := result(p("/etc/aliases", a("File[/etc/aliases]", "p", 10), a("Exec[newaliases]", "c", 20)),
		p("/usr/bin/newaliases", a("Package[postfix]", "p", 5), a("Exec[newaliases]", "c", 19)))
	graph := func(refreshonly any) *fakeGraph {
		g := newFake()
		g.Add("Package[postfix]", "m.pp", 1)
		g.Add("File[/etc/aliases]", "m.pp", 2, "content", "x")
		if refreshonly != nil {
			g.Add("Exec[newaliases]", "m.pp", 3, "refreshonly", refreshonly)
		} else {
			g.Add("Exec[newaliases]", "m.pp", 3)
		}
		g.Edge("File[/etc/aliases]", "Exec[newaliases]", before)
		g.Edge("Package[postfix]", "Exec[newaliases]", before)
		return g
	}
	const mn = "MN File[/etc/aliases]->Exec[newaliases] /etc/aliases"
	expect(t, Detect(res, graph(true), Options{}), mn)
	expect(t, Detect(res, graph("true"), Options{}), mn)
	expect(t, Detect(res, graph(nil), Options{}))
	expect(t, Detect(res, graph(false), Options{}))
	g := graph(true)
	g.Edge("File[/etc/aliases]", "Exec[newaliases]", notify)
	expect(t, Detect(res, g, Options{}))
	expect(t, Detect(res, graph(true), Options{PackageNotify: true}), "MN Package[postfix]->Exec[newaliases] /usr/bin/newaliases", mn)
}
