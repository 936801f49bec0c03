package detector

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// Each rule of rules.go: one case that must be reported and a near miss
// that must not (or only as held back).

func rulesGraph() *fakeGraph {
	g := newFake()
	g.Add("Package[app]", "app.pp", 1)
	g.Add("File[/etc/app/app.conf]", "app.pp", 5, "content", "x")
	g.Add("Exec[edit-conf]", "app.pp", 9, "command", "sed -i s/a/b/ /etc/app/app.conf")
	g.Add("File[/etc/app]", "app.pp", 12, "ensure", "directory")
	g.Add("File[/var/log/app]", "app.pp", 14, "ensure", "directory", "owner", "app")
	g.Add("Service[app]", "app.pp", 20)
	g.Add("User[app]", "app.pp", 22)
	g.Add("Exec[unpack]", "app.pp", 24, "creates", "/opt/app")
	g.Add("File[/opt/app]", "app.pp", 26, "ensure", "directory")
	g.Add("Exec[keygen]", "app.pp", 28, "creates", "/etc/app/key")
	g.Add("File[/etc/app/key]", "app.pp", 30, "mode", "0600", "owner", "app")
	return g
}

func TestRuleOverwrite(t *testing.T) {
	// dpkg renames app.conf.dpkg-new over the conffile, then the File
	// replaces it (Puppet stats it first: its own path, not a need).
	res := result(p("/etc/app/app.conf",
		a("Package[app]", "p", 10),
		at("File[/etc/app/app.conf]", "c:newfstatat@20", "p:rename@21")))
	rep := Detect(res, rulesGraph(), Options{})
	expect(t, rep, "MOR Package[app]->File[/etc/app/app.conf] /etc/app/app.conf")
	if pc := rep.Findings[0].Paths[0]; pc.Relation != Overwrites || pc.ConsumerEvidence.Syscall() != "rename" {
		t.Errorf("relation %v, evidence %+v", pc.Relation, pc.ConsumerEvidence)
	}
	// Near miss: ordered.
	g := rulesGraph()
	g.Edge("Package[app]", "File[/etc/app/app.conf]", before)
	expect(t, Detect(res, g, Options{}))
	// Near miss: the second write only changed metadata (chmod): no overwrite.
	res = result(p("/etc/app/app.conf",
		a("Package[app]", "p", 10),
		at("Exec[edit-conf]", "k:chmod@21")))
	expect(t, Detect(res, rulesGraph(), Options{}))
	// Near miss: two appends to one log keep each other's lines.
	res = result(p("/var/log/app.log",
		at("Exec[edit-conf]", "k:openat@10"),
		at("File[/var/log/app]", "k:openat@21")))
	expect(t, Detect(res, rulesGraph(), Options{}))
}

func TestRuleReadModifyWrite(t *testing.T) {
	// sed -i reads the file, writes a temporary and renames it over.
	res := result(p("/etc/app/app.conf",
		a("File[/etc/app/app.conf]", "p", 10),
		at("Exec[edit-conf]", "c@20", "p:rename@22")))
	rep := Detect(res, rulesGraph(), Options{})
	expect(t, rep, "MOR File[/etc/app/app.conf]->Exec[edit-conf] /etc/app/app.conf")
	if pc := rep.Findings[0].Paths[0]; pc.Relation != Modifies {
		t.Errorf("relation %v", pc.Relation)
	}
	// Near miss: the editor wrote the file before reading it back.
	res = result(p("/etc/app/app.conf",
		a("File[/etc/app/app.conf]", "p", 10),
		at("Exec[edit-conf]", "p@20", "c@22")))
	rep = Detect(res, rulesGraph(), Options{})
	if len(rep.Findings) != 1 || rep.Findings[0].Paths[0].Relation != Overwrites {
		t.Errorf("a blind write after the producer is an overwrite: %v", summary(rep))
	}
}

