package detector

import (
	"strings"
	"testing"
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
		g.add("Package[openssh-server]", "s.pp", 1)
		g.add("Package["+first+"]", "s.pp", 2)
		g.add("File[/etc/ssh/ssh_known_hosts]", "s.pp", 4, "content", "x")
		g.add("Exec[make-dir]", "s.pp", 5)
		g.edge("Package["+first+"]", "File[/etc/ssh/ssh_known_hosts]", before)
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
