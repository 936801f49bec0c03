package container

import (
	"slices"
	"testing"

	"github.com/docker/docker/api/types/container"
)

// A systemd container boots systemd without any privilege of its own: the
// systemd settings add no capability and no security option.
func TestSystemdConfigAddsNoPrivilege(t *testing.T) {
	cfg, host := &container.Config{}, &container.HostConfig{CapAdd: []string{"SYS_PTRACE"}, SecurityOpt: []string{"seccomp={}"}}
	systemdConfig(cfg, host)
	if !slices.Equal(host.SecurityOpt, []string{"seccomp={}"}) {
		t.Errorf("security options %q: systemd mode must not change them", host.SecurityOpt)
	}
	if host.Privileged || !slices.Equal(host.CapAdd, []string{"SYS_PTRACE"}) {
		t.Errorf("privileged %v, caps %q: systemd mode must add nothing", host.Privileged, host.CapAdd)
	}
	if !slices.Equal(cfg.Cmd, []string{systemdCommand}) || host.Init != nil {
		t.Errorf("PID 1 %q (docker-init %v): want systemd itself", cfg.Cmd, host.Init)
	}
}

func TestBoundedCaps(t *testing.T) {
	// NOPE has no bit: never kept; the others are in any root's set.
	got := boundedCaps([]string{"SYS_PTRACE", "NOPE", "SYS_NICE"})
	if !slices.Equal(got, []string{"SYS_PTRACE", "SYS_NICE"}) {
		t.Errorf("boundedCaps = %q, want [SYS_PTRACE SYS_NICE]", got)
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
