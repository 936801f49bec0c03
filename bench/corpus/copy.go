package corpus

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

// CopyModule returns the entry's module directory: a directory entry's
// own, or the module a deb: entry's package installs, copied out of the
// Debian module packages of image (container.ModuleDebsDir) into dst, for
// the harnesses that edit a module (bench/recall plants faults in it,
// bench/fixrate fixes them).
func (e Entry) CopyModule(ctx context.Context, image, dst string) (string, error) {
	switch e.Module.Kind {
	case runner.SourceDir:
		return e.Module.Dir, nil
	case runner.SourceDeb:
	default:
		return "", fmt.Errorf("%s: only module directories and deb: packages can be copied", e.Spec)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dst)
	if err != nil {
		return "", err
	}
	// Debian installs a module in modules.available/AUTHOR-NAME (a link in
	// modules names it), or in modules/NAME; either is the module, named
	// as Puppet loads it ($3).
	script := `set -eu; d=$(mktemp -d); dpkg-deb -x "$(ls ` + container.ModuleDebsDir + `/"$1"_*.deb | head -n 1)" "$d"
src=$(ls -d "$d"/usr/share/puppet/modules.available/* "$d"/usr/share/puppet/modules/* 2>/dev/null | head -n 1)
mkdir -p /out/"$3"; cp -a "$src"/. /out/"$3"/; chown -R "$2" /out`
	cmd := exec.CommandContext(ctx, "docker", "run", "--rm", "--network", "none", "-v", abs+":/out", image,
		"sh", "-c", script, "sh", e.Module.Package, strconv.Itoa(os.Getuid())+":"+strconv.Itoa(os.Getgid()), e.Module.Name)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("copying %s out of %s: %v: %s", e.Module.Package, image, err, strings.TrimSpace(string(out)))
	}
	name := e.Module.Name
	if _, err := os.Stat(filepath.Join(dst, name, "manifests")); err != nil {
		return "", fmt.Errorf("%s installs no module %s (module= names it)", e.Module.Package, name)
	}
	return filepath.Join(dst, name), nil
}
