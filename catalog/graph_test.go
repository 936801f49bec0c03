package catalog

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestAppCatalogGraph(t *testing.T) {
	c := mustRead(t, readTestdata(t, "app.json"))
	checkPaths(t, c, []pathCheck{
		// require, and notify given by namevar reference Service[ntpd] vs name ntp
		{"Package[ntp]", "File[ntp.conf]", true, false},
		{"File[ntp.conf]", "Package[ntp]", false, false},
		{"File[ntp.conf]", "Service[ntpd]", true, true},
		{"Package[ntp]", "Service[ntpd]", true, false}, // ordered through the file, but require does not notify
		// Stage[pre] before Stage[main]: the repo file precedes everything in main
		{"File[/etc/apt/sources.list.d/app.list]", "Package[ntp]", true, false},
		{"File[/etc/apt/sources.list.d/app.list]", "Exec[build app]", true, false},
		{"Package[ntp]", "File[/etc/apt/sources.list.d/app.list]", false, false},
		// require => [["Class[Ntp]"], "Exec[build app]"]: nested array, edge from a container
		{"Service[ntpd]", "Notify[done [all]]", true, false},
		{"Package[ntp]", "Notify[done [all]]", true, false},
		{"Exec[build app]", "Notify[done [all]]", true, false},
		// subscribe => File[appdir] (an alias)
		{"File[/srv/app/]", "Exec[build app]", true, true},
		// automatic relationships
		{"Group[app]", "User[app]", true, false},                           // User gid by name
		{"User[app]", "File[/srv/app/]", true, false},                      // File owner
		{"File[/srv/app/]", "File[/srv/app/conf/app.ini]", true, false},    // grandparent, parent unmanaged
		{"File[/usr/local/bin/build-app]", "Exec[build app]", true, false}, // command path
		{"User[app]", "Exec[build app]", true, false},                      // exec user (and cwd owner)
		// siblings without relationships
		{"Package[ntp]", "File[/srv/app/]", false, false},
		{"File[/srv/app/]", "Package[ntp]", false, false},
		{"Service[ntpd]", "Exec[build app]", false, false},
		// a container and its child are not ordered against each other
		{"Class[Ntp]", "Package[ntp]", false, false},
		{"Package[ntp]", "Class[Ntp]", false, false},
	})
	g := mustGraph(t, c)
	if len(g.Warnings) != 0 {
		t.Errorf("warnings: %v", g.Warnings)
	}
	fb := lookup(t, c, "Filebucket[puppet]")
	// Filebucket[puppet] has no relationship (and no parent rule, bug 10):
	// only Stage[pre] and its contents precede it, nothing follows it.
	var before []string
	for _, r := range c.Resources {
		if g.Ordered(fb, r) {
			t.Errorf("Filebucket[puppet] ordered before %s", r.Ref())
		}
		if g.Ordered(r, fb) {
			before = append(before, r.Ref())
		}
	}
	if got := strings.Join(before, " "); got != "Stage[pre] Class[Repo] File[/etc/apt/sources.list.d/app.list]" {
		t.Errorf("resources ordered before Filebucket[puppet]: %s", got)
	}
}

func TestRelationshipValueShapes(t *testing.T) {
	rs := []res{
		{"Class", "main", nil},
		{"File", "/a", map[string]any{"before": "File[/b]"}},
		{"File", "/b", map[string]any{"require": []any{"File[/c]", "File[/d]"}}},
		{"File", "/c", nil},
		{"File", "/d", map[string]any{"notify": []any{[]any{"Service[s1]", []any{"Service[s2]"}}}}},
		{"Service", "s1", nil},
		{"Service", "s2", map[string]any{"subscribe": "File[/e]"}},
		{"File", "/e", map[string]any{"before": []any{5.0, map[string]any{"x": 1.0}, true, "File[/nowhere]", "File[/c]"}}},
	}
	c := mustRead(t, catalogJSON(t, rs, nil))
	checkPaths(t, c, []pathCheck{
		{"File[/a]", "File[/b]", true, false},
		{"File[/b]", "File[/a]", false, false},
		{"File[/c]", "File[/b]", true, false},
		{"File[/d]", "File[/b]", true, false},
		{"File[/d]", "Service[s1]", true, true},
		{"File[/d]", "Service[s2]", true, true},
		{"File[/e]", "Service[s2]", true, true},
		{"File[/e]", "File[/c]", true, false},
		{"File[/e]", "File[/b]", true, false}, // e -> c -> b
		{"File[/c]", "Service[s1]", false, false},
	})
	g := mustGraph(t, c)
	// 5.0, the map, true and the unknown reference: four warnings.
	if len(g.Warnings) != 4 {
		t.Fatalf("warnings %q", g.Warnings)
	}
	joined := strings.Join(g.Warnings, "\n")
	for _, want := range []string{"float64", "map[string]interface {}", "bool", `"File[/nowhere]": unknown resource`} {
		if !strings.Contains(joined, want) {
			t.Errorf("no warning mentions %q in\n%s", want, joined)
		}
	}
}

