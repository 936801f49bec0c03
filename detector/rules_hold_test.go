package detector

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
)

// The hold rules (rules 12-16 of doc.go) and the guards of the older ones:
// each has a case that is held back (or not related at all) and near
// misses that must stay faults, so that widening a rule fails a test.

// heldLines reports the findings of rep as summary lines, held-back ones marked.
func heldLines(rep *Report) []string {
	var out []string
	for i, s := range summary(rep) {
		if rep.Findings[i].HeldBack {
			s += " held"
		}
		out = append(out, s)
	}
	return out
}

func expectHeld(t *testing.T, rep *Report, want ...string) {
	t.Helper()
	if got := heldLines(rep); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n got  %q\n want %q", got, want)
	}
}

func holdGraph() *fakeGraph {
	g := newFake()
	g.Add("File[/usr/bin]", "h.pp", 1, "ensure", "directory", "recurse", true, "mode", "go-w")
	g.Add("File[/etc/shadow]", "h.pp", 2, "owner", "root", "mode", "0640")
	g.Add("Exec[run]", "h.pp", 3, "command", "/usr/bin/tool --check")
	g.Add("Exec[as-app]", "h.pp", 4, "command", "/usr/bin/tool", "user", "app")
	g.Add("Service[app]", "h.pp", 5)
	g.Add("Package[app]", "h.pp", 6)
	g.Add("File[/etc/app.conf]", "h.pp", 7, "content", "x")
	g.Add("Exec[setup]", "h.pp", 8, "command", "app-setup")
	g.Add("Host[db.test]", "h.pp", 9, "ip", "10.0.0.9", "host_aliases", []any{"db"})
	g.Add("Exec[ping-db]", "h.pp", 10, "command", "getent hosts db.test")
	g.Add("Exec[lookup-other]", "h.pp", 11, "command", "getent hosts localhost")
	g.Add("File[/etc/hosts]", "h.pp", 12, "content", "127.0.0.1 localhost\n")
	g.Add("File[/etc/app.d]", "h.pp", 13, "ensure", "directory", "owner", "app")
	return g
}

// Rule 12: a production of metadata only does not matter to a consumer
// that runs as root, unless it took away every execute bit of what the
// consumer runs.
func TestRuleMetadataAgainstRoot(t *testing.T) {
	g := holdGraph()
	chmodThenRun := func(consumer, use string, noexec bool) *Report {
		eff := "k:fchmodat@10"
		if noexec {
			eff = "kn:fchmodat@10"
		}
		return Detect(result(p("/usr/bin/tool", at("File[/usr/bin]", eff), at(consumer, use+"@20"))), g, Options{})
	}
	// Held back: a root Exec runs it, reads it, stats it; the x bits stay.
	for _, use := range []string{"x:execve", "c:openat", "s:newfstatat"} {
		rep := chmodThenRun("Exec[run]", use, false)
		expectHeld(t, rep, "MOR File[/usr/bin]->Exec[run] /usr/bin/tool held")
		if f := rep.Findings[0]; !strings.Contains(f.HeldReason, "only changes the metadata") || f.Confidence != Metadata {
			t.Errorf("%s: reason %q, confidence %v", use, f.HeldReason, f.Confidence)
		}
	}
	// Near miss: every execute bit gone, and the Exec runs it (or checks it can).
	expectHeld(t, chmodThenRun("Exec[run]", "x:execve", true), "MOR File[/usr/bin]->Exec[run] /usr/bin/tool")
	expectHeld(t, chmodThenRun("Exec[run]", "s:access", true), "MOR File[/usr/bin]->Exec[run] /usr/bin/tool")
	// ... but reading it as root still does not care.
	expectHeld(t, chmodThenRun("Exec[run]", "c:openat", true), "MOR File[/usr/bin]->Exec[run] /usr/bin/tool held")
	// Near miss: an Exec running as another user, and a daemon.
	expectHeld(t, chmodThenRun("Exec[as-app]", "c:openat", false), "MOR File[/usr/bin]->Exec[as-app] /usr/bin/tool")
	expectHeld(t, chmodThenRun("Service[app]", "c:openat", false), "MN File[/usr/bin]->Service[app] /usr/bin/tool")
	// Near miss: the producer wrote content too.
	rep := Detect(result(p("/usr/bin/tool", at("File[/usr/bin]", "p:openat@10"), at("Exec[run]", "x:execve@20"))), g, Options{})
	expectHeld(t, rep, "MOR File[/usr/bin]->Exec[run] /usr/bin/tool")
	if rep.Findings[0].Confidence != Content {
		t.Errorf("confidence %v, want content", rep.Findings[0].Confidence)
	}
}