func TestRuleServiceDirectory(t *testing.T) {
	// The File creates the log directory, the daemon creates its log in it.
	res := result(dir("/var/log/app",
		at("File[/var/log/app]", "p:mkdir@10"),
		at("Service[app]", "c:openat@30")))
	g := rulesGraph()
	g.Edge("File[/var/log/app]", "Service[app]", before)
	rep := Detect(res, g, Options{})
	expect(t, rep, "MN File[/var/log/app]->Service[app] /var/log/app")
	// Near miss: notified.
	g = rulesGraph()
	g.Edge("File[/var/log/app]", "Service[app]", notify)
	expect(t, Detect(res, g, Options{}))
	// Near miss: the File found the directory right and changed nothing.
	res2 := result(dir("/var/log/app",
		at("File[/var/log/app]", "c:newfstatat@10"),
		at("Service[app]", "c:openat@30")))
	g = rulesGraph()
	g.Edge("File[/var/log/app]", "Service[app]", before)
	expect(t, Detect(res2, g, Options{}))
	// Near miss: a directory a Package made is not the service's
	// configuration (ordered, so no MOR either).
	res3 := result(dir("/var/log/app", a("Package[app]", "p", 10), a("Service[app]", "c", 30)))
	g = rulesGraph()
	g.Edge("Package[app]", "Service[app]", before)
	expect(t, Detect(res3, g, Options{}))
}

func TestRuleAccountDatabases(t *testing.T) {
	res := result(
		p("/etc/group", a("User[app]", "p", 10), a("File[/var/log/app]", "c", 20)),
		p("/etc/passwd", a("User[app]", "p", 11), a("File[/var/log/app]", "c", 21)),
	)
	rep := Detect(res, rulesGraph(), Options{})
	if len(rep.Findings) != 1 || !rep.Findings[0].HeldBack || rep.Faults() != 0 || rep.Stats.HeldBack != 1 || rep.Stats.MOR != 0 {
		t.Fatalf("want one held-back finding: %v %+v", summary(rep), rep.Stats)
	}
	if !strings.Contains(rep.Findings[0].HeldReason, "account databases") {
		t.Errorf("reason %q", rep.Findings[0].HeldReason)
	}
	// Near miss: one more path that is not an account database is a fault,
	// shown on that path alone: the databases are no evidence beside it,
	// nor do they choose its direction (the first relation in the trace).
	res = result(
		p("/etc/passwd", a("File[/var/log/app]", "p", 5), a("User[app]", "c", 8), a("User[app]", "p", 11), a("File[/var/log/app]", "c", 21)),
		p("/home/app", a("User[app]", "p", 12), a("File[/var/log/app]", "c", 22)),
	)
	expect(t, Detect(res, rulesGraph(), Options{}), "MOR User[app]->File[/var/log/app] /home/app")
}

