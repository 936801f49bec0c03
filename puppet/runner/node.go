package runner

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/puppet/container"
)

// Node is the container of a run after its apply, as Options.Then sees it:
// a shell on the node and the same apply again. fsmove confirm uses it to
// read the state of paths, change a file out of band and re-apply.
type Node struct {
	r          *run
	modulePath []string
}

// Shell runs script with /bin/sh -c in the container, as root, with args
// as $1, $2, …, and returns its standard output and error together (at
// most maxShellOutput of it: the module decides what a file it made holds)
// and its exit status.
func (n *Node) Shell(ctx context.Context, script string, args ...string) (string, int, error) {
	cmd := append([]string{"/bin/sh", "-c", script, "fsmove-shell"}, args...)
	var buf bytes.Buffer
	out := &capWriter{w: &buf, left: maxShellOutput}
	status, err := n.r.c.Exec(ctx, cmd, []string{"LANG=C.UTF-8"}, out)
	if out.cut {
		buf.WriteString("\n[fsmove: the output was cut at " + container.FormatBytes(maxShellOutput) + "]\n")
	}
	return buf.String(), status, err
}

// maxShellOutput bounds what Node.Shell keeps of a command's output.
const maxShellOutput = 32 << 20

// Apply runs the run's puppet apply again, untraced, with the same entry
// manifest and module path, and returns Puppet's exit status and its
// output (puppet.log in the container, which it replaces).
func (n *Node) Apply(ctx context.Context) (exit int, log string, err error) {
	var out bytes.Buffer
	status, err := n.r.c.Exec(ctx, plainApply(nil, PuppetApplyArgs(n.modulePath)), nil, &out)
	if err != nil {
		return 0, "", err
	}
	if status != 0 {
		return 0, "", fmt.Errorf("puppet apply could not start (status %d): %s", status, strings.TrimSpace(out.String()))
	}
	if log, err = n.PuppetLog(ctx); err != nil {
		return 0, "", err
	}
	code, _, err := n.Shell(ctx, `cat "$1"`, puppetExitPath)
	if err != nil {
		return 0, "", err
	}
	exit, err = strconv.Atoi(strings.TrimSpace(code))
	if err != nil {
		return 0, log, fmt.Errorf("Puppet's exit status: %q", strings.TrimSpace(code))
	}
	return exit, log, nil
}

// PuppetLog returns the output of the last apply (puppet.log in the
// container).
func (n *Node) PuppetLog(ctx context.Context) (string, error) {
	log, status, err := n.Shell(ctx, `cat "$1"`, puppetLogPath)
	if err == nil && status != 0 {
		err = fmt.Errorf("reading %s: %s", puppetLogPath, strings.TrimSpace(log))
	}
	return log, err
}

// Systemd reports whether systemd is the container's init.
func (n *Node) Systemd() bool { return n.r.opts.Init == container.InitSystemd }