// containmentCatalog: Stage[main] contains Class[A], Class[B], Class[Outer]
// and a few plain resources; Class[Outer] contains Class[Inner].
func containmentCatalog(t *testing.T) []byte {
	rs := []res{
		{"Stage", "main", nil},
		{"Class", "main", nil},
		{"Class", "A", map[string]any{"before": "Class[B]", "notify": "Service[s]"}},
		{"File", "/a1", nil},
		{"File", "/a2", nil},
		{"Class", "B", nil},
		{"File", "/b1", nil},
		{"Service", "b", nil},
		{"File", "/x", map[string]any{"before": "Class[a]"}},     // into a container, lower-case title
		{"File", "/y", map[string]any{"require": "Class[A]"}},    // out of a container
		{"File", "/c", map[string]any{"notify": "Class[B]"}},     // notify into a class
		{"Service", "s", nil},                                    // notified by Class[A]
		{"Service", "s2", map[string]any{"require": "Class[A]"}}, // ordered only
		{"Class", "Outer", map[string]any{"before": "File[/z]"}},
		{"Class", "Inner", nil},
		{"File", "/deep", nil},
		{"File", "/z", nil},
		{"Class", "Empty", map[string]any{"require": "File[/x]", "before": "File[/z]"}},
	}
	edges := [][2]string{
		{"Stage[main]", "Class[Main]"},
		{"Stage[main]", "Class[A]"},
		{"Stage[main]", "Class[B]"},
		{"Stage[main]", "Class[Outer]"},
		{"Stage[main]", "Class[Empty]"},
		{"Class[Inner]", "File[/deep]"}, // child edge listed before its parent's (bug 8)
		{"Class[Outer]", "Class[Inner]"},
		{"Class[A]", "File[/a1]"},
		{"Class[A]", "File[/a2]"},
		{"Class[B]", "File[/b1]"},
		{"Class[B]", "Service[b]"},
		{"Class[Main]", "File[/x]"},
		{"Class[Main]", "File[/y]"},
		{"Class[Main]", "File[/c]"},
		{"Class[Main]", "Service[s]"},
		{"Class[Main]", "Service[s2]"},
		{"Class[Main]", "File[/z]"},
	}
	return catalogJSON(t, rs, edges)
}

var containmentChecks = []pathCheck{
	// Class[A] before Class[B]: every resource of A precedes every one of B
	{"File[/a1]", "File[/b1]", true, false},
	{"File[/a2]", "Service[b]", true, false},
	{"File[/b1]", "File[/a1]", false, false},
	// an edge into a container reaches its children
	{"File[/x]", "File[/a1]", true, false},
	{"File[/x]", "File[/b1]", true, false},
	{"File[/a1]", "File[/x]", false, false},
	// an edge out of a container leaves from its children
	{"File[/a1]", "File[/y]", true, false},
	{"File[/a2]", "File[/y]", true, false},
	{"File[/y]", "File[/a1]", false, false},
	// a notify into a class reaches the services inside it
	{"File[/c]", "Service[b]", true, true},
	{"File[/c]", "File[/a1]", false, false},
	// a notify out of a class leaves from its children
	{"File[/a1]", "Service[s]", true, true},
	{"File[/a2]", "Service[s]", true, true},
	// a before out of a class orders but does not notify
	{"File[/a1]", "Service[s2]", true, false},
	{"File[/a1]", "Service[b]", true, false},
	// nested containers, edges listed child first
	{"File[/deep]", "File[/z]", true, false},
	{"File[/z]", "File[/deep]", false, false},
	// an empty class still carries order: /x -> Class[Empty] -> /z
	{"File[/x]", "File[/z]", true, false},
	// no relation between siblings of one class
	{"File[/a1]", "File[/a2]", false, false},
	{"File[/x]", "File[/c]", false, false},
	// /x before Class[A], /y after it: ordered through the class
	{"File[/x]", "File[/y]", true, false},
	{"File[/y]", "File[/x]", false, false},
}