// TestRuleAccountMadeByPackage: a File names a user and a group that a
// Package's postinst made (adduser), unordered: in the other order Puppet
// cannot find them. Rule 6 holds every other pair on the databases back.
func TestRuleAccountMadeByPackage(t *testing.T) {
	graph := func() *fakeGraph {
		g := rulesGraph()
		g.Add("File[/var/cache/app]", "app.pp", 30, "ensure", "directory", "owner", "appd", "group", "appd")
		g.Add("Package[other]", "app.pp", 32)
		g.Add("Group[staff2]", "app.pp", 34)
		return g
	}
	before, bad, err := ParseAccounts(strings.NewReader("user root\nuser www-data\ngroup root\ngroup adm\n\nnobody\nuser a b\n"))
	if err != nil || bad != 2 || !before.users["www-data"] || !before.groups["adm"] || before.users["adm"] {
		t.Fatalf("ParseAccounts: %+v, %d bad, %v", before, bad, err)
	}
	// made: the Package wrote both databases, then the File looked its
	// names up; more writers of either database after them.
	made := func(group, passwd []acc) *interp.Result {
		return result(
			p("/etc/group", append([]acc{a("Package[app]", "p", 10), a("File[/var/cache/app]", "c", 20)}, group...)...),
			p("/etc/passwd", append([]acc{a("Package[app]", "p", 11), a("File[/var/cache/app]", "c", 21)}, passwd...)...))
	}
	rep := Detect(made(nil, nil), graph(), Options{Accounts: before})
	if expect(t, rep, "MOR Package[app]->File[/var/cache/app] /etc/group,/etc/passwd"); rep.Faults() != 1 {
		t.Errorf("the File owned by the account the Package made: held back")
	}
	if fix := rep.Findings[0].Fix; !strings.Contains(fix, "names the account appd, which Package['app'] made") {
		t.Errorf("fix %q", fix)
	}
	held := func(why, producer string, res *interp.Result, g *fakeGraph, opts Options) {
		t.Helper()
		rep := Detect(res, g, opts)
		f := findingOf(rep, producer, "File[/var/cache/app]")
		if f == nil || !f.HeldBack || !strings.Contains(f.HeldReason, "account databases") || rep.Faults() != 0 {
			t.Errorf("%s: want the pair held back by rule 6: %v", why, summary(rep))
		}
	}
	// Near misses, held back:
	held("accounts before the apply unknown", "Package[app]", made(nil, nil), graph(), Options{})
	had := &Accounts{users: map[string]bool{"appd": true}, groups: map[string]bool{"appd": true}}
	held("the accounts were there before", "Package[app]", made(nil, nil), graph(), Options{Accounts: had})
	g := graph()
	g.Add("User[appd]", "app.pp", 40)
	held("a User manages them (Puppet autorequires it)", "Package[app]", made(nil, nil), g, Options{Accounts: before})
	held("another resource wrote the databases before the lookup too", "Package[app]", made(
		[]acc{a("Package[other]", "p", 5)}, []acc{a("Package[other]", "p", 6)}), graph(), Options{Accounts: before})
	// Another writer after the File looked its names up did not make what
	// it found: still reported.
	rep = Detect(made([]acc{a("Package[other]", "p", 30)}, []acc{a("Package[other]", "p", 31)}), graph(), Options{Accounts: before})
	if f := findingOf(rep, "Package[app]", "File[/var/cache/app]"); f == nil || f.HeldBack {
		t.Errorf("another writer after the lookup: want the pair reported: %v", summary(rep))
	}
	g = graph()
	g.Add("File[/var/cache/app]", "app.pp", 30, "ensure", "directory", "owner", "root", "group", "0")
	held("the File names only accounts that were there, or an id", "Package[app]", made(nil, nil), g, Options{Accounts: before})
	g = graph()
	g.Add("Mysql_grant[appd@localhost/*.*]", "app.pp", 30, "user", "appd@localhost")
	res := result(p("/etc/passwd", a("Package[app]", "p", 11), a("Mysql_grant[appd@localhost/*.*]", "c", 21)))
	if rep := Detect(res, g, Options{Accounts: before}); rep.Faults() != 0 {
		t.Errorf("a database type's user parameter is no system account: %v", summary(rep))
	}
	g = graph()
	g.Add("Exec[as-appd]", "app.pp", 30, "command", "/bin/true", "user", "appd")
	res = result(p("/etc/passwd", a("Package[app]", "p", 11), a("Exec[as-appd]", "c", 21)))
	rep = Detect(res, g, Options{Accounts: before})
	if expect(t, rep, "MOR Package[app]->Exec[as-appd] /etc/passwd"); rep.Faults() != 1 {
		t.Errorf("an Exec run as the account the Package made: held back")
	}
	res = result(
		p("/etc/group", a("User[app]", "p", 10), a("File[/var/cache/app]", "c", 20)),
		p("/etc/passwd", a("User[app]", "p", 11), a("File[/var/cache/app]", "c", 21)))
	held("the producer is a User: its own names are autorequired", "User[app]", res, graph(), Options{Accounts: before})
	// Not a near miss: a Group that wrote the database as well makes no
	// other name the File could have meant (its group, here).
	g = graph()
	g.Add("File[/var/cache/app]", "app.pp", 30, "ensure", "directory", "group", "appd")
	rep = Detect(made([]acc{a("Group[staff2]", "p", 5)}, nil), g, Options{Accounts: before})
	if f := findingOf(rep, "Package[app]", "File[/var/cache/app]"); f == nil || f.HeldBack {
		t.Errorf("a Group's write hid the account the Package made: %v", summary(rep))
	}
}

func findingOf(rep *Report, producer, consumer string) *Finding {
	for i := range rep.Findings {
		if f := &rep.Findings[i]; f.Producer.Ref() == producer && f.Consumer.Ref() == consumer {
			return f
		}
	}
	return nil
}

func TestAccountDatabaseNames(t *testing.T) {
	for _, p := range []string{"/etc/passwd", "/etc/passwd-", "/etc/group+", "/etc/shadow.lock", "/etc/gshadow.1234",
		"/etc/.pwd.lock", "/etc/nsswitch.conf", "/etc/login.defs", "/etc/subuid"} {
		if !isAccountDatabase(p) {
			t.Errorf("%s is an account database", p)
		}
	}
	for _, p := range []string{"/etc/passwdx", "/etc/groups", "/etc/app/passwd", "/srv/passwd", "/etc/group.conf", "/etc/shadow.d"} {
		if isAccountDatabase(p) {
			t.Errorf("%s is not an account database", p)
		}
	}
}

