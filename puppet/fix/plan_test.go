package fix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
)

// testdataManifest reads testdata/NAME.pp and what Puppet's parser said
// of it, testdata/NAME.json (TestLocateCases keeps it true).
func testdataManifest(tb testing.TB, name string) (text, data []byte) {
	tb.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", name+".pp"))
	if err != nil {
		tb.Fatal(err)
	}
	data, err = os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	return text, data
}

// testdataSource is testdata/NAME.pp as Make and Plant take it, by the
// name NAME.pp.
func testdataSource(tb testing.TB, name string) map[string]*Source {
	tb.Helper()
	text, data := testdataManifest(tb, name)
	m, err := ParseManifests([]byte(`{"files":[` + string(data) + `]}`))
	if err != nil {
		tb.Fatal(err)
	}
	return map[string]*Source{name + ".pp": {Text: text, Manifest: &m.Files[0]}}
}

// casesSource is testdata/cases.pp with what Puppet's parser said of it.
func casesSource(t *testing.T) map[string]*Source { return testdataSource(t, "cases") }

// in is a resource declared in cases.pp at line; out one declared
// elsewhere (a dependency's, the node's).
func in(typ, title string, line int) *catalog.Resource {
	return &catalog.Resource{Type: typ, Title: title, File: "cases.pp", Line: line}
}

func out(typ, title string) *catalog.Resource {
	return &catalog.Resource{Type: typ, Title: title, File: "/dep/manifests/init.pp", Line: 3}
}

// planCase is one target (or several) and what the edited file must hold:
// each of want is a run of whole lines of it, gone a run that is no more.
type planCase struct {
	name    string
	targets []Target
	want    []string
	gone    []string
	skipped string // a part of the reason when the target gets no edit
	note    string
}

var pkg = out("Package", "pkg")

func tg(n int, kind string, p, c *catalog.Resource) Target {
	return Target{Number: n, Kind: kind, Producer: p, Consumer: c}
}

