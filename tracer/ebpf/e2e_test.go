package ebpf

// End-to-end check on a real Puppet run: a container of the fsmove image
// applies a fixture module, untraced inside, while the eBPF tracer runs on
// the host filtered to the container's cgroup. The events, saved in
// strace's text form, must analyze to the same findings as the fixture's
// strace capture in testdata/runs. It follows cmd/fsmove's FSMOVE_E2E rules:
// it runs when Docker answers and eBPF is allowed, and with FSMOVE_E2E=1
// (CI) a missing Docker or eBPF fails it instead of skipping.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/detector/analyze"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/fsmove/fsmove/tracer/strace"
)

// requireE2E skips (or, with FSMOVE_E2E=1, fails) when Docker or eBPF is
// missing, and returns the engine.
func requireE2E(t *testing.T) *container.Engine {
	t.Helper()
	required := os.Getenv("FSMOVE_E2E") == "1"
	missing := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf("FSMOVE_E2E=1 but "+format, args...)
		}
		t.Skipf(format+" (set FSMOVE_E2E=1 to make this a failure)", args...)
	}
	if testing.Short() && !required {
		t.Skip("e2e test skipped in -short mode")
	}
	if os.Geteuid() != 0 {
		missing("eBPF tracing needs root")
	}
	eng, err := container.Connect(context.Background())
	if err != nil {
		missing("Docker is unreachable: %v", err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// findings lists a report's findings as "KIND producer consumer" lines.
func findings(rep *detector.Report) []string {
	out := []string{}
	for _, f := range rep.Findings {
		out = append(out, fmt.Sprintf("%s %s %s", f.Kind, f.Producer.Ref(), f.Consumer.Ref()))
	}
	sort.Strings(out)
	return out
}

func TestE2EPuppetApplyInContainer(t *testing.T) {
	eng := requireE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const module = "mor_exec_reads_file"
	repo, _ := filepath.Abs("../..")
	moduleDir := filepath.Join(repo, "testdata", "modules", module)
	runDir := filepath.Join(repo, "testdata", "runs", module)

	img, err := eng.EnsureImage(ctx, container.ImageOptions{})
	if err != nil {
		t.Fatalf("image: %v", err)
	}
	c, err := eng.Start(ctx, container.Spec{
		Image: img.ID, Hostname: "fsmove-node", Env: []string{"LANG=C.UTF-8"},
		Labels: map[string]string{"fsmove.module": module, "fsmove.test": "tracer/ebpf"},
	})
	if err != nil {
		t.Fatalf("container: %v", err)
	}
	defer c.Remove(context.Background())

	site, err := runner.Entry{}.SitePP(module)
	if err != nil {
		t.Fatal(err)
	}
	a := container.NewArchive()
	a.AddFile("/fsmove/site.pp", []byte(site), 0o644)
	a.AddFile("/fsmove/graphs/.keep", nil, 0o644)
	a.AddDir(moduleDir, "/fsmove/modules/"+module)
	data, err := a.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CopyIn(ctx, "/", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}

	cg, err := DockerCgroup(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Start(Options{CgroupPath: cg})
	if err != nil {
		if os.Getenv("FSMOVE_E2E") == "1" {
			t.Fatalf("FSMOVE_E2E=1 but eBPF is not usable: %v", err)
		}
		t.Skipf("eBPF is not usable: %v", err)
	}
	defer tr.Close()

	// Save the events in strace's form while Puppet runs (what
	// --save-trace does), and read them back with the strace reader below.
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "trace.log")
	f, err := os.Create(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	saved := make(chan error, 1)
	var events int
	go func() {
		w := strace.NewWriter(f)
		for {
			ev, err := tr.Next()
			if err == io.EOF {
				saved <- w.Flush()
				return
			}
			if err != nil {
				saved <- err
				return
			}
			events++
			if err := w.Write(ev); err != nil {
				saved <- err
				return
			}
		}
	}()

	cmd := append([]string{"puppet", "apply"}, runner.PuppetApplyArgs([]string{"/fsmove/modules"})...)
	var out bytes.Buffer
	status, err := c.Exec(ctx, cmd, nil, &out)
	stopErr := tr.Stop()
	saveErr := <-saved
	f.Close()
	if err != nil || !runner.PuppetSucceeded(status) {
		t.Fatalf("puppet apply: status %d, %v\n%s", status, err, out.String())
	}
	if stopErr != nil || saveErr != nil {
		t.Fatalf("capture: stop %v, save %v", stopErr, saveErr)
	}
	if !strings.Contains(out.String(), "Applied catalog") {
		t.Fatalf("no 'Applied catalog' in Puppet's output:\n%s", out.String())
	}

	// The catalog Puppet applied.
	rc, err := c.CopyOut(ctx, "/var/cache/puppet/client_data/catalog")
	if err != nil {
		t.Fatal(err)
	}
	files, err := container.Extract(rc, dir)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	catalogPath := ""
	for _, name := range files {
		if strings.HasSuffix(name, ".json") {
			catalogPath = filepath.Join(dir, name)
		}
	}
	if catalogPath == "" {
		t.Fatalf("no catalog among %v", files)
	}

	got, _, err := analyze.Run(ctx, analyze.Input{Trace: tracePath, Catalog: catalogPath}, analyze.Options{})
	if err != nil {
		t.Fatalf("analyze the eBPF capture: %v", err)
	}
	want, _, err := analyze.Run(ctx, analyze.Input{Trace: filepath.Join(runDir, "trace.log.zst"), Catalog: filepath.Join(runDir, "catalog.json")}, analyze.Options{})
	if err != nil {
		t.Fatalf("analyze the strace capture: %v", err)
	}
	t.Logf("%d events, findings %v", events, findings(got))
	if !reflect.DeepEqual(findings(got), findings(want)) {
		t.Errorf("findings differ:\neBPF:   %v\nstrace: %v", findings(got), findings(want))
	}
	if wantOne := "MOR File[/etc/mor_exec_reads_file.conf] Exec[read-conf]"; !reflect.DeepEqual(findings(got), []string{wantOne}) {
		t.Errorf("findings %v, want exactly %q", findings(got), wantOne)
	}
	// Puppet's own resources (Schedule[daily], Filebucket[puppet]) are
	// blocks outside the catalog in both captures.
	if !reflect.DeepEqual(got.UnresolvedBlocks, want.UnresolvedBlocks) {
		t.Errorf("blocks unknown to the catalog: eBPF %v, strace %v", got.UnresolvedBlocks, want.UnresolvedBlocks)
	}
	if n := tr.Dropped(); n != 0 {
		t.Errorf("%d events dropped", n)
	}
}
