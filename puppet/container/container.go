package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
)

// Spec says how to create a run container. Whatever it says, the
// container is fsmove's sandbox (docs/DESIGN.md, "The container"): never
// privileged, fsmove's seccomp profile (SeccompProfile), Docker's default
// capabilities and no more unless a field below asks, a cgroup subtree of
// its own with nothing else of the host's cgroups writable, limits, and a
// network that does not reach the host's services.
type Spec struct {
	Image string
	// Hostname is fixed so that two runs of the same module see the same
	// node name (Puppet's certname, and so the catalog's file name).
	Hostname string
	Env      []string
	// Ptrace gives CAP_SYS_PTRACE, which a tracer in the container (strace,
	// fsmove trace) needs to attach to systemd's services.
	Ptrace bool
	// DaemonCaps gives root the capabilities some daemons keep when they
	// drop root (DaemonCapNames). Off by default: they are powers over the
	// host unless the engine maps the container's root to an unprivileged
	// user (Engine.Namespaced), where they are given anyway.
	DaemonCaps bool
	// Limits bound memory, tasks and CPU (zero fields: DefaultLimits).
	Limits Limits
	// Network is one of Networks ("" is NetworkIsolated).
	Network string
	// Labels are added to fsmove's own label.
	Labels map[string]string
	// Init is what runs as the container's PID 1: InitNone (the zero
	// value) or InitSystemd.
	Init Init
}

// Init is the container's PID 1.
type Init string

const (
	// InitNone: "sleep infinity" under docker-init. Services go through
	// /etc/init.d and are Puppet's children.
	InitNone Init = "none"
	// InitSystemd: systemd boots the container as it boots a host, and
	// Puppet manages services through it (its systemd provider).
	InitSystemd Init = "systemd"
)

// Inits lists the modes, for flags and errors.
var Inits = []Init{InitSystemd, InitNone}

