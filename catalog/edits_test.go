package catalog

import (
	"slices"
	"strings"
	"testing"
)

// withParams is a resource with its parameters given as name, value pairs.
func withParams(typ, title string, params ...any) *Resource {
	r := &Resource{Type: typ, Title: title, Params: map[string]any{}}
	for i := 0; i+1 < len(params); i += 2 {
		r.Params[params[i].(string)] = params[i+1]
	}
	return r
}

// EnforcesContent: what a File changes on a path that is already there.
func TestEnforcesContent(t *testing.T) {
	file := func(params ...any) *Resource { return withParams("File", "/etc/x", params...) }
	for _, c := range []struct {
		name string
		r    *Resource
		want bool
	}{
		{"content", file("content", "x"), true},
		{"source", file("source", "puppet:///m/x"), true},
		{"content, replace true", file("content", "x", "replace", true), true},
		{"content, replace false", file("content", "x", "replace", false), false},
		{"content, replace 'no'", file("content", "x", "replace", "no"), false},
		{"source, replace 'false'", file("source", "puppet:///m/x", "replace", "false"), false},
		{"link", file("ensure", "link", "target", "/etc/y"), true},
		{"link, replace false", file("ensure", "link", "target", "/etc/y", "replace", false), false},
		{"absent, replace false", file("ensure", "absent", "replace", false), true},
		{"purged directory", file("ensure", "directory", "purge", true), true},
		{"directory", file("ensure", "directory"), false},
		{"ensure file", file("ensure", "file"), false},
		{"mode only", file("mode", "0644"), false},
		{"not a File", &Resource{Type: "Exec", Title: "x", Params: map[string]any{"content": "x"}}, false},
	} {
		if got := EnforcesContent(c.r); got != c.want {
			t.Errorf("%s: EnforcesContent = %v, want %v", c.name, got, c.want)
		}
	}
}

// Mentions: a name as a word of the title or of a parameter, not inside a
// longer name, and not in a relationship metaparameter (which names other
// resources, not what the resource uses).
func TestMentions(t *testing.T) {
	exec := func(params ...any) *Resource { return withParams("Exec", "lookup", params...) }
	names := []string{"fsmove-svc"}
	for _, c := range []struct {
		name string
		r    *Resource
		want bool
	}{
		{"command", exec("command", "getent services fsmove-svc"), true},
		{"a list", exec("unless", []any{"true", "getent services fsmove-svc"}), true},
		{"title", &Resource{Type: "Exec", Title: "getent services fsmove-svc"}, true},
		{"inside a longer name", exec("command", "getent services fsmove-svc2"), false},
		{"another name", exec("command", "getent services ssh"), false},
		{"require", exec("command", "getent services ssh", "require", "Augeas[fsmove-svc]"), false},
		{"subscribe, a list", exec("command", "getent services ssh", "subscribe", []any{"Augeas[fsmove-svc]"}), false},
		{"before and notify", exec("command", "true", "before", "File[fsmove-svc]", "notify", "Service[fsmove-svc]"), false},
	} {
		if got := Mentions(c.r, names); got != c.want {
			t.Errorf("%s: Mentions = %v, want %v", c.name, got, c.want)
		}
	}
}

// augeasArgs: words as augtool reads them, a path's predicate with its
// spaces one word, a quoted word without its quotes.
func TestAugeasArgs(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"set /files/etc/services/service-name[port = '9200']/port 9200",
			[]string{"set", "/files/etc/services/service-name[port = '9200']/port", "9200"}},
		{"set service-name[. = 'fsmove-svc'] fsmove-svc", []string{"set", "service-name[. = 'fsmove-svc']", "fsmove-svc"}},
		{`set ALLOWED_HOSTS "a b"`, []string{"set", "ALLOWED_HOSTS", "a b"}},
		{"setm /files/etc/hosts/*[canonical = 'x'] ipaddr 10.0.0.1", []string{"setm", "/files/etc/hosts/*[canonical = 'x']", "ipaddr", "10.0.0.1"}},
		{"  rm  \tkey  ", []string{"rm", "key"}},
		{`set k "it's"`, []string{"set", "k", "it's"}},
		{`set k 'a\' b'`, []string{"set", "k", `'a\' b'`}},
		{"set a[b c", []string{"set", "a[b c"}},
		{"set a] b", []string{"set", "a]", "b"}},
		{"", nil},
	} {
		if got := augeasArgs(c.cmd); !slices.Equal(got, c.want) {
			t.Errorf("augeasArgs(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
	// The names an augeas resource adds: the set values, not pieces of
	// its paths' predicates.
	r := &Resource{Type: "Augeas", Title: "mysqlchk", Params: map[string]any{"context": "/files/etc/services",
		"changes": []any{"rm /files/etc/services/service-name[port = '9200']", "set /files/etc/services/service-name[port = '9200']/port 9200",
			"set /files/etc/services/service-name[port = '9200'] mysqlchk", "set /files/etc/services/service-name[port = '9200']/protocol tcp"}}}
	if got, want := EntryNames(r), []string{"9200", "mysqlchk", "tcp"}; !slices.Equal(got, want) {
		t.Errorf("EntryNames = %q, want %q", got, want)
	}
}

// augeasArgs never panics, and its words are never empty.
func FuzzAugeasArgs(f *testing.F) {
	for _, s := range []string{"set a[b = 'c d']/e f", `set k "v w"`, "set a[b c", `set k 'a\' b'`, "rm ]]['\"", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, w := range augeasArgs(cmd) {
			if w == "" && !strings.Contains(cmd, `""`) && !strings.Contains(cmd, "''") {
				t.Fatalf("augeasArgs(%q): an empty word", cmd)
			}
		}
	})
}
