package detector

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// What dpkg knows, for rule 17 (doc.go): which Debian package installed a
// path, and what each installed package depends on.
//
// Which package a path is dpkg's from the trace alone: dpkg unpacks one
// package at a time, each file under a temporary name renamed into place,
// and then writes the package's file list, /var/lib/dpkg/info/P.list (or
// P:arch.list). So within the block of the Package resource whose install
// ran dpkg, a path made before P's list and after the previous package's
// list is P's (packageOwners). What each package depends on is not in the
// trace: fsmove run saves dpkg's database after the apply (Packages).

// Packages is dpkg's view of the node after the apply: each installed
// package's dependencies, and who provides each virtual package.
type Packages struct {
	deps      map[string][]string // package → the packages it may need (alternatives included)
	providers map[string][]string // virtual package → installed packages providing it
	closures  map[string]map[string]bool
}

// PackagesFormat is the dpkg-query format ParsePackages reads: one line a
// package, tab-separated: name, Provides, Pre-Depends, Depends.
const PackagesFormat = "${binary:Package}\t${Provides}\t${Pre-Depends}\t${Depends}\n"

// ParsePackages reads what dpkg-query -W -f PackagesFormat prints. Lines it
// cannot read are skipped and counted.
func ParsePackages(r io.Reader) (*Packages, int, error) {
	p := &Packages{deps: map[string][]string{}, providers: map[string][]string{}, closures: map[string]map[string]bool{}}
	bad := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4 || f[0] == "" {
			bad++
			continue
		}
		name := packageName(f[0])
		for _, v := range dpkgNames(f[1]) {
			p.providers[v] = append(p.providers[v], name)
		}
		p.deps[name] = append(dpkgNames(f[2]), dpkgNames(f[3])...)
	}
	if err := sc.Err(); err != nil {
		return nil, bad, fmt.Errorf("dpkg's packages: %w", err)
	}
	return p, bad, nil
}

// packageName drops the architecture of a package name (libc6:amd64).
func packageName(s string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(s), ":")
	return name
}

// dpkgNames reads the names of a dpkg relationship field: "libc6 (>=
// 2.34), adduser | passwd, foo:any" gives libc6, adduser, passwd, foo.
func dpkgNames(field string) []string {
	var names []string
	for _, alt := range strings.FieldsFunc(field, func(r rune) bool { return r == ',' || r == '|' }) {
		name, _, _ := strings.Cut(strings.TrimSpace(alt), " ")
		if name = packageName(name); name != "" {
			names = append(names, name)
		}
	}
	return names
}

// Brings reports whether installing pkg installs owner too: owner is pkg or
// in the closure of its dependencies among the installed packages.
func (p *Packages) Brings(pkg, owner string) bool {
	if p == nil {
		return pkg == owner
	}
	c, ok := p.closures[pkg]
	if !ok {
		c = map[string]bool{}
		todo := []string{pkg}
		for len(todo) > 0 {
			n := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			if c[n] {
				continue
			}
			if _, installed := p.deps[n]; installed || n == pkg {
				c[n] = true
				todo = append(todo, p.deps[n]...)
			}
			todo = append(todo, p.providers[n]...)
		}
		p.closures[pkg] = c
	}
	return c[owner]
}

// dpkgInfoList is where dpkg writes a package's file list.
const dpkgInfoList = "/var/lib/dpkg/info/"

// packageOwners finds, for each Package block, where each dpkg package's
// unpack ended: the line of the write of its file list.
type packageOwners map[interp.BlockID][]listWrite

type listWrite struct {
	line int64
	pkg  string
}

func findPackageOwners(res *interp.Result, roles []blockRole) packageOwners {
	owners := packageOwners{}
	for i := range res.Paths {
		pa := &res.Paths[i]
		name, ok := strings.CutPrefix(pa.Path, dpkgInfoList)
		if !ok || !strings.HasSuffix(name, ".list") || strings.Contains(name, "/") {
			continue
		}
		for _, a := range pa.Accesses {
			if a.Produced && a.Block >= 0 && int(a.Block) < len(roles) && roles[a.Block].isPackage {
				owners[a.Block] = append(owners[a.Block], listWrite{a.ProducedBy.Line, packageName(strings.TrimSuffix(name, ".list"))})
			}
		}
	}
	for _, lists := range owners {
		sort.Slice(lists, func(i, j int) bool { return lists[i].line < lists[j].line })
	}
	return owners
}

// owner is the dpkg package whose unpack made a path at line in block b, or
// "" (a maintainer script's work, after the last unpack).
func (o packageOwners) owner(b interp.BlockID, line int64) string {
	lists := o[b]
	i := sort.Search(len(lists), func(i int) bool { return lists[i].line >= line })
	if i == len(lists) {
		return ""
	}
	return lists[i].pkg
}

// metByPackage reports whether a Package resource other than the
// relation's producer, ordered before its consumer, installs the dpkg
// package that owns the path (itself, or among its dependencies): in every
// order Puppet may take, the path is there before the consumer (rule 17).
func metByPackage(rel relation, packages []*catalog.Resource, g Graph, pkgs *Packages) bool {
	if rel.owner == "" {
		return false
	}
	for _, q := range packages {
		if q == rel.conflict.Producer || q == rel.conflict.Consumer {
			continue
		}
		if pkgs.Brings(q.Namevar(), rel.owner) && g.Ordered(q, rel.conflict.Consumer) {
			return true
		}
	}
	return false
}
