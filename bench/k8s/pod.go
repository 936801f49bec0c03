package k8s

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/tracer/linux"
)

// Index is this pod's share of n, 1-based, from IndexEnv (0-based).
func Index(n int) (int, error) {
	v, ok := os.LookupEnv(IndexEnv)
	if !ok {
		return 0, fmt.Errorf("%s is not set: fsmove bench pod runs in a pod of an Indexed Job (fsmove bench k8s)", IndexEnv)
	}
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || i < 0 || i >= n {
		return 0, fmt.Errorf("%s=%q: want 0 to %d (the Job's completions are --shards %d)", IndexEnv, v, n-1, n)
	}
	return i + 1, nil
}

// Engine is the Docker Engine a pod starts for its share.
type Engine struct {
	cmd  *exec.Cmd
	done chan error
	Log  string // dockerd's log
}

// engineStartTimeout bounds the wait for the engine's socket.
const engineStartTimeout = 90 * time.Second

// engineHost is where the pod's engine listens: the default socket, which
// fsmove bench then finds without DOCKER_HOST. It is inside the pod: no
// module's container mounts it.
const engineHost = "unix:///var/run/docker.sock"

// StartEngine starts dockerd in this container, on EngineDir, and waits
// until it answers, after preparePod.
func StartEngine(ctx context.Context, status io.Writer) (*Engine, error) {
	if err := preparePod(); err != nil {
		return nil, fmt.Errorf("preparing the pod for its engine: %w", err)
	}
	e := &Engine{Log: "/var/log/fsmove-dockerd.log", done: make(chan error, 1)}
	log, err := os.Create(e.Log)
	if err != nil {
		return nil, err
	}
	e.cmd = exec.Command("dockerd", "--data-root", EngineDir, "--host", engineHost)
	e.cmd.Stdout, e.cmd.Stderr = log, log
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	fmt.Fprintf(status, "fsmove bench pod: starting the pod's Docker engine (log: %s)\n", e.Log)
	if err := e.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("dockerd: %w", err)
	}
	go func() { e.done <- e.cmd.Wait(); log.Close() }()
	deadline := time.Now().Add(engineStartTimeout)
	for {
		eng, err := container.ConnectHost(ctx, engineHost)
		if err == nil {
			eng.Close()
			return e, nil
		}
		select {
		case werr := <-e.done:
			return nil, fmt.Errorf("dockerd exited (%v): %s", werr, lastLines(e.Log, 5))
		case <-ctx.Done():
			e.Stop()
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
		if time.Now().After(deadline) {
			e.Stop()
			return nil, fmt.Errorf("dockerd did not answer within %s: %s", engineStartTimeout, lastLines(e.Log, 5))
		}
	}
}

// Stop stops the engine (SIGTERM, then SIGKILL after 30 s) and waits.
func (e *Engine) Stop() {
	e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.done:
	case <-time.After(30 * time.Second):
		syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
		<-e.done
	}
}

// preparePod gives the engine what a container runtime mounts read-only
// in a container that is not privileged: the cgroup hierarchies (the
// engine makes its containers' cgroups there, fsmove a systemd
// container's subtree) and /proc/sys (the engine turns on forwarding).
// The pod's capabilities (CAP_SYS_ADMIN) allow the remounts, in the pod's
// own mount namespace. Under cgroup v1 it mounts the cgroup2 hierarchy
// when the runtime did not (the eBPF tracer names containers by their
// cgroup2 ids); under cgroup2 it moves the pod's processes into a leaf,
// init/, so that the root may delegate its controllers (cgroup2 lets no
// process sit in a cgroup whose controllers its children have).
func preparePod() error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	mounts, err := linux.ParseMountinfo(f)
	f.Close()
	if err != nil {
		return err
	}
	const root = "/sys/fs/cgroup"
	unified := ""
	for _, m := range mounts {
		if m.Dir == "/proc/sys" || m.Dir == root || strings.HasPrefix(m.Dir, root+"/") {
			if err := syscall.Mount("", m.Dir, "", syscall.MS_REMOUNT|syscall.MS_BIND, ""); err != nil {
				return fmt.Errorf("remounting %s read-write: %w", m.Dir, err)
			}
		}
		if m.FSType == "cgroup2" && (m.Dir == root || strings.HasPrefix(m.Dir, root+"/")) {
			unified = m.Dir
		}
	}
	switch {
	case unified == root:
		return nestCgroup(root)
	case unified == "":
		dir := filepath.Join(root, "unified")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := syscall.Mount("cgroup2", dir, "cgroup2", 0, ""); err != nil {
			return fmt.Errorf("mounting cgroup2 on %s: %w", dir, err)
		}
	}
	return nil
}

// nestCgroup moves every process of a cgroup2 root into a leaf, init/,
// and enables the root's controllers for its children.
func nestCgroup(root string) error {
	controllers, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
	if err != nil {
		return err
	}
	leaf := filepath.Join(root, "init")
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		return err
	}
	// Processes may start while they are moved: move until none is left.
	for range 10 {
		procs, err := os.ReadFile(filepath.Join(root, "cgroup.procs"))
		if err != nil {
			return err
		}
		pids := strings.Fields(string(procs))
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			// A process that exited meanwhile cannot be moved: fine.
			os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(pid), 0o644)
		}
	}
	var enable []string
	for _, c := range strings.Fields(string(controllers)) {
		enable = append(enable, "+"+c)
	}
	if len(enable) == 0 {
		return nil
	}
	return os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte(strings.Join(enable, " ")), 0o644)
}

// lastLines is the end of a log file, in one line, for an error.
func lastLines(path string, n int) string {
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
