package runner

import (
	_ "embed"
	"strings"

	"github.com/fsmove/fsmove/tracer/linux"
)

// TraceFilter returns the comma-separated -e trace= list: every call of
// linux.Syscalls, the table the native tracers stop too (the lowering's
// calls, plus exit and exit_group and the calls that change what a process
// sees). Everything else (read, mmap, poll…) is left out: with
// --seccomp-bpf the kernel does not even stop Puppet for it. Most of a
// trace is Ruby's failed readlink calls (realpath of every required file),
// so the filter saves stops more than bytes.
//
// A call newer than the kernel headers linux.KernelSyscalls was generated
// from gets strace's "?" prefix: an strace as old as those headers (the
// image's, Debian's) skips a name it does not know rather than refusing the
// whole list.
func TraceFilter() string {
	known := make(map[string]bool, len(linux.KernelSyscalls))
	for _, s := range linux.KernelSyscalls {
		known[s.Name] = true
	}
	names := make([]string, len(linux.Syscalls))
	for i, s := range linux.Syscalls {
		names[i] = s.Name
		if !known[s.Name] {
			names[i] = "?" + s.Name
		}
	}
	return strings.Join(names, ",")
}

// Paths inside the container.
const (
	workDir       = "/fsmove"
	modulesDir    = workDir + "/modules"    // the module under test
	modulePathDir = workDir + "/modulepath" // --modulepath trees: modulepath/0, /1, …
	forgeDir      = workDir + "/forge"      // Forge installs
	sitePP        = workDir + "/site.pp"    // the entry manifest
	// applyDir holds what the traced apply writes besides Puppet's own
	// state, which one request brings out (takeApplied).
	applyDir       = workDir + "/apply"
	graphDir       = applyDir + "/graphs"      // Puppet's --graph output
	tracePath      = applyDir + "/trace.log"   // strace -o
	puppetLogPath  = applyDir + "/puppet.log"  // Puppet's stdout+stderr
	puppetExitPath = applyDir + "/puppet.exit" // Puppet's exit status (apply.sh)
	applyScript    = applyDir + "/apply.sh"
	debianModules  = "/usr/share/puppet/modules" // Debian's puppet-module-* packages
	puppetConf     = "/etc/puppet/puppet.conf"   // Debian's Puppet configuration
	// catalogDir is where --catalog_cache_terminus json writes the applied
	// catalog as <certname>.json (Debian's vardir for root).
	catalogDir = "/var/cache/puppet/client_data/catalog"
	// lastRunReport is Puppet's report of its last run (`puppet config
	// print lastrunreport` in the image).
	lastRunReport = "/var/cache/puppet/state/last_run_report.yaml"
)

// graphFiles are the graphs puppet apply --graph writes in graphDir.
var graphFiles = []string{"relationships.dot", ExpandedGraph, "resources.dot"}

// applySh is the wrapper that runs Puppet under strace and stops tracing
// when Puppet exits (see its comments).
//
//go:embed apply.sh
var applySh []byte

// StraceOptions are strace's options for the traced apply.
//
// -f follows children; -s 300 keeps Puppet's log lines (the block markers)
// whole; one -o file gives one pid-prefixed trace. --seccomp-bpf makes the
// kernel stop Puppet only for the listed calls; it also sets no-new-privs,
// which is harmless for Puppet running as root but breaks setuid programs
// (sudo) in the traced tree. followInit adds -p 1: in a container booted
// with systemd, services are systemd's children, not Puppet's, and are
// traced only through it (strace stops for all of systemd's calls, having
// attached rather than started it; the filter still applies to Puppet).
func StraceOptions(seccompBPF, followInit bool) []string {
	opts := []string{"-f", "-s", "300", "-o", tracePath}
	if seccompBPF {
		opts = append(opts, "--seccomp-bpf")
	}
	if followInit {
		opts = append(opts, "-p", "1")
	}
	return append(opts, "-e", "trace="+TraceFilter())
}

// PuppetApplyArgs are the arguments of "puppet apply" for the traced run.
// --detailed-exitcodes tells changes (2) and failed resources (4, 6) apart
// from a clean run (0) and a failed one (1).
func PuppetApplyArgs(modulePath []string) []string {
	return []string{
		"--debug", "--evaltrace", "--detailed-exitcodes",
		"--graph", "--graphdir", graphDir,
		"--catalog_cache_terminus", "json",
		"--modulepath", strings.Join(modulePath, ":"),
		sitePP,
	}
}

// ApplyCommand is the command exec'd in the container: apply.sh, strace's
// options, "--", then puppet apply's arguments (PuppetApplyArgs).
func ApplyCommand(seccompBPF, followInit bool, args []string) []string {
	cmd := []string{"/bin/sh", applyScript}
	cmd = append(cmd, StraceOptions(seccompBPF, followInit)...)
	cmd = append(cmd, "--")
	return append(cmd, args...)
}

// PuppetOutcome interprets Puppet's --detailed-exitcodes status.
func PuppetOutcome(exit int) string {
	switch exit {
	case 0:
		return "no-changes"
	case 2:
		return "changes"
	case 4:
		return "failures"
	case 6:
		return "changes-and-failures"
	case 1:
		return "failed"
	}
	return "unknown"
}

// PuppetSucceeded reports whether Puppet applied its catalog without a
// failed resource.
func PuppetSucceeded(exit int) bool { return exit == 0 || exit == 2 }
