package main

// Tests of "fsmove run"'s argument checks, without Docker: DOCKER_HOST
// points at a socket that does not exist, so a run whose arguments pass
// reaches container.Connect and fails there (exit 3), and one that stops
// with exit 2 did so before any container could start.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/runner"
)

// noDocker makes container.Connect fail at once.
func noDocker(t *testing.T) {
	t.Helper()
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-docker.sock"))
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunEarlyChecks(t *testing.T) {
	noDocker(t)
	root := t.TempDir()
	out := filepath.Join(root, "out")
	module := filepath.Join("..", "..", "testdata", "modules", "clean")
	site := filepath.Join(root, "site.pp")
	writeFile(t, site, "file { '/tmp/x': content => 'y' }\n")
	empty := filepath.Join(root, "empty.pp")
	writeFile(t, empty, "\n")
	script := filepath.Join(root, "prepare.sh")
	writeFile(t, script, "mkdir -p /srv/data\n")
	libOnly := filepath.Join(root, "stdlib")
	writeFile(t, filepath.Join(libOnly, "metadata.json"), `{"name": "puppetlabs-stdlib"}`)
	writeFile(t, filepath.Join(libOnly, "lib", "puppet", "functions", "f.rb"), "")
	aFile := filepath.Join(root, "a-file")
	writeFile(t, aFile, "")
	missing := filepath.Join(root, "missing")

	base := []string{"run", "--quiet", "--tracer", "strace", "--trusted", "--out", out}
	cases := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		// Usage errors: exit 2, before Docker is asked.
		{"no module, no entry", nil, exitUsage, "give a module"},
		{"two modules", []string{module, module}, exitUsage, "give one module, not 2"},
		{"class without module", []string{"--class", "x", "-e", "include x"}, exitUsage, "--class and --param need a module"},
		{"param without module", []string{"--param", "a=1", "--manifest", site}, exitUsage, "--class and --param need a module"},
		{"-e and --manifest", []string{"-e", "include x", "--manifest", site}, exitUsage, "choose one entry"},
		{"class only", []string{"--class", "x"}, exitUsage, "give a module"},
		{"missing manifest", []string{"--manifest", missing + ".pp"}, exitUsage, "--manifest"},
		{"manifest is a directory", []string{"--manifest", root}, exitUsage, "--manifest " + root + ": a directory"},
		{"empty manifest", []string{"--manifest", empty}, exitUsage, "is empty"},
		{"missing modulepath", []string{"--modulepath", missing, module}, exitUsage, "--modulepath " + missing + ": no such directory"},
		{"modulepath is a file", []string{"--modulepath", libOnly, "--modulepath", aFile, "-e", "include x"}, exitUsage, "--modulepath " + aFile + ": not a directory"},
		{"missing module dir", []string{"./no/such/module"}, exitUsage, "module directory ./no/such/module not found"},
		{"missing setup file", []string{"--setup-file", missing + ".sh", module}, exitUsage, "--setup-file " + missing + ".sh: no such file"},
		{"setup file is a directory", []string{"--setup-file", root, module}, exitUsage, "--setup-file " + root + ": not a regular file"},
		{"empty setup", []string{"--setup", " ", module}, exitUsage, `for "--setup" flag: empty`},
		{"bad deb", []string{"deb:puppet-module-"}, exitUsage, "expected puppet-module-NAME"},

		// Good arguments: on to Docker, which is not there (exit 3).
		{"module", []string{module}, exitRun, "docker engine unreachable"},
		{"-e without module", []string{"-e", "file { '/tmp/x': content => 'y' }"}, exitRun, "docker engine unreachable"},
		{"manifest without module, lib-only modulepath", []string{"--manifest", site, "--modulepath", libOnly}, exitRun, "docker engine unreachable"},
		{"setup and setup file", []string{"--setup", "mkdir -p /srv/data", "--setup-file", script, module}, exitRun, "docker engine unreachable"},
		{"deb without author", []string{"deb:puppet-module-foo"}, exitRun, "docker engine unreachable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, append(append([]string{}, base...), c.args...))
			if code != c.code || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("exit %d, want %d with %q; stderr:\n%s", code, c.code, c.want, stderr.String())
			}
			if c.code == exitUsage {
				if _, err := os.Stat(out); err == nil {
					t.Errorf("a usage error created the output directory")
				}
			}
		})
	}
}