// ParseInit reads an --init value.
func ParseInit(s string) (Init, error) {
	for _, m := range Inits {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown init %q (want systemd or none)", s)
}

// systemdCommand is PID 1 of a systemd container (Debian's path).
const systemdCommand = "/lib/systemd/systemd"

// Container is a started container that fsmove created.
type Container struct {
	ID string
	// Name is the unique name Create gave it.
	Name string
	// Config says how it was made, for run.json.
	Config Config
	engine *Engine
	cg     *runCgroup // nil when the engine places it (systemd driver)
}

// Config is what a container was given, in words for run.json and the
// report: what a module in it can do.
type Config struct {
	Init         Init     `json:"init"`
	Capabilities []string `json:"capabilities_added"`
	Seccomp      string   `json:"seccomp"`
	CgroupParent string   `json:"cgroup_parent,omitempty"`
	CgroupNS     string   `json:"cgroup_namespace"`
	// CgroupWritable lists the host's cgroup directories the container may
	// write (systemd mode); nothing else of /sys/fs/cgroup is writable.
	CgroupWritable []string `json:"cgroup_writable"`
	Limits         string   `json:"limits"`
	Network        string   `json:"network"`
}

// TraceCgroup is the cgroup2 directory that holds every process of the
// container and that they cannot leave (the parent of the engine's cgroup
// of the container, which in systemd mode is writable to them): what the
// eBPF tracer filters on.
// It is "" when the engine chose the container's cgroup (see
// ebpf.DockerCgroup then).
func (c *Container) TraceCgroup() string {
	if c.cg == nil {
		return ""
	}
	return c.cg.traceDir()
}

// createTimeout bounds the engine's create call, which Create does not let
// ctx cancel.
const createTimeout = 60 * time.Second

// Create creates a container from spec, not started yet. Every container
// gets a unique name (fsmove-<random>) besides fsmove's labels.
//
// The create call is not cancelled by ctx: the engine may go on to create a
// container after the client gave up waiting, and fsmove could then not
// name it to remove it. So Create waits for the engine's answer (at most
// createTimeout) and returns the container even when ctx ended meanwhile;
// the caller, holding the container, checks ctx and removes it. When the
// call fails, a container of that name, if the engine made one after all, is
// removed before Create returns.
func (e *Engine) Create(ctx context.Context, spec Spec) (*Container, error) {
	labels := map[string]string{LabelKey: LabelValue, PidLabel: strconv.Itoa(os.Getpid())}
	for k, v := range spec.Labels {
		labels[k] = v
	}
	if session := e.session(ctx, spec.Image); session != "" {
		labels[SessionLabel] = session
	}
	name, err := uniqueName()
	if err != nil {
		return nil, err
	}
	cfg := &container.Config{
		Image:    spec.Image,
		Hostname: spec.Hostname,
		Env:      spec.Env,
		Cmd:      []string{"sleep", "infinity"},
		Labels:   labels,
	}
	host, conf, cg, err := e.sandbox(ctx, name, spec)
	if err != nil {
		return nil, err
	}
	if spec.Init == InitSystemd {
		systemdConfig(cfg, host)
	}
	createCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
	defer cancel()
	created, err := e.cli.ContainerCreate(createCtx, cfg, host, nil, nil, name)
	if err != nil {
		e.removeName(ctx, name)
		if cg != nil {
			cg.remove()
		}
		return nil, fmt.Errorf("create container from %s: %w", spec.Image, err)
	}
	return &Container{ID: created.ID, Name: name, Config: conf, engine: e, cg: cg}, nil
}

// sweepStale removes the cgroup subtrees of fsmove's runs whose container is
// gone (hostCgroups.sweepStale); a name the engine cannot say about is kept,
// and so is the subtree of a container kept with --keep, which Keep renamed
// (the subtree keeps the run's name).
func (e *Engine) sweepStale(ctx context.Context, hc *hostCgroups, dryRun bool) []string {
	return hc.sweepStale(func(name string) bool {
		for _, n := range []string{name, keptPrefix + strings.TrimPrefix(name, namePrefix)} {
			if _, err := e.cli.ContainerInspect(ctx, n); !cerrdefs.IsNotFound(err) {
				return true
			}
		}
		return false
	}, dryRun)
}

// StaleCgroups removes (with dryRun, only lists) the cgroup subtrees that
// fsmove made on this host for runs whose container is gone; each run
// sweeps them too. Nothing when the engine is not local.
func (e *Engine) StaleCgroups(ctx context.Context, dryRun bool) []string {
	if !e.local {
		return nil
	}
	hc, err := readHostCgroups()
	if err != nil {
		return nil
	}
	return e.sweepStale(ctx, hc, dryRun)
}

// DaemonCapNames are capabilities a host's root has and Docker's default
// set lacks, which some daemons keep when they switch users and fail to
// start without (pure-ftpd: "Unable to switch capabilities"): reading any
// file (DAC_READ_SEARCH) and priorities (SYS_NICE). In a container that
// shares the host's users they are powers over the host: DAC_READ_SEARCH
// opens host files by handle (denied by fsmove's seccomp profile all the
// same), SYS_NICE starves the host with real-time priorities.
var DaemonCapNames = []string{"DAC_READ_SEARCH", "SYS_NICE"}

// sandbox is the host side of spec: capabilities, seccomp, cgroups, limits
// and network (see Spec). The run's cgroup subtree it returns is made
// already (systemd mode) and is removed with the container.
func (e *Engine) sandbox(ctx context.Context, name string, spec Spec) (*container.HostConfig, Config, *runCgroup, error) {
	profile, err := SeccompProfile(spec.Init)
	if err != nil {
		return nil, Config{}, nil, err
	}
	useInit := true
	host := &container.HostConfig{
		SecurityOpt: []string{"seccomp=" + profile},
		Init:        &useInit,
		Privileged:  false,
	}
	conf := Config{Init: spec.Init, Seccomp: "fsmove (Docker's default, open_by_handle_at denied)",
		CgroupNS: "private", Capabilities: []string{}, CgroupWritable: []string{}}
	if spec.Init == "" {
		conf.Init = InitNone
	}
	if spec.Init == InitSystemd {
		conf.Seccomp = "fsmove (Docker's default + namespace and mount calls for systemd, open_by_handle_at denied)"
	}
	if spec.Ptrace {
		host.CapAdd = append(host.CapAdd, "SYS_PTRACE")
	}
	if spec.DaemonCaps || e.Namespaced {
		host.CapAdd = append(host.CapAdd, boundedCaps(DaemonCapNames)...)
	}
	conf.Capabilities = append(conf.Capabilities, host.CapAdd...)

	limits := spec.Limits.withDefaults()
	conf.Limits = limits.String()
	if limits.Memory > 0 {
		host.Resources.Memory, host.Resources.MemorySwap = limits.Memory, limits.Memory
	}
	if limits.Pids > 0 {
		host.Resources.PidsLimit = &limits.Pids
	}
	if limits.CPUs > 0 {
		host.Resources.NanoCPUs = int64(limits.CPUs * 1e9)
	}
	host.Resources.CpusetCpus = limits.CPUSet

	if conf.Network, err = e.networkMode(ctx, spec.Network); err != nil {
		return nil, Config{}, nil, err
	}
	host.NetworkMode = container.NetworkMode(conf.Network)
	if conf.Network == isolatedNetwork {
		// No IPv6 in the container: the host's rule is iptables', and a
		// link-local address would reach the host's services through
		// the bridge. (Engines do this already for a network without
		// IPv6; here it does not depend on the engine.)
		host.Sysctls = map[string]string{"net.ipv6.conf.all.disable_ipv6": "1"}
	}

	systemd := spec.Init == InitSystemd
	if !systemd {
		// Docker's own mounts of the cgroups: read-only, and in a
		// private namespace only the container's own.
		host.CgroupnsMode = container.CgroupnsModePrivate
		if e.CgroupDriver == "systemd" {
			return host, conf, nil, nil // the engine names slices itself
		}
		hc, err := readHostCgroups()
		if err != nil || !e.local {
			return host, conf, nil, nil // the engine places it where it likes
		}
		e.sweepStale(ctx, hc, false)
		cg := newRunCgroup(hc, name)
		host.CgroupParent = cg.parent()
		conf.CgroupParent = host.CgroupParent
		return host, conf, cg, nil
	}
	if e.CgroupDriver == "systemd" {
		return nil, Config{}, nil, errors.New("the Docker engine uses the systemd cgroup driver, where fsmove cannot " +
			"give a systemd container a cgroup subtree of its own and keep the host's cgroups read-only: run the " +
			"engine with the cgroupfs driver (dockerd --exec-opt native.cgroupdriver=cgroupfs), or use --init none")
	}
	if !e.local {
		return nil, Config{}, nil, errors.New("systemd mode needs fsmove on the Docker engine's host (it prepares " +
			"the container's cgroups there); with a remote engine use --init none")
	}
	hc, err := readHostCgroups()
	if err != nil {
		return nil, Config{}, nil, err
	}
	e.sweepStale(ctx, hc, false)
	cg := newRunCgroup(hc, name)
	if host.Mounts, err = cg.mounts(); err != nil {
		return nil, Config{}, nil, err
	}
	if err := cg.prepare(limits); err != nil {
		cg.remove()
		return nil, Config{}, nil, err
	}
	host.CgroupParent = cg.parent()
	// The host's namespace: see cgroup.go.
	host.CgroupnsMode = container.CgroupnsModeHost
	conf.CgroupParent, conf.CgroupNS = host.CgroupParent, "host (read-only but for cgroup_writable)"
	for _, m := range host.Mounts {
		if !m.ReadOnly {
			conf.CgroupWritable = append(conf.CgroupWritable, m.Target)
		}
	}
	return host, conf, cg, nil
}

// namePrefix starts the name of every container fsmove creates (and of its
// cgroup subtree).
const namePrefix = "fsmove-"

// uniqueName is a container name no other run uses.
func uniqueName() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("container name: %w", err)
	}
	return namePrefix + hex.EncodeToString(b[:]), nil
}

