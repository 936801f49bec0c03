package catalog

import (
	"bufio"
	"bytes"
	"errors"
	"sort"
	"strings"
	"testing"
)

// The puppet7-* catalogs were written by Puppet 7.23 (Debian bookworm's
// puppet-agent) running `puppet apply --noop --graph
// --catalog_cache_terminus json` on testdata/catalogs/puppet7-apply.pp; the
// .dot files are the graphs Puppet wrote next to them.

// puppetReach parses the edges of a Puppet graph (`"A" -> "B" [`) and
// returns a function answering whether a path leads from node a to node b.
func puppetReach(t *testing.T, dot []byte) (nodes []string, reach func(a, b string) bool) {
	adj := map[string][]string{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(dot))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		from, to, ok := strings.Cut(line, `" -> "`)
		if !ok || !strings.HasPrefix(from, `"`) {
			continue
		}
		from = from[1:]
		to = strings.TrimSuffix(strings.TrimSuffix(to, ` [`), `"`)
		adj[from] = append(adj[from], to)
		for _, n := range []string{from, to} {
			if !seen[n] {
				seen[n] = true
				nodes = append(nodes, n)
			}
		}
	}
	if len(nodes) == 0 {
		t.Fatal("no edges in Puppet's graph")
	}
	reach = func(a, b string) bool {
		visited := map[string]bool{}
		stack := append([]string{}, adj[a]...)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == b {
				return true
			}
			if !visited[n] {
				visited[n] = true
				stack = append(stack, adj[n]...)
			}
		}
		return false
	}
	return nodes, reach
}

// TestMatchesPuppetExpandedGraph compares our graph with the expanded
// relationship graph Puppet itself ordered the run by: Ordered against
// reachability for every pair of resources in it (whits are only passed
// through), and our explicit and automatic relations between non-container
// resources against Puppet's direct resource-to-resource edges.
func TestMatchesPuppetExpandedGraph(t *testing.T) {
	for _, name := range []string{"puppet7-apply", "puppet7-auto"} {
		t.Run(name, func(t *testing.T) {
			c := mustRead(t, readTestdata(t, name+".json"))
			g := mustGraph(t, c)
			dot := readTestdata(t, name+".expanded.dot")
			nodes, reach := puppetReach(t, dot)
			var resources []string
			for _, n := range nodes {
				if !strings.HasPrefix(n, "Whit[") {
					resources = append(resources, n)
				}
			}
			if len(resources) < 8 {
				t.Fatalf("only %d resources in Puppet's graph", len(resources))
			}
			ordered := 0
			for _, a := range resources {
				ra := lookup(t, c, a)
				for _, b := range resources {
					if a == b {
						continue
					}
					want := reach(a, b)
					if want {
						ordered++
					}
					if got := g.Ordered(ra, lookup(t, c, b)); got != want {
						t.Errorf("Ordered(%s, %s) = %v, Puppet's graph says %v", a, b, got, want)
					}
				}
			}
			if ordered == 0 {
				t.Error("Puppet's graph orders no pair")
			}

			var ours, puppets []string
			for _, rel := range g.Relations {
				if rel.Label&^Contain != 0 && !g.IsContainer(rel.Source) && !g.IsContainer(rel.Target) {
					ours = append(ours, rel.Source.Ref()+" -> "+rel.Target.Ref())
				}
			}
			for _, line := range strings.Split(string(dot), "\n") {
				line = strings.TrimSpace(line)
				if strings.Contains(line, `" -> "`) && !strings.Contains(line, "Whit[") {
					puppets = append(puppets, strings.ReplaceAll(strings.TrimSuffix(line, " ["), `"`, ""))
				}
			}
			if len(puppets) < 8 {
				t.Fatalf("only %d direct edges in Puppet's graph", len(puppets))
			}
			sort.Strings(ours)
			sort.Strings(puppets)
			if strings.Join(ours, "\n") != strings.Join(puppets, "\n") {
				t.Errorf("direct edges:\n%s\nPuppet's:\n%s", strings.Join(ours, "\n"), strings.Join(puppets, "\n"))
			}
		})
	}
	// The notify relationships of puppet7-apply.pp (Puppet's graph has no
	// notify labels).
	checkPaths(t, mustRead(t, readTestdata(t, "puppet7-apply.json")), []pathCheck{
		{"File[ntp.conf]", "Service[fsmove-svc]", true, true},
		{"Package[fsmove-nonexistent-pkg]", "Service[fsmove-svc]", true, false},
		{"File[/tmp/pt/inner]", "Exec[final]", true, true},
		{"File[ntp.conf]", "Notify[hello [x]]", true, true},
		{"File[/tmp/pt/outer]", "Notify[hello [x]]", true, false},
	})
}

