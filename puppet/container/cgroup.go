package container

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/mount"
	"golang.org/x/sys/unix"

	"github.com/fsmove/fsmove/tracer/linux"
)

// A container's cgroups (docs/DESIGN.md, "The container").
//
// Every container fsmove creates lives in a cgroup subtree of its own, the
// run's: /fsmove/<name> in every hierarchy, with the engine's cgroup of the
// container at /fsmove/<name>/c/<id> (HostConfig.CgroupParent
// /fsmove/<name>/c; the engine appends the id). Nothing of the host's cgroup
// tree is writable from the container, with one exception that systemd needs
// as PID 1: the subtree /fsmove/<name>/c of the hierarchies systemd manages
// its units in (the v1 name=systemd hierarchy, and the cgroup2 one), bound
// read-write at its own path. All the rest of /sys/fs/cgroup is bound
// read-only and non-recursively, mount by mount, so that no controller below
// it stays writable (Docker 20.10's ":ro" bind is not recursive, and its
// submounts are the host's controllers, writable).
//
// The container keeps the host's cgroup namespace in systemd mode: systemd
// finds its own cgroup from /proc/1/cgroup, and that path must be the one
// bound read-write. In a private namespace it would read "/", whose host
// directory is the container's own, named after an id the engine gives only
// once the container (and its mounts) are made. The namespace hides only
// names; what the container may write is decided by the mounts.
//
// What the container can then do to cgroups: create cgroups and move its
// processes below /fsmove/<name>/c in the writable hierarchies. There are no
// controllers there on a v1 or hybrid host (name=systemd has none, and the
// hybrid host's cgroup2 hierarchy gets none while v1 holds them), so the
// engine's limits on the container's cgroups in the controller hierarchies,
// read-only, hold. On a cgroup2-only host the controllers are in the
// writable subtree, and the container could raise the limits of its own
// cgroups there: fsmove sets the same limits on /fsmove/<name>, above the
// writable subtree, which caps everything below it.

// cgroupRoot is where the host's cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupMount is one cgroup hierarchy mounted on the host.
type cgroupMount struct {
	dir string // its mount point, e.g. /sys/fs/cgroup/memory
	v2  bool   // the unified hierarchy (cgroup2)
	// systemd: the v1 hierarchy named systemd, where systemd tracks its
	// units when the host does not give it cgroup2 alone.
	systemd bool
}

// hostCgroups is the host's cgroup layout: the tmpfs at cgroupRoot with a
// hierarchy mounted on each directory (cgroup v1, or hybrid: v1 plus
// cgroup2 on unified/), or cgroup2 itself at cgroupRoot.
type hostCgroups struct {
	v2Only bool
	mounts []cgroupMount // sorted by dir
}

// readHostCgroups reads the cgroup mounts of this process's mount namespace
// (which must be the engine's: the engine runs on this host).
func readHostCgroups() (*hostCgroups, error) {
	mounts, err := linux.Mounts()
	if err != nil {
		return nil, fmt.Errorf("reading the host's cgroup mounts: %w", err)
	}
	return cgroupsOf(mounts)
}

// cgroupsOf keeps the cgroup and cgroup2 mounts at or below cgroupRoot.
func cgroupsOf(mounts []linux.Mount) (*hostCgroups, error) {
	hc := &hostCgroups{}
	for _, mt := range mounts {
		if mt.Dir != cgroupRoot && !strings.HasPrefix(mt.Dir, cgroupRoot+"/") {
			continue
		}
		switch mt.FSType {
		case "cgroup2":
			hc.v2Only = hc.v2Only || mt.Dir == cgroupRoot
			hc.mounts = append(hc.mounts, cgroupMount{dir: mt.Dir, v2: true})
		case "cgroup":
			hc.mounts = append(hc.mounts, cgroupMount{dir: mt.Dir, systemd: slices.Contains(strings.Split(mt.Super, ","), "name=systemd")})
		}
	}
	if len(hc.mounts) == 0 {
		return nil, fmt.Errorf("no cgroup hierarchy is mounted under %s", cgroupRoot)
	}
	sort.Slice(hc.mounts, func(i, j int) bool { return hc.mounts[i].dir < hc.mounts[j].dir })
	return hc, nil
}

