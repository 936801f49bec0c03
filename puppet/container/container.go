package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// Spec says how to create a run container.
type Spec struct {
	Image string
	// Hostname is fixed so that two runs of the same module see the same
	// node name (Puppet's certname, and so the catalog's file name).
	Hostname string
	Env      []string
	// CapAdd lists the extra capabilities, e.g. "SYS_PTRACE" for strace.
	// The container is never privileged.
	CapAdd []string
	// SeccompUnconfined drops Docker's default seccomp profile, which
	// forbids ptrace on engines older than 20.10 and strace's seccomp filter.
	SeccompUnconfined bool
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

// cgroupV2Only reports whether the host mounts only the unified cgroup
// hierarchy (cgroup v2) at /sys/fs/cgroup, rather than v1 controllers
// (possibly with v2 at /sys/fs/cgroup/unified, the hybrid layout).
func cgroupV2Only() bool {
	_, err := os.Stat("/sys/fs/cgroup/cgroup.controllers")
	return err == nil
}

// Container is a started container that fsmove created.
type Container struct {
	ID string
	// Name is the unique name Create gave it.
	Name   string
	engine *Engine
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
	var secOpts []string
	if spec.SeccompUnconfined {
		secOpts = append(secOpts, "seccomp=unconfined")
	}
	cfg := &container.Config{
		Image:    spec.Image,
		Hostname: spec.Hostname,
		Env:      spec.Env,
		Cmd:      []string{"sleep", "infinity"},
		Labels:   labels,
	}
	useInit := true
	host := &container.HostConfig{
		CapAdd:      spec.CapAdd,
		SecurityOpt: secOpts,
		Init:        &useInit,
		Privileged:  false,
	}
	if spec.Init == InitSystemd {
		systemdConfig(cfg, host)
	}
	name, err := uniqueName()
	if err != nil {
		return nil, err
	}
	createCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
	defer cancel()
	created, err := e.cli.ContainerCreate(createCtx, cfg, host, nil, nil, name)
	if err != nil {
		e.removeName(ctx, name)
		return nil, fmt.Errorf("create container from %s: %w", spec.Image, err)
	}
	return &Container{ID: created.ID, Name: name, engine: e}, nil
}

// uniqueName is a container name no other run uses.
func uniqueName() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("container name: %w", err)
	}
	return "fsmove-" + hex.EncodeToString(b[:]), nil
}

// removeName removes the container called name if there is one, with a
// deadline of its own (see Remove).
func (e *Engine) removeName(ctx context.Context, name string) {
	rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	e.cli.ContainerRemove(rmCtx, name, container.RemoveOptions{Force: true, RemoveVolumes: true})
}