// TestPuppetCycle: Puppet refused this catalog with "Found 1 dependency
// cycle: (File[/tmp/pt/] => File[/tmp/pt/repo.list] => Class[Repo] =>
// Stage[pre] => Stage[main] => Class[Main] => File[/tmp/pt/])": a file in
// stage pre autorequires its parent directory, managed in stage main.
func TestPuppetCycle(t *testing.T) {
	c := mustRead(t, readTestdata(t, "puppet7-cycle.json"))
	_, err := c.Graph()
	var ce *CycleError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want the cycle Puppet found", err)
	}
	// Puppet capitalises class titles (Class[Main]); the catalog does not.
	cycles := strings.ToLower(string(readTestdata(t, "puppet7-cycle.cycles.dot")))
	for _, r := range ce.Cycle {
		if !strings.Contains(cycles, `"`+strings.ToLower(r.Ref())+`"`) {
			t.Errorf("%s is not on Puppet's cycles (%v)", r.Ref(), err)
		}
	}
	for _, want := range []string{"File[/tmp/pt/]", "File[/tmp/pt/repo.list]", "Stage[pre]", "Stage[main]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not list %s", err, want)
		}
	}
}

func TestComparePuppet(t *testing.T) {
	for _, name := range []string{"puppet7-apply", "puppet7-auto"} {
		c := mustRead(t, readTestdata(t, name+".json"))
		g := mustGraph(t, c)
		pc, err := g.ComparePuppet(bytes.NewReader(readTestdata(t, name+".expanded.dot")))
		if err != nil {
			t.Fatal(err)
		}
		if !pc.agrees() || len(pc.Unknown) != 0 {
			t.Errorf("%s: missing %q, extra %q, unknown %q", name, pc.Missing, pc.Extra, pc.Unknown)
		}
	}

	// Drop Puppet's edge for "require => Package[…]", add one we do not
	// have, an edge from a container and one to a generated resource.
	c := mustRead(t, readTestdata(t, "puppet7-apply.json"))
	g := mustGraph(t, c)
	dot := string(readTestdata(t, "puppet7-apply.expanded.dot"))
	dropped := `    "Package[fsmove-nonexistent-pkg]" -> "File[ntp.conf]" [`
	if !strings.Contains(dot, dropped) {
		t.Fatal("fixture lacks the edge to drop")
	}
	dot = strings.Replace(dot, dropped, `    "Package[fsmove-nonexistent-pkg]" -> "Exec[final]" [`, 1)
	dot += "\n" + `"Whit[Completed_class[Ntp]]" -> "Whit[Admissible_app::Site[one]]" [` +
		"\n" + `"File[/tmp/pt/]" -> "File[/tmp/pt/generated]" [` + "\n"
	pc, err := g.ComparePuppet(strings.NewReader(dot))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pc.Missing, "; "); got != "Class[Ntp] -> App::Site[one]; Package[fsmove-nonexistent-pkg] -> Exec[final]" {
		t.Errorf("missing: %s", got)
	}
	if got := strings.Join(pc.Extra, "; "); got != "Package[fsmove-nonexistent-pkg] -> File[ntp.conf]" {
		t.Errorf("extra: %s", got)
	}
	if got := strings.Join(pc.Unknown, "; "); got != "File[/tmp/pt/generated]" {
		t.Errorf("unknown: %s", got)
	}
}

