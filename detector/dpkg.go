package detector

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// What dpkg knows, for rule 17 (doc.go): which Debian packages ship a path,
// and what each installed package depends on. fsmove run saves it after the
// apply (runner.PackagesFile); fsmove analyze reads it beside the trace.

// Packages is dpkg's view of the node after the apply.
type Packages struct {
	deps      map[string][]string // package → the packages it may need (alternatives included)
	providers map[string][]string // virtual package → installed packages providing it
	owners    map[string][]string // path → the packages whose file lists name it
	closures  map[string]map[string]bool
}

// PackagesScript prints what ParsePackages reads, in a Debian container:
// a P line per installed package (name, Provides, Pre-Depends, Depends) and
// an F line per path of its file list (name, path).
const PackagesScript = `dpkg-query -W -f 'P\t${binary:Package}\t${Provides}\t${Pre-Depends}\t${Depends}\n' &&
awk '{ n = FILENAME; sub(/.*\//, "", n); sub(/\.list$/, "", n); print "F\t" n "\t" $0 }' /var/lib/dpkg/info/*.list`

// ParsePackages reads what PackagesScript prints. Lines it cannot read are
// skipped and counted.
func ParsePackages(r io.Reader) (*Packages, int, error) {
	p := &Packages{deps: map[string][]string{}, providers: map[string][]string{},
		owners: map[string][]string{}, closures: map[string]map[string]bool{}}
	bad := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch {
		case len(f) == 5 && f[0] == "P" && f[1] != "":
			name := packageName(f[1])
			for _, v := range dpkgNames(f[2]) {
				p.providers[v] = append(p.providers[v], name)
			}
			p.deps[name] = append(dpkgNames(f[3]), dpkgNames(f[4])...)
		case len(f) == 3 && f[0] == "F" && packageName(f[1]) != "" && strings.HasPrefix(f[2], "/"):
			path := strings.TrimRight(f[2], "/")
			if path == "" {
				path = "/"
			}
			p.owners[path] = append(p.owners[path], packageName(f[1]))
		default:
			bad++
		}
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

// Owners returns the packages whose file lists name path.
func (p *Packages) Owners(path string) []string {
	if p == nil {
		return nil
	}
	return p.owners[path]
}

// Brings reports whether installing pkg installs owner too: owner is pkg or
// in the closure of its dependencies among the installed packages.
func (p *Packages) Brings(pkg, owner string) bool {
	if pkg == owner {
		return true
	}
	if p == nil {
		return false
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

// metByPackage reports whether, for a path a Package's install made,
// another Package resource ordered before the consumer installs one of the
// path's packages (itself, or as a dependency): in every order Puppet may
// take, the path is there before the consumer (rule 17). The path's
// packages are those whose file lists name it, and the one whose
// maintainer script made it in this install (update-rc.d's links, a
// postinst's default configuration).
func metByPackage(rel relation, packages []*catalog.Resource, g Graph, pkgs *Packages) bool {
	if !rel.byPackage {
		return false
	}
	owners := pkgs.Owners(rel.conflict.Path)
	if rel.script != "" {
		owners = append(slices.Clip(owners), rel.script)
	}
	if len(owners) == 0 {
		return false
	}
	for _, q := range packages {
		if q == rel.conflict.Producer || q == rel.conflict.Consumer || !g.Ordered(q, rel.conflict.Consumer) {
			continue
		}
		for _, o := range owners {
			if pkgs.Brings(q.Namevar(), o) {
				return true
			}
		}
	}
	return false
}