func TestContainment(t *testing.T) {
	checkPaths(t, mustRead(t, containmentCatalog(t)), containmentChecks)
}

func TestStages(t *testing.T) {
	rs := []res{
		{"Stage", "main", nil},
		{"Stage", "pre", map[string]any{"before": "Stage[main]"}},
		{"Stage", "post", map[string]any{"require": "Stage[main]"}},
		{"Class", "main", nil},
		{"Class", "Repo", map[string]any{"stage": "pre"}},
		{"Class", "Report", map[string]any{"stage": "post"}},
		{"Exec", "apt-get update", map[string]any{"path": "/usr/bin"}},
		{"Package", "nginx", nil},
		{"Service", "nginx", nil},
		{"File", "/var/log/report", nil},
	}
	edges := [][2]string{
		{"Stage[main]", "Class[main]"},
		{"Stage[pre]", "Class[Repo]"},
		{"Stage[post]", "Class[Report]"},
		{"Class[Repo]", "Exec[apt-get update]"},
		{"Class[main]", "Package[nginx]"},
		{"Class[main]", "Service[nginx]"},
		{"Class[Report]", "File[/var/log/report]"},
	}
	checkPaths(t, mustRead(t, catalogJSON(t, rs, edges)), []pathCheck{
		{"Exec[apt-get update]", "Package[nginx]", true, false},
		{"Exec[apt-get update]", "Service[nginx]", true, false},
		{"Exec[apt-get update]", "File[/var/log/report]", true, false},
		{"Service[nginx]", "File[/var/log/report]", true, false},
		{"Package[nginx]", "Exec[apt-get update]", false, false},
		{"File[/var/log/report]", "Package[nginx]", false, false},
		{"Package[nginx]", "Service[nginx]", false, false},
	})
}

// TestOrderIndependence answers every pair's Ordered and Notifies on the
// catalogs as written and with resources and edges shuffled.
func TestOrderIndependence(t *testing.T) {
	for name, data := range map[string][]byte{
		"app":         readTestdata(t, "app.json"),
		"containment": containmentCatalog(t),
		"auto":        autoCatalog(t),
	} {
		t.Run(name, func(t *testing.T) {
			want := answers(t, mustRead(t, data))
			for seed := int64(1); seed <= 8; seed++ {
				got := answers(t, mustRead(t, shuffled(t, data, seed)))
				if len(got) != len(want) {
					t.Fatalf("seed %d: %d answers, want %d", seed, len(got), len(want))
				}
				for k, v := range want {
					if got[k] != v {
						t.Errorf("seed %d: %s = %v, want %v", seed, k, got[k], v)
					}
				}
			}
		})
	}
}

// answers maps "A -> B" to Ordered and Notifies over all pairs, by reference.
func answers(t *testing.T, c *Catalog) map[string][2]bool {
	g := mustGraph(t, c)
	out := map[string][2]bool{}
	n := 0
	for _, a := range c.Resources {
		for _, b := range c.Resources {
			o, nf := g.Ordered(a, b), g.Notifies(a, b)
			if o {
				n++
			}
			if nf && !o {
				t.Errorf("Notifies(%s, %s) without Ordered", a.Ref(), b.Ref())
			}
			out[a.Ref()+" -> "+b.Ref()] = [2]bool{o, nf}
		}
	}
	if n == 0 {
		t.Error("no ordered pair at all")
	}
	return out
}