// Rule 12, inspection: a File that manages only metadata and found its path
// right changed nothing; one that manages content or existence still
// produced it, and rule 22 says for whom.
func TestRuleInspectionProducesOnlyContent(t *testing.T) {
	g := holdGraph()
	inspect := func(file, path string) *Report {
		return Detect(result(p(path, at(file, "s:newfstatat@10"), at("Exec[run]", "c:openat@20"))), g, Options{})
	}
	expectHeld(t, inspect("File[/etc/shadow]", "/etc/shadow"))
	expectHeld(t, inspect("File[/usr/bin]", "/usr/bin/tool")) // a recursed descendant
	// Content managed, found right: a producer of the path, which rule 22
	// holds back for a consumer that only read it.
	expectHeld(t, inspect("File[/etc/app.conf]", "/etc/app.conf"), "MOR File[/etc/app.conf]->Exec[run] /etc/app.conf held")
	// A directory the File makes exist, its own path: the same.
	rep := Detect(result(dir("/etc/app.d", at("File[/etc/app.d]", "s:newfstatat@10"), at("Exec[run]", "c:openat@20"))), g, Options{})
	expectHeld(t, rep, "MOR File[/etc/app.d]->Exec[run] /etc/app.d held")
}

// Rule 22: a File that found its path as it manages it changed nothing in
// this run: a consumer that read the path finds it the same in the other
// order. What the File enforces still orders: content the consumer edited
// afterwards (the File would replace the edit), a path it removed (the File
// would make it again), and a restart of a Service that read it (MN).
func TestRuleUnchangedProducer(t *testing.T) {
	g := holdGraph()
	g.Add("File[/etc/app.keep]", "h.pp", 20, "ensure", "file", "content", "x", "replace", false)
	g.Add("File[/etc/app.exists]", "h.pp", 21, "ensure", "file")
	run := func(file, path string, use ...string) *Report {
		var specs []string
		for i, u := range use {
			specs = append(specs, u+"@"+strconv.Itoa(20+i))
		}
		return Detect(result(p(path, at(file, "c:openat@10"), at("Exec[setup]", specs...))), g, Options{})
	}
	// Held back: read only.
	rep := run("File[/etc/app.conf]", "/etc/app.conf", "c:openat")
	expectHeld(t, rep, "MOR File[/etc/app.conf]->Exec[setup] /etc/app.conf held")
	if r := rep.Findings[0].HeldReason; !strings.Contains(r, "changed nothing in this run") {
		t.Errorf("reason %q", r)
	}
	// Held back: an edit in place of a file whose content the File does
	// not enforce on a path that is there (replace => false, ensure only).
	expectHeld(t, run("File[/etc/app.keep]", "/etc/app.keep", "c:openat", "p:openat"), "MOR File[/etc/app.keep]->Exec[setup] /etc/app.keep held")
	expectHeld(t, run("File[/etc/app.exists]", "/etc/app.exists", "c:openat", "p:openat"), "MOR File[/etc/app.exists]->Exec[setup] /etc/app.exists held")
	// Near miss: the content is the File's, and the consumer edited it.
	expectHeld(t, run("File[/etc/app.conf]", "/etc/app.conf", "c:openat", "p:openat"), "MOR File[/etc/app.conf]->Exec[setup] /etc/app.conf")
	// Near miss: the consumer removed the path the File makes exist.
	expectHeld(t, run("File[/etc/app.exists]", "/etc/app.exists", "e:unlink"), "MOR File[/etc/app.exists]->Exec[setup] /etc/app.exists")
	// Near miss: the File changed the content.
	rep = Detect(result(p("/etc/app.conf", at("File[/etc/app.conf]", "p:openat@10"), at("Exec[setup]", "c:openat@20"))), g, Options{})
	expectHeld(t, rep, "MOR File[/etc/app.conf]->Exec[setup] /etc/app.conf")
	// Near miss: a Service that read it needs the restart when it changes.
	rep = Detect(result(p("/etc/app.conf", at("File[/etc/app.conf]", "c:openat@10"), at("Service[app]", "c:openat@20"))), g, Options{})
	expectHeld(t, rep, "MN File[/etc/app.conf]->Service[app] /etc/app.conf")
}