// removeName removes the container called name (or with that ID) if there
// is one (see forceRemove).
func (e *Engine) removeName(ctx context.Context, name string) error {
	return forceRemove(ctx, e.cli, name)
}

// forceRemove kills and removes the container called name (or with that
// ID); one that is already gone counts as removed. It has a deadline of its
// own (removeTimeout) and ignores ctx's cancellation, because it runs on
// the way out of a cancelled or timed-out run, which is exactly when it
// must still work.
//
// The engine's kill waits only seconds for the container's exit event and
// then gives up ("Could not kill running container …, cannot remove -
// tried to kill container, but did not receive an exit event"), though
// the container is dying: systemd as PID 1 with its units takes longer
// than that on a busy machine. So on any error other than "not found" it
// waits for the container to stop and asks again, until the deadline.
func forceRemove(ctx context.Context, cli *client.Client, name string) error {
	rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	for {
		err := cli.ContainerRemove(rmCtx, name, container.RemoveOptions{Force: true, RemoveVolumes: true})
		if err == nil || cerrdefs.IsNotFound(err) {
			return nil
		}
		if rmCtx.Err() != nil {
			return err
		}
		stopped, failed := cli.ContainerWait(rmCtx, name, container.WaitConditionNotRunning)
		select {
		case <-stopped:
		case <-failed: // the engine could not wait, or the container went away
		}
		// A pause all the same: a stopped container that still cannot be
		// removed (a mount the engine cannot release yet) is asked again,
		// not in a loop.
		select {
		case <-time.After(removeRetryPause):
		case <-rmCtx.Done():
			return err
		}
	}
}

