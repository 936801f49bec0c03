package ebpf

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// dockerCgroupLayouts are where Docker puts a container's cgroup v2
// directory, relative to a cgroup2 mount: the cgroupfs driver ("docker/<id>",
// also on hybrid v1 hosts like this one, under /sys/fs/cgroup/unified) and
// the systemd driver ("system.slice/docker-<id>.scope").
var dockerCgroupLayouts = []string{
	"docker/%s",
	"system.slice/docker-%s.scope",
}

// cgroup2Mounts are the usual cgroup2 mount points: the unified hierarchy of
// a hybrid host, then a pure v2 host's.
var cgroup2Mounts = []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"}

// cgroup2Mount returns the first of cgroup2Mounts that is a cgroup2
// hierarchy.
func cgroup2Mount() (string, error) {
	for _, m := range cgroup2Mounts {
		var fs unix.Statfs_t
		if unix.Statfs(m, &fs) == nil && fs.Type == unix.CGROUP2_SUPER_MAGIC {
			return m, nil
		}
	}
	return "", fmt.Errorf("ebpf: no cgroup2 hierarchy mounted at %v", cgroup2Mounts)
}

// DockerCgroup returns the cgroup v2 directory of the Docker container with
// the full id containerID, for Options.CgroupPath. Processes started in the
// container with docker exec are in it too.
func DockerCgroup(containerID string) (string, error) {
	if len(containerID) != 64 {
		return "", fmt.Errorf("ebpf: %q is not a full container id", containerID)
	}
	for _, mount := range cgroup2Mounts {
		for _, layout := range dockerCgroupLayouts {
			dir := filepath.Join(mount, fmt.Sprintf(layout, containerID))
			if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err == nil {
				return dir, nil
			} else if !errors.Is(err, os.ErrNotExist) {
				return "", fmt.Errorf("ebpf: %w", err)
			}
		}
	}
	return "", fmt.Errorf("ebpf: no cgroup v2 directory for container %.12s under %v (is the container running?)", containerID, cgroup2Mounts)
}

// TempCgroup is a cgroup v2 directory made for tracing one command: the
// command is started in it (CLONE_INTO_CGROUP), so that it and all its
// children are traced and nothing else is.
type TempCgroup struct {
	Path string
	fd   int
}

// NewTempCgroup creates an empty cgroup named name (plus this process's
// pid) under the cgroup2 mount.
func NewTempCgroup(name string) (*TempCgroup, error) {
	mount, err := cgroup2Mount()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(mount, fmt.Sprintf("%s-%d", name, os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("ebpf: creating a cgroup: %w", err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("ebpf: %w", err)
	}
	return &TempCgroup{Path: dir, fd: fd}, nil
}

// Place makes cmd start inside the cgroup.
func (c *TempCgroup) Place(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = c.fd
}

// Close removes the cgroup; it fails while processes are still in it
// (a daemon the command left running).
func (c *TempCgroup) Close() error {
	unix.Close(c.fd)
	if err := removeCgroup(c.Path); err != nil {
		return fmt.Errorf("ebpf: removing cgroup %s: %w", c.Path, err)
	}
	return nil
}

// removeCgroup removes an empty cgroup directory. A task that has just been
// reaped can keep its cgroup populated for a moment (rmdir says EBUSY):
// removeCgroup retries for a while before giving up.
func removeCgroup(path string) error {
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := unix.Rmdir(path)
		if err != unix.EBUSY || time.Now().After(deadline) {
			if err != nil {
				return &os.PathError{Op: "rmdir", Path: path, Err: err}
			}
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}
