package catalog

import (
	"sort"
	"strings"
	"testing"
)

func autoCatalog(t *testing.T) []byte {
	rs := []res{
		{"Class", "main", nil},
		// File: nearest managed ancestor only, owner/group by name, link target
		{"File", "/", map[string]any{"ensure": "directory"}},
		{"File", "/srv", map[string]any{"ensure": "directory"}},
		{"File", "/srv/app/data/", map[string]any{"ensure": "directory", "owner": "app", "group": "app"}},
		{"File", "/srv/app/data/db/x.db", map[string]any{"owner": "0", "group": 0.0}},
		{"File", "app.link", map[string]any{"path": "/srv/current", "ensure": "link", "target": "/srv/app/data"}},
		{"File", "/etcfoo", nil}, // /etc is not an ancestor of /etcfoo, nor /srv of it
		// Exec: cwd, absolute command, quoted command, onlyif/unless, user
		{"File", "/opt/tool/bin/run", nil},
		{"File", "/opt/tool/bin/check", nil},
		{"File", "/opt/with space/bin", nil},
		{"File", "/opt/guard", nil},
		{"Exec", "run tool", map[string]any{"command": "/opt/tool/bin/run --now", "cwd": "/srv/app/data", "user": "app",
			"onlyif": "/opt/tool/bin/check -q", "unless": []any{"test -f /opt/guard", "/opt/guard x"}}},
		{"Exec", `"/opt/with space/bin" -v`, nil},
		{"Exec", "make all", map[string]any{"cwd": "/nowhere", "user": "1000"}},
		// User and Group
		{"Group", "app", nil},
		{"Group", "staff", map[string]any{"gid": 3000.0}},
		{"Group", "wheel", nil},
		{"User", "app", map[string]any{"gid": "app", "groups": []any{"wheel"}}},
		{"User", "ops", map[string]any{"gid": 3000.0, "groups": "app, wheel"}},
		// Cron and Ssh_authorized_key
		{"Cron", "backup", map[string]any{"user": "app", "command": "/opt/tool/bin/run"}},
		{"Ssh_authorized_key", "ops@laptop", map[string]any{"user": "ops", "target": "/srv/keys"}},
		{"File", "/srv/keys", nil},
		// Mount: parent mounts, and files below mount points
		{"Mount", "/mnt", nil},
		{"Mount", "/mnt/data", nil},
		{"File", "/mnt/data/file", nil},
		// Not File: no parent directory rule for Filebucket (bug 10)
		{"Filebucket", "main", map[string]any{"path": "/srv/bucket"}},
		// An explicit edge the other way suppresses the automatic one
		{"File", "/var/www", map[string]any{"require": "File[/var/www/index.html]"}},
		{"File", "/var/www/index.html", nil},
	}
	edges := [][2]string{}
	for _, r := range rs[1:] {
		edges = append(edges, [2]string{"Class[main]", r.typ + "[" + r.title + "]"})
	}
	return catalogJSON(t, rs, edges)
}

func TestAutoRelations(t *testing.T) {
	c := mustRead(t, autoCatalog(t))
	g := mustGraph(t, c)
	var got []string
	for _, rel := range g.Relations {
		if rel.Label&Auto != 0 {
			got = append(got, rel.Source.Ref()+" -> "+rel.Target.Ref())
		}
	}
	want := []string{
		"File[/] -> File[/srv]",
		"File[/] -> File[/etcfoo]",
		"File[/] -> File[/opt/tool/bin/run]", // nearest managed ancestor is the root
		"File[/] -> File[/opt/tool/bin/check]",
		"File[/] -> File[/opt/with space/bin]",
		"File[/] -> File[/opt/guard]",
		"File[/] -> File[/mnt/data/file]",
		"File[/] -> File[/var/www]",
		"File[/srv] -> File[/srv/app/data/]", // grandparent: /srv/app is unmanaged
		"File[/srv] -> File[app.link]",       // by its path /srv/current
		"File[/srv] -> File[/srv/keys]",
		"File[/srv/app/data/] -> File[/srv/app/data/db/x.db]",
		"File[/srv/app/data/] -> File[app.link]", // link target
		"User[app] -> File[/srv/app/data/]",
		"Group[app] -> File[/srv/app/data/]",
		"File[/srv/app/data/] -> Exec[run tool]", // cwd
		"File[/opt/tool/bin/run] -> Exec[run tool]",
		"File[/opt/tool/bin/check] -> Exec[run tool]",
		"File[/opt/guard] -> Exec[run tool]", // only the unless line that starts with the path
		"User[app] -> Exec[run tool]",
		`File[/opt/with space/bin] -> Exec["/opt/with space/bin" -v]`,
		"Group[app] -> User[app]",
		"Group[wheel] -> User[app]",
		"Group[staff] -> User[ops]", // numeric gid 3000
		"Group[app] -> User[ops]",
		"Group[wheel] -> User[ops]",
		"User[app] -> Cron[backup]",
		"User[ops] -> Ssh_authorized_key[ops@laptop]",
		"Mount[/mnt] -> Mount[/mnt/data]",
		"Mount[/mnt] -> File[/mnt/data/file]",
		"Mount[/mnt/data] -> File[/mnt/data/file]",
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("automatic relations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkPaths(t, c, []pathCheck{
		// explicit /var/www/index.html -> /var/www wins over the parent rule
		{"File[/var/www/index.html]", "File[/var/www]", true, false},
		{"File[/var/www]", "File[/var/www/index.html]", false, false},
		// automatic edges order, never notify
		{"File[/srv]", "File[/srv/app/data/db/x.db]", true, false},
		{"Group[staff]", "User[ops]", true, false},
		{"Mount[/mnt]", "File[/mnt/data/file]", true, false},
		// no rule: Filebucket is not a File, a relative command, a numeric user
		{"File[/srv]", "Filebucket[main]", false, false},
		{"User[app]", "Exec[make all]", false, false},
		// no rule: Ssh_authorized_key does not autorequire its target
		{"File[/srv/keys]", "Ssh_authorized_key[ops@laptop]", false, false},
	})
}