// Start starts a created container.
// It checks that the container is in the cgroup fsmove made for it.
func (c *Container) Start(ctx context.Context) error {
	if err := c.engine.cli.ContainerStart(ctx, c.ID, container.StartOptions{}); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("start container: %w", err)
	}
	if c.cg != nil {
		return c.cg.check(c.ID)
	}
	return nil
}

// Start creates and starts a container that idles until it is removed.
// Work is done in it with Exec. On error, ctx's end included, nothing is
// left behind.
//
// Its main process is "sleep infinity" under docker-init (Init), so that
// processes orphaned by Puppet (daemons, their children) are reaped.
func (e *Engine) Start(ctx context.Context, spec Spec) (*Container, error) {
	c, err := e.Create(ctx, spec)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		c.Remove(ctx)
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		c.Remove(ctx)
		return nil, err
	}
	return c, nil
}

// boundedCaps keeps the capabilities named (capBits) that are in this
// process's bounding set (CapBnd of /proc/self/status); all of them when it
// cannot be read.
func boundedCaps(names []string) []string {
	var bnd uint64 = ^uint64(0)
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "CapBnd:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil {
					bnd = n
				}
			}
		}
	}
	return capsIn(names, bnd)
}

// capsIn keeps the capabilities named whose bits are set in bnd.
func capsIn(names []string, bnd uint64) []string {
	var kept []string
	for _, name := range names {
		if bit, ok := capBits[name]; ok && bnd&(1<<bit) != 0 {
			kept = append(kept, name)
		}
	}
	return kept
}

// capBits are the bit numbers of capability.h of the capabilities fsmove
// may add when the host has them (DaemonCapNames).
var capBits = map[string]uint{"DAC_READ_SEARCH": 2, "SYS_NICE": 23}

// systemdConfig makes a container boot systemd as a host does: tmpfs on
// /run and /run/lock (systemd wants them writable and empty); the cgroups
// are sandbox's. systemd is told it runs in a container ("container" in its
// environment) and stopped with SIGRTMIN+3, as it asks.
func systemdConfig(cfg *container.Config, host *container.HostConfig) {
	cfg.Cmd = []string{systemdCommand}
	cfg.Env = append(cfg.Env, "container=docker")
	cfg.StopSignal = "SIGRTMIN+3"
	host.Init = nil
	host.Tmpfs = map[string]string{"/run": "rw,nosuid,nodev,mode=755", "/run/lock": "rw,nosuid,nodev,noexec"}
}

