package detector

import (
	"strings"
	"testing"
)

// The program model apt-empty-config: apt reads an empty part of its
// configuration as no file. Held: a File that made /etc/apt/preferences (or
// a preferences.d part) empty, read only by apt's programs. Near misses: a
// File with content, one that found the file there, another reader, a path
// the model does not name, and --no-models.
func TestModelAptEmptyConfig(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/apt/preferences]", "m.pp", 1, "ensure", "file")
	g.Add("File[/etc/apt/preferences.d/pin.pref]", "m.pp", 2, "ensure", "file")
	g.Add("File[/etc/apt/preferences.d/real.pref]", "m.pp", 3, "ensure", "file", "content", "Package: *\n")
	g.Add("File[/etc/app.conf]", "m.pp", 4, "ensure", "file")
	g.Add("Package[gnupg]", "m.pp", 5)
	g.Add("Exec[cat]", "m.pp", 6, "command", "cat /etc/apt/preferences")
	made := func(file, path, reader, prog string, opts Options) *Report {
		return Detect(result(p(path, at(file, "p:openat@10"), at(reader, "c:openat@20@"+prog))), g, opts)
	}
	rep := made("File[/etc/apt/preferences]", "/etc/apt/preferences", "Package[gnupg]", "/usr/bin/apt-get", Options{})
	expectHeld(t, rep, "MOR File[/etc/apt/preferences]->Package[gnupg] /etc/apt/preferences held")
	if r := rep.Findings[0].HeldReason; !strings.HasPrefix(r, "program model apt-empty-config (apt ") {
		t.Errorf("reason %q does not name the model", r)
	}
	expectHeld(t, made("File[/etc/apt/preferences.d/pin.pref]", "/etc/apt/preferences.d/pin.pref", "Package[gnupg]", "/usr/lib/apt/methods/http", Options{}),
		"MOR File[/etc/apt/preferences.d/pin.pref]->Package[gnupg] /etc/apt/preferences.d/pin.pref held")
	// The directory gained the empty part: a listing by apt is held too.
	rep = Detect(result(dir("/etc/apt/preferences.d", at("File[/etc/apt/preferences.d/pin.pref]", "p:openat@10"),
		at("Package[gnupg]", "l:getdents64@20@/usr/bin/apt-get"))), g, Options{})
	expectHeld(t, rep, "MOR File[/etc/apt/preferences.d/pin.pref]->Package[gnupg] /etc/apt/preferences.d held")
	// ... but not a listing of a directory the model does not name.
	g.Add("File[/etc/app.d/pin.pref]", "m.pp", 7, "ensure", "file")
	rep = Detect(result(dir("/etc/app.d", at("File[/etc/app.d/pin.pref]", "p:openat@10"),
		at("Package[gnupg]", "l:getdents64@20@/usr/bin/apt-get"))), g, Options{})
	expectHeld(t, rep, "MOR File[/etc/app.d/pin.pref]->Package[gnupg] /etc/app.d")
	// Looked for before the File made it, by apt: held.
	rep = Detect(result(p("/etc/apt/preferences", at("Package[gnupg]", "m:newfstatat@5@/usr/bin/apt-get"), at("File[/etc/apt/preferences]", "p:openat@10"))), g, Options{})
	expectHeld(t, rep, "MOR File[/etc/apt/preferences]->Package[gnupg] /etc/apt/preferences held")

	// Near misses.
	expectHeld(t, made("File[/etc/apt/preferences.d/real.pref]", "/etc/apt/preferences.d/real.pref", "Package[gnupg]", "/usr/bin/apt-get", Options{}),
		"MOR File[/etc/apt/preferences.d/real.pref]->Package[gnupg] /etc/apt/preferences.d/real.pref")
	expectHeld(t, made("File[/etc/apt/preferences]", "/etc/apt/preferences", "Exec[cat]", "/usr/bin/cat", Options{}),
		"MOR File[/etc/apt/preferences]->Exec[cat] /etc/apt/preferences")
	expectHeld(t, made("File[/etc/app.conf]", "/etc/app.conf", "Package[gnupg]", "/usr/bin/apt-get", Options{}),
		"MOR File[/etc/app.conf]->Package[gnupg] /etc/app.conf")
	expectHeld(t, made("File[/etc/apt/preferences]", "/etc/apt/preferences", "Package[gnupg]", "/usr/bin/apt-get", Options{NoModels: true}),
		"MOR File[/etc/apt/preferences]->Package[gnupg] /etc/apt/preferences")
	// The File found it there (made by another): rule 22's, not the model's.
	rep = Detect(result(p("/etc/apt/preferences", at("File[/etc/apt/preferences]", "s:newfstatat@10"), at("Package[gnupg]", "c:openat@20@/usr/bin/apt-get"))), g, Options{NoModels: true})
	expectHeld(t, rep, "MOR File[/etc/apt/preferences]->Package[gnupg] /etc/apt/preferences held")
	if r := rep.Findings[0].HeldReason; strings.Contains(r, "program model") {
		t.Errorf("reason %q: the model is off", r)
	}
}