// Rule 13: a producer that makes a path only when it is missing commutes
// with one that overwrites it.
func TestRuleGuardedCreation(t *testing.T) {
	g := holdGraph()
	guarded := result(p("/etc/app.conf", at("Exec[setup]", "m:newfstatat@9", "p:openat@10"), at("File[/etc/app.conf]", "p:rename@20")))
	rep := Detect(guarded, g, Options{})
	expectHeld(t, rep, "MOR Exec[setup]->File[/etc/app.conf] /etc/app.conf held")
	if !strings.Contains(rep.Findings[0].HeldReason, "only when it is missing") {
		t.Errorf("reason %q", rep.Findings[0].HeldReason)
	}
	// Near miss: no lookup before the write.
	expectHeld(t, Detect(result(p("/etc/app.conf", at("Exec[setup]", "p:openat@10"), at("File[/etc/app.conf]", "p:rename@20"))), g, Options{}),
		"MOR Exec[setup]->File[/etc/app.conf] /etc/app.conf")
	// Near miss: the lookup came after the write (it checked its own work).
	expectHeld(t, Detect(result(p("/etc/app.conf", at("Exec[setup]", "p:openat@10", "m:stat@11"), at("File[/etc/app.conf]", "p:rename@20"))), g, Options{}),
		"MOR Exec[setup]->File[/etc/app.conf] /etc/app.conf")
	// Near miss: a Package looked its file up before unpacking it, but
	// dpkg does not leave a file it finds (it replaces it, or keeps a
	// conffile as changed locally): a File replacing it must follow.
	rep = Detect(result(p("/etc/app.conf", at("Package[app]", "m:newfstatat@9", "p:rename@10"), at("File[/etc/app.conf]", "p:rename@20"))), g, Options{})
	expectHeld(t, rep, "MOR Package[app]->File[/etc/app.conf] /etc/app.conf")
	// Its confidence is the weakest, guarded, unless another path has
	// content evidence of its own.
	if c := rep.Findings[0].Confidence; c != Guarded {
		t.Errorf("confidence %v, want guarded", c)
	}
	rep = Detect(result(
		p("/etc/app.conf", at("Package[app]", "m:newfstatat@9", "p:rename@10"), at("File[/etc/app.conf]", "p:rename@20")),
		p("/usr/bin/tool", at("Package[app]", "p:rename@11"), at("File[/etc/app.conf]", "x:execve@21"))), g, Options{})
	if c := rep.Findings[0].Confidence; c != Content {
		t.Errorf("with a path read: confidence %v, want content", c)
	}
	// Near miss: the other resource reads what the guarded one made.
	expectHeld(t, Detect(result(p("/etc/app.conf", at("Exec[setup]", "m:newfstatat@9", "p:openat@10"), at("Exec[run]", "c:openat@20"))), g, Options{}),
		"MOR Exec[setup]->Exec[run] /etc/app.conf")
}

// Rule 14: an entry added to a name-service database changes only the
// lookups of its names.
func TestRuleNameServiceEntry(t *testing.T) {
	g := holdGraph()
	hosts := func(producer, consumer string) *Report {
		return Detect(result(p("/etc/hosts", at(producer, "c:openat@9", "p:rename@10"), at(consumer, "c:openat@20"))), g, Options{})
	}
	rep := hosts("Host[db.test]", "Exec[lookup-other]")
	expectHeld(t, rep, "MOR Host[db.test]->Exec[lookup-other] /etc/hosts held")
	if !strings.Contains(rep.Findings[0].HeldReason, "db.test") {
		t.Errorf("reason %q", rep.Findings[0].HeldReason)
	}
	// Near miss: the consumer looks up that very name.
	expectHeld(t, hosts("Host[db.test]", "Exec[ping-db]"), "MOR Host[db.test]->Exec[ping-db] /etc/hosts")
	// Near miss: a File replaces the whole database.
	expectHeld(t, hosts("File[/etc/hosts]", "Exec[lookup-other]"), "MOR File[/etc/hosts]->Exec[lookup-other] /etc/hosts")
	// Near miss: a daemon that read it at start needs a restart.
	expectHeld(t, hosts("Host[db.test]", "Service[app]"), "MN Host[db.test]->Service[app] /etc/hosts")
	// Near miss: not a name-service database.
	expectHeld(t, Detect(result(p("/etc/app.conf", at("Host[db.test]", "c:openat@9", "p:rename@10"), at("Exec[lookup-other]", "c:openat@20"))), g, Options{}),
		"MOR Host[db.test]->Exec[lookup-other] /etc/app.conf")

	// A refreshonly Exec that read the database after the entry was added
	// (ordered, not notified) looked up other names: its MN is held too.
	g.Add("Exec[refresh-other]", "h.pp", 20, "command", "getent hosts localhost", "refreshonly", true)
	g.Add("Exec[refresh-db]", "h.pp", 21, "command", "getent hosts db.test", "refreshonly", true)
	g.Edge("Host[db.test]", "Exec[refresh-other]", before)
	g.Edge("Host[db.test]", "Exec[refresh-db]", before)
	rep = hosts("Host[db.test]", "Exec[refresh-other]")
	expectHeld(t, rep, "MN Host[db.test]->Exec[refresh-other] /etc/hosts held")
	if rep.Findings[0].HeldRule != "other-names" {
		t.Errorf("held by %q, want other-names", rep.Findings[0].HeldRule)
	}
	// Near miss: the refreshonly Exec looks up the name itself.
	expectHeld(t, hosts("Host[db.test]", "Exec[refresh-db]"), "MN Host[db.test]->Exec[refresh-db] /etc/hosts")
	// Near miss: a consumer that names the database works on the whole
	// file, every entry of it.
	g.Add("Exec[copy-hosts]", "h.pp", 22, "command", "cp /etc/hosts /srv/chroot/etc/hosts")
	expectHeld(t, hosts("Host[db.test]", "Exec[copy-hosts]"), "MOR Host[db.test]->Exec[copy-hosts] /etc/hosts")
}

