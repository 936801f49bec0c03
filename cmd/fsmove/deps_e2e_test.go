package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fsmove/fsmove/puppet/module"
	"github.com/fsmove/fsmove/puppet/runner"
)

// depsImageArgs is --image $FSMOVE_TEST_IMAGE when set: the image of a new
// recipe, built under another tag while the default one serves others.
func depsImageArgs() []string {
	if img := os.Getenv("FSMOVE_TEST_IMAGE"); img != "" {
		return []string{"--image", img}
	}
	return nil
}

// TestE2EDependencies runs the modules of testdata/deps: dependencies from
// Debian packages (offline: --network none), from --modulepath and from
// spec/fixtures/modules; two found nowhere and never used, and one found
// nowhere that the code includes.
func TestE2EDependencies(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	deps := filepath.Join("..", "..", "testdata", "deps")

	t.Run("debian", func(t *testing.T) {
		t.Parallel()
		rec, stderr := runDeps(t, filepath.Join(deps, "debian_deps"))
		found := depsBySource(t, rec)
		for _, name := range []string{"stdlib", "concat"} {
			f, ok := found[name]
			if !ok || f.Source != module.FromDebian || !strings.HasPrefix(f.Package, "puppet-module-puppetlabs-") || f.Version == "" {
				t.Errorf("run.json: %s is %+v, want a Debian package\n%s", name, f, stderr)
			}
		}
		if !strings.Contains(stderr, "stdlib "+found["stdlib"].Version+" (debian)") {
			t.Errorf("the progress does not say where stdlib came from:\n%s", stderr)
		}
		catalog, err := os.ReadFile(filepath.Join(rec.outDir, runner.CatalogFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range []string{`"Concat_fragment"`, `"Package"`, `"procps"`} {
			if !bytes.Contains(catalog, []byte(res)) {
				t.Errorf("catalog lacks %s", res)
			}
		}
		// The Debian dependencies' manifests are kept beside the run,
		// where the reports point at them, under their package's name.
		for _, name := range []string{"stdlib", "concat"} {
			from := "/usr/share/puppet/modules/" + name
			want := runner.SourcesDir + "/" + found[name].Package + "/" + name
			if to := rec.PathMap[from]; to != want || !strings.HasPrefix(found[name].Package, "puppet-module-") {
				t.Errorf("run.json: path_map[%s] = %q, want %s", from, to, want)
			}
			if _, err := os.Stat(filepath.Join(rec.outDir, want, "manifests", "init.pp")); err != nil {
				t.Errorf("%s's manifests not kept: %v", name, err)
			}
		}
	})

	t.Run("local", func(t *testing.T) {
		t.Parallel()
		rec, stderr := runDeps(t, filepath.Join(deps, "local_deps"), "--modulepath", filepath.Join(deps, "helper"))
		found := depsBySource(t, rec)
		abs := func(p string) string { a, _ := filepath.Abs(p); return a }
		want := map[string]module.Found{
			"helper":     {Source: module.FromModulePath, Dir: abs(filepath.Join(deps, "helper")), Version: "1.2.0"},
			"fixturedep": {Source: module.FromFixtures, Dir: abs(filepath.Join(deps, "local_deps", module.FixturesDir, "fixturedep")), Version: "0.2.0"},
			"stdlib":     {Source: module.FromDebian}, // helper's own dependency
		}
		for name, w := range want {
			f := found[name]
			if f.Source != w.Source || f.Dir != w.Dir || (w.Version != "" && f.Version != w.Version) {
				t.Errorf("run.json: %s is %+v, want %+v\n%s", name, f, w, stderr)
			}
		}
		if by := found["stdlib"].RequiredBy; !strings.HasPrefix(by, "helper's metadata.json") {
			t.Errorf("stdlib required by %q, want helper's metadata.json", by)
		}
	})

	// Without a module (-e), the code uses the modules of --modulepath:
	// their own dependencies come from Debian as a module's would.
	t.Run("code", func(t *testing.T) {
		t.Parallel()
		helper := filepath.Join(deps, "helper")
		rec, stderr := runDeps(t, "", "-e", "include helper", "--modulepath", helper)
		found := depsBySource(t, rec)
		if f := found["helper"]; f.Source != module.FromModulePath {
			t.Errorf("run.json: helper is %+v, want the --modulepath module\n%s", f, stderr)
		}
		if f := found["stdlib"]; f.Source != module.FromDebian || !strings.HasPrefix(f.RequiredBy, "helper's metadata.json") {
			t.Errorf("run.json: stdlib is %+v, want a Debian package helper's metadata.json asks for\n%s", f, stderr)
		}
	})

	// Two RedHat-only modules in metadata.json, found nowhere and never
	// used on Debian: one short warning each, and the apply goes on. The
	// Puppetfile's librarian range is read as a range (Debian's stdlib is
	// outside it: a warning); the .fixtures.yml module found nowhere is
	// only counted.
	t.Run("unused", func(t *testing.T) {
		t.Parallel()
		rec, stderr := runDeps(t, filepath.Join(deps, "unused_deps"), "--stats")
		var warnings []string
		for _, line := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(line, "fsmove: warning: ") {
				warnings = append(warnings, line)
				if n := utf8.RuneCountInString(line); n > 100 {
					t.Errorf("a warning of %d columns: %q", n, line)
				}
			}
		}
		for _, want := range []string{
			"fsmove: warning: puppet-epel >= 3.0.0 < 6.0.0 (metadata.json) found nowhere; the apply goes on",
			"fsmove: warning: puppet-selinux >= 3.2.0 < 5.0.0 (metadata.json) found nowhere; the apply goes on",
		} {
			if n := strings.Count(stderr, want+"\n"); n != 1 {
				t.Errorf("%q said %d times, want once:\n%s", want, n, stderr)
			}
		}
		if strings.Contains(stderr, "testonly") {
			t.Errorf("the test-only module is said:\n%s", stderr)
		}
		if !strings.Contains(stderr, "dependencies: 1 found, 2 found nowhere, 1 test-only found nowhere") {
			t.Errorf("--stats does not count the dependencies:\n%s", stderr)
		}
		if len(warnings) != 3 {
			t.Errorf("%d warnings, want 3 (epel, selinux, stdlib's range):\n%s", len(warnings), strings.Join(warnings, "\n"))
		}
		found := depsBySource(t, rec)
		if f := found["stdlib"]; f.Source != module.FromDebian || f.Requirement != ">= 2.3.3 < 5.0.0" || !strings.HasSuffix(f.RequiredBy, module.PuppetfileName) {
			t.Errorf("run.json: stdlib is %+v, want Debian's, for the Puppetfile's range", f)
		}
		var missing []string
		for _, m := range rec.Dependencies.Missing {
			missing = append(missing, m.Wanted)
		}
		if strings.Join(missing, " ") != "puppet-epel puppet-selinux" || len(rec.Dependencies.TestOnlyMissing) != 1 {
			t.Errorf("run.json: missing %q, test-only %+v", missing, rec.Dependencies.TestOnlyMissing)
		}
	})

	// A module that includes a dependency found nowhere: the warning,
	// then Puppet's compile error, then which module it needs and how to
	// give it; exit 3.
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := append([]string{"run", "--quiet", "--network", "none", "--out", out}, depsImageArgs()...)
		code := run(&stdout, &stderr, append(args, filepath.Join(deps, "missing_dep")))
		if code != exitRun {
			t.Fatalf("exit %d, want %d\n%s", code, exitRun, stderr.String())
		}
		for _, want := range []string{
			"fsmove: warning: fsmove-nowhere >= 2.0.0 < 3.0.0 (metadata.json) found nowhere; the apply goes on\n",
			"Could not find class ::nowhere",
			"fsmove run: the catalog needs class nowhere from fsmove-nowhere, which was found nowhere: " +
				"give --modulepath DIR holding nowhere (or put it in " + filepath.Join(module.FixturesDir, "nowhere") + ")\n",
		} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
		}
		rec, err := runner.ReadRecord(out)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status != runner.StatusCompileFailed || rec.Dependencies == nil || len(rec.Dependencies.Missing) != 1 {
			t.Errorf("run.json: status %s, dependencies %+v; want compile-failed, nowhere missing", rec.Status, rec.Dependencies)
		}
	})
}