var planCases = []planCase{
	{name: "aligned", targets: []Target{tg(1, "MOR", pkg, in("File", "/etc/aligned.conf", 6))},
		want: []string{"    content => \"x\\n\",\n    require => Package['pkg'],\n  }\n"}},
	{name: "realigned", targets: []Target{tg(1, "MOR", pkg, in("File", "/etc/realign.conf", 12))},
		want: []string{"    ensure  => file,\n    mode    => '0644',\n    require => Package['pkg'],\n  }\n"}},
	{name: "no trailing comma", targets: []Target{tg(1, "MOR", pkg, in("File", "/etc/plain.conf", 18))},
		want: []string{"    owner => 'root',\n    require => Package['pkg']\n  }\n"}},
	{name: "one line", targets: []Target{tg(1, "MOR", pkg, in("File", "/etc/oneline.conf", 24))},
		want: []string{"  file { '/etc/oneline.conf': ensure => file, require => Package['pkg'] }\n"}},
	{name: "no attribute", targets: []Target{tg(1, "MOR", pkg, in("File", "/etc/empty.conf", 27))},
		want: []string{"  file { '/etc/empty.conf': require => Package['pkg'] }\n"}},
	{name: "one reference becomes an array", targets: []Target{tg(1, "MOR", pkg, in("Exec", "one-ref", 30))},
		want: []string{"    require => [Package['a'], Package['pkg']],\n"}},
	{name: "an array on one line", targets: []Target{tg(1, "MOR", pkg, in("Exec", "array", 36))},
		want: []string{"    require => [Package['a'], Package['b'], Package['pkg']],\n"}},
	{name: "an array a line each", targets: []Target{tg(1, "MOR", pkg, in("Exec", "lines", 42))},
		want: []string{"      Package['b'],\n      Package['pkg'],\n    ],\n"}},
	{name: "two targets on one body share the attribute", targets: []Target{tg(1, "MOR", pkg, in("File", "/etc/aligned.conf", 6)), tg(2, "MOR", out("User", "app"), in("File", "/etc/aligned.conf", 6))},
		want: []string{"    require => [Package['pkg'], User['app']],\n  }\n"}},
	{name: "a chain of the two classes", targets: []Target{tg(1, "MN", in("File", "/etc/aligned.conf", 6), in("Service", "svc", 53))},
		want: []string{"  Class['cases::config'] ~> Class['cases::service']\n"}},
	{name: "a chain of the two resources", targets: []Target{tg(1, "MN", out("File", "/etc/chained.conf"), out("Service", "other"))},
		want: []string{"  File['/etc/chained.conf'] ~> Service['other']\n"}},
	{name: "before becomes notify", targets: []Target{tg(1, "MN", in("File", "/etc/ordered.conf", 68), in("Service", "svc", 53))},
		want: []string{"    ensure => file,\n    notify => Service['svc'],\n  }\n"}, gone: []string{"before"}},
	{name: "a required element becomes subscribed", targets: []Target{tg(1, "MN", out("File", "/etc/listed.conf"), in("Service", "svc", 53))},
		want: []string{"    ensure    => running,\n    require   => [Package['a'], Package['b']],\n    subscribe => File['/etc/listed.conf'],\n  }\n"}},
	{name: "the one element left is no array", targets: []Target{tg(1, "MN", out("Package", "b"), in("Service", "svc", 53)), tg(2, "MN", out("File", "/etc/listed.conf"), in("Service", "svc", 53))},
		want: []string{"    require   => Package['a'],\n    subscribe => [File['/etc/listed.conf'], Package['b']],\n"}},
	{name: "a converted ordering and a new notification share one attribute", targets: []Target{tg(1, "MN", in("File", "/etc/ordered.conf", 68), in("Service", "svc", 53)), tg(2, "MN", in("File", "/etc/ordered.conf", 68), out("Service", "apache2"))},
		want: []string{"    before => Service['svc'],\n    notify => [Service['apache2'], Service['svc']],\n  }\n"}},
	{name: "notify on the producer", targets: []Target{tg(1, "MN", in("File", "/etc/plain.conf", 18), out("Service", "apache2"))},
		want: []string{"    owner => 'root',\n    notify => Service['apache2']\n"}},
	{name: "in a defined type, for every instance", targets: []Target{tg(1, "MN", in("File", "/etc/instance-web.conf", 81), in("Service", "instance-web", 85))},
		want: []string{"    ensure => file,\n    notify => Service[\"instance-${title}\"],\n  }\n"}, note: "every instance"},
	{name: "a computed title elsewhere is not named: the edit goes in the defined type", targets: []Target{tg(1, "MOR", in("File", "/etc/instance-web.conf", 81), in("File", "/etc/aligned.conf", 6))},
		want: []string{"    ensure => file,\n    before => File['/etc/aligned.conf'],\n  }\n"}, note: "every instance"},
	{name: "a require set by a variable is not extended", targets: []Target{tg(1, "MOR", pkg, in("Exec", "variable", 74))},
		skipped: "not a reference fsmove can extend"},
	{name: "a notification that would make a cycle is withdrawn", targets: []Target{{Number: 1, Kind: "MN", Producer: in("File", "/etc/plain.conf", 18), Consumer: out("Service", "apache2"), Reversed: true}},
		skipped: "dependency cycle"},
	{name: "a reference to a resource declared under a condition is said", targets: []Target{tg(1, "MOR", in("File", "/etc/guarded.conf", 93), in("Exec", "uses-guarded", 102))},
		want: []string{"  exec { 'uses-guarded':\n    command => '/bin/true',\n    require => File['/etc/guarded.conf'],\n  }\n"}, note: "declared only inside a branch of the if or unless at line 92"},
	{name: "under the same condition, nothing to say", targets: []Target{tg(1, "MOR", in("File", "/etc/guarded.conf", 93), in("Exec", "beside-guarded", 97))},
		want: []string{"    exec { 'beside-guarded':\n      command => '/bin/true',\n      require => File['/etc/guarded.conf'],\n    }\n"}},
	{name: "a title computed from a parameter of the class is named by its expression", targets: []Target{tg(1, "MOR", in("File", "/srv/app/app.rc", 111), in("Exec", "uses-rc", 119))},
		want: []string{"  exec { 'uses-rc':\n    command => '/bin/true',\n    require => File[\"${home}/app.rc\"],\n  }\n"}},
	{name: "a title from a local variable is not: the other form", targets: []Target{tg(1, "MOR", in("File", "/srv/app/local", 115), in("Exec", "uses-rc", 119))},
		want: []string{"  file { $local:\n    ensure => directory,\n    before => Exec['uses-rc'],\n  }\n"}},
	{name: "a declaration the catalog's line does not show", targets: []Target{tg(1, "MOR", pkg, in("File", "/etc/nowhere.conf", 7))},
		skipped: "no declaration of File[/etc/nowhere.conf]"},
}

