package container

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// sandboxCalls are the calls systemd needs to sandbox a unit (PrivateUsers=,
// ProtectSystem=, PrivateTmp=, ...): it makes namespaces and mounts in them.
// Docker's default profile allows them only with CAP_SYS_ADMIN, which a
// container of fsmove never has; without them such units fail with status
// 217/USER or 226/NAMESPACE, as Debian 12's redis-server does. In a user
// namespace of its own a process gets no power over the host's namespaces
// or mounts, so allowing the calls themselves gives the container nothing
// over the host.
var sandboxCalls = []string{
	"clone", "clone3", "unshare", "setns",
	"mount", "umount2", "pivot_root",
	"mount_setattr", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
}

// deniedCalls are refused whatever capabilities the container has.
// open_by_handle_at opens a file by its inode number on any filesystem the
// container has a file of (a bind-mounted /etc/hosts is on the host's root
// filesystem): with CAP_DAC_READ_SEARCH it reads and writes the host's files
// ("Shocker"). Docker's default allows it with that capability.
var deniedCalls = []string{"open_by_handle_at"}

// fSetLease is fcntl's F_SETLEASE, which fsmove's profile refuses. A lease
// holds up another process's open of the file after the kernel has copied
// its path, for as long as the holder likes: time for the module to
// rewrite the path in the opener's memory before the tracer reads it at
// the call's exit, and hide what was opened (docs/DESIGN.md, "Paths the
// module rewrites"). Nothing a Puppet run installs needs one (file servers
// do: Samba, NFS).
const fSetLease = 1024

// seccompJSON holds fsmove's two profiles, built once each: without and
// with sandboxCalls (SeccompProfile).
var seccompJSON = [2]func() (string, error){
	sync.OnceValues(func() (string, error) { return buildSeccompProfile(false) }),
	sync.OnceValues(func() (string, error) { return buildSeccompProfile(true) }),
}

// SeccompProfile returns fsmove's seccomp profile for a container booted
// with init, in the JSON form Docker takes ("seccomp=<json>" in the
// security options): Docker's default profile
// (github.com/moby/profiles/seccomp, the engine's own source of it) with
// deniedCalls and fcntl's F_SETLEASE never allowed. Under systemd,
// sandboxCalls are allowed without CAP_SYS_ADMIN too; without it nothing
// needs them, and Docker's
// conditions stay (a user namespace is kernel attack surface). The rest
// keeps its conditions (ptrace with CAP_SYS_PTRACE, for the ptrace
// tracers).
func SeccompProfile(init Init) (string, error) {
	if init == InitSystemd {
		return seccompJSON[1]()
	}
	return seccompJSON[0]()
}

func buildSeccompProfile(sandboxing bool) (string, error) {
	p := seccomp.DefaultProfile()
	var rules []*seccomp.Syscall
	for _, r := range p.Syscalls {
		r.Names = slices.DeleteFunc(r.Names, func(n string) bool {
			return slices.Contains(deniedCalls, n) || n == "fcntl" && len(r.Args) == 0
		})
		if len(r.Names) == 0 {
			continue
		}
		// Docker answers clone3 with ENOSYS without CAP_SYS_ADMIN (its
		// flags are behind a pointer, out of seccomp's reach), so that
		// glibc falls back to clone; systemd's sandboxing may use either.
		if sandboxing && r.Action == specs.ActErrno && slices.Contains(r.Names, "clone3") {
			r.Names = slices.DeleteFunc(r.Names, func(n string) bool { return n == "clone3" })
			if len(r.Names) == 0 {
				continue
			}
		}
		rules = append(rules, r)
	}
	rules = append(rules, &seccomp.Syscall{
		LinuxSyscall: specs.LinuxSyscall{Names: []string{"fcntl"}, Action: specs.ActAllow,
			Args: []specs.LinuxSeccompArg{{Index: 1, Value: fSetLease, Op: specs.OpNotEqual}}},
		Comment: "fsmove: fcntl, but F_SETLEASE",
	})
	if sandboxing {
		rules = append(rules, &seccomp.Syscall{
			LinuxSyscall: specs.LinuxSyscall{Names: slices.Clone(sandboxCalls), Action: specs.ActAllow},
			Comment:      "fsmove: what systemd needs to sandbox units, without CAP_SYS_ADMIN",
		})
	}
	p.Syscalls = rules
	data, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("seccomp profile: %w", err)
	}
	return string(data), nil
}
