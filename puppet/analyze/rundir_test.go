package analyze

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/runner"
)

// TestRunDirInput finds a saved run's compressed trace and its catalog,
// and says what is missing in a directory that is not a run's.
func TestRunDirInput(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "runs", "ni_not_idempotent")
	in, err := RunDirInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "trace.log.zst"); in.Trace != want {
		t.Errorf("trace %q, want %q", in.Trace, want)
	}
	if want := filepath.Join(dir, runner.CatalogFile); in.Catalog != want {
		t.Errorf("catalog %q, want %q", in.Catalog, want)
	}

	empty := t.TempDir()
	file := filepath.Join(empty, "x")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	noTrace := t.TempDir()
	if err := os.WriteFile(filepath.Join(noTrace, runner.CatalogFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{file, "is a file"},
		{empty, "no " + runner.CatalogFile},
		{noTrace, "no " + runner.TraceFile},
	} {
		if _, err := RunDirInput(c.dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RunDirInput(%s): %v, want an error with %q", c.dir, err, c.want)
		}
	}
}

// TestWithRunRecord completes a run's input from its run.json: both
// applies' reports and the second apply's trace, compressed since; a
// trace without run.json beside it is left as it is.
func TestWithRunRecord(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "runs", "ni_not_idempotent")
	in, err := RunDirInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, rec := WithRunRecord(in)
	if rec == nil {
		t.Fatal("no run record")
	}
	want := in
	want.SecondTrace = filepath.Join(dir, runner.SecondDir, "trace.log.zst")
	want.SecondReport = filepath.Join(dir, runner.SecondDir, runner.PuppetReportFile)
	want.FirstReport = filepath.Join(dir, runner.PuppetReportFile)
	if got.SecondTrace != want.SecondTrace || got.SecondReport != want.SecondReport || got.FirstReport != want.FirstReport ||
		got.PuppetGraphs != "" || got.Packages != "" {
		t.Errorf("got %+v\nwant %+v", got, want)
	}

	bare := Input{Trace: filepath.Join("..", "..", "testdata", "runs", "clean", "trace.log.zst"), Catalog: "c.json"}
	if got, rec := WithRunRecord(bare); rec != nil || got.SecondReport != "" || got.PathMap != nil {
		t.Errorf("without run.json: %+v, %v", got, rec)
	}
}

// TestWithRunRecordNodeState reads systemd's units and the accounts before
// the apply beside the trace, as it reads dpkg's packages: a run made
// without them (--init none, or before fsmove saved them) has none.
func TestWithRunRecordNodeState(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "runs", "ni_not_idempotent")
	dir := t.TempDir()
	for _, name := range []string{"trace.log.zst", runner.CatalogFile, runner.RunJSON} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := RunDirInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Each node state file is taken when it is beside the trace.
	for _, c := range []struct {
		file, data string
		field      func(Input) string
	}{
		{runner.UnitsFile, "Id=a.service\nNames=a.service b.service\nPartOf=\n", func(in Input) string { return in.Units }},
		{runner.AccountsFile, "user root\ngroup root\n", func(in Input) string { return in.Accounts }},
	} {
		if got, _ := WithRunRecord(in); c.field(got) != "" {
			t.Errorf("%q without %s", c.field(got), c.file)
		}
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := WithRunRecord(in); c.field(got) != path {
			t.Errorf("%q, want %q", c.field(got), path)
		}
	}
}

// A run in systemd mode accounts for its Services: one whose daemon the
// trace never saw makes the analysis incomplete, naming it and why, unless
// AllowUnobserved.
func TestRunUnobservedService(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "runs", "ni_not_idempotent")
	dir := t.TempDir()
	for _, name := range []string{"trace.log.zst", runner.CatalogFile, runner.RunJSON} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	units := "Id=ni-stops.service\nNames=ni-stops.service\nPartOf=\n"
	if err := os.WriteFile(filepath.Join(dir, runner.UnitsFile), []byte(units), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := RunDirInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	in, _ = WithRunRecord(in)
	if in.Coverage == nil {
		t.Fatal("a systemd run has no coverage input")
	}
	in.Coverage.UnmetConditions = map[string]string{"ni-stops.service": "ConditionPathExists=/nowhere"}
	for _, allow := range []bool{false, true} {
		rep, _, err := Run(context.Background(), in, Options{AllowUnobserved: allow})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Coverage == nil || len(rep.Coverage.Unobserved()) == 0 {
			t.Fatalf("coverage %+v, want Service[ni-stops] not observed", rep.Coverage)
		}
		named := slices.ContainsFunc(rep.Incomplete, func(why string) bool {
			return strings.Contains(why, "Service[ni-stops] was not observed") && strings.Contains(why, "ConditionPathExists=/nowhere")
		})
		if named == allow {
			t.Errorf("AllowUnobserved %v: incomplete %q", allow, rep.Incomplete)
		}
	}
}