// unified is the cgroup2 hierarchy's mount, "" when the host has none.
func (hc *hostCgroups) unified() string {
	for _, m := range hc.mounts {
		if m.v2 {
			return m.dir
		}
	}
	return ""
}

// writable are the hierarchies systemd in a container must write: the
// cgroup2 one and, on a v1 or hybrid host, the name=systemd one.
func (hc *hostCgroups) writable() ([]string, error) {
	var dirs []string
	named := false
	for _, m := range hc.mounts {
		if m.v2 || m.systemd {
			dirs = append(dirs, m.dir)
		}
		named = named || m.systemd
	}
	if !hc.v2Only && !named {
		return nil, fmt.Errorf("this host mounts cgroup v1 without the name=systemd hierarchy that systemd " +
			"in a container needs (mount one at /sys/fs/cgroup/systemd: mount -t cgroup -o none,name=systemd " +
			"cgroup /sys/fs/cgroup/systemd), or use --init none")
	}
	return dirs, nil
}

// runCgroup is the cgroup subtree of one container (see the comment at the
// top of this file).
type runCgroup struct {
	hc  *hostCgroups
	run string // /fsmove/<name>, relative to each hierarchy's mount
}

// cgroupBase is the directory of every run's subtree.
const cgroupBase = "/fsmove"

func newRunCgroup(hc *hostCgroups, name string) *runCgroup {
	return &runCgroup{hc: hc, run: cgroupBase + "/" + name}
}

// parent is the HostConfig.CgroupParent: the engine puts the container in
// parent/<id>.
func (rc *runCgroup) parent() string { return rc.run + "/c" }

// traceDir is the cgroup2 directory whose tasks (and its descendants')
// belong to the container: what the eBPF tracer filters on. It is the
// writable subtree's root, so that no process of the container can leave it.
func (rc *runCgroup) traceDir() string {
	u := rc.hc.unified()
	if u == "" {
		return ""
	}
	return filepath.Join(u, rc.parent())
}

// prepare makes the directories the container's mounts bind (systemd
// mode: in none mode the engine makes them all) and, on a cgroup2-only
// host, sets limits on the run's cgroup. The engine makes the rest when it
// starts the container.
func (rc *runCgroup) prepare(l Limits) error {
	dirs, err := rc.hc.writable()
	if err != nil {
		return err
	}
	if rc.hc.v2Only {
		if err := rc.limitV2(l); err != nil {
			return err
		}
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(d, rc.parent()), 0o755); err != nil {
			return fmt.Errorf("creating the container's cgroup: %w", err)
		}
	}
	// The directory every hierarchy's tmpfs covers (mounts) must be there.
	for _, m := range rc.hc.mounts {
		if err := os.MkdirAll(filepath.Join(m.dir, cgroupBase), 0o755); err != nil {
			return fmt.Errorf("creating %s in %s: %w", cgroupBase, m.dir, err)
		}
	}
	return nil
}

// limitV2 creates /fsmove/<name> on a cgroup2-only host with the
// container's limits, out of the container's reach (its writable subtree
// is below). Each level above enables the controllers for the next.
func (rc *runCgroup) limitV2(l Limits) error {
	root := rc.hc.unified()
	levels := []string{root, filepath.Join(root, cgroupBase), filepath.Join(root, rc.run)}
	for i, dir := range levels {
		if i > 0 {
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				return fmt.Errorf("creating the container's cgroup: %w", err)
			}
		}
		if i < len(levels)-1 {
			if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+memory +pids +cpu"), 0); err != nil {
				return fmt.Errorf("enabling the memory, pids and cpu controllers in %s: %w", dir, err)
			}
		}
	}
	run := levels[len(levels)-1]
	for file, value := range l.v2Files() {
		if err := os.WriteFile(filepath.Join(run, file), []byte(value), 0); err != nil {
			return fmt.Errorf("setting the container's limit %s: %w", file, err)
		}
	}
	return nil
}

