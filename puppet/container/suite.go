package container

import (
	"fmt"
	"strings"
)

// Suite is a Debian release fsmove can build its Puppet image of. Every
// difference between the releases' images is a field here, so that the
// build steps read the same for each.
type Suite struct {
	Name   string // the codename: "bookworm"
	Debian string // the release's number, for messages: "12"
	// Puppet is the upstream version of the release's puppet-agent:
	// metadata.json requirements are checked against it (a stable
	// release's updates do not move it past what a range tells apart).
	Puppet string // "7.23.0"
	// Packages are installed on top of the base system (ImageOptions.Packages).
	Packages []string
}

// DefaultSuite is the release of DefaultImage: the Debian corpus in
// bench/results was measured on it.
const DefaultSuite = "bookworm"

// corePackages are Puppet's core type modules, which Puppet 6 moved out of
// Puppet into modules (Debian packages them apart; a host that installs
// puppet gets them too), so that augeas, cron, host, mailalias, mount and
// ssh_authorized_key exist. Both suites package them under these names.
var corePackages = []string{
	"puppet-module-puppetlabs-augeas-core", "puppet-module-puppetlabs-cron-core",
	"puppet-module-puppetlabs-host-core", "puppet-module-puppetlabs-mailalias-core",
	"puppet-module-puppetlabs-mount-core", "puppet-module-puppetlabs-sshkeys-core",
}

// basePackages are Puppet, the strace tracer, ps/pgrep for the apply
// script, CA certificates for apt and the Forge over HTTPS, and systemd to
// boot the container as a host boots.
var basePackages = []string{
	"puppet-agent", "strace", "procps", "ca-certificates",
	"systemd", "systemd-sysv",
}

// Suites are the releases fsmove builds images of. bookworm's package list
// is part of its recipe digest: changing it rebuilds everyone's image.
var Suites = []Suite{
	{Name: "bookworm", Debian: "12", Puppet: "7.23.0", Packages: concat(basePackages, corePackages)},
	{Name: "trixie", Debian: "13", Puppet: "8.10.0", Packages: concat(basePackages, corePackages)},
}

// PuppetMajor is the major version of the suite's Puppet: "7".
func (s Suite) PuppetMajor() string {
	major, _, _ := strings.Cut(s.Puppet, ".")
	return major
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// LookupSuite returns the suite of that name.
func LookupSuite(name string) (Suite, error) {
	for _, s := range Suites {
		if s.Name == name {
			return s, nil
		}
	}
	return Suite{}, fmt.Errorf("unknown Debian suite %q (want one of %s)", name, strings.Join(SuiteNames(), ", "))
}

// SuiteNames lists the suites' names, for help and errors.
func SuiteNames() []string {
	var names []string
	for _, s := range Suites {
		names = append(names, s.Name)
	}
	return names
}

// SuiteImage is the tag of a suite's image: fsmove/puppet:<suite>.
func SuiteImage(suite string) string {
	return "fsmove/puppet:" + suite
}

// SuiteMirror returns the Debian mirror for suite that the host's apt
// sources in aptDir name (HostMirror) or, when they name none for it, the
// one they name for another suite of Suites: a Debian mirror serves every
// release, and a host usually lists only its own.
func SuiteMirror(aptDir, suite string) (string, error) {
	m, err := HostMirror(aptDir, suite)
	if err == nil {
		return m, nil
	}
	for _, s := range Suites {
		if other, otherErr := HostMirror(aptDir, s.Name); otherErr == nil {
			return other, nil
		}
	}
	return "", err
}

// ImageTag is the tag EnsureImage gives the image: Tag, or the suite's.
func (o ImageOptions) ImageTag() string {
	o.setDefaults()
	return o.Tag
}