func TestRuleRubyTempfiles(t *testing.T) {
	res := result(p("/tmp/puppet20261123-4242-1q2w3e", a("File[/etc/app/app.conf]", "p", 10), a("Exec[edit-conf]", "e", 20)))
	rep := Detect(res, rulesGraph(), Options{})
	expect(t, rep)
	if rep.Stats.FilteredPaths != 1 {
		t.Errorf("filtered %d", rep.Stats.FilteredPaths)
	}
	// Near miss: a temporary-looking name the module chose is checked.
	expect(t, Detect(result(p("/tmp/app-build", a("File[/etc/app/app.conf]", "p", 10), a("Exec[edit-conf]", "e", 20))), rulesGraph(), Options{}),
		"MOR File[/etc/app/app.conf]->Exec[edit-conf] /tmp/app-build")
	for _, p := range []string{"/tmp/puppet20261123-4242-1q2w3e", "/tmp/d20261123-7-abc/file", "/var/tmp/diff20261123-10-z9.tmp"} {
		if !isRubyTempfile(p) {
			t.Errorf("%s is a Ruby tempfile", p)
		}
	}
	for _, p := range []string{"/tmp/20261123", "/tmp/backup-20261123-x", "/etc/puppet20261123-1-a", "/tmp/app", "/tmp/log20261123-42-"} {
		if isRubyTempfile(p) {
			t.Errorf("%s is not a Ruby tempfile", p)
		}
	}
}

func TestRuleExecCreatesCheck(t *testing.T) {
	// The Exec's creates check finds /opt/app that the File made.
	res := result(dir("/opt/app", at("File[/opt/app]", "p:mkdir@10"), at("Exec[unpack]", "c:newfstatat@20")))
	expect(t, Detect(res, rulesGraph(), Options{}))
	// Near miss: the Exec reads a path that is not its creates.
	res = result(dir("/opt/app", at("File[/opt/app]", "p:mkdir@10"), at("Exec[edit-conf]", "c:newfstatat@20")))
	expect(t, Detect(res, rulesGraph(), Options{}), "MOR File[/opt/app]->Exec[edit-conf] /opt/app")
	// Near miss: a path inside its creates is used, not checked.
	res = result(p("/opt/app/bin/run", a("Package[app]", "p", 10), at("Exec[unpack]", "c:openat@20")))
	expect(t, Detect(res, rulesGraph(), Options{}), "MOR Package[app]->Exec[unpack] /opt/app/bin/run")
}

// Rule 18: a File that sets only the mode or owner of a file that another
// resource made because it was missing must follow it.
func TestRuleMetadataOfMadeFile(t *testing.T) {
	// The Exec's creates guards the key it writes; the File then stats it
	// and changes its mode.
	made := func(producer string, effs ...string) *Report {
		return Detect(result(p("/etc/app/key", at(producer, effs...), at("File[/etc/app/key]", "s:newfstatat@20", "k:chmod@21"))), rulesGraph(), Options{})
	}
	rep := made("Exec[keygen]", "p:openat@10")
	expect(t, rep, "MOR Exec[keygen]->File[/etc/app/key] /etc/app/key")
	if pc := rep.Findings[0].Paths[0]; pc.Relation != Modifies || pc.ConsumerEvidence.Syscall() != "chmod" {
		t.Errorf("relation %v, evidence %+v", pc.Relation, pc.ConsumerEvidence)
	}
	// A package's file (dpkg looked it up first) counts too.
	expect(t, made("Package[app]", "m:newfstatat@9", "p:rename@10"), "MOR Package[app]->File[/etc/app/key] /etc/app/key")
	// Near miss: the producer made it without looking first (it may have
	// rewritten a file that was there, in place, keeping its mode).
	expect(t, made("Exec[edit-conf]", "p:openat@10"))
	// Near miss: the producer only changed its metadata itself.
	expect(t, made("Exec[keygen]", "m:newfstatat@9", "k:chmod@10"))
	// Near miss: the File came first.
	expect(t, Detect(result(p("/etc/app/key", at("File[/etc/app/key]", "s:newfstatat@5", "k:chmod@6"), at("Exec[keygen]", "p:openat@10"))), rulesGraph(), Options{}))
	// Near miss: ordered.
	g := rulesGraph()
	g.Edge("Exec[keygen]", "File[/etc/app/key]", before)
	expect(t, Detect(result(p("/etc/app/key", at("Exec[keygen]", "p:openat@10"), at("File[/etc/app/key]", "s:newfstatat@20", "k:chmod@21"))), g, Options{}))
}