// mounts are the container's view of the host's cgroups in systemd mode:
// everything read-only and non-recursive, mount by mount; in each hierarchy
// an empty tmpfs over /fsmove, so that the other runs' subtrees (their
// names) are not listed; then the writable subtree of the hierarchies
// systemd writes, bound below that tmpfs (writable there, for the engine
// makes the bind's mount point in it).
func (rc *runCgroup) mounts() ([]mount.Mount, error) {
	writable, err := rc.hc.writable()
	if err != nil {
		return nil, err
	}
	ro := func(dir string) mount.Mount {
		return mount.Mount{Type: mount.TypeBind, Source: dir, Target: dir, ReadOnly: true,
			BindOptions: &mount.BindOptions{NonRecursive: true}}
	}
	var ms []mount.Mount
	if !rc.hc.v2Only {
		ms = append(ms, ro(cgroupRoot)) // the tmpfs holding the mount points
	}
	for _, m := range rc.hc.mounts {
		ms = append(ms, ro(m.dir))
	}
	for _, m := range rc.hc.mounts {
		ms = append(ms, mount.Mount{Type: mount.TypeTmpfs, Target: filepath.Join(m.dir, cgroupBase),
			ReadOnly:     !slices.Contains(writable, m.dir),
			TmpfsOptions: &mount.TmpfsOptions{SizeBytes: 64 << 10, Mode: 0o755}})
	}
	for _, d := range writable {
		dir := filepath.Join(d, rc.parent())
		ms = append(ms, mount.Mount{Type: mount.TypeBind, Source: dir, Target: dir,
			BindOptions: &mount.BindOptions{NonRecursive: true}})
	}
	return ms, nil
}

// check says whether the engine put the container where fsmove asked: it
// does unless the engine runs on another host (or in another mount
// namespace), whose cgroups fsmove cannot see or prepare.
func (rc *runCgroup) check(id string) error {
	dir := rc.traceDir()
	if dir == "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, id)); err != nil {
		return fmt.Errorf("the container's cgroup is not at %s on this host: is the Docker engine on another host? "+
			"fsmove must run beside the engine it uses (%v)", filepath.Join(dir, id), err)
	}
	return nil
}

// remove removes the run's subtree from every hierarchy, deepest first; the
// engine has removed the container's own cgroups, systemd's below them go
// with it or here. A cgroup whose last task has just exited may still say
// EBUSY for a moment.
func (rc *runCgroup) remove() error { return rc.removeWith(rmdirRetry) }

