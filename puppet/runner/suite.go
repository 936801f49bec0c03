package runner

import (
	"fmt"
	"strings"

	"github.com/fsmove/fsmove/internal/printable"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/module"
)

// SuiteChoice is the Debian suite of a run's image, and why.
type SuiteChoice struct {
	Suite string
	// Why is said when the module's requirements moved the run off the
	// default suite: "metadata.json requires puppet >= 8.0.0"; "" else.
	Why string
	// Warnings are said before the run starts; none of them stops it.
	Warnings []string
}

// ChooseSuite chooses the suite of a run of m. given (--suite, or the
// project file's suite) wins when not "". Otherwise the requirements on
// Puppet in m's metadata.json choose: the default suite when its Puppet
// meets them (the Debian corpus was measured there), else the first of
// container.Suites whose Puppet does; when none does, the error says so
// (the caller's usage error). Only a module directory's metadata.json is
// on this machine before the run; a Debian or Forge module runs on the
// default suite. A metadata.json whose requirements cannot be read is a
// warning: Puppet does not check them either.
func ChooseSuite(given string, m ModuleSpec) (SuiteChoice, error) {
	var p module.Platform
	var warnings []string
	if m.Kind == SourceDir {
		var err error
		if p, _, err = module.ReadPlatform(m.Dir); err != nil {
			warnings = append(warnings, fmt.Sprintf("%v: the Puppet it requires is not checked", err))
		}
	}
	c, err := chooseSuite(given, p)
	c.Warnings = append(warnings, c.Warnings...)
	return c, err
}

// chooseSuite is ChooseSuite once metadata.json is read.
func chooseSuite(given string, p module.Platform) (SuiteChoice, error) {
	var c SuiteChoice
	if !p.SupportsDebian() {
		c.Warnings = append(c.Warnings, osWarning(p.OperatingSystems))
	}
	if given != "" {
		s, err := container.LookupSuite(given)
		if err != nil {
			return c, fmt.Errorf("--suite: %w", err)
		}
		c.Suite = s.Name
		if !p.AllowsPuppet(s.Puppet) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("--suite %s has Puppet %s: metadata.json requires %s", s.Name, s.Puppet, p.PuppetString()))
		}
		return c, nil
	}
	def, err := container.LookupSuite(container.DefaultSuite)
	if err != nil {
		return c, err
	}
	suites := append([]container.Suite{def}, container.Suites...)
	for _, s := range suites {
		if p.AllowsPuppet(s.Puppet) {
			c.Suite = s.Name
			if s.Name != def.Name {
				c.Why = "metadata.json requires " + p.PuppetString()
			}
			return c, nil
		}
	}
	// Modules raise their minimum often past what Debian packages
	// (openvox >= 8.19.0 against trixie's 8.10.0) while the language is
	// that major's: a suite of an allowed major version runs the module,
	// with a warning, rather than refusing a module Puppet would apply.
	for _, s := range suites {
		if p.AllowsPuppetMajor(s.PuppetMajor()) {
			c.Suite = s.Name
			c.Why = "metadata.json requires " + p.PuppetString()
			c.Warnings = append(c.Warnings, fmt.Sprintf("metadata.json requires %s: applied on %s's Puppet %s",
				p.PuppetString(), s.Name, s.Puppet))
			return c, nil
		}
	}
	var have, flags []string
	for _, s := range container.Suites {
		have = append(have, fmt.Sprintf("Puppet %s (%s)", s.Puppet, s.Name))
		flags = append(flags, "--suite "+s.Name)
	}
	return c, fmt.Errorf("metadata.json requires %s; fsmove's suites have %s, so no suite does: "+
		"%s applies the module on that suite's Puppet all the same (puppet apply does not check requirements)",
		p.PuppetString(), strings.Join(have, " and "), strings.Join(flags, " or "))
}

// osWarning says that operatingsystem_support leaves Debian out, in one
// line of at most 100 columns with its "fsmove: warning: " prefix: the
// names are the module's, so they are made printable and the list is cut.
func osWarning(systems []string) string {
	const width = 100 - len("fsmove: warning: ")
	const head, tail = "metadata.json supports ", ", not Debian (operatingsystem_support)"
	shown := ""
	for i, name := range systems {
		next := shown
		if i > 0 {
			next += ", "
		}
		next += printable.String(name)
		rest := ""
		if i < len(systems)-1 {
			rest = fmt.Sprintf(" and %d more", len(systems)-1-i)
		}
		if len(head)+len(next)+len(rest)+len(tail) > width {
			if shown == "" {
				return head + fmt.Sprintf("%d systems", len(systems)) + tail
			}
			return head + shown + fmt.Sprintf(" and %d more", len(systems)-i) + tail
		}
		shown = next
	}
	return head + shown + tail
}