// Rule 20: a Service that read a directory as an include directory (it
// listed it, then read a file there) is notified by a resource that makes
// a file in it after the listing.
func TestRuleFileAfterListing(t *testing.T) {
	const daemon = "/usr/sbin/appd"
	listing := func(by string, line int64) acc {
		return at("Service[app]", "l:getdents64@"+strconv.FormatInt(line, 10)+"@"+by)
	}
	read := func(by string, line int64) acc {
		return at("Service[app]", "c:openat@"+strconv.FormatInt(line, 10)+"@"+by)
	}
	run := func(g Graph, list, readBy string, made int64) *Report {
		return Detect(result(
			dir("/etc/app.d", listing(list, 10), at("File[/etc/app/app.conf]", "w:openat@"+strconv.FormatInt(made, 10))),
			p("/etc/app.d/a.conf", read(readBy, 11)),
			p("/etc/app.d/b.conf", at("File[/etc/app/app.conf]", "p:rename@"+strconv.FormatInt(made, 10)))), g, Options{})
	}
	rep := run(rulesGraph(), daemon, daemon, 20)
	expect(t, rep, "MN File[/etc/app/app.conf]->Service[app] /etc/app.d")
	if pc := rep.Findings[0].Paths[0]; pc.ConsumerEvidence.Syscall() != "getdents64" || pc.ProducerEvidence.Syscall() != "rename" {
		t.Errorf("evidence %+v, %+v", pc.ProducerEvidence, pc.ConsumerEvidence)
	}
	// Near miss: the file was made before the listing (the daemon read
	// it, or chose not to).
	expect(t, run(rulesGraph(), daemon, daemon, 5))
	// Near miss: another program read the file (a shell's glob expanded
	// in a tool, not a daemon reading what it lists).
	expect(t, run(rulesGraph(), "/bin/sh", "/bin/cat", 20))
	// Near miss: the File notifies the service.
	g := rulesGraph()
	g.Edge("File[/etc/app/app.conf]", "Service[app]", notify)
	expect(t, run(g, daemon, daemon, 20))
}

func TestRuleSymlinkTarget(t *testing.T) {
	g := rulesGraph()
	g.Add("File[/etc/app/enabled.conf]", "app.pp", 30, "ensure", "link", "target", "../app/app.conf")
	// The link looks its target up (stat): a dangling link is fine.
	res := result(p("/etc/app/app.conf", a("File[/etc/app/app.conf]", "p", 10), at("File[/etc/app/enabled.conf]", "c:newfstatat@20")))
	expect(t, Detect(res, g, Options{}))
	// Near miss: an Exec that reads the target needs it.
	res = result(p("/etc/app/app.conf", a("File[/etc/app/app.conf]", "p", 10), at("Exec[edit-conf]", "c@20")))
	expect(t, Detect(res, g, Options{}), "MOR File[/etc/app/app.conf]->Exec[edit-conf] /etc/app/app.conf")
}

