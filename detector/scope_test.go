package detector

import (
	"strings"
	"testing"
)

// TestScopeSetsAsideDependencies: of three unordered pairs, the one whose
// two resources are both declared in a dependency is set aside and counts
// for nothing; the one with a resource in the module counts, and so does
// the one with a resource whose file the catalog does not give.
func TestScopeSetsAsideDependencies(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/mine]", "/src/mymod/manifests/init.pp", 3)
	g.Add("Exec[mine]", "/src/mymod/manifests/init.pp", 9)
	g.Add("File[/etc/apt/x]", "/usr/share/puppet/modules/apt/manifests/init.pp", 30)
	g.Add("Exec[apt_update]", "/usr/share/puppet/modules/apt/manifests/update.pp", 12)
	g.Add("Exec[cross]", "/src/mymod/manifests/repo.pp", 4)
	g.Add("File[/etc/nofile]", "", 0)
	g.Add("Exec[nofile]", "/usr/share/puppet/modules/apt/manifests/init.pp", 40)
	res := result(
		p("/etc/mine", a("File[/etc/mine]", "p", 10), a("Exec[mine]", "c", 20)),
		p("/etc/apt/x", a("File[/etc/apt/x]", "p", 30), a("Exec[apt_update]", "c", 40), a("Exec[cross]", "c", 50)),
		p("/etc/nofile", a("File[/etc/nofile]", "p", 60), a("Exec[nofile]", "c", 70)),
	)
	all := Detect(res, g, Options{})
	if all.Faults() != 4 || len(all.InDependencies) != 0 {
		t.Fatalf("without a scope: %d faults, %d set aside; want 4, 0\n%q", all.Faults(), len(all.InDependencies), summary(all))
	}

	// The module's directory given with and without a trailing slash.
	for _, root := range []string{"/src/mymod", "/src/mymod/"} {
		rep := Detect(res, g, Options{Scope: &Scope{Roots: []string{"/fsmove/site.pp", root}}})
		expect(t, rep, // sorted by the producer's file
			"MOR File[/etc/nofile]->Exec[nofile] /etc/nofile",
			"MOR File[/etc/mine]->Exec[mine] /etc/mine",
			"MOR File[/etc/apt/x]->Exec[cross] /etc/apt/x")
		if len(rep.InDependencies) != 1 || rep.InDependencies[0].Consumer.Ref() != "Exec[apt_update]" {
			t.Errorf("set aside: %+v, want File[/etc/apt/x] -> Exec[apt_update]", rep.InDependencies)
		}
		if rep.Faults() != 3 || rep.Stats.MOR != 3 || rep.Stats.InDependencies != 1 || rep.DependencyFaults() != 1 {
			t.Errorf("counts: faults %d, MOR %d, in dependencies %d/%d; want 3, 3, 1, 1",
				rep.Faults(), rep.Stats.MOR, rep.Stats.InDependencies, rep.DependencyFaults())
		}
	}

	// A root is a directory or a file, not a prefix of a name.
	rep := Detect(res, g, Options{Scope: &Scope{Roots: []string{"/src/my", "/usr/share/puppet/modules/apt/manifests/update.p"}}})
	if rep.Faults() != 1 || len(rep.InDependencies) != 3 {
		t.Errorf("roots /src/my and update.p: %d faults, %d set aside; want 1 (no file), 3\n%q", rep.Faults(), len(rep.InDependencies), summary(rep))
	}
}

// TestScopeCountsOnlyReportedDependencyFindings: a waived finding in a
// dependency is set aside but not counted as one that would be a fault.
func TestScopeCountsOnlyReportedDependencyFindings(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/apt/x]", "/deps/apt/manifests/init.pp", 30)
	g.Add("Exec[apt_update]", "/deps/apt/manifests/update.pp", 12)
	res := result(p("/etc/apt/x", a("File[/etc/apt/x]", "p", 30), a("Exec[apt_update]", "c", 40)))
	waivers, err := LoadWaivers(strings.NewReader("File[/etc/apt/x] Exec[apt_update] -- apt's own\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep := Detect(res, g, Options{Waivers: waivers, Scope: &Scope{Roots: []string{"/src/mymod"}}})
	if len(rep.InDependencies) != 1 || rep.DependencyFaults() != 0 || rep.Stats.InDependencies != 0 || len(rep.UnusedWaivers) != 0 {
		t.Errorf("set aside %d, counted %d (stats %d), unused waivers %d; want 1, 0, 0, 0",
			len(rep.InDependencies), rep.DependencyFaults(), rep.Stats.InDependencies, len(rep.UnusedWaivers))
	}
}
