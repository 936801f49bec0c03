package ebpf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	cebpf "github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/features"
	"github.com/cilium/ebpf/rlimit"
)

// Capability numbers (linux/capability.h).
const (
	capSysAdmin = 21
	capPerfmon  = 38
	capBPF      = 39
)

// Check says whether this process can trace with eBPF on this machine: nil
// when it can, else an error saying in one line what is missing. It asks
// the kernel (it creates a ring buffer map and loads tiny programs, then
// frees them) rather than trusting version numbers. A caller choosing the
// default tracer uses eBPF when Check returns nil.
func Check() error {
	if !privileged() {
		return errors.New("eBPF needs root or CAP_BPF and CAP_PERFMON")
	}
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		return errors.New("eBPF needs a kernel with BTF (/sys/kernel/btf/vmlinux is missing: CONFIG_DEBUG_INFO_BTF)")
	}
	// Kernels before 5.11 charge BPF maps to RLIMIT_MEMLOCK; Start raises it too.
	_ = rlimit.RemoveMemlock()
	if err := features.HaveMapType(cebpf.RingBuf); err != nil {
		return probeErr("BPF ring buffers (Linux 5.8 or later)", err)
	}
	for _, h := range []struct {
		fn   asm.BuiltinFunc
		what string
	}{
		{asm.FnGetNsCurrentPidTgid, "the bpf_get_ns_current_pid_tgid helper (Linux 5.7 or later)"},
		{asm.FnGetCurrentAncestorCgroupId, "the bpf_get_current_ancestor_cgroup_id helper (Linux 5.7 or later)"},
		{asm.FnRingbufQuery, "the bpf_ringbuf_query helper (Linux 5.8 or later)"},
	} {
		if err := features.HaveProgramHelper(cebpf.TracePoint, h.fn); err != nil {
			return probeErr(h.what+" in tracepoint programs", err)
		}
	}
	if _, err := cgroup2Mount(); err != nil {
		return fmt.Errorf("eBPF needs the cgroup v2 hierarchy mounted (at %s)", strings.Join(cgroup2Mounts, " or "))
	}
	if err := tracefsReady(); err != nil {
		return err
	}
	return nil
}

// probeErr words a failed feature probe: missing from the kernel, or the
// probe itself failed (not allowed: lockdown, seccomp, a container).
func probeErr(what string, err error) error {
	if errors.Is(err, cebpf.ErrNotSupported) {
		return fmt.Errorf("eBPF needs %s: this kernel lacks it", what)
	}
	return fmt.Errorf("eBPF needs %s: probing for it failed: %v", what, err)
}

// tracefsReady says whether the tracepoints can be attached: their ids are
// read from tracefs, which Start mounts when it is missing (as root).
func tracefsReady() error {
	for _, dir := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		f, err := os.Open(dir + "/events/sched/sched_process_exec/id")
		if err == nil {
			f.Close()
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("eBPF needs to read tracefs: %v", err)
		}
	}
	if os.Geteuid() == 0 {
		return nil // Start mounts it
	}
	return errors.New("eBPF needs tracefs mounted (mount -t tracefs nodev /sys/kernel/tracing)")
}

// privileged says whether this process may load and attach the tracer's
// programs: effective root, or the capabilities that allow it
// (CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON).
func privileged() bool {
	if os.Geteuid() == 0 {
		return true
	}
	eff, err := effectiveCaps()
	if err != nil {
		return false
	}
	has := func(c uint) bool { return eff&(1<<c) != 0 }
	return has(capSysAdmin) || has(capBPF) && has(capPerfmon)
}

// effectiveCaps reads this process's effective capability set (CapEff in
// /proc/self/status).
func effectiveCaps() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseCapEff(f)
}

// parseCapEff finds the CapEff line of a /proc/<pid>/status file.
func parseCapEff(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no CapEff line")
}
