package container

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/mount"
	"github.com/fsmove/fsmove/internal/testenv"
)

// TestE2ESandboxConfig creates (without starting) a container in each mode
// and reads back from the engine what it was given: never privileged, no
// capability but the tracer's and, when asked, the daemons', fsmove's
// seccomp profile, read-only cgroups but the run's own subtree, limits,
// the isolated network. Removing it removes its cgroup subtree.
func TestE2ESandboxConfig(t *testing.T) {
	ctx := context.Background()
	eng, img := e2eEngine(t)
	for _, tc := range []struct {
		name string
		spec Spec
		caps []string
	}{
		{"systemd", Spec{Init: InitSystemd}, nil},
		{"systemd-ptrace-daemon", Spec{Init: InitSystemd, Ptrace: true, DaemonCaps: true}, []string{"SYS_PTRACE", "DAC_READ_SEARCH", "SYS_NICE"}},
		{"none-ptrace", Spec{Init: InitNone, Ptrace: true, Network: NetworkNone}, []string{"SYS_PTRACE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Image = img.ID
			spec.Labels = map[string]string{"fsmove.test": "sandbox-config"}
			spec.Limits = Limits{Memory: 1 << 30, Pids: 100, CPUs: 1, CPUSet: CPUOf(1)}
			c, err := eng.Create(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			info, err := eng.cli.ContainerInspect(ctx, c.ID)
			if err != nil {
				c.Remove(ctx)
				t.Fatal(err)
			}
			h := info.HostConfig
			want := slices.Clone(tc.caps)
			if eng.Namespaced && !tc.spec.DaemonCaps {
				want = append(want, DaemonCapNames...)
			}
			var got []string // the engine names them CAP_X
			for _, c := range h.CapAdd {
				got = append(got, strings.TrimPrefix(c, "CAP_"))
			}
			slices.Sort(got)
			slices.Sort(want)
			if h.Privileged || !slices.Equal(got, want) {
				t.Errorf("privileged %v, caps added %q: want %q", h.Privileged, got, want)
			}
			profile, _ := SeccompProfile(tc.spec.Init)
			if !slices.Contains(h.SecurityOpt, "seccomp="+profile) || slices.ContainsFunc(h.SecurityOpt, func(o string) bool { return strings.Contains(o, "unconfined") }) {
				t.Errorf("security options: not fsmove's profile alone (%d options)", len(h.SecurityOpt))
			}
			if h.Memory != 1<<30 || h.MemorySwap != 1<<30 || h.PidsLimit == nil || *h.PidsLimit != 100 || h.NanoCPUs != 1e9 || h.CpusetCpus != CPUOf(1) {
				t.Errorf("limits: memory %d swap %d pids %v cpus %d cpuset %q", h.Memory, h.MemorySwap, h.PidsLimit, h.NanoCPUs, h.CpusetCpus)
			}
			wantNet := isolatedNetwork
			if tc.spec.Network != "" {
				wantNet = tc.spec.Network
			}
			if ipv6Off := h.Sysctls["net.ipv6.conf.all.disable_ipv6"] == "1"; ipv6Off != (wantNet == isolatedNetwork) {
				t.Errorf("network %q: IPv6 disabled %v", wantNet, ipv6Off)
			}
			if string(h.NetworkMode) != wantNet {
				t.Errorf("network %q, want %q", h.NetworkMode, wantNet)
			}
			if wantNet == isolatedNetwork {
				// The host forwards nothing of the bridge to a link-local
				// address (a cloud's metadata service): the rule is there
				// and reached (the test sends no traffic there).
				if _, err := iptables(append([]string{"-C", forwardChain}, forwardRules[0]...)...); err != nil {
					t.Errorf("no link-local drop: %v", err)
				}
				_, inUser := iptables("-C", "DOCKER-USER", "-i", isolatedBridge, "-j", forwardChain)
				_, inForward := iptables("-C", "FORWARD", "-i", isolatedBridge, "-j", forwardChain)
				if inUser != nil && inForward != nil {
					t.Errorf("no jump to %s from DOCKER-USER (%v) or FORWARD (%v)", forwardChain, inUser, inForward)
				}
			}
			var writable, covers []string
			for _, m := range h.Mounts {
				if m.Type == mount.TypeTmpfs {
					// A hierarchy's /fsmove, covered so that the other
					// runs' subtrees are not listed: empty, small, and
					// writable only where the run's subtree is below.
					if filepath.Base(m.Target) != "fsmove" || m.TmpfsOptions == nil || m.TmpfsOptions.SizeBytes > 1<<20 {
						t.Errorf("tmpfs %+v: want a small cover of a hierarchy's /fsmove", m)
					}
					if !m.ReadOnly {
						covers = append(covers, m.Target)
					}
					continue
				}
				if !m.ReadOnly {
					writable = append(writable, m.Target)
				} else if m.BindOptions == nil || !m.BindOptions.NonRecursive {
					t.Errorf("read-only mount %s is recursive: its submounts stay writable", m.Target)
				}
			}
			if tc.spec.Init == InitSystemd {
				if c.cg == nil || len(writable) == 0 || string(h.CgroupnsMode) != "host" {
					t.Fatalf("systemd: cgroup %v, writable %q, namespace %q", c.cg, writable, h.CgroupnsMode)
				}
				for _, w := range covers {
					if !slices.Contains(writable, w+"/"+c.Name+"/c") {
						t.Errorf("the cover %s is writable with no subtree of the run's below it", w)
					}
				}
				for _, w := range writable {
					if !strings.HasSuffix(w, "/fsmove/"+c.Name+"/c") {
						t.Errorf("writable mount %s is not the run's own subtree", w)
					}
					if _, err := os.Stat(w); err != nil {
						t.Errorf("the run's subtree %s was not made: %v", w, err)
					}
				}
			} else if len(h.Mounts) != 0 || string(h.CgroupnsMode) != "private" {
				t.Errorf("none: mounts %v, cgroup namespace %q: want Docker's own, private", h.Mounts, h.CgroupnsMode)
			}
			if err := c.Remove(ctx); err != nil {
				t.Fatal(err)
			}
			if left, _ := filepath.Glob("/sys/fs/cgroup/*/fsmove/" + c.Name); len(left) > 0 {
				t.Errorf("the run's cgroup subtree is left after Remove: %v", left)
			}
		})
	}
}

// Debian's redis-server, whose unit sandboxes itself (PrivateTmp=,
// PrivateDevices=, ProtectSystem=, ReadOnlyDirectories=, ...), installs and
// starts in a systemd container: fsmove's seccomp profile allows what
// systemd and its helpers need for that, with no added capability. (With
// Docker's default profile its install fails in dpkg.)
func TestE2ESandboxedUnitStarts(t *testing.T) {
	ctx := context.Background()
	eng, img := e2eEngine(t)
	c, err := eng.Start(ctx, Spec{Image: img.ID, Init: InitSystemd, Labels: map[string]string{"fsmove.test": "sandboxed-unit"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Remove(ctx)
	if _, err := c.WaitBooted(ctx, 90*time.Second); err != nil {
		t.Fatal(err)
	}
	// The image's policy-rc.d keeps maintainer scripts from starting
	// daemons: systemctl starts it.
	var out strings.Builder
	status, err := c.Exec(ctx, []string{"/bin/sh", "-c", `apt-get update -qq 2>&1 | tail -3 &&
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server 2>&1 | tail -3 &&
systemctl start redis-server; systemctl is-active redis-server || systemctl status --no-pager redis-server | tail -8`}, nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	if status != 0 || !strings.Contains(out.String(), "\nactive\n") && !strings.HasPrefix(out.String(), "active\n") {
		t.Errorf("redis-server did not install and start (status %d):\n%s", status, out.String())
	}
}

// e2eEngine connects to Docker and makes sure fsmove's image exists, for
// this package's end-to-end tests (containertest.Engine cannot be used
// here: it imports this package). It skips in -short mode or without
// Docker, unless FSMOVE_E2E=1, which makes that a failure.
func e2eEngine(t *testing.T) (*Engine, ImageInfo) {
	t.Helper()
	if testing.Short() && !testenv.Required() {
		t.Skip("e2e test skipped in -short mode")
	}
	eng, err := Connect(context.Background())
	if err != nil {
		testenv.Missing(t, "Docker is unreachable: %v", err)
	}
	t.Cleanup(func() { eng.Close() })
	img, err := eng.EnsureImage(context.Background(), ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return eng, img
}
