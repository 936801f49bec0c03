package container

import (
	"slices"
	"testing"

	"github.com/docker/docker/api/types/container"
)

// A systemd container is host-like without being privileged: seccomp
// lifted (units that sandbox themselves start), no capability beyond those
// the host's bounding set has, never SYS_ADMIN.
func TestSystemdConfigHostLike(t *testing.T) {
	cfg, host := &container.Config{}, &container.HostConfig{CapAdd: []string{"SYS_PTRACE"}, SecurityOpt: []string{"seccomp=unconfined"}}
	systemdConfig(cfg, host)
	if n := slices.Index(host.SecurityOpt, "seccomp=unconfined"); n < 0 || len(host.SecurityOpt) != 1 {
		t.Errorf("security options %q: want seccomp=unconfined once", host.SecurityOpt)
	}
	if host.Privileged || slices.Contains(host.CapAdd, "SYS_ADMIN") {
		t.Errorf("privileged %v, caps %q", host.Privileged, host.CapAdd)
	}
	if !slices.Contains(host.CapAdd, "SYS_PTRACE") {
		t.Errorf("the tracer's capability was lost: %q", host.CapAdd)
	}
	for _, c := range hostRootCaps {
		if !slices.Contains(host.CapAdd, c) {
			t.Errorf("%s not added: %q", c, host.CapAdd)
		}
	}
}

func TestBoundedCaps(t *testing.T) {
	// Bit 63 is no capability: never in a bounding set.
	got := boundedCaps(map[string]uint{"CHOWN": 0, "NOPE": 63})
	if !slices.Equal(got, []string{"CHOWN"}) {
		t.Errorf("boundedCaps = %q, want [CHOWN] (bit 63 is in no bounding set)", got)
	}
}

func TestBootNotReachable(t *testing.T) {
	for state, want := range map[string]bool{
		"offline": true, "Failed to connect to bus: No such file or directory": true,
		"starting": false, "maintenance": false, "stopping": false, "": false,
	} {
		if got := bootNotReachable(state); got != want {
			t.Errorf("bootNotReachable(%q) = %v, want %v", state, got, want)
		}
	}
}
