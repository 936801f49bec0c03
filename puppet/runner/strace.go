package runner

import (
	_ "embed"
	"slices"
	"strings"
)

// tracedCall is one row of the strace filter: a system call and why the
// analysis needs it.
type tracedCall struct {
	name string
	why  callRole
}

// callRole groups the rows by what the lowering does with them.
type callRole uint8

const (
	rolePath    callRole = iota // names a path: consumes, produces or expunges it
	roleFd                      // changes a process's fd table (or acts through an fd)
	roleProcess                 // creates, replaces or ends a process, or moves its cwd/root
	roleMarker                  // carries Puppet's block markers (writes to fd 1)
)

// tracedCalls is the -e trace= list: every call in the lowering table of
// SPEC "Effects of system calls" that exists on x86_64, plus what keeps the
// model's fd tables and process tree right. Everything else (read, mmap,
// poll…) is left out: with --seccomp-bpf the kernel does not even stop
// Puppet for it.
//
// Measured on the fixtures (see the report of issue 3): most of a trace is
// Ruby's failed readlink calls (realpath of every required file), so the
// filter saves stops more than bytes.
var tracedCalls = []tracedCall{
	{"open", rolePath}, {"openat", rolePath}, {"openat2", rolePath}, {"creat", rolePath},
	{"stat", rolePath}, {"lstat", rolePath}, {"newfstatat", rolePath}, {"statx", rolePath}, {"statfs", rolePath},
	{"access", rolePath}, {"faccessat", rolePath}, {"faccessat2", rolePath},
	{"execve", rolePath}, {"execveat", rolePath},
	{"mkdir", rolePath}, {"mkdirat", rolePath}, {"mknod", rolePath}, {"mknodat", rolePath},
	{"unlink", rolePath}, {"unlinkat", rolePath}, {"rmdir", rolePath},
	{"rename", rolePath}, {"renameat", rolePath}, {"renameat2", rolePath},
	{"link", rolePath}, {"linkat", rolePath}, {"symlink", rolePath}, {"symlinkat", rolePath},
	{"readlink", rolePath}, {"readlinkat", rolePath},
	{"truncate", rolePath}, {"ftruncate", roleFd},
	{"chmod", rolePath}, {"fchmod", roleFd}, {"fchmodat", rolePath},
	{"chown", rolePath}, {"fchown", roleFd}, {"lchown", rolePath}, {"fchownat", rolePath},
	{"setxattr", rolePath}, {"lsetxattr", rolePath}, {"fsetxattr", roleFd},
	{"getxattr", rolePath}, {"lgetxattr", rolePath}, {"fgetxattr", roleFd},
	{"listxattr", rolePath}, {"llistxattr", rolePath}, {"flistxattr", roleFd},
	{"removexattr", rolePath}, {"lremovexattr", rolePath}, {"fremovexattr", roleFd},
	{"utime", rolePath}, {"utimes", rolePath}, {"utimensat", rolePath}, {"futimesat", rolePath},
	{"chdir", roleProcess}, {"fchdir", roleProcess}, {"getcwd", roleProcess}, {"chroot", roleProcess},
	{"clone", roleProcess}, {"clone3", roleProcess}, {"fork", roleProcess}, {"vfork", roleProcess},
	{"exit", roleProcess}, {"exit_group", roleProcess},
	{"dup", roleFd}, {"dup2", roleFd}, {"dup3", roleFd}, {"fcntl", roleFd},
	{"close", roleFd}, {"close_range", roleFd},
	{"pipe", roleFd}, {"pipe2", roleFd}, {"socket", roleFd}, {"socketpair", roleFd},
	{"accept", roleFd}, {"accept4", roleFd},
	{"eventfd", roleFd}, {"eventfd2", roleFd}, {"memfd_create", roleFd},
	{"epoll_create", roleFd}, {"epoll_create1", roleFd},
	{"inotify_init", roleFd}, {"inotify_init1", roleFd},
	{"signalfd", roleFd}, {"signalfd4", roleFd}, {"timerfd_create", roleFd}, {"pidfd_open", roleFd},
	{"write", roleMarker}, {"writev", roleMarker},
}

// TraceFilter returns the comma-separated -e trace= list.
func TraceFilter() string {
	names := make([]string, len(tracedCalls))
	for i, c := range tracedCalls {
		names[i] = c.name
	}
	return strings.Join(names, ",")
}

// Paths inside the container.
const (
	workDir        = "/fsmove"
	modulesDir     = workDir + "/modules"     // the module under test
	modulePathDir  = workDir + "/modulepath"  // --modulepath trees: modulepath/0, /1, …
	forgeDir       = workDir + "/forge"       // Forge installs
	sitePP         = workDir + "/site.pp"     // the entry manifest
	graphDir       = workDir + "/graphs"      // Puppet's --graph output
	tracePath      = workDir + "/trace.log"   // strace -o
	puppetLogPath  = workDir + "/puppet.log"  // Puppet's stdout+stderr
	puppetExitPath = workDir + "/puppet.exit" // Puppet's exit status (apply.sh)
	applyScript    = workDir + "/apply.sh"
	debianModules  = "/usr/share/puppet/modules" // Debian's puppet-module-* packages
	puppetConf     = "/etc/puppet/puppet.conf"   // Debian's Puppet configuration
	// catalogDir is where --catalog_cache_terminus json writes the applied
	// catalog as <certname>.json (Debian's vardir for root).
	catalogDir = "/var/cache/puppet/client_data/catalog"
)

// applySh is the wrapper that runs Puppet under strace and stops tracing
// when Puppet exits (see its comments).
//
//go:embed apply.sh
var applySh []byte

// ApplyScript returns apply.sh, for benchmarks that run strace the way
// fsmove run does (in systemd mode strace follows PID 1 and never ends by
// itself: the script stops it when Puppet exits).
func ApplyScript() []byte { return slices.Clone(applySh) }

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
// options, "--", then puppet apply's arguments.
func ApplyCommand(seccompBPF, followInit bool, modulePath []string) []string {
	cmd := []string{"/bin/sh", applyScript}
	cmd = append(cmd, StraceOptions(seccompBPF, followInit)...)
	cmd = append(cmd, "--")
	return append(cmd, PuppetApplyArgs(modulePath)...)
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