// The program model gitolite-ssh-dir: gitolite's ssh-authkeys trigger
// makes ~/.ssh itself when it is missing. Held: the File of a home's .ssh
// that manages only its existence, owner and mode, used only by the
// trigger. Near misses: a File that manages the directory's content
// (purge), another program that used it, the trigger's file in it (not
// the directory), a directory of another name, and --no-models.
func TestModelGitoliteSSHDir(t *testing.T) {
	const trigger = "/usr/share/gitolite3/triggers/post-compile/ssh-authkeys"
	g := newFake()
	g.Add("File[/var/lib/git/.ssh]", "m.pp", 1, "ensure", "directory", "owner", "git", "mode", "0700")
	g.Add("File[/srv/git/.ssh]", "m.pp", 2, "ensure", "directory", "purge", true, "recurse", true)
	g.Add("File[/var/lib/git/.config]", "m.pp", 3, "ensure", "directory")
	g.Add("File[/var/lib/git/.ssh/authorized_keys]", "m.pp", 4, "ensure", "file", "content", "ssh-ed25519 AAAA backup\n")
	g.Add("Exec[gitolite setup]", "m.pp", 5, "command", "gitolite setup -pk admin.pub")
	used := func(file, path, prog string, opts Options) *Report {
		return Detect(result(dir(path, at(file, "p:mkdir@10"), at("Exec[gitolite setup]", "s:newfstatat@20@"+prog, "w:openat@21@"+prog))), g, opts)
	}
	rep := used("File[/var/lib/git/.ssh]", "/var/lib/git/.ssh", trigger, Options{})
	expectHeld(t, rep, "MOR File[/var/lib/git/.ssh]->Exec[gitolite setup] /var/lib/git/.ssh held")
	if r := rep.Findings[0].HeldReason; !strings.HasPrefix(r, "program model gitolite-ssh-dir (gitolite3 ") {
		t.Errorf("reason %q does not name the model", r)
	}

	// Near misses.
	expectHeld(t, used("File[/var/lib/git/.ssh]", "/var/lib/git/.ssh", trigger, Options{NoModels: true}),
		"MOR File[/var/lib/git/.ssh]->Exec[gitolite setup] /var/lib/git/.ssh")
	expectHeld(t, used("File[/var/lib/git/.ssh]", "/var/lib/git/.ssh", "/usr/bin/ssh-keygen", Options{}),
		"MOR File[/var/lib/git/.ssh]->Exec[gitolite setup] /var/lib/git/.ssh")
	expectHeld(t, used("File[/srv/git/.ssh]", "/srv/git/.ssh", trigger, Options{}),
		"MOR File[/srv/git/.ssh]->Exec[gitolite setup] /srv/git/.ssh")
	expectHeld(t, used("File[/var/lib/git/.config]", "/var/lib/git/.config", trigger, Options{}),
		"MOR File[/var/lib/git/.config]->Exec[gitolite setup] /var/lib/git/.config")
	// The file the trigger rewrites in it: the File's content against
	// the trigger's edit is a fault, which the model does not cover.
	rep = Detect(result(p("/var/lib/git/.ssh/authorized_keys", at("File[/var/lib/git/.ssh/authorized_keys]", "p:rename@10"),
		at("Exec[gitolite setup]", "c:openat@20@"+trigger, "p:openat@21@"+trigger))), g, Options{})
	expectHeld(t, rep, "MOR File[/var/lib/git/.ssh/authorized_keys]->Exec[gitolite setup] /var/lib/git/.ssh/authorized_keys")
	// The trigger made the directory in this run itself (it was missing):
	// no File made it, nothing to hold.
	rep = Detect(result(dir("/var/lib/git/.ssh", at("Exec[gitolite setup]", "m:newfstatat@5@"+trigger, "p:mkdir@6@"+trigger),
		at("File[/var/lib/git/.ssh]", "k:chmod@10"))), g, Options{})
	for _, f := range rep.Findings {
		if strings.Contains(f.HeldReason, "gitolite-ssh-dir") {
			t.Errorf("the model held %v, whose directory the trigger made", f)
		}
	}
}

