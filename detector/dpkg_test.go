package detector

import (
	"strings"
	"testing"

	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
)

func TestParsePackages(t *testing.T) {
	const listing = "P\topenstack-dashboard\t\tpython3:any (>= 3.11~)\tpython3-django (>= 3), adduser | passwd\n" +
		"P\tpython3-django\t\t\tpython3-sqlparse, mime-support | media-types\n" +
		"P\tmedia-types\tmime-support\t\t\n" +
		"P\tlibc6:amd64\t\t\t\n" +
		"broken line\n" +
		"P\tnetbase\t\t\t\n" +
		"F\tnetbase\t/etc/protocols\n" +
		"F\tnetbase\t/etc\n" +
		"F\tlibc6:amd64\t/etc\n" +
		"F\tnetbase\trelative\n"
	p, bad, err := ParsePackages(strings.NewReader(listing))
	if err != nil || bad != 2 {
		t.Fatalf("bad %d, err %v", bad, err)
	}
	for _, c := range []struct {
		pkg, owner string
		want       bool
	}{
		{"openstack-dashboard", "openstack-dashboard", true},
		{"openstack-dashboard", "media-types", true}, // through an alternative, installed
		{"python3-django", "openstack-dashboard", false},
		{"openstack-dashboard", "netbase", false}, // installed, not a dependency
		{"openstack-dashboard", "passwd", false},  // an alternative not installed
		{"media-types", "media-types", true},
		{"libc6", "libc6", true}, // the architecture is not part of the name
	} {
		if got := p.Brings(c.pkg, c.owner); got != c.want {
			t.Errorf("Brings(%s, %s) = %v", c.pkg, c.owner, got)
		}
	}
	if got := strings.Join(p.Owners("/etc"), ","); got != "netbase,libc6" {
		t.Errorf("owners of /etc: %q", got)
	}
	if !(*Packages)(nil).Brings("x", "x") || (*Packages)(nil).Brings("x", "y") || (*Packages)(nil).Owners("/etc") != nil {
		t.Error("without dpkg's list nothing is known but that a package brings itself")
	}
}