// removeWith is remove with rmdir, which removes one directory.
func (rc *runCgroup) removeWith(rmdir func(string) error) error {
	var errs []error
	for _, m := range rc.hc.mounts {
		top := filepath.Join(m.dir, rc.run)
		var dirs []string
		filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			if err := rmdir(dirs[i]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// staleAge is how old a run's subtree must be before sweepStale may remove
// it: a run younger than that may be between making its subtree and
// creating its container.
const staleAge = 10 * time.Minute

// sweepStale removes the subtrees of runs whose container is gone (a
// container kept with --keep and removed by hand, or a killed fsmove):
// inUse says whether a container of that name exists. Only empty cgroups
// go (rmdir refuses the others). It returns the subtrees it removed, or
// with dryRun would remove.
func (hc *hostCgroups) sweepStale(inUse func(name string) bool, dryRun bool) []string {
	seen := map[string]bool{}
	var swept []string
	for _, m := range hc.mounts {
		entries, err := os.ReadDir(filepath.Join(m.dir, cgroupBase))
		if err != nil {
			continue
		}
		for _, e := range entries {
			info, err := e.Info()
			if !e.IsDir() || !strings.HasPrefix(e.Name(), namePrefix) || err != nil || time.Since(info.ModTime()) < staleAge {
				continue
			}
			if _, done := seen[e.Name()]; !done {
				seen[e.Name()] = !inUse(e.Name())
			}
			if !seen[e.Name()] {
				continue
			}
			rc := &runCgroup{hc: &hostCgroups{mounts: []cgroupMount{m}}, run: cgroupBase + "/" + e.Name()}
			// One rmdir each, no waiting on EBUSY: a subtree this old
			// whose cgroups are busy still has processes, and a run's
			// start must not wait for it (a kept container's systemd
			// has some thirty cgroups across the hierarchies).
			if dryRun || rc.removeWith(rmdirOnce) == nil {
				swept = append(swept, filepath.Join(m.dir, cgroupBase, e.Name()))
			}
		}
	}
	return swept
}

// rmdirOnce removes the cgroup dir, which must be empty.
func rmdirOnce(dir string) error {
	if err := unix.Rmdir(dir); err != nil && err != unix.ENOENT {
		return fmt.Errorf("removing cgroup %s: %w", dir, err)
	}
	return nil
}

// rmdirRetry removes the cgroup dir, waiting up to 5 s while it is busy.
func rmdirRetry(dir string) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := unix.Rmdir(dir)
		switch {
		case err == nil || err == unix.ENOENT:
			return nil
		case err == unix.EBUSY && time.Now().Before(deadline):
			time.Sleep(20 * time.Millisecond)
		default:
			return fmt.Errorf("removing cgroup %s: %w", dir, err)
		}
	}
}

// Limits bound what a container may use. The zero value of a field means
// its default (DefaultLimits); a negative one, no limit.
type Limits struct {
	Memory int64   // bytes of memory (swap included)
	Pids   int64   // tasks
	CPUs   float64 // CPUs' worth of time
	// CPUSet, when set, is the CPUs the container may run on ("1", "0-1"),
	// as Docker's --cpuset-cpus: fsmove bench gives each worker its own
	// (CPUOf) when a ptrace tracer pins the traced command to one CPU.
	CPUSet string
}

// DefaultLimits are generous for a Puppet run (Puppet applies one resource
// at a time; a run that installs a database takes 1-2 GiB) and stop a
// module from taking the host down with it.
func DefaultLimits() Limits {
	cpus := 2.0
	if n := float64(hostCPUs()); n < cpus {
		cpus = n
	}
	return Limits{Memory: 4 << 30, Pids: 4096, CPUs: cpus}
}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.Memory == 0 {
		l.Memory = d.Memory
	}
	if l.Pids == 0 {
		l.Pids = d.Pids
	}
	if l.CPUs == 0 {
		l.CPUs = d.CPUs
	}
	return l
}

// String is how run.json and the progress line give the limits.
func (l Limits) String() string {
	part := func(set bool, s string) string {
		if !set {
			return "unlimited"
		}
		return s
	}
	s := fmt.Sprintf("memory %s, pids %s, cpus %s",
		part(l.Memory > 0, FormatBytes(l.Memory)), part(l.Pids > 0, strconv.FormatInt(l.Pids, 10)),
		part(l.CPUs > 0, strconv.FormatFloat(l.CPUs, 'f', -1, 64)))
	if l.CPUSet != "" {
		s += ", on CPU " + l.CPUSet
	}
	return s
}

// CPUOf is the CPU of worker w among those this process may run on (its
// affinity), taken in turn: workers 0 and 1 of a 2-CPU host get one each.
func CPUOf(w int) string {
	cpus := allowedCPUs()
	if len(cpus) == 0 {
		return ""
	}
	return strconv.Itoa(cpus[w%len(cpus)])
}

// cpuPeriod is the CFS period of a CPU limit, as Docker's --cpus uses.
const cpuPeriod = 100000

// v2Files are the cgroup2 interface files that set l.
func (l Limits) v2Files() map[string]string {
	files := map[string]string{}
	if l.Memory > 0 {
		files["memory.max"] = strconv.FormatInt(l.Memory, 10)
		files["memory.swap.max"] = "0"
	}
	if l.Pids > 0 {
		files["pids.max"] = strconv.FormatInt(l.Pids, 10)
	}
	if l.CPUs > 0 {
		files["cpu.max"] = fmt.Sprintf("%d %d", int64(l.CPUs*cpuPeriod), cpuPeriod)
	}
	return files
}

// hostCPUs is how many CPUs this process may run on, at least 1.
func hostCPUs() int {
	return max(len(allowedCPUs()), 1)
}

// allowedCPUs lists the CPUs this process may run on (its affinity), none
// when the kernel does not say.
func allowedCPUs() []int {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return nil
	}
	var cpus []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// FormatBytes writes a byte count for people: 4.0 GB, 312.5 kB, 12 B
// (binary multiples).
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