func TestDotEdge(t *testing.T) {
	cases := []struct{ line, from, to string }{
		{`    "File[/a]" -> "Exec[b]" [`, "File[/a]", "Exec[b]"},
		{`"Notify[say \"hi\"]" -> "Whit[Completed_class[Main]]" [`, `Notify[say "hi"]`, "Whit[Completed_class[Main]]"},
		{`"A[x -> y]" -> "B[z]"`, "A[x -> y]", "B[z]"},
	}
	for _, tc := range cases {
		from, to, ok := dotEdge(tc.line)
		if !ok || from != tc.from || to != tc.to {
			t.Errorf("dotEdge(%q) = %q, %q, %v", tc.line, from, to, ok)
		}
	}
	for _, line := range []string{`label = "x"`, `"File[/a]" [`, `}`} {
		if _, _, ok := dotEdge(line); ok {
			t.Errorf("dotEdge(%q) accepted", line)
		}
	}
}

// Puppet's graph orders what the catalog alone cannot: autorequires of types
// from modules (mysql_grant's File['/root/.my.cnf'], mysql_user's
// Class['mysql::server'], written as an edge from the class's completed
// whit). Containment edges of the same graph order nothing.
func TestPuppetGraphOrders(t *testing.T) {
	rs := []res{
		{"Class", "Main", nil},
		{"Class", "Mysql::Server", nil},
		{"Package", "mysql-server", nil},
		{"File", "/root/.my.cnf", nil},
		{"Mysql_user", "u@localhost", nil},
		{"Mysql_grant", "u@localhost/*.*", nil},
		{"Exec", "unrelated", map[string]any{"command": "/bin/true"}},
	}
	edges := [][2]string{
		{"Class[Main]", "Class[Mysql::Server]"},
		{"Class[Mysql::Server]", "Package[mysql-server]"},
		{"Class[Main]", "File[/root/.my.cnf]"},
		{"Class[Main]", "Mysql_user[u@localhost]"},
		{"Class[Main]", "Mysql_grant[u@localhost/*.*]"},
		{"Class[Main]", "Exec[unrelated]"},
	}
	dot := `digraph Expanded_relationships {
    "File[/root/.my.cnf]" -> "Mysql_grant[u@localhost/*.*]" [
        fontsize = 8
    ]
    "Whit[Completed_class[Mysql::Server]]" -> "Mysql_user[u@localhost]" [
        fontsize = 8
    ]
    "Whit[Admissible_class[Main]]" -> "Exec[unrelated]" [
        fontsize = 8
    ]
    "Exec[unrelated]" -> "Whit[Completed_class[Main]]" [
        fontsize = 8
    ]
}`
	pairs := []struct {
		a, b string
		want bool
	}{
		{"File[/root/.my.cnf]", "Mysql_grant[u@localhost/*.*]", true},
		{"Package[mysql-server]", "Mysql_user[u@localhost]", true},
		{"Mysql_grant[u@localhost/*.*]", "File[/root/.my.cnf]", false},
		{"Exec[unrelated]", "Mysql_grant[u@localhost/*.*]", false},
		{"Mysql_grant[u@localhost/*.*]", "Exec[unrelated]", false},
	}
	for _, withPuppet := range []bool{false, true} {
		c := mustRead(t, catalogJSON(t, rs, edges))
		if withPuppet {
			if err := c.AddPuppetGraph(strings.NewReader(dot)); err != nil {
				t.Fatal(err)
			}
		}
		g, err := c.Graph()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pairs {
			a, _ := c.Lookup(p.a)
			b, _ := c.Lookup(p.b)
			want := p.want && withPuppet
			if got := g.Ordered(a, b); got != want {
				t.Errorf("with Puppet's graph %v: Ordered(%s, %s) = %v, want %v", withPuppet, p.a, p.b, got, want)
			}
		}
	}
}