// Rule 17: a path a Package's install made is there before the consumer
// when another Package ordered before it installs the path's package,
// itself or as a dependency.
func TestRulePackageOwner(t *testing.T) {
	pk, _, _ := ParsePackages(strings.NewReader("P\topenssh-server\t\t\topenssh-client\nP\topenssh-client\t\t\t\nP\tother\t\t\topenssh-client\nP\tunrelated\t\t\t\n" +
		"F\topenssh-client\t/etc/ssh\nF\topenssh-server\t/etc/ssh\nF\topenssh-server\t/usr/sbin/sshd\n"))
	graph := func(first string) *fakeGraph {
		g := newFake()
		g.Add("Package[openssh-server]", "s.pp", 1)
		g.Add("Package["+first+"]", "s.pp", 2)
		g.Add("File[/etc/ssh/ssh_known_hosts]", "s.pp", 4, "content", "x")
		g.Add("Exec[make-dir]", "s.pp", 5)
		g.Edge("Package["+first+"]", "File[/etc/ssh/ssh_known_hosts]", before)
		return g
	}
	res := func(producer string) *Report {
		return Detect(result(
			dir("/etc/ssh", at(producer, "p:rename@10"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@100")),
			p("/usr/sbin/sshd", at(producer, "p:rename@30"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@101")),
		), graph("openssh-client"), Options{Packages: pk})
	}
	// openssh-client ordered before the File: /etc/ssh is met, sshd is not.
	rep := res("Package[openssh-server]")
	expect(t, rep, "MOR Package[openssh-server]->File[/etc/ssh/ssh_known_hosts] /usr/sbin/sshd")
	if rep.Stats.NeedMet != 1 {
		t.Errorf("need met %d", rep.Stats.NeedMet)
	}
	// Near miss: without dpkg's list, nothing is met.
	rep = Detect(result(dir("/etc/ssh", at("Package[openssh-server]", "p:rename@10"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@100"))),
		graph("openssh-client"), Options{})
	expect(t, rep, "MOR Package[openssh-server]->File[/etc/ssh/ssh_known_hosts] /etc/ssh")
	// Through a dependency: "other" depends on openssh-client.
	rep = Detect(result(dir("/etc/ssh", at("Package[openssh-server]", "p:rename@10"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@100"))),
		graph("other"), Options{Packages: pk})
	expect(t, rep)
	// Near miss: a Package ordered before it that brings nothing of it.
	rep = Detect(result(dir("/etc/ssh", at("Package[openssh-server]", "p:rename@10"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@100"))),
		graph("unrelated"), Options{Packages: pk})
	expect(t, rep, "MOR Package[openssh-server]->File[/etc/ssh/ssh_known_hosts] /etc/ssh")
	// Near miss: the producer is no Package (an Exec made the directory).
	rep = Detect(result(dir("/etc/ssh", at("Exec[make-dir]", "p:mkdir@10"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@100"))),
		graph("openssh-client"), Options{Packages: pk})
	expect(t, rep, "MOR Exec[make-dir]->File[/etc/ssh/ssh_known_hosts] /etc/ssh")
}

// Rule 17 through a maintainer script: Package[ftpsync]'s install brings
// rsync as a dependency, and rsync's postinst makes the rc links that
// Service[rsync] looks at. Package[rsync], ordered before the Service,
// installs rsync in the other order too. The Result comes from the
// interpreter, which says which script made what (interp.Access.Script).
func TestRulePackageScript(t *testing.T) {
	line := int64(0)
	st := func(s fstrace.Statement) fstrace.Statement {
		line++
		s.Line, s.Syscall = line, "test"
		return s
	}
	marker := func(op fstrace.Op, block string) fstrace.Statement {
		return st(fstrace.Statement{Op: op, Pid: 100, Block: block})
	}
	hp := func(pid int32, eff fstrace.Effect, path string, flags uint32) fstrace.Statement {
		return st(fstrace.Statement{Op: fstrace.OpHpath, Pid: pid, Dir: fstrace.AtFdcwd, Path: path, Effect: eff, Flags: flags})
	}
	clone := func(pid, child int32) fstrace.Statement {
		return st(fstrace.Statement{Op: fstrace.OpNewProc, Pid: pid, Child: child})
	}
	trace := func(script string) *interp.Result {
		in := interp.New(interp.Options{})
		in.Run([]fstrace.Statement{
			marker(fstrace.OpBegin, "Package[ftpsync]"),
			clone(100, 300),
			hp(300, fstrace.Produced, "/var/lib/dpkg/info/rsync.list", 0),
			clone(300, 301),
			hp(301, fstrace.Consumed, script, fstrace.Runs),
			st(fstrace.Statement{Op: fstrace.OpExec, Pid: 301}),
			hp(301, fstrace.Produced, "/etc/rc2.d/S01rsync", 0),
			marker(fstrace.OpEnd, "Package[ftpsync]"),
			marker(fstrace.OpBegin, "Service[rsync]"),
			hp(100, fstrace.Consumed, "/etc/rc2.d/S01rsync", fstrace.Probe),
			marker(fstrace.OpEnd, "Service[rsync]"),
		})
		return in.Result()
	}
	graph := func(first string) *fakeGraph {
		g := newFake()
		g.Add("Package[ftpsync]", "s.pp", 1)
		g.Add("Package["+first+"]", "s.pp", 2)
		g.Add("Service[rsync]", "s.pp", 3, "ensure", "running")
		g.Edge("Package["+first+"]", "Service[rsync]", notify)
		return g
	}
	const fault = "MOR Package[ftpsync]->Service[rsync] /etc/rc2.d/S01rsync"
	rep := Detect(trace("/var/lib/dpkg/info/rsync.postinst"), graph("rsync"), Options{})
	expect(t, rep)
	if rep.Stats.NeedMet != 1 {
		t.Errorf("need met %d", rep.Stats.NeedMet)
	}
	// Near miss: the Package ordered before the Service is another one.
	expect(t, Detect(trace("/var/lib/dpkg/info/rsync.postinst"), graph("unrelated"), Options{}), fault)
	// Near miss: the links were made by a program that is no maintainer
	// script of an installed package.
	expect(t, Detect(trace("/usr/sbin/update-rc.d"), graph("rsync"), Options{}), fault)
}

// FuzzParsePackages: any listing is read without a panic; what is kept is
// what the format allows (owners are absolute paths without a trailing
// slash, a package brings itself) and every other line is counted.
func FuzzParsePackages(f *testing.F) {
	f.Add("P\tssh\t\t\topenssh-client (>= 1), a | b\nF\tssh\t/etc/ssh/\nF\tssh\t/\n")
	f.Add("P\tlibc6:amd64\tlibc\t\t\nF\tlibc6:amd64\t/lib\nbroken\n\n")
	f.Add("P\t\t\t\t\nF\tx\trelative\nP\tx\ty\tz\n")
	f.Fuzz(func(t *testing.T, listing string) {
		p, bad, err := ParsePackages(strings.NewReader(listing))
		if err != nil {
			return // a line longer than the scanner takes
		}
		lines := strings.Count(listing, "\n") + 1
		if bad < 0 || bad > lines {
			t.Fatalf("%d bad lines of %d", bad, lines)
		}
		for path, owners := range p.owners {
			if !strings.HasPrefix(path, "/") || (len(path) > 1 && strings.HasSuffix(path, "/")) || len(owners) == 0 {
				t.Fatalf("owner entry %q: %q", path, owners)
			}
		}
		for name := range p.deps {
			if !p.Brings(name, name) {
				t.Fatalf("%q does not bring itself", name)
			}
		}
	})
}
