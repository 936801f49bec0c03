package container

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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

// TestBootScript runs bootScript with a systemctl that answers each state
// in turn: it asks again while systemd cannot be reached, and prints the
// first answer that is a verdict on the boot.
func TestBootScript(t *testing.T) {
	for _, c := range []struct {
		answers []string
		want    string
	}{
		{[]string{"running"}, "running"},
		{[]string{"offline", "Failed to connect to bus: No such file or directory", "degraded"}, "degraded"},
		{[]string{"Failed to connect to system scope bus via local transport: No such file or directory", "running"}, "running"}, // systemctl 257
		{[]string{"Failed to connect to the Internet", "running"}, "Failed to connect to the Internet"},
		{[]string{"starting", "running"}, "starting"},
		{[]string{"maintenance"}, "maintenance"},
		{[]string{"", "running"}, ""},
	} {
		dir := t.TempDir()
		script := "#!/bin/sh\nn=$(cat " + dir + "/n 2>/dev/null || echo 0)\necho $((n + 1)) >" + dir + "/n\ncase $n in\n"
		for i, a := range c.answers {
			script += fmt.Sprintf("%d) echo '%s' ;;\n", i, a)
		}
		script += "*) echo 'asked too often' ;;\nesac\n"
		if err := os.WriteFile(filepath.Join(dir, "systemctl"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/sh", "-c", bootScript)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
		out, err := cmd.Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != c.want {
			t.Errorf("answers %q: printed %q (%v), want %q", c.answers, got, err, c.want)
		}
	}
}
