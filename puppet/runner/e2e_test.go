package runner

// End-to-end tests against a real Docker Engine. They run when the engine
// answers; with FSMOVE_E2E=1 (CI) an unreachable engine is a failure, not
// a skip. The fixtures' findings are checked in cmd/fsmove's e2e tests.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/container/containertest"
)

// e2eEngine is containertest.Engine: a real engine, or a skip (a
// failure in CI).
func e2eEngine(t *testing.T) *container.Engine { return containertest.Engine(t) }

func fixtureSpec(t *testing.T, name string) ModuleSpec {
	t.Helper()
	spec, err := ParseModuleSpec(filepath.Join("..", "..", "testdata", "modules", name))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestE2EArtifacts runs the clean fixture and checks every artifact.
func TestE2EArtifacts(t *testing.T) {
	eng := e2eEngine(t)
	out := t.TempDir()
	rec, err := Run(context.Background(), eng, Options{
		Module: fixtureSpec(t, "clean"), Tracer: "strace", Trusted: true, SeccompBPF: true, OutDir: out, FsmoveVersion: "e2e",
	})
	if err != nil {
		t.Fatalf("run: %v (record %+v)", err, rec)
	}
	if rec.Status != StatusOK || rec.PuppetExit == nil || *rec.PuppetExit != 2 || rec.ApplyExit == nil || *rec.ApplyExit != 0 {
		t.Errorf("status %s, puppet exit %v, apply exit %v; want ok, 2 (changes), 0", rec.Status, rec.PuppetExit, rec.ApplyExit)
	}
	checkArtifacts(t, out, "Clean")
	// The traced apply read the facts the compile cached (compile.go).
	trace, _ := os.ReadFile(filepath.Join(out, TraceFile))
	if cached := factsYAMLDir + "/facts/" + NodeName + ".yaml"; !strings.Contains(string(trace), cached) {
		t.Errorf("the traced apply did not read the cached facts %s", cached)
	}

	back, err := ReadRecord(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(back.PuppetVersion, "7.") || back.StraceVersion == "" || !strings.HasPrefix(back.Image.ID, "sha256:") ||
		back.Tracer != "strace" || back.Module.Name != "clean" || back.FsmoveVersion != "e2e" {
		t.Errorf("run.json: %+v", back)
	}
	if dir := back.PathMap["/fsmove/modules/clean"]; dir == "" || !files.Exists(filepath.Join(dir, "manifests", "init.pp")) {
		t.Errorf("path_map %v does not lead to the module on this machine", back.PathMap)
	}
	var steps []string
	for _, s := range back.Steps {
		steps = append(steps, s.Name)
		if !s.OK || s.Seconds < 0 {
			t.Errorf("step %+v", s)
		}
	}
	if strings.Join(steps, ",") != "image,container,modules,compile,apply,copy" {
		t.Errorf("steps %v", steps)
	}
	info, _ := os.Stat(filepath.Join(out, TraceFile))
	if info == nil || back.TraceBytes != info.Size() {
		t.Errorf("trace_bytes %d, file %v", back.TraceBytes, info)
	}
}

// checkArtifacts checks the trace, the catalog, the graphs and the log.
func checkArtifacts(t *testing.T, out, class string) {
	t.Helper()
	trace, err := os.ReadFile(filepath.Join(out, TraceFile))
	if err != nil || len(trace) == 0 {
		t.Fatalf("trace: %v, %d bytes", err, len(trace))
	}
	for _, want := range []string{"Starting to evaluate the resource", "Evaluated in", "execve(\"/bin/sh\"", "+++ exited with 2 +++"} {
		if !strings.Contains(string(trace), want) {
			t.Errorf("trace lacks %q", want)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, CatalogFile))
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Resources []struct{ Type, Title string } `json:"resources"`
		Edges     []json.RawMessage              `json:"edges"`
	}
	if err := json.Unmarshal(data, &cat); err != nil {
		t.Fatalf("catalog.json: %v", err)
	}
	found := false
	for _, r := range cat.Resources {
		found = found || r.Type == "Class" && r.Title == class
	}
	if !found || len(cat.Edges) == 0 {
		t.Errorf("catalog has %d resources, %d edges, Class[%s] %v", len(cat.Resources), len(cat.Edges), class, found)
	}
	for _, f := range []string{"graphs/expanded_relationships.dot", "graphs/relationships.dot", PuppetLogFile, SiteFile, RunJSON} {
		if info, err := os.Stat(filepath.Join(out, f)); err != nil || info.Size() == 0 {
			t.Errorf("artifact %s: %v", f, err)
		}
	}
}

// TestE2ECompileFailure: a manifest that does not compile gives a record
// that says so, Puppet's error, no catalog, and no container left.
func TestE2ECompileFailure(t *testing.T) {
	eng := e2eEngine(t)
	out := t.TempDir()
	rec, err := Run(context.Background(), eng, Options{
		Module: fixtureSpec(t, "clean"), Entry: Entry{Code: "include no_such_class"}, Tracer: "strace", Trusted: true, SeccompBPF: true, OutDir: out,
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if rec.Status != StatusCompileFailed || rec.PuppetExit == nil || *rec.PuppetExit != 1 {
		t.Errorf("status %s, puppet exit %v; want compile-failed, 1", rec.Status, rec.PuppetExit)
	}
	if files.Exists(filepath.Join(out, CatalogFile)) {
		t.Error("catalog written although Puppet did not compile")
	}
	// The apply step's line says the outcome, not "puppet finished".
	if s, ok := rec.ApplyStep(); !ok || s.Detail != "Puppet could not compile the catalog (exit 1)" {
		t.Errorf("apply step %+v", s)
	}
	f, err := os.Open(filepath.Join(out, PuppetLogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	errs := PuppetErrors(f, 3)
	if len(errs) == 0 || !strings.Contains(errs[0], "no_such_class") {
		t.Errorf("Puppet's errors: %q", errs)
	}
}

// lineWatcher is a progress writer that reports when a line with a given
// text has been written.
type lineWatcher struct {
	mu   sync.Mutex
	text string
	buf  strings.Builder
	seen chan struct{}
	once sync.Once
}

func (w *lineWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.text) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// TestE2EInterruptedRun cancels a run in the middle of the traced apply
// (as Ctrl-C does through signal.NotifyContext): Run returns, says so, and
// the container is gone.
func TestE2EInterruptedRun(t *testing.T) {
	eng := e2eEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := &lineWatcher{text: "fsmove: apply ", seen: make(chan struct{})}
	type result struct {
		rec *RunRecord
		err error
	}
	done := make(chan result, 1)
	go func() {
		rec, err := Run(ctx, eng, Options{
			Module: fixtureSpec(t, "mn_config_service"), Tracer: "strace", Trusted: true, SeccompBPF: true, OutDir: t.TempDir(),
			Progress: NewProgress(watch, false),
		})
		done <- result{rec, err}
	}()
	select {
	case <-watch.seen:
	case r := <-done:
		t.Fatalf("run ended before the apply started: %v", r.err)
	}
	time.Sleep(3 * time.Second) // well inside Puppet's start-up
	cancel()
	r := <-done
	if !errors.Is(r.err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", r.err)
	}
	if r.rec == nil || r.rec.Status != StatusInterrupted {
		t.Errorf("record %+v, want status interrupted", r.rec)
	}
	// e2eEngine's cleanup checks that the container is gone.
}

// TestE2ETimeout: a run that exceeds its deadline stops, copies out the
// partial trace, and removes its container.
func TestE2ETimeout(t *testing.T) {
	eng := e2eEngine(t)
	// The container, the modules and the compile take 5-8 s here alone,
	// and the deadline leaves room for a loaded machine (cmd/fsmove's
	// end-to-end tests run beside this package's: 40 s ended once in the
	// compile); the apply waits on an Exec until the deadline, whatever
	// the machine's speed, and that wait costs no CPU.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out := t.TempDir()
	hold := Entry{Code: "include clean\nexec { 'fsmove-test-hold': command => '/bin/sleep 600', timeout => 0 }"}
	rec, err := Run(ctx, eng, Options{Module: fixtureSpec(t, "clean"), Entry: hold, Tracer: "strace", Trusted: true, SeccompBPF: true, OutDir: out})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline", err)
	}
	if rec.Status != StatusTimeout {
		t.Errorf("status %s, want timeout", rec.Status)
	}
	back, err := ReadRecord(out)
	if err != nil || back.Status != StatusTimeout {
		t.Errorf("run.json: %+v %v", back, err)
	}
	// The apply step failed; the copy step still ran and got a trace.
	var names []string
	for _, s := range back.Steps {
		names = append(names, s.Name)
	}
	if joined := strings.Join(names, ","); !strings.HasSuffix(joined, "apply,copy") {
		t.Errorf("steps %s, want …,apply,copy", joined)
	}
	if info, err := os.Stat(filepath.Join(out, TraceFile)); err != nil || info.Size() == 0 {
		t.Errorf("partial trace: %v", err)
	}
}

// TestForgeOffline needs no Docker: a Forge module fails at once when the
// Forge cannot be reached, before any image or container work.
func TestForgeOffline(t *testing.T) {
	spec, err := ParseModuleSpec("puppetlabs-ntp@9.1.0")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rec, err := Run(context.Background(), nil, Options{
		Module: spec, OutDir: out,
		ForgeCheck: func(context.Context) error { return errors.New("dial tcp: no route to host") },
	})
	if err == nil || !strings.Contains(err.Error(), "Forge cannot be reached") || !strings.Contains(err.Error(), "deb:puppet-module-puppetlabs-ntp") {
		t.Errorf("err = %v", err)
	}
	if rec == nil || rec.Status != StatusInfraError || len(rec.Steps) != 0 {
		t.Errorf("record %+v: want infra-error before any step", rec)
	}
}
