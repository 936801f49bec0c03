package ptrace_test

// End-to-end check of the native tracer on a real Puppet run: a static
// fsmove is copied into the fsmove/puppet:bookworm image and runs
// "fsmove trace -- puppet apply" on a fixture; fsmove analyze must find in
// that trace what it finds in the committed strace capture of the same
// fixture (testdata/runs). Like the runner's e2e tests it runs when Docker
// answers, is skipped in -short mode, and with FSMOVE_E2E=1 an unreachable
// engine is a failure.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsmove/fsmove/detector/analyze"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/tracer/ptrace"
)

func TestE2EPuppetApplyMatchesStrace(t *testing.T) {
	if testing.Short() && os.Getenv("FSMOVE_E2E") != "1" {
		t.Skip("e2e test skipped in -short mode")
	}
	// Every fixture with a committed strace capture. The cron ones install
	// a package and start the cron daemon: the trace must end with Puppet.
	fixtures := []struct{ name, mustFind string }{
		{"mor_exec_reads_file", "MOR File[/etc/mor_exec_reads_file.conf] Exec[read-conf]"},
		{"mor_generate_use", "MOR Exec[generate-script] Exec[run-script]"},
		{"mn_config_service", "MN File[/etc/cron.d/mn_config_service] Service[cron]"},
		{"mn_package_service", ""},
		{"clean", ""},
	}
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			got, want := applyTraced(t, fx.name)
			if got != want {
				t.Errorf("findings under ptrace:\n%s\nunder strace:\n%s", got, want)
			}
			if !strings.Contains(got, fx.mustFind) {
				t.Errorf("the fixture's finding %q is missing:\n%s", fx.mustFind, got)
			}
		})
	}
}

// applyTraced runs "fsmove trace -- puppet apply" of a fixture in a fresh
// container and returns the findings of its trace and those of the
// committed strace capture of the same fixture.
func applyTraced(t *testing.T, fixture string) (got, want string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, work := puppetContainer(ctx, t, fixture)
	defer c.Remove(context.Background())

	cmd := ptrace.TraceCommand("/fsmove-ptrace/fsmove", "/fsmove-ptrace/trace.log", puppetApply)
	var log bytes.Buffer
	status, err := c.Exec(ctx, []string{"sh", "-c", shellQuote(cmd) + " >/fsmove-ptrace/puppet.log 2>&1; s=$?; " +
		"cp /var/cache/puppet/client_data/catalog/*.json /fsmove-ptrace/catalog.json; exit $s"}, nil, &log)
	if err != nil {
		t.Fatal(err)
	}
	if status != 0 && status != 2 { // --detailed-exitcodes: 2 = changes applied
		t.Fatalf("traced puppet apply exited %d: %s", status, log.String())
	}
	for _, name := range []string{"trace.log", "catalog.json"} {
		rc, err := c.CopyOut(ctx, "/fsmove-ptrace/"+name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = container.Extract(rc, work)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	got = findings(t, filepath.Join(work, "trace.log"), filepath.Join(work, "catalog.json"))
	runDir := filepath.Join("..", "..", "testdata", "runs", fixture)
	want = findings(t, filepath.Join(runDir, "trace.log.zst"), filepath.Join(runDir, "catalog.json"))
	return got, want
}

// puppetContainer starts a container of the Puppet image with a static
// fsmove, the fixture module and its site.pp under /fsmove-ptrace, and
// returns it with a local work directory.
func puppetContainer(ctx context.Context, t testing.TB, fixture string) (*container.Container, string) {
	t.Helper()
	required := os.Getenv("FSMOVE_E2E") == "1"
	eng, err := container.Connect(ctx)
	if err != nil {
		if required {
			t.Fatalf("FSMOVE_E2E=1 but Docker is unreachable: %v", err)
		}
		t.Skipf("Docker unreachable (set FSMOVE_E2E=1 to make this a failure): %v", err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.EnsureImage(ctx, container.ImageOptions{}); err != nil {
		t.Fatalf("image: %v", err)
	}
	root := filepath.Join("..", "..")
	work := t.TempDir()
	binData, err := staticFsmove()
	if err != nil {
		t.Fatal(err)
	}
	c, err := eng.Start(ctx, container.Spec{
		Image:             "fsmove/puppet:bookworm",
		Hostname:          "fsmove-ptrace-e2e",
		CapAdd:            []string{"SYS_PTRACE"},
		SeccompUnconfined: true,
		Labels:            map[string]string{"fsmove.test": "ptrace"},
	})
	if err != nil {
		t.Fatal(err)
	}
	a := container.NewArchive()
	a.AddFile("fsmove-ptrace/fsmove", binData, 0o755)
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
var puppetApply = []string{"puppet", "apply", "--debug", "--evaltrace", "--detailed-exitcodes",
	"--catalog_cache_terminus", "json", "--modulepath", "/fsmove-ptrace/modules", "/fsmove-ptrace/site.pp"}

// findings analyzes a trace and lists its findings, one "KIND producer
// consumer" line each, sorted.
func findings(t *testing.T, trace, catalog string) string {
	t.Helper()
	rep, _, err := analyze.Run(context.Background(), analyze.Input{Trace: trace, Catalog: catalog}, analyze.Options{})
	if err != nil {
		t.Fatalf("analyze %s: %v", trace, err)
	}
	var lines []string
	for _, f := range rep.Findings {
		lines = append(lines, f.Kind.String()+" "+f.Producer.Ref()+" "+f.Consumer.Ref())
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