// Rule 15: a service needs a restart for what it read, not for what it
// only looked up, nor for its own state changed in place.
func TestRuleNotifyNeedsARead(t *testing.T) {
	g := holdGraph()
	g.Edge("File[/etc/app.conf]", "Service[app]", before)
	g.Edge("File[/etc/app.d]", "Service[app]", before)
	g.Edge("Exec[setup]", "Service[app]", before)
	rep := Detect(result(p("/etc/app.conf", at("File[/etc/app.conf]", "p:rename@10"), at("Service[app]", "s:newfstatat@20"))), g, Options{})
	expectHeld(t, rep, "MN File[/etc/app.conf]->Service[app] /etc/app.conf held")
	// Near miss: it read it.
	expectHeld(t, Detect(result(p("/etc/app.conf", at("File[/etc/app.conf]", "p:rename@10"), at("Service[app]", "c:openat@20"))), g, Options{}),
		"MN File[/etc/app.conf]->Service[app] /etc/app.conf")
	// A directory only looked up is held; one it made an entry in is not.
	expectHeld(t, Detect(result(dir("/etc/app.d", at("File[/etc/app.d]", "p:mkdir@10"), at("Service[app]", "s:newfstatat@20"))), g, Options{}),
		"MN File[/etc/app.d]->Service[app] /etc/app.d held")
	expectHeld(t, Detect(result(dir("/etc/app.d", at("File[/etc/app.d]", "p:mkdir@10"), at("Service[app]", "w:openat@20"))), g, Options{}),
		"MN File[/etc/app.d]->Service[app] /etc/app.d")
	// Its own state, changed in place by another: held; replaced: not.
	expectHeld(t, Detect(result(p("/var/lib/app/cache.db", at("Exec[setup]", "k:openat@10"), at("Service[app]", "c:openat@20", "k:write@21"))), g, Options{}),
		"MN Exec[setup]->Service[app] /var/lib/app/cache.db held")
	expectHeld(t, Detect(result(p("/var/lib/app/cache.db", at("Exec[setup]", "p:rename@10"), at("Service[app]", "c:openat@20", "k:write@21"))), g, Options{}),
		"MN Exec[setup]->Service[app] /var/lib/app/cache.db")
}

// Rule 23: an Exec guarded by creates runs once: a consumer that read what
// it made after it made it has no later change to be notified of.
func TestRuleNotifyFromARunOnceExec(t *testing.T) {
	g := holdGraph()
	g.Add("Exec[keygen]", "h.pp", 30, "command", "ssh-keygen -f /etc/app.key", "creates", "/etc/app.key")
	g.Add("Exec[reload]", "h.pp", 31, "command", "app-reload", "refreshonly", true)
	g.Edge("Exec[keygen]", "Service[app]", before)
	g.Edge("Exec[keygen]", "Exec[reload]", before)
	g.Edge("Exec[setup]", "Service[app]", before)
	made := func(producer, consumer string, readAt int) *Report {
		return Detect(result(p("/etc/app.key", at(producer, "p:openat@10"), at(consumer, "c:openat@"+strconv.Itoa(readAt)))), g, Options{})
	}
	rep := made("Exec[keygen]", "Service[app]", 20)
	expectHeld(t, rep, "MN Exec[keygen]->Service[app] /etc/app.key held")
	if r := rep.Findings[0].HeldReason; !strings.Contains(r, "runs only while its creates path is missing") {
		t.Errorf("reason %q", r)
	}
	expectHeld(t, made("Exec[keygen]", "Exec[reload]", 20), "MN Exec[keygen]->Exec[reload] /etc/app.key held")
	// Near miss: an Exec without creates may run and change it again.
	expectHeld(t, made("Exec[setup]", "Service[app]", 20), "MN Exec[setup]->Service[app] /etc/app.key")
	// Near miss: the service read it before it was made: it runs stale now.
	rep = Detect(result(p("/etc/app.key", at("Service[app]", "c:openat@5"), at("Exec[keygen]", "p:openat@10"))), g, Options{})
	expectHeld(t, rep, "MN Exec[keygen]->Service[app] /etc/app.key")
	// Near miss: unordered, the order stays a fault (MOR).
	g2 := holdGraph()
	g2.Add("Exec[keygen]", "h.pp", 30, "command", "ssh-keygen -f /etc/app.key", "creates", "/etc/app.key")
	rep = Detect(result(p("/etc/app.key", at("Exec[keygen]", "p:openat@10"), at("Service[app]", "c:openat@20"))), g2, Options{})
	expectHeld(t, rep, "MOR Exec[keygen]->Service[app] /etc/app.key")
}

