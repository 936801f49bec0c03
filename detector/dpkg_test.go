package detector

import (
	"strings"
	"testing"
)

func TestParsePackages(t *testing.T) {
	const listing = "openstack-dashboard\t\tpython3:any (>= 3.11~)\tpython3-django (>= 3), adduser | passwd\n" +
		"python3-django\t\t\tpython3-sqlparse, mime-support | media-types\n" +
		"media-types\tmime-support\t\t\n" +
		"libc6:amd64\t\t\t\n" +
		"broken line\n" +
		"netbase\t\t\t\n"
	p, bad, err := ParsePackages(strings.NewReader(listing))
	if err != nil || bad != 1 {
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
	if !(*Packages)(nil).Brings("x", "x") || (*Packages)(nil).Brings("x", "y") {
		t.Error("without dpkg's list a package brings itself only")
	}
}

// Rule 17: the path a Package's install made belongs to the dpkg package
// whose file list dpkg wrote next; another Package ordered before the
// consumer that installs that package (or depends on it) meets the need.
func TestRulePackageOwner(t *testing.T) {
	g := newFake()
	g.add("Package[openssh-server]", "s.pp", 1)
	g.add("Package[openssh-client]", "s.pp", 2)
	g.add("Package[other]", "s.pp", 3)
	g.add("File[/etc/ssh/ssh_known_hosts]", "s.pp", 4, "content", "x")
	// The server's install unpacked openssh-client first (its list at 20),
	// then the server (its list at 40).
	res := func() *Report {
		return Detect(result(
			dir("/etc/ssh", at("Package[openssh-server]", "p:rename@10"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@100")),
			p("/usr/sbin/sshd", at("Package[openssh-server]", "p:rename@30"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@101")),
			p(dpkgInfoList+"openssh-client.list", at("Package[openssh-server]", "p:rename@20")),
			p(dpkgInfoList+"openssh-server:amd64.list", at("Package[openssh-server]", "p:rename@40")),
		), g, Options{})
	}
	// Unordered: both paths relate them.
	expect(t, res(), "MOR Package[openssh-server]->File[/etc/ssh/ssh_known_hosts] /etc/ssh,/usr/sbin/sshd")
	// openssh-client ordered before the File: /etc/ssh is met, sshd is not.
	g.edge("Package[openssh-client]", "File[/etc/ssh/ssh_known_hosts]", before)
	rep := res()
	expect(t, rep, "MOR Package[openssh-server]->File[/etc/ssh/ssh_known_hosts] /usr/sbin/sshd")
	if rep.Stats.NeedMet != 1 {
		t.Errorf("need met %d", rep.Stats.NeedMet)
	}
	// Near miss: a Package ordered before it that does not bring the owner.
	g2 := newFake()
	g2.add("Package[openssh-server]", "s.pp", 1)
	g2.add("Package[other]", "s.pp", 3)
	g2.add("File[/etc/ssh/ssh_known_hosts]", "s.pp", 4, "content", "x")
	g2.edge("Package[other]", "File[/etc/ssh/ssh_known_hosts]", before)
	rep = Detect(result(
		dir("/etc/ssh", at("Package[openssh-server]", "p:rename@10"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@100")),
		p(dpkgInfoList+"openssh-client.list", at("Package[openssh-server]", "p:rename@20"))), g2, Options{})
	expect(t, rep, "MOR Package[openssh-server]->File[/etc/ssh/ssh_known_hosts] /etc/ssh")
	// ... unless it depends on the owner.
	pk, _, _ := ParsePackages(strings.NewReader("other\t\t\topenssh-client\nopenssh-client\t\t\t\n"))
	rep = Detect(result(
		dir("/etc/ssh", at("Package[openssh-server]", "p:rename@10"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@100")),
		p(dpkgInfoList+"openssh-client.list", at("Package[openssh-server]", "p:rename@20"))), g2, Options{Packages: pk})
	expect(t, rep)
	// Near miss: made after the last list (a maintainer script): no owner.
	rep = Detect(result(
		dir("/etc/ssh", at("Package[openssh-server]", "p:rename@50"), at("File[/etc/ssh/ssh_known_hosts]", "c:openat@100")),
		p(dpkgInfoList+"openssh-client.list", at("Package[openssh-server]", "p:rename@20"))), g2, Options{Packages: pk})
	expect(t, rep, "MOR Package[openssh-server]->File[/etc/ssh/ssh_known_hosts] /etc/ssh")
}