// WaitBooted waits until systemd in the container has finished booting
// ("systemctl is-system-running --wait" says running or degraded), at most
// timeout. A degraded system is fine: some units fail in any container
// (they need hardware or kernel features it lacks); which ones is in the
// error only if the system never gets that far.
func (c *Container) WaitBooted(ctx context.Context, timeout time.Duration) (string, error) {
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out strings.Builder
	_, err := c.Exec(waitCtx, []string{"/bin/sh", "-c", bootScript}, nil, &out)
	state := strings.TrimSpace(out.String())
	if err == nil && (state == "running" || state == "degraded") {
		return state, nil
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	var failed strings.Builder
	c.Exec(context.WithoutCancel(ctx), []string{"systemctl", "--failed", "--no-legend", "--no-pager"}, nil, &failed)
	why := state
	if err != nil {
		why = fmt.Sprintf("not booted after %s", timeout)
	}
	return "", fmt.Errorf("systemd in the container did not boot (%s); failed units:\n%s\n"+
		"(an image without systemd needs --init none)", why, strings.TrimSpace(failed.String()))
}

// bootScript asks systemd for the end of its boot and prints its answer,
// asking again while systemctl cannot reach systemd yet, which is not a
// verdict on the boot: until systemd has made its private socket
// (systemctl 252: "Failed to connect to bus", or "offline" early in a
// boot on a loaded machine; systemctl 257: "Failed to connect to system
// scope bus via local transport"). One exec however long the boot takes
// (an exec costs the engine about 0.17 s of CPU; a boot on a loaded
// machine took four).
const bootScript = `while :; do
	s=$(systemctl is-system-running --wait 2>&1)
	case "$s" in
	offline | "Failed to connect to"*" bus"*) sleep 0.2 ;;
	*)
		printf '%s\n' "$s"
		exit 0
		;;
	esac
done`

// ShortID is the 12-character form docker ps shows.
func (c *Container) ShortID() string {
	if len(c.ID) > 12 {
		return c.ID[:12]
	}
	return c.ID
}

// removeTimeout bounds the removal of a container; removeRetryPause is
// the least time between two requests of it (forceRemove).
const (
	removeTimeout    = 30 * time.Second
	removeRetryPause = 500 * time.Millisecond
)

// Remove kills and removes the container (see forceRemove) and its cgroup
// subtree.
func (c *Container) Remove(ctx context.Context) error {
	if err := forceRemove(ctx, c.engine.cli, c.ID); err != nil {
		return fmt.Errorf("remove container %s: %w", c.ShortID(), err)
	}
	if c.cg != nil {
		return c.cg.remove()
	}
	return nil
}

// Exec runs cmd in the container and returns its exit status. Its stdout
// and stderr both go to out (nil discards them). When ctx ends first,
// Exec returns ctx's error at once; the command keeps running in the
// container until the container is removed.
func (c *Container) Exec(ctx context.Context, cmd []string, env []string, out io.Writer) (int, error) {
	if out == nil {
		out = io.Discard
	}
	cli := c.engine.cli
	created, err := cli.ContainerExecCreate(ctx, c.ID, container.ExecOptions{
		Cmd:          cmd,
		Env:          env,
		AttachStdout: true,
		AttachStderr: true,
	})
	if err != nil {
		return -1, fmt.Errorf("exec %s: %w", cmdName(cmd), err)
	}
	attach, err := cli.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return -1, fmt.Errorf("exec %s: attach: %w", cmdName(cmd), err)
	}
	defer attach.Close()

	// The attached stream does not watch ctx once it is established, so
	// copy in a goroutine and close the connection when ctx ends.
	copied := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(out, out, attach.Reader)
		copied <- err
	}()
	select {
	case err := <-copied:
		if err != nil && !errors.Is(err, io.EOF) {
			return -1, fmt.Errorf("exec %s: read output: %w", cmdName(cmd), err)
		}
	case <-ctx.Done():
		attach.Close()
		<-copied
		return -1, ctx.Err()
	}

	// The stream ends when the command's output pipes close, which can be
	// a moment before the engine has recorded its exit status.
	for {
		info, err := cli.ContainerExecInspect(ctx, created.ID)
		if err != nil {
			return -1, fmt.Errorf("exec %s: inspect: %w", cmdName(cmd), err)
		}
		if !info.Running {
			return info.ExitCode, nil
		}
		if err := SleepCtx(ctx, 50*time.Millisecond); err != nil {
			return -1, err
		}
	}
}

// cmdName names cmd in an error: a shell script is not quoted whole.
func cmdName(cmd []string) string {
	switch {
	case len(cmd) == 0:
		return "(empty command)"
	case len(cmd) >= 3 && cmd[1] == "-c":
		return cmd[0] + " -c (a script)"
	}
	s := strings.Join(cmd, " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// CopyIn unpacks a tar stream into the container at dir (which must exist;
// "/" always does). Entries keep their modes; owners become root.
func (c *Container) CopyIn(ctx context.Context, dir string, tarStream io.Reader) error {
	err := c.engine.cli.CopyToContainer(ctx, c.ID, dir, tarStream, container.CopyToContainerOptions{})
	if err != nil {
		return fmt.Errorf("copy into container %s: %w", dir, err)
	}
	return nil
}

// CopyOut returns a tar stream of path (a file or a directory) from the
// container. The archive's top entry is path's base name. The caller
// closes it.
func (c *Container) CopyOut(ctx context.Context, path string) (io.ReadCloser, error) {
	rc, _, err := c.engine.cli.CopyFromContainer(ctx, c.ID, path)
	if err != nil {
		return nil, fmt.Errorf("copy %s out of the container: %w", path, err)
	}
	return rc, nil
}

// HostPid is the host's pid of the container's PID 1 (for tracers on the
// host that must know the container's pid namespace).
func (c *Container) HostPid(ctx context.Context) (int, error) {
	return c.engine.HostPid(ctx, c.ID)
}

// HostPid is the host's pid of PID 1 of the running container id.
func (e *Engine) HostPid(ctx context.Context, id string) (int, error) {
	info, err := e.cli.ContainerInspect(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("inspect container %s: %w", id, err)
	}
	if info.State == nil || info.State.Pid == 0 {
		return 0, fmt.Errorf("container %s is not running", id)
	}
	return info.State.Pid, nil
}

// SleepCtx waits d, or less when ctx ends first (then it returns ctx's
// error).
func SleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