func TestRuleCommutingEditors(t *testing.T) {
	g := newFake()
	g.Add("Ini_setting[a]", "i.pp", 1, "path", "/etc/app.ini", "section", "main", "setting", "a")
	g.Add("Ini_setting[b]", "i.pp", 2, "path", "/etc/app.ini", "section", "main", "setting", "b")
	g.Add("Ini_setting[a2]", "i.pp", 3, "path", "/etc/app.ini", "section", "main", "setting", "a")
	g.Add("App_config[DEFAULT/debug]", "i.pp", 4)
	g.Add("App_config[DEFAULT/verbose]", "i.pp", 5)
	g.Add("File_line[x]", "i.pp", 6, "path", "/etc/app.ini", "line", "x=1", "match", "^x=")
	g.Add("File_line[y]", "i.pp", 7, "path", "/etc/app.ini", "line", "y=1", "match", "^y=")
	g.Add("File_line[x2]", "i.pp", 8, "path", "/etc/app.ini", "line", "x=2", "match", "^x=")
	g.Add("File[/etc/app.ini]", "i.pp", 9, "mode", "0600")
	g.Add("Augeas[a]", "i.pp", 10, "context", "/files/etc/app.ini", "changes", []any{"set main/a 1"})
	g.Add("Augeas[b]", "i.pp", 11, "context", "/files/etc/app.ini", "changes", "set main/b 1\nrm main/c")
	g.Add("Augeas[c]", "i.pp", 12, "context", "/files/etc/app.ini", "changes", "rm main")
	g.Add("Mailalias[root]", "i.pp", 13, "recipient", "admin")
	g.Add("Mailalias[postmaster]", "i.pp", 14, "recipient", "root")
	g.Add("Host[db]", "i.pp", 15, "ip", "10.0.0.1")
	g.Add("Debconf[tzdata/Areas]", "i.pp", 16, "type", "select", "value", "Europe")
	g.Add("Debconf[dash/sh]", "i.pp", 17, "type", "boolean", "value", "true")
	g.Add("Debconf[tz]", "i.pp", 18, "item", "tzdata/Areas", "type", "select", "value", "Asia")
	rmw := func(x, y string) *Report {
		return Detect(result(p("/etc/app.ini", at(x, "c@1", "p@2"), at(y, "c@3", "p@4"))), g, Options{})
	}
	cases := []struct {
		x, y    string
		commute bool
	}{
		{"Ini_setting[a]", "Ini_setting[b]", true},
		{"Ini_setting[a]", "Ini_setting[a2]", false},
		{"App_config[DEFAULT/debug]", "App_config[DEFAULT/verbose]", true},
		{"File_line[x]", "File_line[y]", true},
		{"File_line[x]", "File_line[x2]", false},
		{"Augeas[a]", "Augeas[b]", true},
		{"Augeas[b]", "Augeas[c]", false},
		{"Ini_setting[a]", "File_line[y]", false},
		{"File[/etc/app.ini]", "Ini_setting[b]", true},
		{"Mailalias[root]", "Mailalias[postmaster]", true},
		{"Mailalias[root]", "Host[db]", false},
		{"Debconf[tzdata/Areas]", "Debconf[dash/sh]", true},
		{"Debconf[tzdata/Areas]", "Debconf[tz]", false},
		{"Debconf[dash/sh]", "Mailalias[root]", false},
	}
	for _, c := range cases {
		rep := rmw(c.x, c.y)
		if len(rep.Findings) != 1 {
			t.Errorf("%s %s: %v", c.x, c.y, summary(rep))
			continue
		}
		f := rep.Findings[0]
		if f.Commutes != c.commute || f.HeldBack != c.commute {
			t.Errorf("%s %s: commutes %v held %v (%s), want %v", c.x, c.y, f.Commutes, f.HeldBack, f.HeldReason, c.commute)
		}
	}
}

func TestRuleNeedMetByOrderedProducer(t *testing.T) {
	// Package and File both make /etc/app; the conf File creates a name in
	// it and is ordered after File[/etc/app] (autorequire), not after the
	// Package.
	res := result(
		dir("/etc/app", at("Package[app]", "p:mkdir@10"), at("File[/etc/app]", "c:newfstatat@20"), at("File[/etc/app/app.conf]", "c:openat@30")),
	)
	g := rulesGraph()
	g.Edge("File[/etc/app]", "File[/etc/app/app.conf]", before)
	rep := Detect(res, g, Options{})
	expect(t, rep)
	if rep.Stats.NeedMet != 1 {
		t.Errorf("need met %d", rep.Stats.NeedMet)
	}
	// Near miss: no ordered producer meets the need (both are unordered).
	expect(t, Detect(res, rulesGraph(), Options{}),
		"MOR Package[app]->File[/etc/app/app.conf] /etc/app", "MOR File[/etc/app]->File[/etc/app/app.conf] /etc/app")
}

func TestRuleDirectionFromTrace(t *testing.T) {
	// The paths point both ways; the run's order (Exec first) is the fix.
	res := result(
		p("/a", a("File[/etc/app/app.conf]", "p", 20), a("Exec[edit-conf]", "c", 30)),
		p("/b", a("Exec[edit-conf]", "p", 10), a("File[/etc/app/app.conf]", "c", 25)),
	)
	rep := Detect(res, rulesGraph(), Options{})
	expect(t, rep, "MOR Exec[edit-conf]->File[/etc/app/app.conf] /a,/b")
	if !rep.Findings[0].BothWays || !strings.HasPrefix(rep.Findings[0].Fix, "File['/etc/app/app.conf'] requires Exec['edit-conf']") {
		t.Errorf("both ways %v, fix %s", rep.Findings[0].BothWays, rep.Findings[0].Fix)
	}
	// One direction: not both ways, and the alphabetically first path does
	// not decide.
	res = result(
		p("/a", a("Exec[edit-conf]", "p", 10), a("File[/etc/app/app.conf]", "c", 25)),
		p("/b", a("Exec[edit-conf]", "p", 11), a("File[/etc/app/app.conf]", "c", 26)),
	)
	rep = Detect(res, rulesGraph(), Options{})
	if rep.Findings[0].BothWays || rep.Findings[0].Producer.Ref() != "Exec[edit-conf]" {
		t.Errorf("one way: %v", summary(rep))
	}
}