// Every model says what it is about, how it behaves and where that is
// written: a row without them is not a reviewed model.
func TestProgramModelsAreComplete(t *testing.T) {
	names := map[string]bool{}
	for _, m := range programModels {
		if m.Name == "" || names[m.Name] || m.Package == "" || m.Version == "" || len(m.Programs) == 0 ||
			m.Kind == 0 || m.Behaviour == "" || !strings.Contains(m.Evidence, "https://") {
			t.Errorf("incomplete or repeated model %+v", m)
		}
		names[m.Name] = true
		// What each kind needs besides.
		needs := map[modelKind]bool{
			emptyAsAbsent:       len(m.Paths) > 0,
			makesDirWhenMissing: len(m.Paths) > 0,
			startClients:        len(m.Units) > 0,
			helperWhenPresent:   len(m.Callers) > 0,
			readForCache:        len(m.Paths) > 0 && len(m.Commands) > 0 && m.Subcommand != "",
		}
		if ok, known := needs[m.Kind]; !ok || !known {
			t.Errorf("model %s: its kind's fields are missing (or the kind is unknown)", m.Name)
		}
	}
}

// The program model mariadb-debian-start: the clients that the unit's
// ExecStartPost runs at each start read what they read and exit. Held: the
// MN of a File written after the Service's start whose path the Service
// (mariadb's unit, by its name or an alias) read only through the clients.
// Near misses: the server read it too, an Exec (not a Service) ran the
// client, another unit's Service ran it, the Service wrote the path, a
// relation of order (not a restart), and --no-models.
func TestModelMariadbDebianStart(t *testing.T) {
	g := newFake()
	g.Add("Service[mariadb]", "m.pp", 1)
	g.Add("File[/etc/mysql/debian.cnf]", "m.pp", 2, "content", "[client]\n")
	g.Add("Exec[query]", "m.pp", 3, "command", "/usr/bin/mysql -e 'select 1'", "refreshonly", true)
	g.Add("File[/etc/mysql/late.cnf]", "m.pp", 4, "content", "[client]\n")
	g.Add("Service[app]", "m.pp", 5)
	g.Add("Service[mysqld-by-name]", "m.pp", 6, "name", "mysqld.service")
	g.Edge("Service[app]", "File[/etc/mysql/debian.cnf]", before)
	g.Edge("Service[mysqld-by-name]", "File[/etc/mysql/debian.cnf]", before)
	g.Edge("Service[mariadb]", "File[/etc/mysql/debian.cnf]", before)
	g.Edge("Exec[query]", "File[/etc/mysql/debian.cnf]", before)
	read := func(consumer string, opts Options, effects ...string) *Report {
		return Detect(result(p("/etc/mysql/debian.cnf", at(consumer, effects...), at("File[/etc/mysql/debian.cnf]", "p:rename@30"))), g, opts)
	}
	rep := read("Service[mariadb]", Options{}, "c:openat@10@/usr/bin/mysql_upgrade", "c:openat@11@/usr/bin/mysql")
	expectHeld(t, rep, "MN File[/etc/mysql/debian.cnf]->Service[mariadb] /etc/mysql/debian.cnf held")
	if r := rep.Findings[0].HeldReason; !strings.HasPrefix(r, "program model mariadb-debian-start (mariadb-server ") {
		t.Errorf("reason %q does not name the model", r)
	}
	if h := rep.Findings[0].HeldRule; h != "program-model" {
		t.Errorf("held by %q", h)
	}
	// The unit by an alias, as the Service's name.
	expectHeld(t, read("Service[mysqld-by-name]", Options{}, "c:openat@10@/usr/bin/mysql_upgrade"),
		"MN File[/etc/mysql/debian.cnf]->Service[mysqld-by-name] /etc/mysql/debian.cnf held")

	// Near misses.
	expectHeld(t, read("Service[mariadb]", Options{NoModels: true}, "c:openat@10@/usr/bin/mysql_upgrade"),
		"MN File[/etc/mysql/debian.cnf]->Service[mariadb] /etc/mysql/debian.cnf")
	expectHeld(t, read("Service[mariadb]", Options{}, "c:openat@10@/usr/bin/mysql_upgrade", "c:openat@11@/usr/sbin/mariadbd"),
		"MN File[/etc/mysql/debian.cnf]->Service[mariadb] /etc/mysql/debian.cnf")
	expectHeld(t, read("Service[mariadb]", Options{}, "c:openat@10@/usr/bin/mysql", "p:openat@12@/usr/bin/mysql"),
		"MN File[/etc/mysql/debian.cnf]->Service[mariadb] /etc/mysql/debian.cnf")
	expectHeld(t, read("Exec[query]", Options{}, "c:openat@10@/usr/bin/mysql"),
		"MN File[/etc/mysql/debian.cnf]->Exec[query] /etc/mysql/debian.cnf")
	// Another unit whose start runs the client (to make its database):
	// what its daemon needs may be what the client made.
	expectHeld(t, read("Service[app]", Options{}, "c:openat@10@/usr/bin/mysql"),
		"MN File[/etc/mysql/debian.cnf]->Service[app] /etc/mysql/debian.cnf")
	// Unordered, the File written first: the clients of this start read
	// it, and in the other order they would not: an order relation, which
	// the model (about a restart) does not hold.
	rep = Detect(result(p("/etc/mysql/late.cnf", at("File[/etc/mysql/late.cnf]", "p:rename@5"),
		at("Service[mariadb]", "c:openat@10@/usr/bin/mysql_upgrade"))), g, Options{})
	for _, f := range rep.Findings {
		if f.Kind == MOR && f.HeldBack {
			t.Errorf("the model held an order relation: %+v", f)
		}
	}
	if len(rep.Findings) == 0 || rep.Findings[0].Kind != MOR {
		t.Errorf("want the MOR File[/etc/mysql/late.cnf]->Service[mariadb] shown, got %+v", rep.Findings)
	}
}

