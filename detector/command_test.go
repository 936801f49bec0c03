package detector

import (
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
)

// commandPaths finds the absolute paths an Exec's command names as
// arguments, not its programs, nor words whose expansion the run does not
// show.
func TestCommandPaths(t *testing.T) {
	for _, c := range []struct {
		command any
		want    []string
	}{
		{"cp -p /etc/redis/redis.conf.puppet /etc/redis/redis.conf", []string{"/etc/redis/redis.conf.puppet", "/etc/redis/redis.conf"}},
		{"/usr/sbin/postmap /etc/postfix/virtual", []string{"/etc/postfix/virtual"}},
		{`/bin/sh -c "cat /etc/a /etc/b >/var/lib/c; /usr/bin/tool --conf=/etc/t.conf"`, []string{"/etc/a", "/etc/b", "/var/lib/c", "/etc/t.conf"}},
		{"/usr/bin/tool 2>&1 /etc/x|/usr/bin/tee /var/log/x", []string{"/etc/x", "/var/log/x"}},
		{"(cd /srv && /usr/bin/make)", []string{"/srv"}},
		{`/bin/echo 'a b' "/etc/with space" /etc/x/../y/`, []string{"/etc/with space", "/etc/y"}},
		{"/usr/bin/newaliases", nil},
		{"/usr/bin/tool $HOME/x /etc/*.conf ~/y /", nil},
		{[]any{"/bin/cp", "/etc/a", "/etc/b"}, []string{"/etc/a", "/etc/b"}},
		{nil, []string{"/etc/title"}}, // the title is the command
		{42, []string{"/etc/title"}},
	} {
		r := &catalog.Resource{Type: "Exec", Title: "/bin/true /etc/title", Params: map[string]any{"command": c.command}}
		if c.command == nil {
			delete(r.Params, "command")
		}
		if got := commandPaths(r.ExecCommand()); !slices.Equal(got, c.want) {
			t.Errorf("commandPaths of command %q = %q, want %q", c.command, got, c.want)
		}
	}
}

// Rule 26: a refreshonly Exec that nothing refreshed did not run; the
// paths its command names are what it works on when it runs, so a
// resource that changed one of them and does not notify it is an MN. Near
// misses: the File notifies it; the Exec is not refreshonly (it runs on
// every apply); it ran (its block executed a program: the trace speaks
// for it); the path is its program; a Package changed it (as toward a
// Service, only with PackageNotify).
func TestRuleNamedByUnrunRefreshonly(t *testing.T) {
	const mn = "MN File[/etc/x.staged]->Exec[install] /etc/x.staged"
	graph := func(params ...any) *fakeGraph {
		g := newFake()
		g.Add("Package[tool]", "m.pp", 1)
		g.Add("File[/etc/x.staged]", "m.pp", 2, "content", "x")
		g.Add("File[/usr/local/bin/tool]", "m.pp", 3, "content", "x")
		g.Add("Exec[install]", "m.pp", 4, append([]any{"command", "/usr/local/bin/tool /etc/x.staged /etc/x.conf"}, params...)...)
		return g
	}
	res := result(p("/etc/x.staged", a("File[/etc/x.staged]", "p", 10)),
		p("/usr/local/bin/tool", a("File[/usr/local/bin/tool]", "p", 12)),
		p("/etc/x.conf", a("Package[tool]", "p", 5)))
	rep := Detect(res, graph("refreshonly", true), Options{})
	expect(t, rep, mn)
	if f := rep.Findings; len(f) == 1 && (len(f[0].Paths) != 1 || f[0].Paths[0].Relation != Names) {
		t.Errorf("paths %+v, want one that the command names", f[0].Paths)
	}
	g := graph("refreshonly", true)
	g.Edge("File[/etc/x.staged]", "Exec[install]", notify)
	expect(t, Detect(res, g, Options{}))
	expect(t, Detect(res, graph(), Options{}))
	expect(t, Detect(res, graph("refreshonly", false), Options{}))
	ran := result(p("/etc/x.staged", a("File[/etc/x.staged]", "p", 10)),
		p("/usr/local/bin/tool", a("File[/usr/local/bin/tool]", "p", 12)), p("/bin/true", a("Exec[install]", "x", 20)))
	expect(t, Detect(ran, graph("refreshonly", true), Options{}))
	expect(t, Detect(res, graph("refreshonly", true), Options{PackageNotify: true}), "MN Package[tool]->Exec[install] /etc/x.conf", mn)

	// The command is the title when the catalog gives no command.
	titled := newFake()
	titled.Add("File[/etc/x.staged]", "m.pp", 2, "content", "x")
	titled.Add("Exec[/bin/cp /etc/x.staged /etc/x]", "m.pp", 4, "refreshonly", true)
	expect(t, Detect(res, titled, Options{}), "MN File[/etc/x.staged]->Exec[/bin/cp /etc/x.staged /etc/x] /etc/x.staged")
}

// FuzzCommandPaths: any command line is split without a panic, and every
// path it gives is absolute, clean, not the root, expands nothing and is
// given once.
func FuzzCommandPaths(f *testing.F) {
	f.Add(`/bin/sh -c "cat /etc/a >/var/b; /usr/bin/x --c=/etc/c" 2>&1 | tee /log`)
	f.Add(`cp -p '/etc/with space' /etc/x\ y (/bin/true)`)
	f.Add(`"unterminated /etc/a`)
	f.Fuzz(func(t *testing.T, command string) {
		got := commandPaths(command, nil)
		for i, p := range got {
			if !strings.HasPrefix(p, "/") || p == "/" || path.Clean(p) != p || strings.ContainsAny(p, "$*?[]{}~`") {
				t.Errorf("commandPaths(%q) gives %q", command, p)
			}
			if slices.Contains(got[:i], p) {
				t.Errorf("commandPaths(%q) gives %q twice", command, p)
			}
		}
	})
}
