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
			len(m.Paths) == 0 || m.Kind == 0 || m.Behaviour == "" || !strings.Contains(m.Evidence, "https://") {
			t.Errorf("incomplete or repeated model %+v", m)
		}
		names[m.Name] = true
	}
}