// TestCycle checks the cycle a CycleError lists: its resources in edge
// order from the first on the cycle, the first repeated at the end, and
// no error for a catalog without a cycle.
func TestCycle(t *testing.T) {
	cases := []struct {
		name  string
		rs    []res
		edges [][2]string
		want  []string // the cycle in order, closed; nil: no cycle
	}{
		{"before/require", []res{
			{"File", "/a", map[string]any{"before": "File[/b]"}},
			{"File", "/b", map[string]any{"before": "Exec[c]"}},
			{"Exec", "c", map[string]any{"before": "File[/a]"}},
			{"File", "/d", map[string]any{"require": "File[/a]"}},
		}, nil, []string{"File[/a]", "File[/b]", "Exec[c]", "File[/a]"}},
		{"the other way round", []res{
			{"File", "/a", map[string]any{"require": "File[/b]"}},
			{"File", "/b", map[string]any{"require": "Exec[c]"}},
			{"Exec", "c", map[string]any{"require": "File[/a]"}},
		}, nil, []string{"File[/a]", "Exec[c]", "File[/b]", "File[/a]"}},
		{"self", []res{
			{"File", "/a", map[string]any{"require": "File[/a]"}},
		}, nil, []string{"File[/a]", "File[/a]"}},
		{"child requires its class's successor", []res{
			{"Class", "A", map[string]any{"before": "File[/out]"}},
			{"File", "/in", map[string]any{"require": "File[/out]"}},
			{"File", "/out", nil},
		}, [][2]string{{"Class[A]", "File[/in]"}}, []string{"Class[A]", "File[/out]", "File[/in]", "Class[A]"}},
		{"auto and explicit", []res{
			{"User", "app", map[string]any{"require": "File[/home/app]"}},
			{"File", "/home/app", map[string]any{"owner": "app", "require": "Exec[x]"}},
			{"Exec", "x", map[string]any{"user": "app"}},
		}, nil, []string{"User[app]", "Exec[x]", "File[/home/app]", "User[app]"}},
		{"no cycle: a diamond", []res{
			{"File", "/a", map[string]any{"before": []any{"File[/b]", "File[/c]"}}},
			{"File", "/b", map[string]any{"before": "Exec[d]"}},
			{"File", "/c", map[string]any{"before": "Exec[d]", "require": "File[/b]"}},
			{"Exec", "d", nil},
		}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := mustRead(t, catalogJSON(t, tc.rs, tc.edges))
			g, err := c.Graph()
			if g == nil {
				t.Fatal("no graph")
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			var ce *CycleError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *CycleError", err)
			}
			var got []string
			for _, r := range ce.Cycle {
				got = append(got, r.Ref())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("cycle %q, want %q", got, tc.want)
			}
			if msg := "catalog: dependency cycle: " + strings.Join(tc.want, " => "); err.Error() != msg {
				t.Errorf("error %q, want %q", err, msg)
			}
		})
	}
}

func TestNoCycleInRealisticCatalogs(t *testing.T) {
	for _, data := range [][]byte{readTestdata(t, "app.json"), containmentCatalog(t), autoCatalog(t)} {
		if _, err := mustRead(t, data).Graph(); err != nil {
			t.Error(err)
		}
	}
}

func TestGraphIsBuiltOnce(t *testing.T) {
	c := mustRead(t, readTestdata(t, "app.json"))
	g1, _ := c.Graph()
	g2, _ := c.Graph()
	if g1 != g2 || g1.Catalog() != c {
		t.Error("Graph built twice")
	}
}

func TestIsContainer(t *testing.T) {
	c := mustRead(t, readTestdata(t, "app.json"))
	g := mustGraph(t, c)
	var got []string
	for _, r := range c.Resources {
		if g.IsContainer(r) {
			got = append(got, r.Ref())
		}
	}
	// Class[Settings] contains nothing: it is not a container.
	if s := strings.Join(got, " "); s != "Stage[main] Stage[pre] Class[main] Class[Repo] Class[Ntp]" {
		t.Errorf("containers: %s", s)
	}
}

func TestQueriesRejectForeignResources(t *testing.T) {
	c1 := mustRead(t, readTestdata(t, "app.json"))
	c2 := mustRead(t, readTestdata(t, "app.json"))
	g := mustGraph(t, c1)
	a, b := lookup(t, c2, "Package[ntp]"), lookup(t, c1, "File[ntp.conf]")
	if g.Ordered(a, b) || g.Notifies(a, b) || g.Ordered(nil, b) || g.Ordered(b, b) {
		t.Error("query on a resource of another catalog, nil, or the same resource answered true")
	}
}