// TestMake: each case's edit, applied, gives the lines it wants and
// changes nothing else (every other line of the file stays, in order).
func TestMake(t *testing.T) {
	for _, c := range planCases {
		t.Run(c.name, func(t *testing.T) {
			sources := casesSource(t)
			p := Make(c.targets, sources)
			if c.skipped != "" {
				if len(p.Edits) != 0 || len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Why, c.skipped) {
					t.Fatalf("want no edit, skipped for %q; got edits %+v, skipped %+v", c.skipped, p.Edits, p.Skipped)
				}
				return
			}
			if len(p.Skipped) != 0 {
				t.Fatalf("skipped: %+v", p.Skipped)
			}
			edited, err := Apply(p.Edits, sources)
			if err != nil {
				t.Fatal(err)
			}
			got := string(edited["cases.pp"])
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("the edited file lacks\n%s\nedits: %+v", w, p.Edits)
				}
			}
			for _, g := range c.gone {
				before := strings.Count(string(sources["cases.pp"].Text), g)
				if strings.Count(got, g) != before-1 {
					t.Errorf("%q should be gone once from the edited file", g)
				}
			}
			if !onlyAdds(string(sources["cases.pp"].Text), got, c.gone) {
				t.Errorf("the edit removed or reordered lines it should keep:\n%s", got)
			}
			if c.note != "" && (len(p.Notes) != 1 || !strings.Contains(p.Notes[0], c.note)) || c.note == "" && len(p.Notes) > 0 {
				t.Errorf("notes %q, want one saying %q", p.Notes, c.note)
			}
			said := map[int]bool{}
			for _, e := range p.Edits {
				if len(e.Findings) == 0 {
					t.Errorf("edit %+v is for no finding", e)
				}
				for _, n := range e.Findings {
					said[n] = said[n] || e.Says != ""
				}
			}
			for _, tg := range c.targets {
				if !said[tg.Number] {
					t.Errorf("no edit says what it does for finding %d: %+v", tg.Number, p.Edits)
				}
			}
		})
	}
}

// onlyAdds reports whether every line of old that holds none of changed
// (words the edit may change) is in new, in order.
func onlyAdds(old, new string, changed []string) bool {
	rest := strings.Split(new, "\n")
	for _, l := range strings.Split(old, "\n") {
		if strings.TrimSpace(l) == "" || strings.HasSuffix(l, ": }") || strings.Contains(l, "=>") || strings.Contains(l, "->") || strings.Contains(l, "Package[") {
			continue // an attribute, an arrow, an element or an empty body may be edited in place
		}
		i := 0
		for i < len(rest) && rest[i] != l {
			i++
		}
		if i == len(rest) {
			return false
		}
		rest = rest[i+1:]
	}
	return true
}

// TestDiff: the diff names the file under a/ and b/ and holds the edit's
// lines as additions, and only those.
func TestDiff(t *testing.T) {
	sources := casesSource(t)
	p := Make([]Target{tg(1, "MOR", pkg, in("File", "/etc/aligned.conf", 6))}, sources)
	edited, err := Apply(p.Edits, sources)
	if err != nil {
		t.Fatal(err)
	}
	d := Diff(sources, edited, func(f string) string { return "manifests/" + f })
	if !strings.HasPrefix(d, "--- a/manifests/cases.pp\n+++ b/manifests/cases.pp\n@@ ") {
		t.Errorf("diff header:\n%s", d)
	}
	var added, removed []string
	for _, l := range strings.Split(d, "\n")[2:] {
		switch {
		case strings.HasPrefix(l, "+"):
			added = append(added, l)
		case strings.HasPrefix(l, "-"):
			removed = append(removed, l)
		}
	}
	if len(added) != 1 || added[0] != "+    require => Package['pkg']," || len(removed) != 0 {
		t.Errorf("added %q, removed %q; want the one new line", added, removed)
	}
}

func TestParseRef(t *testing.T) {
	for _, c := range []struct {
		text, typ, title string
		ok               bool
	}{
		{`Service['svc']`, "Service", "svc", true},
		{`Service["svc"]`, "Service", "svc", true},
		{`Service[svc]`, "Service", "svc", true},
		{`File['/it\'s']`, "File", "/it's", true},
		{`Apt::Source['x']`, "Apt::Source", "x", true},
		{`Service["svc-${title}"]`, "", "", false},
		{`$deps`, "", "", false},
		{`Service[$name]`, "", "", false},
		{`Service['a', 'b']`, "", "", false},
	} {
		typ, title, ok := parseRef(c.text)
		if typ != c.typ || title != c.title || ok != c.ok {
			t.Errorf("parseRef(%s) = %q %q %v, want %q %q %v", c.text, typ, title, ok, c.typ, c.title, c.ok)
		}
	}
}

// TestSpansOutsideTheText: a locator's answer whose spans do not fit the
// text (the file changed, the output is not Puppet's) places no edit:
// the target is skipped as in a file that does not parse.
func TestSpansOutsideTheText(t *testing.T) {
	sources := casesSource(t)
	sources["cases.pp"].Text = sources["cases.pp"].Text[:200] // shorter than the spans say
	p := Make([]Target{tg(1, "MOR", pkg, in("File", "/etc/aligned.conf", 6))}, sources)
	if len(p.Edits) != 0 || len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Why, "outside the file") {
		t.Errorf("edits %+v, skipped %+v; want none, and the target skipped for spans outside the file", p.Edits, p.Skipped)
	}
}