// Rule 24: a refreshonly Exec whose every notifier notifies the consumer
// too, which it precedes, needs not notify it: each refresh runs both, in
// order (gitolite's compile, then its POST_COMPILE trigger).
func TestRuleRefreshedTogether(t *testing.T) {
	graph := func(alsoNotifiesY, refreshonly, ordered bool) *fakeGraph {
		g := newFake()
		g.Add("File[/etc/rc]", "h.pp", 1, "content", "x")
		g.Add("Exec[compile]", "h.pp", 2, "command", "compile", "refreshonly", refreshonly)
		g.Add("Exec[trigger]", "h.pp", 3, "command", "trigger", "refreshonly", true)
		g.Edge("File[/etc/rc]", "Exec[compile]", notify)
		if alsoNotifiesY {
			g.Edge("File[/etc/rc]", "Exec[trigger]", notify)
		}
		if ordered {
			g.Edge("Exec[compile]", "Exec[trigger]", before)
		}
		return g
	}
	run := func(g *fakeGraph) *Report {
		return Detect(result(p("/var/lib/compiled", at("Exec[compile]", "p:rename@10"), at("Exec[trigger]", "c:openat@20"))), g, Options{})
	}
	rep := run(graph(true, true, true))
	expectHeld(t, rep, "MN Exec[compile]->Exec[trigger] /var/lib/compiled held")
	if r := rep.Findings[0].HeldReason; !strings.Contains(r, "every resource that notifies it (File['/etc/rc'])") {
		t.Errorf("reason %q", r)
	}
	// Near miss: a notifier of compile does not refresh the trigger.
	expectHeld(t, run(graph(false, true, true)), "MN Exec[compile]->Exec[trigger] /var/lib/compiled")
	// Near miss: compile runs at every apply, not only when notified.
	expectHeld(t, run(graph(true, false, true)), "MN Exec[compile]->Exec[trigger] /var/lib/compiled")
	// Near miss: the trigger does not follow compile: the order is missing too.
	rep = run(graph(true, true, false))
	if len(rep.Findings) != 1 || rep.Findings[0].HeldBack {
		t.Errorf("unordered: %q", heldLines(rep))
	}
}

// Rule 25: a refreshonly Exec needs no notification from the File of a
// directory that manages only its existence, owner and mode; a Service
// that writes there still does (rule 15's near miss), and so does an Exec
// when the File manages the directory's content.
func TestRuleNotifyExecDirectory(t *testing.T) {
	g := holdGraph()
	g.Add("Exec[build]", "h.pp", 40, "command", "build", "refreshonly", true)
	g.Add("File[/var/lib/app]", "h.pp", 41, "ensure", "directory", "purge", true, "recurse", true)
	g.Edge("File[/etc/app.d]", "Exec[build]", before)
	g.Edge("File[/var/lib/app]", "Exec[build]", before)
	g.Edge("File[/etc/app.d]", "Service[app]", before)
	rep := Detect(result(dir("/etc/app.d", at("File[/etc/app.d]", "p:mkdir@10"), at("Exec[build]", "w:openat@20"))), g, Options{})
	expectHeld(t, rep, "MN File[/etc/app.d]->Exec[build] /etc/app.d held")
	if r := rep.Findings[0].HeldReason; !strings.Contains(r, "runs and ends") {
		t.Errorf("reason %q", r)
	}
	// Near miss: a daemon that writes there.
	expectHeld(t, Detect(result(dir("/etc/app.d", at("File[/etc/app.d]", "p:mkdir@10"), at("Service[app]", "w:openat@20"))), g, Options{}),
		"MN File[/etc/app.d]->Service[app] /etc/app.d")
	// Near miss: the File purges the directory's content.
	expectHeld(t, Detect(result(dir("/var/lib/app", at("File[/var/lib/app]", "p:mkdir@10"), at("Exec[build]", "w:openat@20"))), g, Options{}),
		"MN File[/var/lib/app]->Exec[build] /var/lib/app")
}