// genGraph is a fakeGraph that knows generators, as the catalog does.
type genGraph struct {
	*fakeGraph
	gen map[string]string
}

func (g genGraph) Generator(ref string) (*catalog.Resource, bool) {
	return g.Lookup(g.gen[ref])
}

func TestRuleGeneratedResources(t *testing.T) {
	fg := newFake()
	fg.Add("File[/opt/tree]", "t.pp", 1, "recurse", true, "source", "puppet:///modules/t/tree")
	fg.Add("Exec[run]", "t.pp", 5)
	g := genGraph{fg, map[string]string{"File[/opt/tree/run.sh]": "File[/opt/tree]"}}
	res := result(p("/opt/tree/run.sh", at("File[/opt/tree/run.sh]", "p:rename@10"), a("Exec[run]", "c", 20)))
	rep := Detect(res, g, Options{})
	expect(t, rep, "MOR File[/opt/tree]->Exec[run] /opt/tree/run.sh")
	if rep.Stats.GeneratedBlocks != 1 || len(rep.UnresolvedBlocks) != 0 {
		t.Errorf("generated %d, unresolved %v", rep.Stats.GeneratedBlocks, rep.UnresolvedBlocks)
	}
	// Near miss: ordered after the generator.
	fg.Edge("File[/opt/tree]", "Exec[run]", before)
	expect(t, Detect(res, g, Options{}))
	// Without a generator the block is unresolved and unchecked.
	rep = Detect(res, fg, Options{})
	if len(rep.Findings) != 0 || len(rep.UnresolvedBlocks) != 1 {
		t.Errorf("without generators: %v, unresolved %v", summary(rep), rep.UnresolvedBlocks)
	}
}

func TestRuleObservedFailure(t *testing.T) {
	const msg = "Error: /Stage[main]/Main/Exec[edit-conf]/returns: change from 'notrun' to ['0'] failed: sed: can't read /etc/app/app.conf: No such file or directory"
	// The Exec ran first, did not find the file, failed; the File made it later.
	mk := func() *interp.Result {
		return result(p("/etc/app/app.conf",
			at("Exec[edit-conf]", "m:openat@10"),
			at("File[/etc/app/app.conf]", "p:rename@20")))
	}
	rep := Detect(failed(mk(), "Exec[edit-conf]", msg), rulesGraph(), Options{})
	expect(t, rep, "MOR File[/etc/app/app.conf]->Exec[edit-conf] /etc/app/app.conf")
	if f := rep.Findings[0]; !f.Observed || f.ObservedError != msg || f.Paths[0].Relation != Missing || f.Paths[0].ConsumerEffect != fstrace.Missing {
		t.Errorf("observed %v %q relation %v", f.Observed, f.ObservedError, f.Paths[0].Relation)
	}
	// The same failed lookup in a resource that did not fail: it went on
	// without the file (rule 19), and in the other order it finds it.
	rep = Detect(mk(), rulesGraph(), Options{})
	expect(t, rep, "MOR File[/etc/app/app.conf]->Exec[edit-conf] /etc/app/app.conf")
	if f := rep.Findings[0]; f.Observed || f.Paths[0].Relation != Missed || f.Confidence != Metadata {
		t.Errorf("not failed: observed %v relation %v confidence %v", f.Observed, f.Paths[0].Relation, f.Confidence)
	}
	// Near miss: it made the file itself after looking (its own check).
	expect(t, Detect(result(p("/etc/app/app.conf",
		at("Exec[edit-conf]", "m:openat@10", "p:openat@11"),
		at("File[/etc/app/app.conf]", "p:rename@20"))), rulesGraph(), Options{}),
		"MOR Exec[edit-conf]->File[/etc/app/app.conf] /etc/app/app.conf")
	// Near miss: an Exec's creates check (rule 8).
	expect(t, Detect(result(dir("/opt/app",
		at("Exec[unpack]", "m:newfstatat@10"),
		at("File[/opt/app]", "p:mkdir@20"))), rulesGraph(), Options{}))
	// Near miss: the failed resource looked up a path nobody made later.
	res := failed(result(p("/etc/app/app.conf",
		at("File[/etc/app/app.conf]", "p:rename@5"),
		at("Exec[edit-conf]", "m:openat@10"))), "Exec[edit-conf]", msg)
	expect(t, Detect(res, rulesGraph(), Options{}))
	// Near miss: ordered (the File before the Exec): no MOR, whatever happened.
	g := rulesGraph()
	g.Edge("File[/etc/app/app.conf]", "Exec[edit-conf]", before)
	expect(t, Detect(failed(mk(), "Exec[edit-conf]", msg), g, Options{}))
}

