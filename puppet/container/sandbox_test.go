package container

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/network"
	"github.com/fsmove/fsmove/tracer/linux"
	"github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// fsmove's profiles never allow open_by_handle_at or fcntl(F_SETLEASE), and
// keep Docker's conditions on the rest (ptrace only with CAP_SYS_PTRACE);
// under systemd, and only there, what its sandboxing needs is allowed
// without conditions.
func TestSeccompProfile(t *testing.T) {
	for _, init := range []Init{InitSystemd, InitNone} {
		data, err := SeccompProfile(init)
		if err != nil {
			t.Fatal(err)
		}
		var p seccomp.Seccomp
		if err := json.Unmarshal([]byte(data), &p); err != nil {
			t.Fatalf("%s: the profile is not Docker's JSON: %v", init, err)
		}
		if p.DefaultAction != specs.ActErrno {
			t.Errorf("%s: default action %s, want errno (deny)", init, p.DefaultAction)
		}
		allowedAlways := map[string]bool{}
		clone3Errno := false
		fcntlBarred := false
		for _, r := range p.Syscalls {
			for _, n := range r.Names {
				if n == "fcntl" && r.Action == specs.ActAllow {
					// Only with its command not F_SETLEASE.
					fcntlBarred = len(r.Args) == 1 && r.Args[0].Index == 1 && r.Args[0].Value == fSetLease && r.Args[0].Op == specs.OpNotEqual
					if !fcntlBarred {
						t.Errorf("%s: a rule lets fcntl(F_SETLEASE) through: %+v", init, r)
					}
				}
				if n == "open_by_handle_at" && r.Action != specs.ActErrno {
					t.Errorf("%s: a rule lets open_by_handle_at through: %+v", init, r)
				}
				if r.Action == specs.ActAllow && r.Includes == nil && r.Excludes == nil && len(r.Args) == 0 {
					allowedAlways[n] = true
				}
				clone3Errno = clone3Errno || n == "clone3" && r.Action == specs.ActErrno
			}
		}
		if !fcntlBarred {
			t.Errorf("%s: fcntl is not allowed (but for F_SETLEASE)", init)
		}
		sandboxing := init == InitSystemd
		if clone3Errno == sandboxing {
			t.Errorf("%s: clone3 answered with an errno: %v", init, clone3Errno)
		}
		for _, n := range sandboxCalls {
			if allowedAlways[n] != sandboxing {
				t.Errorf("%s: %s allowed without conditions: %v", init, n, allowedAlways[n])
			}
		}
		for _, n := range []string{"ptrace", "bpf", "perf_event_open", "kexec_load", "init_module", "keyctl", "open_by_handle_at"} {
			if allowedAlways[n] {
				t.Errorf("%s: %s is allowed without conditions", init, n)
			}
		}
		if !allowedAlways["openat"] || !allowedAlways["execve"] {
			t.Errorf("%s: Docker's default allowances are missing (openat, execve)", init)
		}
	}
}

const hybridMountinfo = `22 1 254:0 / / rw,relatime - ext4 /dev/vda rw
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:7 - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
50 22 0:40 / /mnt/cgroup rw - cgroup2 cgroup2 rw
`

const v2Mountinfo = `22 1 254:0 / / rw,relatime - ext4 /dev/vda rw
31 23 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
`