func TestWriteDOT(t *testing.T) {
	c := mustRead(t, readTestdata(t, "app.json"))
	g := mustGraph(t, c)
	pkg, svc := lookup(t, c, "Package[ntp]"), lookup(t, c, "Service[ntpd]")
	var sb strings.Builder
	if err := g.WriteDOT(&sb, [][2]*Resource{{pkg, svc}}); err != nil {
		t.Fatal(err)
	}
	dot := sb.String()
	for _, want := range []string{
		`digraph {`,
		`"File[/srv/app/]" -> "File[/srv/app/conf/app.ini]" [ label="auto",`,
		`"Package[ntp]" -> "File[ntp.conf]" [ label="before",`,
		`"File[ntp.conf]" -> "Service[ntpd]" [ color="blue", label="notify",`,
		`"Class[Ntp]" -> "Package[ntp]" [ color="gray", label="contain",`,
		`"Package[ntp]" -> "Service[ntpd]" [ color="red", label="missing", style="dashed",`,
		`"Notify[done [all]]" [`,
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %s", want)
		}
	}
	if n := strings.Count(dot, " -> "); n != len(g.Relations)+1 {
		t.Errorf("%d DOT edges, want %d relations + 1 highlight", n, len(g.Relations))
	}
	// Titles with quotes are escaped.
	c2 := mustRead(t, catalogJSON(t, []res{{"Notify", `say "hi" \o/`, nil}}, nil))
	sb.Reset()
	if err := mustGraph(t, c2).WriteDOT(&sb, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), `"Notify[say \"hi\" \\o/]"`) {
		t.Errorf("unescaped title in\n%s", sb.String())
	}
	if err := g.WriteDOT(&sb, [][2]*Resource{{pkg, lookup(t, c2, `Notify[say "hi" \o/]`)}}); err == nil {
		t.Error("highlight of a foreign resource accepted")
	}
}

func ExampleGraph_Notifies() {
	c, err := ReadFile("../testdata/catalogs/app.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	g, _ := c.Graph()
	conf, _ := c.Lookup("File[/etc/ntp.conf]")
	svc, _ := c.Lookup("Service[ntp]")
	pkg, _ := c.Lookup("Package[ntp]")
	fmt.Println(g.Notifies(conf, svc), g.Ordered(pkg, svc), g.Notifies(pkg, svc))
	// Output: true true false
}

func TestGraphOfHandMadeCatalog(t *testing.T) {
	a := &Resource{ID: 0, Type: "File", Title: "/a", Params: map[string]any{"before": "File[/b]"}}
	b := &Resource{ID: 1, Type: "File", Title: "/b"}
	stray := &Resource{ID: 7, Type: "Class", Title: "x"}
	c := &Catalog{Resources: []*Resource{a, b}, Edges: []Edge{{stray, a}}}
	g, err := c.Graph()
	if err != nil {
		t.Fatal(err)
	}
	if !g.Ordered(a, b) || g.Ordered(b, a) || len(g.Warnings) != 1 {
		t.Errorf("Ordered(a, b) %v, Ordered(b, a) %v, warnings %v", g.Ordered(a, b), g.Ordered(b, a), g.Warnings)
	}
	bad := &Catalog{Resources: []*Resource{b}}
	if _, err := bad.Graph(); err == nil {
		t.Error("resource with ID 1 at index 0 accepted")
	}
}

// Notifiers lists every resource with a notification path to r, through
// containers too, and none with only an ordering.
func TestNotifiers(t *testing.T) {
	c, err := ReadFile("../testdata/catalogs/app.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Graph()
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := c.Lookup("Service[ntp]")
	conf, _ := c.Lookup("File[/etc/ntp.conf]")
	pkg, _ := c.Lookup("Package[ntp]")
	got := g.Notifiers(svc)
	if !slices.Contains(got, conf) || slices.Contains(got, pkg) || slices.Contains(got, svc) {
		t.Errorf("Notifiers(Service[ntp]) = %v: want File[/etc/ntp.conf], not Package[ntp] (ordered only) nor itself", got)
	}
	for _, n := range got {
		if !g.Notifies(n, svc) {
			t.Errorf("%s listed, but does not notify", n.Ref())
		}
	}
	if g.Notifiers(&Resource{ID: 99, Type: "Exec", Title: "stray"}) != nil {
		t.Error("a resource of another catalog has notifiers")
	}
}
