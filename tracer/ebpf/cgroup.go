package ebpf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
