package ptrace_test

// A container of a suite's fsmove/puppet image with a static fsmove in
// it, for BenchmarkTracerOverhead. (Whether every tracer finds the same
// faults on every fixture is checked end to end by cmd/fsmove's
// TestE2ERunFixtures, through fsmove run.) Like the other Docker tests it
// skips when Docker is unreachable, and with FSMOVE_E2E=1 fails instead.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/container/containertest"
)

// puppetContainer starts a container of suite's Puppet image with a static
// fsmove, the fixture module and its site.pp under /fsmove-ptrace, and
// returns it with a local work directory.
func puppetContainer(ctx context.Context, t testing.TB, suite, fixture string) (*container.Container, string) {
	t.Helper()
	eng := containertest.Engine(t)
	root := filepath.Join("..", "..")
	work := t.TempDir()
	binData, err := staticFsmove()
	if err != nil {
		t.Fatal(err)
	}
	// The wrapper fsmove run's strace apply uses: in systemd mode strace
	// follows PID 1 and never ends by itself; the script stops it when
	// Puppet exits.
	applySh, err := os.ReadFile(filepath.Join(root, "puppet", "runner", "apply.sh"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := eng.Start(ctx, container.Spec{
		Image:    container.SuiteImage(suite),
		Hostname: "fsmove-ptrace-e2e",
		Ptrace:   true,
		Labels:   map[string]string{"fsmove.test": "ptrace"},
		Init:     container.InitSystemd, // as fsmove run's default
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBooted(ctx, 90*time.Second); err != nil {
		c.Remove(context.Background())
		t.Fatal(err)
	}
	a := container.NewArchive()
	a.AddFile("fsmove-ptrace/fsmove", binData, 0o755)
	a.AddFile("fsmove-ptrace/apply.sh", applySh, 0o755)
	a.AddFile("fsmove-ptrace/site.pp", []byte("include "+fixture+"\n"), 0o644)
	a.AddDir(filepath.Join(root, "testdata", "modules", fixture), "fsmove-ptrace/modules/"+fixture)
	tarData, err := a.Bytes()
	if err == nil {
		err = c.CopyIn(ctx, "/", bytes.NewReader(tarData))
	}
	if err != nil {
		c.Remove(context.Background())
		t.Fatal(err)
	}
	return c, work
}

var static struct {
	once sync.Once
	bin  []byte
	err  error
}

// staticFsmove builds fsmove with CGO_ENABLED=0 once per test binary.
func staticFsmove() ([]byte, error) {
	static.once.Do(func() {
		dir, err := os.MkdirTemp("", "fsmove-static")
		if err != nil {
			static.err = err
			return
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "fsmove")
		build := exec.Command("go", "build", "-o", bin, "./cmd/fsmove")
		build.Dir = filepath.Join("..", "..")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			static.err = fmt.Errorf("static build of fsmove: %v\n%s", err, out)
			return
		}
		static.bin, static.err = os.ReadFile(bin)
	})
	return static.bin, static.err
}

// puppetApply is the traced or untraced command's puppet apply part.
var puppetApply = append([]string{"puppet", "apply"}, puppetArgs...)

var puppetArgs = []string{"--debug", "--evaltrace", "--detailed-exitcodes",
	"--catalog_cache_terminus", "json", "--modulepath", "/fsmove-ptrace/modules:/usr/share/puppet/modules", "/fsmove-ptrace/site.pp"}

func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
