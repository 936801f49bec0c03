package main

// Tests of "fsmove run"'s argument checks, without Docker: DOCKER_HOST
// points at a socket that does not exist, so a run whose arguments pass
// reaches container.Connect and fails there (exit 3), and one that stops
// with exit 2 did so before any container could start.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

	base := []string{"run", "--quiet", "--tracer", "strace", "--out", out}
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
		{"empty setup", []string{"--setup", " ", module}, exitUsage, "invalid value"},
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

func TestRunOptionsWithoutModule(t *testing.T) {
	root := t.TempDir()
	site := filepath.Join(root, "node1.pp")
	writeFile(t, site, "include foo\n")
	script := filepath.Join(root, "prepare.sh")
	writeFile(t, script, "apt-get install -y cron\n")
	var stderr bytes.Buffer

	f := runFlags{manifest: site, tracer: "strace", init: "systemd",
		setup: []setupArg{{false, "mkdir -p /srv/data"}, {true, script}, {false, "true"}}}
	opts, code := runOptions(&stderr, &f, "")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	m := opts.Module
	if m.Kind != "none" || m.Name != "node1" || m.Raw != "--manifest "+site {
		t.Errorf("module %+v", m)
	}
	if opts.OutDir != filepath.Join("fsmove-out", "node1") {
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
	opts, code = runOptions(&stderr, &f, "")
	if code != exitOK || opts.Module.Name != "manifest" || opts.OutDir != filepath.Join("fsmove-out", "manifest") {
		t.Errorf("-e: exit %d, %+v, out %s", code, opts.Module, opts.OutDir)
	}
}

func TestRunHelpMentionsNewFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"run", "--help"}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--manifest FILE | -e CODE", "-setup CMD", "-setup-file SCRIPT", "setup.log",
		"deb:puppet-module-[AUTHOR-]NAME", "lib/puppet"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}
