package detector

import (
	"testing"

	"github.com/fsmove/fsmove/catalog"
)

// TestWithRealCatalog runs the detector against the catalog package on a
// small Puppet 7 style catalog: case-folded class whits, namevar lookup,
// notification through a class, ordering through require/before.
func TestWithRealCatalog(t *testing.T) {
	cat, err := catalog.ReadFile("testdata/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := cat.Graph()
	if err != nil {
		t.Fatal(err)
	}
	cg := CatalogGraph(cat, g)
	res := result(
		p("/etc/app.conf", a("File[/etc/app.conf]", "cp", 30), a("Service[nginx]", "c", 40)),
		// File[nginx.conf] is logged by its title; its own path is the path parameter.
		p("/etc/nginx/nginx.conf", a("File[nginx.conf]", "c", 20), a("Service[nginx]", "c", 41)),
		p("/etc/x", a("Class[Main]", "c", 1), a("File[/etc/x]", "p", 10), a("Exec[use-conf]", "c", 11)),
		p("/usr/sbin/nginx", a("Package[nginx]", "p", 5), a("Service[nginx]", "c", 42)),
		p("/var/cache/puppet/state/state.yaml", a("File[/etc/x]", "p", 12), a("Exec[use-conf]", "c", 13)),
		p("/var/lib/x", a("Schedule[daily]", "p", 2), a("Exec[use-conf]", "c", 14)),
	)
	rep := Detect(res, cg, Options{})
	expect(t, rep,
		"MOR File[/etc/x]->Exec[use-conf] /etc/x",
		"MN File[nginx.conf]->Service[nginx] /etc/nginx/nginx.conf",
	)
	if len(rep.UnresolvedBlocks) != 1 || rep.UnresolvedBlocks[0] != "Schedule[daily]" {
		t.Errorf("unresolved %v", rep.UnresolvedBlocks)
	}
	if want := "Service['nginx'] must be notified by File['nginx.conf']: add notify => Service['nginx'] to File['nginx.conf'] (/srv/modules/nginx/manifests/init.pp:5), or File['nginx.conf'] ~> Service['nginx']"; rep.Findings[1].Fix != want {
		t.Errorf("fix %s", rep.Findings[1].Fix)
	}
	expect(t, Detect(res, cg, Options{PackageNotify: true}),
		"MOR File[/etc/x]->Exec[use-conf] /etc/x",
		"MN Package[nginx]->Service[nginx] /usr/sbin/nginx",
		"MN File[nginx.conf]->Service[nginx] /etc/nginx/nginx.conf",
	)
	// Waivers resolve through the catalog: by namevar, and with class titles in any case.
	ws := []Waiver{{Ref1: mustRef("Service[nginx]"), Ref2: mustRef("File[/etc/nginx/nginx.conf]"), Reason: "reloads itself"}}
	rep = Detect(res, cg, Options{Waivers: ws})
	if rep.Faults() != 1 || !rep.Findings[1].Waived {
		t.Errorf("namevar waiver not applied: %v", summary(rep))
	}
}
