package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
)

const manifest = `class m {
  file { '/etc/a':
    ensure  => file,
    require => Package['p'],
    notify  => [Service["s"], Exec['e']],
  }
  file { '/etc/b':
    before => [
      Service['s'],
      Exec['e'],
    ],
  }
  file { '/etc/c':
    require => File[$dir],
  }
  package { 'p': }
}
`

// Each form of a metaparameter's value loses exactly the reference asked
// for; near misses: a reference the attribute does not name, a value built
// from a variable, an attribute of another declaration.
func TestMutate(t *testing.T) {
	for _, c := range []struct {
		line          int
		param, other  string
		values        []string // the catalog's
		gone, kept    string   // a line that must go, one that must stay
		wantErrSubstr string
	}{
		{2, "require", "Package[p]", []string{"Package[p]"}, "require => Package['p'],", "notify  => [Service[\"s\"], Exec['e']],", ""},
		{2, "notify", "Service[s]", []string{"Service[s]", "Exec[e]"}, "notify  => [Service[\"s\"], Exec['e']],", "notify => [Exec['e']],", ""},
		{7, "before", "Exec[e]", []string{"Service[s]", "Exec[e]"}, "      Exec['e'],", "      Service['s'],", ""},
		// A variable: the catalog's one value is the one element.
		{13, "require", "File[/x]", []string{"File[/x]"}, "require => File[$dir],", "package { 'p': }", ""},
		{2, "require", "Package[q]", []string{"Package[p]"}, "", "", "not Package[q]"},
		// The catalog has one value more than the source writes (a chain
		// arrow elsewhere): which one is not told.
		{13, "require", "File[/x]", []string{"File[/x]", "File[/y]"}, "", "", "not File[/x]"},
		{7, "before", "Exec[x]", []string{"Service[s]", "Exec[x]", "Exec[e]"}, "", "", "does not name"},
		// A default gave it (File { require => … }): an empty value in
		// the body overrides it; with another value beside it, no.
		{7, "require", "Package[p]", []string{"Package[p]"}, "", "    require => [],", ""},
		{7, "require", "Package[p]", []string{"Package[p]", "Exec[e]"}, "", "", "no require =>"},
	} {
		got, err := mutate([]byte(manifest), c.line, c.param, c.other, c.values)
		if c.wantErrSubstr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErrSubstr) {
				t.Errorf("%d %s %s: err %v, want %q", c.line, c.param, c.other, err, c.wantErrSubstr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%d %s %s: %v", c.line, c.param, c.other, err)
			continue
		}
		if c.gone != "" && strings.Contains(string(got), c.gone+"\n") {
			t.Errorf("%d %s %s: %q still there:\n%s", c.line, c.param, c.other, c.gone, got)
		}
		if !strings.Contains(string(got), c.kept+"\n") {
			t.Errorf("%d %s %s: %q not there:\n%s", c.line, c.param, c.other, c.kept, got)
		}
		if n := strings.Count(manifest, "\n") - strings.Count(string(got), "\n"); n > 1 || n < -1 {
			t.Errorf("%d %s %s: %d lines gone", c.line, c.param, c.other, n)
		}
	}
}

// The relationships between a module's own resources, each way round;
// near misses: a class, and a resource of another module.
func TestRelationships(t *testing.T) {
	c, err := catalog.Read(strings.NewReader(`{"resources": [
	  {"type": "Class", "title": "M", "file": "/fsmove/modules/m/manifests/init.pp", "line": 1},
	  {"type": "File", "title": "/etc/a", "file": "/fsmove/modules/m/manifests/init.pp", "line": 2,
	   "parameters": {"require": "Package[p]", "notify": ["Service[s]", "Class[M]", "File[/other]"]}},
	  {"type": "Package", "title": "p", "file": "/fsmove/modules/m/manifests/init.pp", "line": 16},
	  {"type": "Service", "title": "s", "file": "/fsmove/modules/m/manifests/service.pp", "line": 3},
	  {"type": "File", "title": "/other", "file": "/fsmove/modules/dep/manifests/init.pp", "line": 3}
	], "edges": []}`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Graph()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range relationships(c, g, "/fsmove/modules/m") {
		got = append(got, r.Kind()+" "+r.Before+" "+r.After+" "+r.File)
	}
	want := "MN File[/etc/a] Service[s] manifests/init.pp|MOR Package[p] File[/etc/a] manifests/init.pp"
	if strings.Join(got, "|") != want {
		t.Errorf("relationships:\n got  %q\n want %q", strings.Join(got, "|"), want)
	}
}

// FuzzMutate: any manifest, line and reference is edited or refused
// without a panic, and an edit removes or adds at most one line.
func FuzzMutate(f *testing.F) {
	f.Add([]byte(manifest), 2, "notify", "Service[s]", "Service[s],Exec[e]")
	f.Add([]byte(manifest), 7, "before", "Exec[e]", "Service[s],Exec[e]")
	f.Add([]byte("x { 'a':\n  require => [,],\n}\n"), 1, "require", "A[b]", "A[b]")
	f.Add([]byte("require => [\n"), 1, "require", "[", "")
	f.Fuzz(func(t *testing.T, src []byte, line int, param, other, values string) {
		got, err := mutate(src, line, param, other, strings.Split(values, ","))
		if err != nil {
			return
		}
		if n := strings.Count(string(src), "\n") - strings.Count(string(got), "\n"); n < -1 || n > 1 {
			t.Fatalf("%d lines gone:\n%s\n->\n%s", n, src, got)
		}
	})
}

// A pair held back is read with the rule that held it, which the table's
// note then names; a shown finding is read by kind, either way round.
func TestReported(t *testing.T) {
	run := filepath.Join(t.TempDir(), "m")
	report := `{"findings": [
	{"kind": "MOR", "held_back": true, "held_rule": "only-looked-up", "held_reason": "it only looked",
	 "producer": {"ref": "File[/a]"}, "consumer": {"ref": "Service[s]"}},
	{"kind": "MN", "unordered": true, "producer": {"ref": "File[/b]"}, "consumer": {"ref": "Service[s]"}}]}`
	if err := os.WriteFile(findingsOf(run), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	kinds, held, err := reported(run, "Service[s]", "File[/a]")
	if err != nil || len(kinds) != 0 || held != "only-looked-up: it only looked" {
		t.Errorf("held pair: kinds %q, held %q, %v", kinds, held, err)
	}
	kinds, held, err = reported(run, "File[/b]", "Service[s]")
	if err != nil || !slices.Equal(kinds, []string{"MN", "MOR"}) || held != "" {
		t.Errorf("shown pair: kinds %q, held %q, %v", kinds, held, err)
	}
}