// depsRun is a run's record and its output directory.
type depsRun struct {
	*runner.RunRecord
	outDir string
}

// runDeps runs a module offline (--network none) with no flag beyond
// those given ("" for none: -e among the flags), and wants Puppet to have
// applied it (exit 0 or 1).
func runDeps(t *testing.T, dir string, flags ...string) (depsRun, string) {
	t.Helper()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := append([]string{"run", "--network", "none", "--out", out, "--format", "json"}, depsImageArgs()...)
	args = append(args, flags...)
	if dir != "" {
		args = append(args, dir)
	}
	code := run(&stdout, &stderr, args)
	if code != exitOK && code != exitFindings {
		t.Fatalf("exit %d, want 0 or 1\n%s", code, stderr.String())
	}
	rec, err := runner.ReadRecord(out)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != runner.StatusOK {
		t.Errorf("run.json: status %s (%s), want ok", rec.Status, rec.Error)
	}
	return depsRun{rec, out}, stderr.String()
}

// depsBySource is run.json's dependencies by name.
func depsBySource(t *testing.T, rec depsRun) map[string]module.Found {
	t.Helper()
	if rec.Dependencies == nil {
		t.Fatal("run.json has no dependencies")
	}
	found := map[string]module.Found{}
	for _, f := range rec.Dependencies.Found {
		found[f.Name] = f
	}
	return found
}
