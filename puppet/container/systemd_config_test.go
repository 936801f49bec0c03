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

func TestCapsIn(t *testing.T) {
	const dacReadSearch, sysNice = 1 << 2, 1 << 23
	for _, c := range []struct {
		bnd  uint64
		want []string
	}{
		{^uint64(0), []string{"DAC_READ_SEARCH", "SYS_NICE"}},
		{sysNice, []string{"SYS_NICE"}},
		{dacReadSearch | 1<<19, []string{"DAC_READ_SEARCH"}},
		{0, nil},
	} {
		// NOPE has no bit: never kept.
		if got := capsIn([]string{"DAC_READ_SEARCH", "NOPE", "SYS_NICE"}, c.bnd); !slices.Equal(got, c.want) {
			t.Errorf("capsIn(%#x) = %q, want %q", c.bnd, got, c.want)
		}
	}
}

func TestBootNotReachable(t *testing.T) {
	for state, want := range map[string]bool{
		"offline": true, "Failed to connect to bus: No such file or directory": true,
		"Failed to connect to system scope bus via local transport: No such file or directory": true, // systemctl 257
		"Failed to connect to the Internet":                                                    false,
		"starting":                                                                             false, "maintenance": false, "stopping": false, "": false,
	} {
		if got := bootNotReachable(state); got != want {
			t.Errorf("bootNotReachable(%q) = %v, want %v", state, got, want)
		}
	}
}