// The container's view of a hybrid host: every mount read-only and
// non-recursive, each hierarchy's /fsmove covered by a tmpfs (the other
// runs' names hidden), and only the run's subtree of name=systemd and
// cgroup2 writable.
func TestCgroupMountsHybrid(t *testing.T) {
	hc, err := parseMountinfo(t, strings.NewReader(hybridMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	if hc.v2Only || hc.unified() != "/sys/fs/cgroup/unified" || len(hc.mounts) != 4 {
		t.Fatalf("layout %+v: want hybrid, 4 hierarchies (not /mnt/cgroup), cgroup2 at unified", hc)
	}
	rc := newRunCgroup(hc, "fsmove-abc")
	ms, err := rc.mounts()
	if err != nil {
		t.Fatal(err)
	}
	var ro, rw, covers []string
	for _, m := range ms {
		if m.Type == mount.TypeTmpfs {
			covers = append(covers, fmt.Sprintf("%s ro=%v", m.Target, m.ReadOnly))
			continue
		}
		if m.Source != m.Target || m.BindOptions == nil || !m.BindOptions.NonRecursive {
			t.Errorf("mount %+v: want a non-recursive bind at its own path", m)
		}
		if m.ReadOnly {
			ro = append(ro, m.Target)
		} else {
			rw = append(rw, m.Target)
		}
	}
	wantRO := []string{"/sys/fs/cgroup", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified"}
	wantRW := []string{"/sys/fs/cgroup/systemd/fsmove/fsmove-abc/c", "/sys/fs/cgroup/unified/fsmove/fsmove-abc/c"}
	if !slices.Equal(ro, wantRO) || !slices.Equal(rw, wantRW) {
		t.Errorf("read-only %q\nwritable %q\nwant %q\nand %q", ro, rw, wantRO, wantRW)
	}
	// Writable where the run's subtree is bound below it.
	wantCovers := []string{"/sys/fs/cgroup/cpu/fsmove ro=true", "/sys/fs/cgroup/memory/fsmove ro=true",
		"/sys/fs/cgroup/systemd/fsmove ro=false", "/sys/fs/cgroup/unified/fsmove ro=false"}
	if !slices.Equal(covers, wantCovers) {
		t.Errorf("tmpfs covers %q, want %q", covers, wantCovers)
	}
	if rc.parent() != "/fsmove/fsmove-abc/c" || rc.traceDir() != "/sys/fs/cgroup/unified/fsmove/fsmove-abc/c" {
		t.Errorf("parent %s, trace dir %s", rc.parent(), rc.traceDir())
	}
}

// On a cgroup2-only host the root itself is bound read-only and the run's
// subtree writable; the limits go one level above it.
func TestCgroupMountsV2(t *testing.T) {
	hc, err := parseMountinfo(t, strings.NewReader(v2Mountinfo))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := newRunCgroup(hc, "fsmove-abc").mounts()
	if err != nil {
		t.Fatal(err)
	}
	if !hc.v2Only || len(ms) != 3 || !ms[0].ReadOnly || ms[0].Target != "/sys/fs/cgroup" ||
		ms[1].Type != mount.TypeTmpfs || ms[1].ReadOnly || ms[1].Target != "/sys/fs/cgroup/fsmove" ||
		ms[2].ReadOnly || ms[2].Target != "/sys/fs/cgroup/fsmove/fsmove-abc/c" {
		t.Errorf("v2 mounts %+v", ms)
	}
	files := Limits{Memory: 1 << 30, Pids: 100, CPUs: 1.5}.v2Files()
	if files["memory.max"] != "1073741824" || files["pids.max"] != "100" || files["cpu.max"] != "150000 100000" || files["memory.swap.max"] != "0" {
		t.Errorf("v2 limit files %v", files)
	}
}

// A v1 host without the name=systemd hierarchy cannot host systemd: the
// error says what to mount.
func TestCgroupNoSystemdHierarchy(t *testing.T) {
	hc, err := parseMountinfo(t, strings.NewReader("31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n32 31 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newRunCgroup(hc, "x").mounts(); err == nil || !strings.Contains(err.Error(), "name=systemd") {
		t.Errorf("mounts: %v, want an error naming name=systemd", err)
	}
	if _, err := parseMountinfo(t, strings.NewReader("22 1 254:0 / / rw - ext4 /dev/vda rw\n")); err == nil {
		t.Error("a host without cgroups accepted")
	}
}

func parseMountinfo(t *testing.T, r io.Reader) (*hostCgroups, error) {
	t.Helper()
	ms, err := linux.ParseMountinfo(r)
	if err != nil {
		t.Fatal(err)
	}
	return cgroupsOf(ms)
}

func TestLimits(t *testing.T) {
	l := Limits{Pids: -1}.withDefaults()
	if l.Memory != DefaultLimits().Memory || l.Pids != -1 || l.CPUs <= 0 {
		t.Errorf("withDefaults = %+v", l)
	}
	if s := l.String(); !strings.Contains(s, "pids unlimited") || !strings.Contains(s, "memory 4.0 GB") {
		t.Errorf("String = %q", s)
	}
	if s := (Limits{CPUSet: "1"}).withDefaults().String(); !strings.HasSuffix(s, ", on CPU 1") {
		t.Errorf("String with a CPU set = %q", s)
	}
	if n, err := ParseNetwork("None"); err != nil || n != NetworkNone {
		t.Errorf("ParseNetwork(None) = %q, %v", n, err)
	}
	if _, err := ParseNetwork("host"); err == nil {
		t.Error("--network host accepted")
	}
}

// CPUOf takes the CPUs this process may run on in turn.
func TestCPUOf(t *testing.T) {
	n := hostCPUs()
	seen := map[string]bool{}
	for w := 0; w < n; w++ {
		cpu := CPUOf(w)
		if _, err := strconv.Atoi(cpu); err != nil || seen[cpu] {
			t.Fatalf("CPUOf(%d) = %q: not a CPU, or one an earlier worker has", w, cpu)
		}
		seen[cpu] = true
	}
	if CPUOf(n) != CPUOf(0) || CPUOf(n+1) != CPUOf(1%n) {
		t.Errorf("CPUOf does not wrap around the %d CPUs", n)
	}
}

// A network called fsmove that fsmove did not make is refused: the host's
// rule names fsmove's bridge, and its containers must not reach each other.
func TestCheckIsolated(t *testing.T) {
	ours := network.Inspect{Driver: "bridge", Options: map[string]string{
		"com.docker.network.bridge.name": isolatedBridge, "com.docker.network.bridge.enable_icc": "false"}}
	if err := checkIsolated(ours); err != nil {
		t.Errorf("fsmove's own network refused: %v", err)
	}
	for name, change := range map[string]func(*network.Inspect){
		"another bridge":          func(n *network.Inspect) { n.Options["com.docker.network.bridge.name"] = "br-1234" },
		"inter-container traffic": func(n *network.Inspect) { delete(n.Options, "com.docker.network.bridge.enable_icc") },
		"IPv6":                    func(n *network.Inspect) { n.EnableIPv6 = true },
		"another driver":          func(n *network.Inspect) { n.Driver = "macvlan" },
	} {
		n := network.Inspect{Driver: ours.Driver, Options: maps.Clone(ours.Options)}
		change(&n)
		if err := checkIsolated(n); err == nil || !strings.Contains(err.Error(), "docker network rm") {
			t.Errorf("%s: accepted (%v)", name, err)
		}
	}
}
