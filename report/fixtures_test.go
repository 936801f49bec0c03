package report

import (
	"fmt"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/detector/detectortest"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// The tests' short names for detectortest's hand-built inputs, as the
// detector's tests have them.
type fakeGraph = detectortest.Graph

const before = detectortest.Before

var (
	newFake = detectortest.NewGraph
	p       = detectortest.Path
	a       = detectortest.Access
	at      = detectortest.At
	result  = detectortest.Result
	failed  = detectortest.Failed
)

// The runs below are the detector's tests' own (detect_test.go,
// idempotence_test.go, group_test.go), so that a report here shows what
// the analysis of the same run found there.

// summary renders findings compactly: "MOR File[/etc/x]->Exec[use] /etc/x".
func summary(rep *detector.Report) []string {
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

func serviceGraph() *fakeGraph {
	g := newFake()
	g.Add("File[/etc/x.conf]", "x.pp", 3)
	g.Add("Service[x]", "x.pp", 9)
	g.Add("Package[x]", "x.pp", 1)
	g.Add("Class[X]", "x.pp", 1)
	return g
}

// niGraph: an unguarded Exec, a guarded one, a File, a File and an Exec
// that fight over one path, and a refreshonly Exec.
func niGraph() *fakeGraph {
	g := newFake()
	g.Add("Exec[stamp]", "site.pp", 1)
	g.Add("Exec[guarded]", "site.pp", 2, "creates", "/etc/marker")
	g.Add("File[/etc/time]", "site.pp", 3)
	g.Add("File[/etc/conf]", "site.pp", 4)
	g.Add("Exec[rewrite]", "site.pp", 5, "unless", "grep -q x /etc/conf")
	g.Add("Exec[reload]", "site.pp", 6, "refreshonly", true)
	g.Add("Exec[once]", "site.pp", 7)
	g.Add("Service[daemon]", "site.pp", 8)
	g.Add("Service[flag]", "site.pp", 9)
	g.Add("Notify[hello]", "site.pp", 10)
	return g
}

func changed(ref string, events ...catalog.ResourceEvent) catalog.ResourceStatus {
	return catalog.ResourceStatus{Ref: ref, Changed: true, Events: events}
}

// niInput are two applies of niGraph's catalog: the first apply writes on
// trace lines 10 to 13, the second on 20 to 25; each resource but
// Exec[reload] and File[/etc/stable] is non-idempotent (Exec[once] fails
// in the second apply only, File[/etc/conf] and Exec[rewrite] fight).
func niInput() *detector.Idempotence {
	first := result(
		p("/etc/stamp", a("Exec[stamp]", "p", 10)),
		p("/etc/time", a("File[/etc/time]", "p", 11)),
		p("/etc/conf", a("File[/etc/conf]", "p", 12), a("Exec[rewrite]", "p", 13)),
	)
	second := result(
		p("/etc/stamp", a("Exec[stamp]", "p", 20)),
		p("/etc/time", a("File[/etc/time]", "p", 21)),
		p("/etc/conf", a("File[/etc/conf]", "p", 22), a("Exec[rewrite]", "p", 23)),
		p("/etc/marker", a("Exec[guarded]", "p", 24)),
		p("/proc/self/status", a("Exec[stamp]", "p", 25)), // filtered
	)
	return &detector.Idempotence{
		TraceNames: [2]string{"trace.log", "second/trace.log"},
		First:      []catalog.ResourceStatus{{Ref: "Exec[once]"}, {Ref: "Exec[reload]", Failed: true}},
		Second: []catalog.ResourceStatus{
			changed("Exec[stamp]", catalog.ResourceEvent{Property: "returns", Previous: "notrun", Desired: "0"}),
			changed("File[/etc/time]", catalog.ResourceEvent{Property: "content", Previous: "{sha256}aa", Desired: "{sha256}bb"}),
			changed("File[/etc/conf]"),
			changed("Exec[rewrite]"),
			changed("Exec[guarded]"),
			{Ref: "Exec[once]", Failed: true, Events: []catalog.ResourceEvent{{Status: "failure", Message: "returned 1"}}},
			{Ref: "Exec[reload]", Failed: true}, // failed in both: not NI
			{Ref: "File[/etc/stable]"},          // unchanged
			changed("Notify[unknown]"),
			changed("Service[daemon]", catalog.ResourceEvent{Property: "ensure", Previous: "stopped", Desired: "running"}),
			// Not started again: a property other than ensure.
			changed("Service[flag]", catalog.ResourceEvent{Property: "enable", Previous: "false", Desired: "true"}),
			changed("Notify[hello]", catalog.ResourceEvent{Property: "message", Previous: "absent", Desired: "hello"}),
		},
		FirstTrace: first, SecondTrace: second,
	}
}

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
func mkFinding(res map[string]*catalog.Resource, producer, consumer string, paths ...string) detector.Finding {
	f := detector.Finding{Kind: detector.MOR, Producer: res[producer], Consumer: res[consumer], Confidence: detector.Content}
	for _, p := range paths {
		rel := detector.Consumes
		if path, ok := strings.CutSuffix(p, ":overwrites"); ok {
			p, rel = path, detector.Overwrites
		}
		f.Paths = append(f.Paths, detector.PathConflict{Path: p, Producer: f.Producer, Consumer: f.Consumer, Relation: rel,
			ProducerEffect: fstrace.Produced, ConsumerEffect: fstrace.Consumed,
			ProducerEvidence: interp.NewEvidence("rename", 1), ConsumerEvidence: interp.NewEvidence("openat", 2)})
	}
	return f
}
