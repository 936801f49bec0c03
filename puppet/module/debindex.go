package module

import (
	"fmt"
	"strings"
)

// DebPackage is one puppet-module-* package the image keeps as a .deb
// (its index: container.ModuleIndexFile).
type DebPackage struct {
	Package string
	Version string // Debian's ("8.5.0-1")
	Modules []Name // the modules it installs
}

// ParseDebIndex reads the image's index of its module packages: one
// package a line, PACKAGE<tab>VERSION<tab>MODULES (MODULES
// comma-separated, possibly empty); '#' starts a comment line. A module name Puppet would not accept is skipped.
func ParseDebIndex(text string) ([]DebPackage, error) {
	var pkgs []DebPackage
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] == "" || f[1] == "" {
			return nil, fmt.Errorf("module index line %d: want PACKAGE, VERSION and MODULES separated by tabs, got %q", i+1, line)
		}
		p := DebPackage{Package: f[0], Version: f[1]}
		for _, m := range strings.Split(f[2], ",") {
			if m == "" {
				continue
			}
			// A name Puppet would not load (a packaging oddity) cannot
			// satisfy a dependency: it is left out, the package kept.
			if n, err := ParseName(m); err == nil {
				p.Modules = append(p.Modules, n)
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}
