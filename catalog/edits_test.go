package catalog

import "testing"

// EnforcesContent: what a File changes on a path that is already there.
func TestEnforcesContent(t *testing.T) {
	file := func(params ...any) *Resource {
		r := &Resource{Type: "File", Title: "/etc/x", Params: map[string]any{}}
		for i := 0; i+1 < len(params); i += 2 {
			r.Params[params[i].(string)] = params[i+1]
		}
		return r
	}
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
	exec := func(params ...any) *Resource {
		r := &Resource{Type: "Exec", Title: "lookup", Params: map[string]any{}}
		for i := 0; i+1 < len(params); i += 2 {
			r.Params[params[i].(string)] = params[i+1]
		}
		return r
	}
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