// Rule 15, a directory the service only read: a File that manages only
// that it exists, its owner and mode, changes nothing the daemon keeps.
func TestRuleNotifyPlainDirectory(t *testing.T) {
	g := holdGraph()
	g.Add("File[/etc/app.purged]", "h.pp", 20, "ensure", "directory", "purge", true, "recurse", true)
	g.Add("File[/etc/app.rec]", "h.pp", 21, "ensure", "directory", "recurse", true, "owner", "app")
	g.Add("File[/etc/app.src]", "h.pp", 22, "ensure", "directory", "source", "puppet:///modules/app/d")
	for _, f := range []string{"File[/etc/app.d]", "File[/etc/app.purged]", "File[/etc/app.rec]", "File[/etc/app.src]"} {
		g.Edge(f, "Service[app]", before)
	}
	notify := func(file, path string, svc acc) []string {
		return heldLines(Detect(result(dir(path, at(file, "p:mkdir@10"), svc)), g, Options{}))
	}
	// Listed (and its entries read) after the File made it: held.
	if got := notify("File[/etc/app.d]", "/etc/app.d", at("Service[app]", "c:openat@20")); len(got) != 1 || !strings.HasSuffix(got[0], " held") {
		t.Errorf("a directory the daemon only listed: %q, want the MN held", got)
	}
	for _, c := range []struct {
		name, file, path string
		svc              acc
	}{
		// The daemon writes in it (its log, its pid file): owner and mode decide that.
		{"entry made", "File[/etc/app.d]", "/etc/app.d", at("Service[app]", "w:openat@20")},
		// It looked for it before the File made it: it runs without it.
		{"missed before", "File[/etc/app.d]", "/etc/app.d", at("Service[app]", "m:openat@5", "c:openat@20")},
		// It changed the directory itself.
		{"service produced", "File[/etc/app.d]", "/etc/app.d", at("Service[app]", "c:openat@20", "k:chmod@21")},
		// The File manages what is in it.
		{"purge", "File[/etc/app.purged]", "/etc/app.purged", at("Service[app]", "c:openat@20")},
		{"recurse", "File[/etc/app.rec]", "/etc/app.rec", at("Service[app]", "c:openat@20")},
		{"source", "File[/etc/app.src]", "/etc/app.src", at("Service[app]", "c:openat@20")},
	} {
		got := notify(c.file, c.path, c.svc)
		if len(got) != 1 || strings.HasSuffix(got[0], " held") || !strings.HasPrefix(got[0], "MN ") {
			t.Errorf("%s: %q, want one MN reported", c.name, got)
		}
	}
	// A file, not a directory: what the daemon read is the file itself.
	g.Add("File[/etc/app.env]", "h.pp", 23, "ensure", "file", "owner", "app")
	g.Edge("File[/etc/app.env]", "Service[app]", before)
	rep := Detect(result(p("/etc/app.env", at("File[/etc/app.env]", "p:openat@10"), at("Service[app]", "c:openat@20"))), g, Options{})
	if got := heldLines(rep); len(got) != 1 || strings.HasSuffix(got[0], " held") {
		t.Errorf("a file the File made: %q, want the MN reported", got)
	}
	// The File replaced something else at the path: the daemon keeps the old inode.
	rep = Detect(result(dir("/etc/app.d", at("File[/etc/app.d]", "e:unlink@9", "p:mkdir@10"), at("Service[app]", "c:openat@20"))), g, Options{})
	if got := heldLines(rep); len(got) != 1 || strings.HasSuffix(got[0], " held") {
		t.Errorf("a directory the File replaced: %q, want the MN reported", got)
	}
}

// Rule 16: a generated resource's own orderings in Puppet's graph order
// its block's relations.
func TestRuleGeneratedOrdering(t *testing.T) {
	g := &genOrderGraph{fakeGraph: newFake()}
	g.Add("Concat_file[/etc/app/x.conf]", "c.pp", 1, "path", "/etc/app/x.conf")
	g.Add("File[/etc/app]", "c.pp", 2, "ensure", "directory")
	res := result(dir("/etc/app", at("File[/etc/app]", "p:mkdir@10"), at("File[/etc/app/x.conf]", "c:openat@20")))
	// Without the generated File's edge: a missing order.
	expectHeld(t, Detect(res, g, Options{}), "MOR File[/etc/app]->Concat_file[/etc/app/x.conf] /etc/app")
	// With Puppet's autorequire of the generated File: ordered.
	g.before = map[string][]string{"File[/etc/app/x.conf]": {"File[/etc/app]"}}
	rep := Detect(res, g, Options{})
	expectHeld(t, rep)
	if rep.Stats.GeneratedOrdered != 1 {
		t.Errorf("generated ordered %d", rep.Stats.GeneratedOrdered)
	}
}

// genOrderGraph is a fake GeneratedOrderGraph: File[p] is generated by the
// Concat_file of p, and before[gen] lists what Puppet ordered before gen.
type genOrderGraph struct {
	*fakeGraph
	before map[string][]string
}

func (g *genOrderGraph) Generator(ref string) (*catalog.Resource, bool) {
	if strings.HasPrefix(ref, "File[") {
		return g.Lookup("Concat_file[" + strings.TrimPrefix(ref, "File["))
	}
	return nil, false
}

func (g *genOrderGraph) OrderedBeforeGenerated(a *catalog.Resource, gen string) bool {
	for _, b := range g.before[gen] {
		if r, _ := g.Lookup(b); r == a {
			return true
		}
	}
	return false
}

func (g *genOrderGraph) OrderedAfterGenerated(string, *catalog.Resource) bool { return false }