// Under systemd a daemon is init's child: its accesses come in its unit's
// block (interp.UnitBlock) and are its Service's.
func TestRuleUnitIsItsService(t *testing.T) {
	unit := interp.UnitBlock("app.service")
	res := result(p("/etc/app/app.conf",
		a("File[/etc/app/app.conf]", "p", 10),
		a(unit, "c", 30)))
	g := rulesGraph()
	g.Edge("File[/etc/app/app.conf]", "Service[app]", before)
	rep := Detect(res, g, Options{})
	expect(t, rep, "MN File[/etc/app/app.conf]->Service[app] /etc/app/app.conf")
	if rep.Stats.UnitBlocks != 1 {
		t.Errorf("UnitBlocks = %d, want 1", rep.Stats.UnitBlocks)
	}
	// Near miss: a unit no Service names (journald) is no resource's.
	res = result(p("/etc/app/app.conf",
		a("File[/etc/app/app.conf]", "p", 10),
		a(interp.UnitBlock("systemd-journald.service"), "c", 30)))
	rep = Detect(res, g, Options{})
	expect(t, rep)
	if rep.Stats.UnclaimedUnits != 1 || rep.Stats.UnclaimedAccesses != 1 || rep.Stats.UnresolvedBlocks != 0 {
		t.Errorf("stats %+v", rep.Stats)
	}
}

// Rule 21: a File that makes its own path when it is missing needs the
// path's parent directory. A Package made /etc/app in this run and the
// File found /etc/app/app.conf there: in the other order it has to make it,
// and cannot without /etc/app. Near misses: the File is ordered after the
// Package; the directory was there before the run (no producer); the File
// removes its path (ensure absent); the parent is a directory a File
// manages, which Puppet autorequires (an edge here).
func TestRuleParentDirectory(t *testing.T) {
	g := newFake()
	g.Add("Package[app]", "a.pp", 1)
	g.Add("File[/etc/app/app.conf]", "a.pp", 2, "ensure", "file", "content", "x")
	g.Add("File[/etc/app/old.conf]", "a.pp", 3, "ensure", "absent")
	g.Add("File[/etc/app]", "a.pp", 4, "ensure", "directory")
	made := dir("/etc/app", at("Package[app]", "p:mkdir@10"))
	conf := p("/etc/app/app.conf", at("Package[app]", "p@11"), at("File[/etc/app/app.conf]", "s:newfstatat@20"))
	const mor = "MOR Package[app]->File[/etc/app/app.conf] /etc/app"
	rep := Detect(result(made, conf), g, Options{})
	// /etc/app relates them, as what the File needed.
	if len(rep.Findings) != 1 || rep.Findings[0].HeldBack ||
		!slices.ContainsFunc(rep.Findings[0].Paths, func(pc PathConflict) bool { return pc.Path == "/etc/app" }) {
		t.Errorf("parent made by a Package: %q, want %q", summary(rep), mor)
	}

	expect(t, Detect(result(made, p("/etc/app/old.conf", at("File[/etc/app/old.conf]", "s:newfstatat@20"))), g, Options{}))
	expect(t, Detect(result(dir("/etc/app", at("File[/etc/app]", "p:mkdir@5")), p("/etc/app/app.conf", at("File[/etc/app/app.conf]", "s:newfstatat@20"))), g, Options{}),
		"MOR File[/etc/app]->File[/etc/app/app.conf] /etc/app")
	g.Edge("File[/etc/app]", "File[/etc/app/app.conf]", before)
	expect(t, Detect(result(dir("/etc/app", at("File[/etc/app]", "p:mkdir@5")), p("/etc/app/app.conf", at("File[/etc/app/app.conf]", "s:newfstatat@20"))), g, Options{}))
	expect(t, Detect(result(p("/etc/app/app.conf", at("File[/etc/app/app.conf]", "s:newfstatat@20"))), g, Options{}))
	g.Edge("Package[app]", "File[/etc/app/app.conf]", before)
	expect(t, Detect(result(made, conf), g, Options{}))
}