// The program model apt-key-gpgconf: apt-key runs gpgconf at its cleanup
// only when gnupg is installed. Held: an Exec that used gnupg's files only
// through gpgconf and gpg-connect-agent, or looked up and ran gpgconf only
// from apt-key. Near misses: apt-key reading another file (a keyring),
// another program running gpgconf, and --no-models.
func TestModelAptKeyGpgconf(t *testing.T) {
	g := newFake()
	g.Add("Package[gnupg]", "m.pp", 1)
	g.Add("File[/etc/apt/trusted.gpg.d/local.gpg]", "m.pp", 2, "source", "puppet:///m/local.gpg")
	g.Add("Exec[apt_update]", "m.pp", 3, "command", "/usr/bin/apt-get update")
	used := func(producer, path string, opts Options, effects ...string) *Report {
		return Detect(result(p(path, at(producer, "p:rename@10"), at("Exec[apt_update]", effects...))), g, opts)
	}
	rep := used("Package[gnupg]", "/usr/bin/gpgconf", Options{}, "s:newfstatat@20@/usr/bin/apt-key", "x:execve@21@/usr/bin/apt-key")
	expectHeld(t, rep, "MOR Package[gnupg]->Exec[apt_update] /usr/bin/gpgconf held")
	if r := rep.Findings[0].HeldReason; !strings.HasPrefix(r, "program model apt-key-gpgconf (apt ") {
		t.Errorf("reason %q does not name the model", r)
	}
	expectHeld(t, used("Package[gnupg]", "/usr/bin/gpg-connect-agent", Options{}, "x:execve@20@/usr/bin/gpgconf"),
		"MOR Package[gnupg]->Exec[apt_update] /usr/bin/gpg-connect-agent held")
	expectHeld(t, used("Package[gnupg]", "/lib/x86_64-linux-gnu/libreadline.so.8", Options{}, "c:openat@20@/usr/bin/gpg-connect-agent"),
		"MOR Package[gnupg]->Exec[apt_update] /lib/x86_64-linux-gnu/libreadline.so.8 held")

	// Near misses.
	expectHeld(t, used("Package[gnupg]", "/usr/bin/gpgconf", Options{NoModels: true}, "s:newfstatat@20@/usr/bin/apt-key"),
		"MOR Package[gnupg]->Exec[apt_update] /usr/bin/gpgconf")
	// apt-key reads a keyring: the caller's own reads are not the helper's.
	expectHeld(t, used("File[/etc/apt/trusted.gpg.d/local.gpg]", "/etc/apt/trusted.gpg.d/local.gpg", Options{}, "c:openat@20@/usr/bin/apt-key"),
		"MOR File[/etc/apt/trusted.gpg.d/local.gpg]->Exec[apt_update] /etc/apt/trusted.gpg.d/local.gpg")
	// A library the caller reads itself.
	expectHeld(t, used("Package[gnupg]", "/lib/x86_64-linux-gnu/libreadline.so.8", Options{}, "c:openat@20@/usr/bin/apt-key"),
		"MOR Package[gnupg]->Exec[apt_update] /lib/x86_64-linux-gnu/libreadline.so.8")
	// gpgconf run by another program than apt-key.
	expectHeld(t, used("Package[gnupg]", "/usr/bin/gpgconf", Options{}, "x:execve@20@/usr/bin/puppet"),
		"MOR Package[gnupg]->Exec[apt_update] /usr/bin/gpgconf")
}