// The guards of the older rules: each mutation that widens one makes one of
// these fail.
func TestOlderRuleGuards(t *testing.T) {
	g := rulesGraph()
	g.Add("File[/etc/app/mode-only]", "app.pp", 30, "mode", "0600")
	g.Add("Exec[read-mode-only]", "app.pp", 31)
	// metadataBeforeContent needs the producer not to have replaced the
	// content: a mode-only File that made the file (ensure default) did.
	rep := Detect(result(p("/etc/app/mode-only", at("File[/etc/app/mode-only]", "p:openat@10"), at("Exec[edit-conf]", "c@20", "p:rename@21"))), g, Options{})
	expectHeld(t, rep, "MOR File[/etc/app/mode-only]->Exec[edit-conf] /etc/app/mode-only")
	// Commuting pairs are held back as MOR only: a mode-only File against a
	// daemon reading the file is a missing notifier.
	g.Edge("File[/etc/app/mode-only]", "Service[app]", before)
	expectHeld(t, Detect(result(p("/etc/app/mode-only", at("File[/etc/app/mode-only]", "k:chmod@10"), at("Service[app]", "c@20"))), g, Options{}),
		"MN File[/etc/app/mode-only]->Service[app] /etc/app/mode-only")
	// metadataBeforeContent does not hold pairs related both ways (an
	// editor that is not root, so that rule 12 leaves the pair alone).
	g.Add("Exec[edit-as-app]", "app.pp", 32, "user", "app")
	rep = Detect(result(
		p("/etc/app/mode-only", at("File[/etc/app/mode-only]", "k:chmod@10"), at("Exec[edit-as-app]", "c@20", "p:rename@21")),
		p("/etc/app/other", at("Exec[edit-as-app]", "k:openat@25"), at("File[/etc/app/mode-only]", "c@30"))), g, Options{})
	if fs := heldLines(rep); len(fs) != 1 || strings.HasSuffix(fs[0], " held") {
		t.Errorf("a pair related both ways was held back: %q", fs)
	}
	// An observed fault is never held back, even on the account databases.
	res := failed(result(p("/etc/passwd", at("User[app]", "p:rename@20"), at("File[/var/log/app]", "m:openat@10"))),
		"File[/var/log/app]", "Error: could not find user app")
	rep = Detect(res, g, Options{})
	expectHeld(t, rep, "MOR User[app]->File[/var/log/app] /etc/passwd")
	if !rep.Findings[0].Observed || rep.Findings[0].Confidence != Observed {
		t.Errorf("observed %v confidence %v", rep.Findings[0].Observed, rep.Findings[0].Confidence)
	}
	// Nor by a path rule: a lookup of another name that failed for want of
	// the name-service database is still a fault of this run.
	hg := holdGraph()
	res = failed(result(p("/etc/hosts", at("Host[db.test]", "p:rename@20"), at("Exec[lookup-other]", "m:openat@10"))),
		"Exec[lookup-other]", "Error: getent failed")
	expectHeld(t, Detect(res, hg, Options{}), "MOR Host[db.test]->Exec[lookup-other] /etc/hosts")
	// A held notify relation of a pair that is notified makes no finding.
	hg.Edge("File[/etc/app.conf]", "Service[app]", notify)
	expectHeld(t, Detect(result(p("/etc/app.conf", at("File[/etc/app.conf]", "p:rename@10"), at("Service[app]", "s:newfstatat@20"))), hg, Options{}))
}

// An MN on a unit file (of any unit type a Service may manage: a timer's
// too) says systemd must reread it, and that Puppet's provider does; one
// on another file does not.
func TestUnitFileFix(t *testing.T) {
	g := holdGraph()
	g.Add("File[/etc/systemd/system/app.service]", "h.pp", 20, "content", "[Service]\n")
	g.Edge("File[/etc/systemd/system/app.service]", "Service[app]", before)
	g.Edge("File[/etc/app.conf]", "Service[app]", before)
	rep := Detect(result(p("/etc/systemd/system/app.service", at("File[/etc/systemd/system/app.service]", "p:rename@10"), at("Service[app]", "c:openat@20"))), g, Options{})
	if len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Fix, "daemon-reload") {
		t.Errorf("unit file MN: %q", summary(rep))
	}
	rep = Detect(result(p("/etc/app.conf", at("File[/etc/app.conf]", "p:rename@10"), at("Service[app]", "c:openat@20"))), g, Options{})
	if len(rep.Findings) != 1 || strings.Contains(rep.Findings[0].Fix, "daemon-reload") {
		t.Errorf("config file MN: %q %q", summary(rep), rep.Findings[0].Fix)
	}
	for path, want := range map[string]bool{"/etc/systemd/system/app.service": true, "/etc/systemd/system/app.service.d/x.conf": true,
		"/etc/app.service.conf": false, "/etc/systemd/system/app.socket": true, "/etc/systemd/system/app.timer.d/x.conf": true,
		"/etc/systemd/system/timers.target.wants": false, "/etc/.service": false} {
		f := Finding{Kind: MN, Paths: []PathConflict{{Path: path}}}
		if changesUnitFile(&f) != want {
			t.Errorf("changesUnitFile(%s) = %v", path, !want)
		}
		if f.Kind = MOR; changesUnitFile(&f) {
			t.Errorf("changesUnitFile(MOR on %s) = true", path)
		}
	}
	// A group of them says it too.
	unit, _ := g.Lookup("File[/etc/systemd/system/app.service]")
	svc, _ := g.Lookup("Service[app]")
	fs := []Finding{{Kind: MN, Producer: unit, Consumer: svc,
		Paths: []PathConflict{{Path: "/etc/systemd/system/app.service"}}}}
	grp := Group{Kind: MN, By: ByProducer, Resource: fs[0].Producer, Members: []int{0}}
	if fix := grp.Fix(fs); !strings.Contains(fix, "daemon-reload") {
		t.Errorf("group fix %q: no daemon-reload", fix)
	}
}

