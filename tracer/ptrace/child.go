package ptrace

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/fsmove/fsmove/tracer/linux"
	"golang.org/x/sys/unix"
)

// The traced command is started in two steps, because a seccomp filter can
// only be installed by the process itself, and Go's fork/exec cannot run
// code between fork and exec:
//
//  1. the tracer forks and executes its own binary (/proc/self/exe) with
//     PTRACE_TRACEME and the environment variable childEnv set;
//  2. that child, in this package's init (before main, so it works in any
//     binary that links this package: fsmove, the test binaries), loads the
//     filter on its main thread and executes the real command. The filter is
//     inherited by everything the command starts.
//
// The tracer does not follow the child's own Go runtime threads (it turns
// fork/clone following on only at the first filtered call, the execve of
// the command), and those threads have no filter; exec ends them.

// childEnv carries the child mode (childMode.String).
const childEnv = "FSMOVE_PTRACE_CHILD"

// childMode is how the child loads its filter: nnp always sets
// no-new-privs; lax lets realpath's readlink calls run unstopped in the
// command's own process (see inject.go).
type childMode struct{ nnp, lax bool }

// String is the mode as childEnv carries it: "1", or the words "nnp" and
// "lax" joined by commas.
func (m childMode) String() string {
	var words []string
	if m.nnp {
		words = append(words, "nnp")
	}
	if m.lax {
		words = append(words, "lax")
	}
	if len(words) == 0 {
		return "1"
	}
	return strings.Join(words, ",")
}

// parseChildMode reads childEnv's value.
func parseChildMode(s string) childMode {
	var m childMode
	for _, w := range strings.Split(s, ",") {
		m.nnp = m.nnp || w == "nnp"
		m.lax = m.lax || w == "lax"
	}
	return m
}

// childExitCode is the status of a child that could not load the filter or
// execute the command; its reason is on stderr.
const childExitCode = 127

func init() {
	mode, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	runChild(parseChildMode(mode)) // never returns
}

// runChild loads the filter and executes os.Args[1:] (Args[1] is the
// resolved program path, Args[2:] the argv).
func runChild(mode childMode) {
	runtime.LockOSThread()
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "fsmove trace: %v\n", err)
		os.Exit(childExitCode)
	}
	if len(os.Args) < 3 {
		fail(errors.New("ptrace child: no command"))
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, childEnv+"=") {
			env = append(env, kv)
		}
	}
	if err := loadFilter(mode.nnp, mode.lax); err != nil {
		fail(err)
	}
	err := unix.Exec(os.Args[1], os.Args[2:], env)
	fail(fmt.Errorf("exec %s: %w", os.Args[1], err))
}

// loadFilter installs the filter on the calling thread only (no TSYNC: the
// other threads of this Go process are about to disappear at exec).
//
// Without no-new-privs, loading a filter needs CAP_SYS_ADMIN; we try that
// first because no-new-privs stops setuid and file-capability programs
// (sudo, su, ping) from gaining privileges for the rest of the traced tree.
// Root in a container without CAP_SYS_ADMIN (Docker's default) gets EACCES
// and falls back to no-new-privs: Puppet runs as root, so its own runs need
// no setuid, but a manifest that runs `sudo -u` or `su` would then fail the
// same way as under strace --seccomp-bpf.
func loadFilter(forceNNP, lax bool) error {
	f := seccomp.Filter{NoNewPrivs: forceNNP, Policy: filterPolicy(lax)}
	err := seccomp.LoadFilter(f)
	if err != nil && !forceNNP && errors.Is(err, unix.EACCES) {
		f.NoNewPrivs = true
		err = seccomp.LoadFilter(f)
	}
	return err
}

// filterPolicy stops (SECCOMP_RET_TRACE) the calls of callTable that this
// kernel's x86_64 table knows, the marker calls only on fds 1 and 2 or when
// their third argument (write's and pwrite64's length, writev's iovec
// count) is at most linux.ShortWrite, and allows everything else. A writev of
// few iovecs can still be long: the tracer checks its total at the stop
// (loop.markerWanted); fcntl only for the commands the lowering reads
// (linux.FcntlCommands). lax lets readlink calls with realpath's buffer
// size run unstopped (see inject.go).
func filterPolicy(lax bool) seccomp.Policy {
	var names []string
	var withArgs []seccomp.NameWithConditions
	for _, row := range callTable {
		if _, ok := arch.X86_64.SyscallNames[row.name]; !ok {
			continue
		}
		if row.marker {
			for _, fd := range []uint64{1, 2} {
				withArgs = append(withArgs, seccomp.NameWithConditions{
					Name:       row.name,
					Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: fd}},
				})
			}
			withArgs = append(withArgs, seccomp.NameWithConditions{
				Name:       row.name,
				Conditions: seccomp.ArgumentConditions{{Argument: 2, Operation: seccomp.LessOrEqual, Value: linux.ShortWrite}},
			})
			continue
		}
		if row.name == "fcntl" {
			for _, cmd := range linux.FcntlCommands {
				withArgs = append(withArgs, seccomp.NameWithConditions{
					Name:       row.name,
					Conditions: seccomp.ArgumentConditions{{Argument: 1, Operation: seccomp.Equal, Value: cmd}},
				})
			}
			continue
		}
		if lax && row.name == "readlink" {
			withArgs = append(withArgs, seccomp.NameWithConditions{
				Name:       row.name,
				Conditions: seccomp.ArgumentConditions{{Argument: 2, Operation: seccomp.NotEqual, Value: realpathBufsiz}},
			})
			continue
		}
		names = append(names, row.name)
	}
	names = append(names, credCalls...) // (predict.go)
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: seccomp.ActionTrace, Names: names, NamesWithCondtions: withArgs},
		},
	}
}