// The program model apt-update-caches: apt-get update reads dpkg's status
// only for apt's binary caches. Held: an Exec whose command is apt-get
// update (with options) that read the status, or read and rebuilt the
// cache, only through apt's programs. Near misses: another apt-get command
// (an install, update then install), a path the model does not name, a
// reader that is not apt's, a cache removed and not made again, and
// --no-models.
func TestModelAptUpdateCaches(t *testing.T) {
	g := newFake()
	g.Add("Package[gnupg]", "m.pp", 1)
	g.Add("Exec[update]", "m.pp", 2, "command", "/usr/bin/apt-get -q -o Acquire::Retries=3 update")
	g.Add("Exec[update-argv]", "m.pp", 3, "command", []any{"apt-get", "update"})
	g.Add("Exec[install]", "m.pp", 4, "command", "/usr/bin/apt-get install -y gnupg")
	g.Add("Exec[update-install]", "m.pp", 5, "command", "/usr/bin/apt-get update && /usr/bin/apt-get install -y x")
	read := func(consumer, path string, opts Options, effects ...string) *Report {
		return Detect(result(p(path, at("Package[gnupg]", "p:rename@10@/usr/bin/dpkg"), at(consumer, effects...))), g, opts)
	}
	rep := read("Exec[update]", "/var/lib/dpkg/status", Options{}, "c:openat@20@/usr/bin/apt-get", "s:newfstatat@21@/usr/bin/apt-config")
	expectHeld(t, rep, "MOR Package[gnupg]->Exec[update] /var/lib/dpkg/status held")
	if r := rep.Findings[0].HeldReason; !strings.HasPrefix(r, "program model apt-update-caches (apt ") {
		t.Errorf("reason %q does not name the model", r)
	}
	expectHeld(t, read("Exec[update-argv]", "/var/lib/dpkg/status", Options{}, "c:openat@20@/usr/bin/apt-get"),
		"MOR Package[gnupg]->Exec[update-argv] /var/lib/dpkg/status held")
	// The cache read, removed and made again.
	expectHeld(t, read("Exec[update]", "/var/cache/apt/pkgcache.bin", Options{}, "c:openat@20@/usr/bin/apt-get", "e:unlink@21@/usr/bin/apt-get", "p:rename@22@/usr/bin/apt-get"),
		"MOR Package[gnupg]->Exec[update] /var/cache/apt/pkgcache.bin held")

	// Near misses.
	expectHeld(t, read("Exec[update]", "/var/lib/dpkg/status", Options{NoModels: true}, "c:openat@20@/usr/bin/apt-get"),
		"MOR Package[gnupg]->Exec[update] /var/lib/dpkg/status")
	expectHeld(t, read("Exec[install]", "/var/lib/dpkg/status", Options{}, "c:openat@20@/usr/bin/apt-get"),
		"MOR Package[gnupg]->Exec[install] /var/lib/dpkg/status")
	expectHeld(t, read("Exec[update-install]", "/var/lib/dpkg/status", Options{}, "c:openat@20@/usr/bin/apt-get"),
		"MOR Package[gnupg]->Exec[update-install] /var/lib/dpkg/status")
	expectHeld(t, read("Exec[update]", "/var/lib/apt/extended_states", Options{}, "c:openat@20@/usr/bin/apt-get"),
		"MOR Package[gnupg]->Exec[update] /var/lib/apt/extended_states")
	expectHeld(t, read("Exec[update]", "/var/lib/dpkg/status", Options{}, "c:openat@20@/usr/bin/apt-get", "c:openat@21@/usr/bin/python3"),
		"MOR Package[gnupg]->Exec[update] /var/lib/dpkg/status")
	expectHeld(t, read("Exec[update]", "/var/cache/apt/pkgcache.bin", Options{}, "c:openat@20@/usr/bin/apt-get", "e:unlink@21@/usr/bin/apt-get"),
		"MOR Package[gnupg]->Exec[update] /var/cache/apt/pkgcache.bin")
}