// Rule 16 through the real catalog: Puppet's expanded graph gives the
// generated File its own edges (its parent directory's File before it, the
// Service it notifies after it), which CatalogGraph answers from; an edge
// that is not there orders nothing.
func TestGeneratedOrderFromPuppetGraph(t *testing.T) {
	cat, err := catalog.Read(strings.NewReader(`{"name":"n","resources":[
	 {"type":"File","title":"/etc/app","parameters":{"ensure":"directory"}},
	 {"type":"Concat_file","title":"/etc/app/x.conf","parameters":{"path":"/etc/app/x.conf"}},
	 {"type":"Exec","title":"before-dir","parameters":{"command":"/bin/true","before":"File[/etc/app]"}},
	 {"type":"Service","title":"app","parameters":{"ensure":"running"}},
	 {"type":"Exec","title":"unrelated","parameters":{"command":"/bin/true"}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.AddPuppetGraph(strings.NewReader(`digraph Expanded_relationships {
    "File[/etc/app]" -> "File[/etc/app/x.conf]" [
        fontsize = 8
    ]
    "File[/etc/app/x.conf]" -> "Service[app]" [
        fontsize = 8
    ]
}`)); err != nil {
		t.Fatal(err)
	}
	cg, err := cat.Graph()
	if err != nil {
		t.Fatal(err)
	}
	g := CatalogGraph(cat, cg).(GeneratedOrderGraph)
	ref := func(s string) *catalog.Resource {
		r, ok := cat.Lookup(s)
		if !ok {
			t.Fatalf("no %s", s)
		}
		return r
	}
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"the directory before the generated File", g.OrderedBeforeGenerated(ref("File[/etc/app]"), "File[/etc/app/x.conf]"), true},
		{"what precedes the directory, before it too", g.OrderedBeforeGenerated(ref("Exec[before-dir]"), "File[/etc/app/x.conf]"), true},
		{"an unrelated Exec before it", g.OrderedBeforeGenerated(ref("Exec[unrelated]"), "File[/etc/app/x.conf]"), false},
		{"the Service after it", g.OrderedAfterGenerated("File[/etc/app/x.conf]", ref("Service[app]")), true},
		{"the directory after it", g.OrderedAfterGenerated("File[/etc/app/x.conf]", ref("File[/etc/app]")), false},
		{"a File Puppet's graph does not have", g.OrderedBeforeGenerated(ref("File[/etc/app]"), "File[/etc/app/y.conf]"), false},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

// Rule 15: a file the service read and then removed (a flag for its
// start) was a message to that start, not configuration it keeps.
func TestRuleNotifyRemovedAfterRead(t *testing.T) {
	g := holdGraph()
	g.Edge("Exec[setup]", "Service[app]", before)
	notify := func(svc acc) []string {
		return heldLines(Detect(result(p("/run/app/flag", at("Exec[setup]", "p:openat@10"), svc)), g, Options{}))
	}
	if got := notify(at("Service[app]", "c:openat@20", "e:unlink@25")); len(got) != 1 || !strings.HasSuffix(got[0], " held") {
		t.Errorf("a flag the service read and removed: %q, want the MN held", got)
	}
	for _, c := range []struct {
		name string
		svc  acc
	}{
		// It read it and kept it: configuration.
		{"read, kept", at("Service[app]", "c:openat@20")},
		// It removed a stale one before the Exec wrote it, then read the new one.
		{"removed before", at("Service[app]", "e:unlink@5", "c:openat@20")},
		// It read it before the Exec wrote it: the new one is still there for it.
		{"read before", at("Service[app]", "c:openat@5", "e:unlink@8")},
		// It writes it itself: its own state, which the Exec replaced.
		{"service writes", at("Service[app]", "c:openat@20", "k:openat@22", "e:unlink@25")},
	} {
		got := notify(c.svc)
		if len(got) != 1 || strings.HasSuffix(got[0], " held") || !strings.HasPrefix(got[0], "MN ") {
			t.Errorf("%s: %q, want one MN reported", c.name, got)
		}
	}
	// A directory it listed and removed: the rule is for files.
	g.Add("File[/run/app/queue]", "h.pp", 30, "ensure", "directory", "owner", "app")
	g.Edge("File[/run/app/queue]", "Service[app]", before)
	rep := Detect(result(dir("/run/app/queue", at("File[/run/app/queue]", "p:mkdir@10"), at("Service[app]", "w:openat@20", "e:rmdir@25"))), g, Options{})
	if got := heldLines(rep); len(got) != 1 || strings.HasSuffix(got[0], " held") {
		t.Errorf("a directory the service removed: %q, want the MN reported", got)
	}
}
