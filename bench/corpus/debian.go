package corpus

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fsmove/fsmove/internal/lines"
	"github.com/fsmove/fsmove/puppet/container"
)

// Skipped is a Debian module package that is not in the corpus, and why.
type Skipped struct {
	Package string
	Reason  string
}

// debianListScript runs in the image: it installs every puppet-module-*
// package and prints, per package, its version, its module directories
// (with the name Puppet finds them by in /usr/share/puppet/modules, which
// Debian manages with update-alternatives) and the class lines of each
// module's init.pp:
//
//	P <tab> PACKAGE <tab> VERSION
//	M <tab> DIRECTORY <tab> NAME-ON-PUPPET'S-PATH (empty if none)
//	I                      (the module has a manifests/init.pp)
//	C <tab> a line of init.pp starting with "class"
const debianListScript = `
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/tmp/update.log 2>&1 || { tail -20 /tmp/update.log >&2; exit 10; }
pkgs=$(apt-cache search --names-only '^puppet-module-' | cut -d' ' -f1 | sort)
apt-get install -y --no-install-recommends $pkgs >/tmp/install.log 2>&1 || { tail -20 /tmp/install.log >&2; exit 11; }
for p in $pkgs; do
	printf 'P\t%s\t%s\n' "$p" "$(dpkg-query -W -f '${Version}' "$p")"
	for d in $(dpkg -L "$p" | grep -E '^/usr/share/puppet/modules(\.available)?/[^/]+$'); do
		[ -d "$d" ] || continue
		real=$(readlink -f "$d")
		link=""
		for l in /usr/share/puppet/modules/*; do
			[ "$(readlink -f "$l")" = "$real" ] && link=$(basename "$l")
		done
		printf 'M\t%s\t%s\n' "$d" "$link"
		[ -f "$real/manifests/init.pp" ] && printf 'I\n' && grep -E '^[[:space:]]*class[[:space:]]' "$real/manifests/init.pp" | sed 's/^/C\t/'
	done
done
`

// Debian builds the Debian corpus: apt-cache in a container of the image
// lists the puppet-module-* packages, all are installed there, and each
// package whose module's init.pp defines the module's main class becomes an
// entry "deb:PACKAGE [module=NAME] version=V". Library-only modules (no
// init.pp, or no class of the module's name in it) are skipped.
func Debian(ctx context.Context, eng *container.Engine, img container.ImageOptions) ([]Entry, []Skipped, error) {
	info, err := eng.EnsureImage(ctx, img)
	if err != nil {
		return nil, nil, err
	}
	c, err := eng.Start(ctx, container.Spec{
		Image: info.ID, Env: []string{"LANG=C.UTF-8"},
		Labels: map[string]string{"fsmove.bench": "debian-corpus"},
	})
	if err != nil {
		return nil, nil, err
	}
	defer c.Remove(ctx)
	var out bytes.Buffer
	status, err := c.Exec(ctx, []string{"/bin/sh", "-c", debianListScript}, nil, &out)
	if err != nil {
		return nil, nil, err
	}
	if status != 0 {
		return nil, nil, fmt.Errorf("listing Debian's Puppet modules failed (status %d):\n%s", status, lines.Last(out.String(), 20))
	}
	return ParseDebianListing(&out)
}

// debianPackage is what the listing says about one package.
type debianPackage struct {
	name, version string
	modules       []debianModule
}

type debianModule struct {
	dir, name string
	classes   []string // class lines of init.pp
	hasInit   bool     // an I line came
}

// ParseDebianListing turns the output of the listing script into corpus
// entries (sorted by package) and the skipped packages.
func ParseDebianListing(r io.Reader) ([]Entry, []Skipped, error) {
	var pkgs []*debianPackage
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for lineNo := 1; sc.Scan(); lineNo++ {
		fields := strings.Split(sc.Text(), "\t")
		switch fields[0] {
		case "P":
			if len(fields) != 3 {
				return nil, nil, fmt.Errorf("Debian listing line %d: want P, package, version", lineNo)
			}
			pkgs = append(pkgs, &debianPackage{name: fields[1], version: fields[2]})
		case "M":
			if len(fields) != 3 || len(pkgs) == 0 {
				return nil, nil, fmt.Errorf("Debian listing line %d: want M, directory, name after a P line", lineNo)
			}
			p := pkgs[len(pkgs)-1]
			p.modules = append(p.modules, debianModule{dir: fields[1], name: fields[2]})
		case "I":
			if len(pkgs) == 0 || len(pkgs[len(pkgs)-1].modules) == 0 {
				return nil, nil, fmt.Errorf("Debian listing line %d: init.pp line before any module", lineNo)
			}
			p := pkgs[len(pkgs)-1]
			p.modules[len(p.modules)-1].hasInit = true
		case "C":
			if len(pkgs) == 0 || len(pkgs[len(pkgs)-1].modules) == 0 {
				return nil, nil, fmt.Errorf("Debian listing line %d: class line before any module", lineNo)
			}
			p := pkgs[len(pkgs)-1]
			m := &p.modules[len(p.modules)-1]
			m.classes = append(m.classes, strings.Join(fields[1:], "\t"))
		default:
			// apt's or the shell's chatter: not part of the listing.
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].name < pkgs[j].name })

	var entries []Entry
	var skipped []Skipped
	for _, p := range pkgs {
		e, reason := debianEntry(p)
		if reason != "" {
			skipped = append(skipped, Skipped{Package: p.name, Reason: reason})
			continue
		}
		entries = append(entries, e)
	}
	return entries, skipped, nil
}

// debianEntry picks the package's module that Puppet finds and whose
// init.pp defines its main class.
func debianEntry(p *debianPackage) (Entry, string) {
	if len(p.modules) == 0 {
		return Entry{}, "installs no module directory"
	}
	reason := ""
	for _, m := range p.modules {
		switch {
		case m.name == "":
			reason = fmt.Sprintf("%s is not on Puppet's module path (update-alternatives chose another package)", m.dir)
		case !validModuleName(m.name):
			reason = fmt.Sprintf("installs module %q, which is not a valid module name", m.name)
		case !m.hasInit:
			reason = fmt.Sprintf("library-only: %s has no manifests/init.pp", m.name)
		case !definesClass(m.classes, m.name):
			reason = fmt.Sprintf("library-only: manifests/init.pp of %s defines no class %s", m.name, m.name)
		default:
			e := Entry{Spec: "deb:" + p.name, Version: p.version}
			spec, err := parseSpec(e.Spec, m.name, "")
			if err != nil {
				return Entry{}, err.Error()
			}
			e.Module = spec
			e.Key = keyFor(spec, "")
			return e, ""
		}
	}
	return Entry{}, reason
}

// definesClass reports whether one of the class lines defines class name
// ("class name {", "class name(", "class ::name", "class name inherits …").
func definesClass(lines []string, name string) bool {
	for _, l := range lines {
		rest := strings.TrimLeft(l, " \t")
		rest, ok := strings.CutPrefix(rest, "class")
		if !ok {
			continue
		}
		rest = strings.TrimLeft(rest, " \t")
		rest = strings.TrimPrefix(rest, "::")
		after, ok := strings.CutPrefix(rest, name)
		if !ok {
			continue
		}
		if after == "" || strings.IndexByte(" \t({", after[0]) >= 0 {
			return true
		}
	}
	return false
}

// SkippedHeader formats skipped packages as corpus comments.
func SkippedHeader(skipped []Skipped) []string {
	var h []string
	for _, s := range skipped {
		h = append(h, fmt.Sprintf("skipped %s: %s", s.Package, s.Reason))
	}
	return h
}