// TestRunChecksBeforeAnything: every flag and path is checked before
// anything is deleted, built or started. A bad one exits 2 and leaves an
// --out that holds an earlier run as it was; good ones reach Docker, which
// is not there (exit 3), and --out is still untouched.
func TestRunChecksBeforeAnything(t *testing.T) {
	noDocker(t)
	module := filepath.Join("..", "..", "testdata", "modules", "clean")
	const oldRecord = `{"status": "ok", "module": {"name": "old"}}`
	cases := []struct {
		name  string
		out   string // what --out holds: "" nothing (missing), "run" an earlier run, "foreign" other files, "file" a file
		args  []string
		code  int
		want  string // in stderr
		force bool
	}{
		{"bad tracer", "run", []string{"--tracer", "dtrace"}, exitUsage, `unknown --tracer "dtrace"`, false},
		{"strace for a module not trusted", "", []string{"--trusted=false"}, exitUsage, "strace traces inside the container, where the module runs as root and could change the trace: give --trusted", false},
		{"ptrace for a module not trusted", "", []string{"--tracer", "ptrace", "--trusted=false"}, exitUsage, "--tracer ptrace: ptrace traces inside the container", false},
		{"bad disk budget", "run", []string{"--max-disk", "12"}, exitUsage, "--max-disk 12: want a size of at least 1M", false},
		{"bad init", "run", []string{"--init", "upstart"}, exitUsage, `unknown --init "upstart"`, false},
		{"relative filter", "run", []string{"--filter", "var/cache"}, exitUsage, `--filter "var/cache": a filter is an absolute path prefix`, false},
		{"relative filter in a file", "run", []string{"--filter-file", "{root}/filters"}, exitUsage, "not an absolute path", false},
		{"missing filter file", "run", []string{"--filter-file", "{root}/nope"}, exitUsage, "nope: no such file", false},
		{"missing waivers file", "run", []string{"--waivers", "{root}/nope.waivers"}, exitUsage, "nope.waivers: no such file", false},
		{"bad waivers file", "run", []string{"--waivers", "{root}/bad.waivers"}, exitUsage, "bad.waivers", false},
		{"-o in a missing directory", "run", []string{"-o", "{root}/no/dir/report.json"}, exitUsage, "-o {root}/no/dir/report.json: no directory {root}/no/dir", false},
		{"-o is a directory", "run", []string{"-o", "{root}"}, exitUsage, "a directory, not a file", false},
		{"--graph-out in a missing directory", "run", []string{"--graph-out", "{root}/no/g.dot"}, exitUsage, "--graph-out {root}/no/g.dot: no directory", false},
		{"-o inside --out", "", []string{"-o", "{out}/report.json"}, exitUsage, "is in --out", false},
		{"-o inside --out, through a symlink", "", []string{"-o", "{root}/link/report.json"}, exitUsage, "is in --out", false},
		{"-o is --out's trace", "run", []string{"-o", "{out}/trace.log", "--force"}, exitUsage, "is in --out", true},
		{"negative timeout", "run", []string{"--timeout", "-1s"}, exitUsage, "--timeout -1s: want a duration above 0", false},
		{"zero timeout", "run", []string{"--timeout", "0"}, exitUsage, "--timeout 0s", false},
		{"bad format", "run", []string{"--format", "yaml"}, exitUsage, "unknown --format", false},
		{"bad color", "run", []string{"--color", "sometimes"}, exitUsage, "unknown --color", false},
		{"bad image", "run", []string{"--image", "Fsmove/Puppet:bookworm"}, exitUsage, "--image", false},
		{"bad mirror", "run", []string{"--mirror", "mirror-without-a-scheme/debian"}, exitUsage, "--mirror", false},
		{"earlier run without --force", "run", nil, exitUsage, "holds an earlier run (run.json, trace.log): give --force", false},
		{"other files", "foreign", nil, exitUsage, "holds notes.txt): fsmove never deletes files it did not write", false},
		{"other files with --force", "foreign", []string{"--force"}, exitUsage, "never deletes", false},
		{"--out is a file", "file", nil, exitUsage, "is not a directory", false},

		// Good: on to Docker, which is not there; nothing deleted.
		{"earlier run with --force", "run", []string{"--force"}, exitRun, "docker engine unreachable", true},
		{"missing --out, -o and --graph-out beside it", "", []string{"-o", "{root}/report.json", "--graph-out", "{root}/g.dot"}, exitRun, "docker engine unreachable", false},
		{"good filters and waivers", "", []string{"--filter", "/srv", "--filter-file", "{root}/good-filters", "--waivers", "{root}/good.waivers", "--timeout", "1m"}, exitRun, "docker engine unreachable", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			out := filepath.Join(root, "out")
			writeFile(t, filepath.Join(root, "filters"), "/proc\nvar/lib\n")
			writeFile(t, filepath.Join(root, "good-filters"), "/proc\n# comment\n/var/lib\n")
			writeFile(t, filepath.Join(root, "bad.waivers"), "this is not a waiver\n")
			writeFile(t, filepath.Join(root, "good.waivers"), "")
			switch c.out {
			case "run":
				writeFile(t, filepath.Join(out, "run.json"), oldRecord)
				writeFile(t, filepath.Join(out, "trace.log"), "old trace\n")
			case "foreign":
				writeFile(t, filepath.Join(out, "notes.txt"), "mine\n")
				writeFile(t, filepath.Join(out, "run.json"), oldRecord)
			case "file":
				writeFile(t, out, "")
			case "":
				if err := os.Symlink(out, filepath.Join(root, "link")); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(out, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, out)
			expand := strings.NewReplacer("{root}", root, "{out}", out)
			args := []string{"run", "--quiet", "--tracer", "strace", "--trusted", "--out", out}
			for _, a := range c.args {
				args = append(args, expand.Replace(a))
			}
			args = append(args, module)
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, args)
			if want := expand.Replace(c.want); code != c.code || !strings.Contains(stderr.String(), want) {
				t.Errorf("exit %d, want %d with %q; stderr:\n%s", code, c.code, want, stderr.String())
			}
			if after := snapshot(t, out); after != before {
				t.Errorf("--out changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// snapshot describes what path holds: its files and their contents.
func snapshot(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(&b, "%s: %v; ", p, err)
			return nil
		}
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %q; ", p, data)
		return nil
	})
	return b.String()
}

// TestRunForceEmptiesTheEarlierRun: with --force, the run (here one that
// fails at once, without a Docker engine) starts from an empty --out; the
// earlier run's files are gone, and run.json is the new run's.
func TestRunForceEmptiesTheEarlierRun(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	writeFile(t, filepath.Join(out, "run.json"), `{"status": "ok"}`)
	writeFile(t, filepath.Join(out, "setup.log"), "old\n")
	writeFile(t, filepath.Join(out, "graphs", "relationships.dot"), "old\n")
	f := runFlags{out: out, tracer: "strace", trusted: true, init: "none", image: "fsmove/puppet:bookworm", force: true, keepArtifacts: true}
	var stderr bytes.Buffer
	opts, _, err := runOptions(&f, filepath.Join("..", "..", "testdata", "modules", "clean"))
	if err != nil || !opts.Force {
		t.Fatalf("%v, force %v", err, opts.Force)
	}
	opts.Progress = runner.NewProgress(&stderr, true)
	err = runAndAnalyze(context.Background(), &stderr, &stderr, nil, opts, &reportFlags{format: "text", color: "never"}, nil, false, "")
	if code := exitCode(&stderr, "fsmove run", err); code != exitRun {
		t.Errorf("exit %d, want %d", code, exitRun)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "run.json site.pp" {
		t.Errorf("--out holds %v, want the new run's run.json and site.pp only", names)
	}
	rec, err := runner.ReadRecord(out)
	if err != nil || rec.Status != runner.StatusInfraError {
		t.Errorf("run.json: %+v %v", rec, err)
	}
}

func TestRunOptionsWithoutModule(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	runs := filepath.Join(root, "state", "fsmove", "runs")
	site := filepath.Join(root, "node1.pp")
	writeFile(t, site, "include foo\n")
	script := filepath.Join(root, "prepare.sh")
	writeFile(t, script, "apt-get install -y cron\n")
	f := runFlags{manifest: site, tracer: "strace", init: "systemd",
		setup: []setupArg{{false, "mkdir -p /srv/data"}, {true, script}, {false, "true"}}}
	opts, _, err := runOptions(&f, "")
	if err != nil {
		t.Fatal(err)
	}
	m := opts.Module
	if m.Kind != "none" || m.Name != "node1" || m.Raw != "--manifest "+site {
		t.Errorf("module %+v", m)
	}
	if filepath.Dir(opts.OutDir) != runs || !strings.HasPrefix(filepath.Base(opts.OutDir), "node1-") {
		t.Errorf("default --out %s", opts.OutDir)
	}
	if opts.Entry.ManifestText != "include foo\n" || opts.Entry.Manifest != site {
		t.Errorf("entry %+v", opts.Entry)
	}
	st := opts.Entry.Setup
	if len(st) != 3 || st[0].Command != "mkdir -p /srv/data" || st[1].File != script ||
		string(st[1].Script) != "apt-get install -y cron\n" || st[2].Command != "true" {
		t.Errorf("setup steps, in the order given: %+v", st)
	}

	f = runFlags{code: "notice('hi')", tracer: "strace", init: "systemd"}
	opts, _, err = runOptions(&f, "")
	if err != nil || opts.Module.Name != "manifest" || filepath.Dir(opts.OutDir) != runs || !strings.HasPrefix(filepath.Base(opts.OutDir), "manifest-") {
		t.Errorf("-e: %v, %+v, out %s", err, opts.Module, opts.OutDir)
	}
}

// TestRunHelpMentionsNewFlags: the help names the forms of MODULE and the
// flags; the prose it leaves out is in README.md.
func TestRunHelpMentionsNewFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"run", "--help"}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--manifest FILE | -e CODE", "-setup CMD", "-setup-file SCRIPT",
		"deb:puppet-module-[AUTHOR-]NAME", "-force", `"fsmove run in detail"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### fsmove run in detail", "setup.log", "lib/puppet", "stopped_step", "3, not 130",
		"puppet-module-heini-wait-for", "--param CLASS::KEY=VALUE"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}

// TestDefaultOutDir: without --out a run goes to its module's place in the
// user's state directory, the same from any current directory and
// different for two modules of the same name; XDG_STATE_HOME decides where,
// else HOME (a relative XDG_STATE_HOME is ignored, as the specification
// says).
func TestDefaultOutDir(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/mymod", "b/mymod"} {
		writeFile(t, filepath.Join(root, d, "manifests", "init.pp"), "class mymod {}\n")
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	place := func(dir, arg string) string {
		t.Helper()
		t.Chdir(filepath.Join(root, dir))
		f := runFlags{tracer: "strace", init: "systemd"}
		opts, _, err := runOptions(&f, arg)
		if err != nil {
			t.Fatal(err)
		}
		return opts.OutDir
	}
	fromInside := place("a/mymod", ".")
	fromOutside := place(".", filepath.Join("a", "mymod"))
	other := place("b/mymod", ".")
	if fromInside != fromOutside {
		t.Errorf("one module, two places: %s and %s", fromInside, fromOutside)
	}
	if other == fromInside {
		t.Errorf("two modules named mymod share %s", other)
	}
	for _, p := range []string{fromInside, other} {
		if filepath.Dir(p) != filepath.Join(root, "state", "fsmove", "runs") || !strings.HasPrefix(filepath.Base(p), "mymod-") {
			t.Errorf("place %s: want state/fsmove/runs/mymod-HASH", p)
		}
	}
	// Another suite has a place of its own beside the default suite's.
	t.Chdir(root)
	trixie, _, err := runOptions(&runFlags{tracer: "strace", init: "systemd", suite: "trixie"}, filepath.Join("a", "mymod"))
	if err != nil || filepath.Dir(trixie.OutDir) != filepath.Dir(fromInside) || !strings.HasPrefix(filepath.Base(trixie.OutDir), "mymod-trixie-") {
		t.Errorf("--suite trixie: place %s (%v), want state/fsmove/runs/mymod-trixie-HASH", trixie.OutDir, err)
	}
	if bookworm, _, err := runOptions(&runFlags{tracer: "strace", init: "systemd", suite: "bookworm"}, filepath.Join("a", "mymod")); err != nil || bookworm.OutDir != fromInside {
		t.Errorf("--suite bookworm: place %s (%v), want the default suite's, %s", bookworm.OutDir, err, fromInside)
	}
	t.Setenv("XDG_STATE_HOME", "relative/state")
	t.Setenv("HOME", filepath.Join(root, "home"))
	if p := place(".", filepath.Join("a", "mymod")); filepath.Dir(p) != filepath.Join(root, "home", ".local", "state", "fsmove", "runs") {
		t.Errorf("without an absolute XDG_STATE_HOME: %s", p)
	}
}

// TestRerunIntoDefaultPlace: a rerun into the default place is not refused
// (without --force): it gets past every check to Docker, which is not
// there (exit 3), and the earlier run is as it was, with nothing beside it.
// An explicit --out that holds the same run is refused (exit 2).
func TestRerunIntoDefaultPlace(t *testing.T) {
	noDocker(t)
	root := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	module := filepath.Join("..", "..", "testdata", "modules", "clean")
	opts, _, err := runOptions(&runFlags{tracer: "strace", init: "systemd"}, module)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(opts.OutDir, "run.json"), `{"status": "ok"}`)
	writeFile(t, filepath.Join(opts.OutDir, "trace.log"), "old trace\n")
	before := snapshot(t, filepath.Dir(opts.OutDir))
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"run", "--quiet", "--tracer", "strace", "--trusted", module}); code != exitRun || !strings.Contains(stderr.String(), "docker") {
		t.Errorf("rerun into the default place: exit %d, want %d (no Docker)\n%s", code, exitRun, stderr.String())
	}
	if after := snapshot(t, filepath.Dir(opts.OutDir)); after != before {
		t.Errorf("the default place changed:\nbefore %s\nafter  %s", before, after)
	}
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"run", "--quiet", "--tracer", "strace", "--trusted", "--out", opts.OutDir, module}); code != exitUsage || !strings.Contains(stderr.String(), "give --force") {
		t.Errorf("the same directory as --out: exit %d, want %d\n%s", code, exitUsage, stderr.String())
	}
}

// TestRunRequirementsChooseSuite: metadata.json's requirements on Puppet
// choose the suite, its place and its image; --suite (or .fsmove.yml's
// suite) wins with a warning; requirements no suite meets are a usage
// error before anything starts; a module that leaves Debian out of its
// operatingsystem_support gets one line of warning.
func TestRunRequirementsChooseSuite(t *testing.T) {
	noDocker(t)
	root := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	mod := func(name, metadata string) string {
		dir := filepath.Join(root, name)
		writeFile(t, filepath.Join(dir, "manifests", "init.pp"), "class "+name+" {}\n")
		writeFile(t, filepath.Join(dir, "metadata.json"), metadata)
		return dir
	}
	p8 := mod("p8", `{"name": "acme-p8", "requirements": [{"name": "puppet", "version_requirement": ">= 8.0.0 < 9.0.0"}]}`)
	opts, suite, err := runOptions(&runFlags{tracer: "strace", init: "systemd"}, p8)
	if err != nil || suite.Suite != "trixie" || opts.Image.Suite != "trixie" || !strings.HasPrefix(filepath.Base(opts.OutDir), "p8-trixie-") {
		t.Errorf("puppet >= 8: suite %+v, image %+v, place %s, %v; want trixie's", suite, opts.Image, opts.OutDir, err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"run", "--tracer", "strace", "--trusted", p8}); code != exitRun ||
		!strings.Contains(stderr.String(), "fsmove: suite: trixie (metadata.json requires puppet >= 8.0.0 < 9.0.0)\n") {
		t.Errorf("puppet >= 8: exit %d, want %d (no Docker) after the suite's line\n%s", code, exitRun, stderr.String())
	}
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"run", "--tracer", "strace", "--trusted", "--suite", "bookworm", p8}); code != exitRun ||
		!strings.Contains(stderr.String(), "fsmove: warning: --suite bookworm has Puppet 7.23.0: metadata.json requires puppet >= 8.0.0 < 9.0.0\n") ||
		strings.Contains(stderr.String(), "fsmove: suite:") {
		t.Errorf("puppet >= 8, --suite bookworm: exit %d, want %d after a warning\n%s", code, exitRun, stderr.String())
	}
	// The project file's suite is given as the flag is.
	writeFile(t, filepath.Join(p8, ".fsmove.yml"), "suite: bookworm\n")
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"run", "--tracer", "strace", "--trusted", p8}); code != exitRun || !strings.Contains(stderr.String(), "fsmove: warning: --suite bookworm has Puppet 7.23.0") {
		t.Errorf(".fsmove.yml's suite: exit %d, want %d after a warning\n%s", code, exitRun, stderr.String())
	}

	p9 := mod("p9", `{"name": "acme-p9", "requirements": [{"name": "puppet", "version_requirement": ">= 9.0.0"}]}`)
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"run", "--tracer", "strace", "--trusted", p9}); code != exitUsage ||
		!strings.Contains(stderr.String(), "metadata.json requires puppet >= 9.0.0; fsmove's suites have Puppet 7.23.0 (bookworm) and Puppet 8.10.0 (trixie)") {
		t.Errorf("puppet >= 9: exit %d, want %d naming the suites' Puppets\n%s", code, exitUsage, stderr.String())
	}

	redhat := mod("redhat", `{"name": "acme-redhat", "operatingsystem_support": [{"operatingsystem": "RedHat"}, {"operatingsystem": "CentOS"}]}`)
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"run", "--quiet", "--tracer", "strace", "--trusted", redhat}); code != exitRun {
		t.Errorf("not Debian: exit %d, want %d\n%s", code, exitRun, stderr.String())
	}
	var warnings []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(line, "fsmove: warning:") {
			warnings = append(warnings, line)
		}
	}
	if len(warnings) != 1 || len(warnings[0]) > 100 || !strings.Contains(warnings[0], "RedHat, CentOS, not Debian") {
		t.Errorf("not Debian: warnings %q, want one line of at most 100 columns", warnings)
	}
}

// TestConfirmModuleFindsDefaultPlace: fsmove confirm MODULE looks for the
// run where fsmove run MODULE put it without --out: of the suite given, or
// the one metadata.json's requirements choose.
func TestConfirmModuleFindsDefaultPlace(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "state"))
	module := filepath.Join("..", "..", "testdata", "modules", "clean")
	opts, _, err := runOptions(&runFlags{tracer: "strace", init: "systemd"}, module)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"confirm", module}); code != exitUsage || !strings.Contains(stderr.String(), opts.OutDir+" holds no run") {
		t.Errorf("confirm MODULE without a run: exit %d, want %d naming %s\n%s", code, exitUsage, opts.OutDir, stderr.String())
	}
	trixie, _, err := runOptions(&runFlags{tracer: "strace", init: "systemd", suite: "trixie"}, module)
	if err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"confirm", "--suite", "trixie", module}); code != exitUsage || !strings.Contains(stderr.String(), trixie.OutDir+" holds no run") {
		t.Errorf("confirm --suite trixie MODULE without a run: exit %d, want %d naming %s\n%s", code, exitUsage, trixie.OutDir, stderr.String())
	}
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"confirm", "--suite", "trixie", "--out", trixie.OutDir}); code != exitUsage || !strings.Contains(stderr.String(), "--suite names the run of MODULE") {
		t.Errorf("confirm --suite --out: exit %d, want %d\n%s", code, exitUsage, stderr.String())
	}
}