// Start starts a created container.
func (c *Container) Start(ctx context.Context) error {
	if err := c.engine.cli.ContainerStart(ctx, c.ID, container.StartOptions{}); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("start container: %w", err)
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

// systemdConfig makes a container boot systemd, never privileged: tmpfs on
// /run and /run/lock (systemd wants them writable and empty), and the
// host's cgroup hierarchy. On a v1 or hybrid host the host's
// /sys/fs/cgroup is bind-mounted read-only: Docker's own cgroup of the
// container stays writable under it, and that is where systemd makes its
// units' cgroups. On a v2-only host systemd needs the mount read-write in a
// cgroup namespace of its own. systemd is told it runs in a container
// ("container" in its environment) and stopped with SIGRTMIN+3, as it asks.
//
// Docker's default seccomp profile is lifted (never privileged, no added
// capability): it refuses unshare(CLONE_NEWUSER), so systemd could not
// start services whose units sandbox themselves with PrivateUsers= and
// friends, as Debian 12's redis-server does ("Failed to set up user
// namespacing", status 217/USER). On a host they start; here they must too.
// For the same reason root gets the capabilities daemons keep when they
// drop root (hostRootCaps), as they would on a host.
// hostRootCaps are capabilities a host's root has and Docker's default set
// lacks, which daemons keep when they switch users and fail to start
// without (pure-ftpd: "Unable to switch capabilities"): reading any file
// (DAC_READ_SEARCH) and priorities (SYS_NICE). Nothing that administers
// the host (SYS_ADMIN, SYS_MODULE, ...). Only those this host's bounding
// set has are asked for (a container cannot get more, and asking fails
// its start), as the bit numbers of capability.h say.
var hostRootCaps = boundedCaps(map[string]uint{"DAC_READ_SEARCH": 2, "SYS_NICE": 23})

// boundedCaps keeps the capabilities (name → bit) in this process's
// bounding set (CapBnd of /proc/self/status); all of them when it cannot
// be read.
func boundedCaps(caps map[string]uint) []string {
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
	var names []string
	for name, bit := range caps {
		if bnd&(1<<bit) != 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

func systemdConfig(cfg *container.Config, host *container.HostConfig) {
	cfg.Cmd = []string{systemdCommand}
	for _, c := range hostRootCaps {
		if !slices.Contains(host.CapAdd, c) {
			host.CapAdd = append(host.CapAdd, c)
		}
	}
	if !slices.Contains(host.SecurityOpt, "seccomp=unconfined") {
		host.SecurityOpt = append(host.SecurityOpt, "seccomp=unconfined")
	}
	cfg.Env = append(cfg.Env, "container=docker")
	cfg.StopSignal = "SIGRTMIN+3"
	host.Init = nil
	host.Tmpfs = map[string]string{"/run": "rw,nosuid,nodev,mode=755", "/run/lock": "rw,nosuid,nodev,noexec"}
	if cgroupV2Only() {
		host.Binds = []string{"/sys/fs/cgroup:/sys/fs/cgroup:rw"}
		host.CgroupnsMode = container.CgroupnsModePrivate
	} else {
		host.Binds = []string{"/sys/fs/cgroup:/sys/fs/cgroup:ro"}
	}
}

// WaitBooted waits until systemd in the container has finished booting
// ("systemctl is-system-running --wait" says running or degraded), at most
// timeout. A degraded system is fine: some units fail in any container
// (they need hardware or kernel features it lacks); which ones is in the
// error only if the system never gets that far.
func (c *Container) WaitBooted(ctx context.Context, timeout time.Duration) (string, error) {
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var state string
	var err error
	for {
		var out strings.Builder
		_, err = c.Exec(waitCtx, []string{"systemctl", "is-system-running", "--wait"}, nil, &out)
		state = strings.TrimSpace(out.String())
		if err == nil && (state == "running" || state == "degraded") {
			return state, nil
		}
		// Until systemd has made its private socket, systemctl cannot
		// even ask ("Failed to connect to bus"; systemctl 252 prints
		// "offline" then, early in a boot on a loaded machine): ask
		// again, until the timeout.
		if err != nil || !bootNotReachable(state) {
			break
		}
		if err = SleepCtx(waitCtx, 200*time.Millisecond); err != nil {
			break
		}
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

// bootNotReachable: systemctl could not reach systemd yet, which is not
// a verdict on the boot.
func bootNotReachable(state string) bool {
	return state == "offline" || strings.Contains(state, "Failed to connect to bus")
}

// ShortID is the 12-character form docker ps shows.
func (c *Container) ShortID() string {
	if len(c.ID) > 12 {
		return c.ID[:12]
	}
	return c.ID
}

// removeTimeout bounds the removal of a container.
const removeTimeout = 30 * time.Second

// Remove kills and removes the container. It uses its own short deadline
// and ignores ctx's cancellation, because it runs on the way out of a
// cancelled or timed-out run, which is exactly when it must still work. A
// container that is already gone counts as removed.
func (c *Container) Remove(ctx context.Context) error {
	rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	err := c.engine.cli.ContainerRemove(rmCtx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("remove container %s: %w", c.ShortID(), err)
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

func cmdName(cmd []string) string {
	if len(cmd) == 0 {
		return "(empty command)"
	}
	return strings.Join(cmd, " ")
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
