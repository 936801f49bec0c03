package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsmove/fsmove/cmd/fsmove/internal/project"
	"github.com/spf13/cobra"
)

// runCommand is fsmove run's command, with its flags parsed from args as
// the command line would give them.
func runCommand(t *testing.T, args ...string) (*cobra.Command, *cobra.Command) {
	t.Helper()
	root := newRootCmd(&cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	cmd, _, err := root.Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return root, cmd
}

const exampleConfig = `# fsmove's project file
tracer: strace
init: none
timeout: 20m
format: json
param:
  - port=8080
  - mymod::db::host=localhost
setup: mkdir -p /srv/data
modulepath: [spec/fixtures/modules]
fail_on: MN,content
filters: [/var/cache/mymod]
waivers:
  - {a: "File['/etc/x']", b: "Exec[use]", path: /etc/x, reason: written once at install}
  - {a: "File[/etc/y]", b: "Service[svc]", reason: reloads itself}
`

func TestProjectConfigDefaults(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, project.FileName)
	root, cmd := runCommand(t, "--tracer", "ptrace", "--trusted", "--param", "port=9090")
	pc, err := project.Parse(name, []byte(exampleConfig), configurableFlags(root))
	if err != nil {
		t.Fatal(err)
	}
	if err := setFlags(pc, cmd.Flags(), dir); err != nil {
		t.Fatal(err)
	}
	fs := cmd.Flags()
	str := func(flag string) string {
		v, err := fs.GetString(flag)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	arr := func(flag string) []string {
		v, err := fs.GetStringArray(flag)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Given on the command line: the command line wins, lists included.
	if got := str("tracer"); got != "ptrace" {
		t.Errorf("--tracer = %q, want the command line's ptrace", got)
	}
	if got := arr("param"); !slices.Equal(got, []string{"port=9090"}) {
		t.Errorf("--param = %q, want the command line's only", got)
	}
	// Not given: the file's.
	if got := str("init"); got != "none" {
		t.Errorf("--init = %q", got)
	}
	if got := str("format"); got != "json" {
		t.Errorf("--format = %q", got)
	}
	if got := str("fail-on"); got != "MN,content" {
		t.Errorf("--fail-on = %q (fail_on)", got)
	}
	if got, _ := fs.GetDuration("timeout"); got != 20*time.Minute {
		t.Errorf("--timeout = %s", got)
	}
	// A path is relative to the file's directory.
	if got := arr("modulepath"); !slices.Equal(got, []string{filepath.Join(dir, "spec/fixtures/modules")}) {
		t.Errorf("--modulepath = %q", got)
	}
	if fs.Lookup("setup").Value.String() != "" || fs.Lookup("init").Changed {
		// setupFlag prints nothing; a default from the file is not "given".
		t.Errorf("a flag set from the file counts as given on the command line")
	}
	if len(pc.Filters) != 1 || len(pc.Waivers) != 2 || pc.Waivers[0].Path != "/etc/x" || pc.Waivers[0].Source != name+" waivers[1]" {
		t.Errorf("filters %q waivers %+v", pc.Filters, pc.Waivers)
	}
	want := []string{"tracer", "init", "timeout", "format", "param", "setup", "modulepath", "fail_on", "filters", "waivers"}
	if !slices.Equal(pc.Settings, want) || pc.String() != name+" (10 settings)" {
		t.Errorf("settings %q, %s", pc.Settings, pc)
	}
}

func TestProjectConfigErrors(t *testing.T) {
	root, cmd := runCommand(t)
	flags := configurableFlags(root)
	cases := map[string]struct{ text, want string }{
		"unknown key":           {"tracer: strace\ntracr: ebpf\n", `unknown key "tracr" (line 2) (did you mean "tracer"?)`},
		"unknown far off":       {"colour_scheme: dark\n", `unknown key "colour_scheme"`},
		"filters misspelled":    {"filter: [/x]\n", `unknown key "filter" (line 1) (did you mean "filters"?)`},
		"unknown waiver key":    {"waivers:\n  - {a: 'File[/x]', b: 'Exec[y]', reasn: typo}\n", "field reasn not found"},
		"waiver no reason":      {"waivers:\n  - {a: 'File[/x]', b: 'Exec[y]'}\n", "waivers[1]: a waiver needs a reason"},
		"waiver bad ref":        {"waivers:\n  - {a: 'not a ref', b: 'Exec[y]', reason: r}\n", "waivers[1]: a:"},
		"relative filter":       {"filters: [var/cache]\n", "not an absolute path prefix"},
		"not a mapping":         {"- tracer\n", "want a mapping of settings"},
		"mapping as a value":    {"tracer: {a: b}\n", "tracer (line 1): want a value or a list of values, not a mapping"},
		"no value":              {"tracer:\n", "tracer (line 1): no value"},
		"two documents":         {"tracer: strace\n---\ninit: none\n", "want one YAML document"},
		"not yaml":              {"tracer: [strace\n", project.FileName},
		"config sets config":    {"config: other.yml\n", `unknown key "config"`},
		"list for one value":    {"tracer: [strace, ptrace]\n", "tracer: want one value, not a list"},
		"bad value by its flag": {"timeout: soon\n", `timeout: "soon"`},
	}
	for name, c := range cases {
		pc, err := project.Parse(project.FileName, []byte(c.text), flags)
		if err == nil {
			err = setFlags(pc, cmd.Flags(), ".")
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), project.FileName) {
			t.Errorf("%s: error %v, want one naming the file and %q", name, err, c.want)
		}
	}
	if pc, err := project.Parse(project.FileName, []byte("# only a comment\n"), flags); err != nil || len(pc.Settings) != 0 {
		t.Errorf("an empty file: %v, %+v", err, pc)
	}
}

// TestProjectConfigFound checks where fsmove run and analyze look for the
// file, --config and --no-config, through the command line.
func TestProjectConfigFound(t *testing.T) {
	mod := t.TempDir()
	if err := os.WriteFile(filepath.Join(mod, project.FileName), []byte("format: sarif\nbogus_key: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The module's file is read before anything starts: its unknown key
	// is a usage error naming it.
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"run", mod})
	if code != exitUsage || !strings.Contains(stderr.String(), filepath.Join(mod, project.FileName)+`: unknown key "bogus_key"`) {
		t.Errorf("run with a bad config: exit %d, stderr %q", code, stderr.String())
	}
	// --no-config ignores it: the run then fails later, for another reason.
	stderr.Reset()
	code = run(&stdout, &stderr, []string{"run", "--no-config", "--timeout", "0s", mod})
	if code != exitUsage || strings.Contains(stderr.String(), "bogus_key") || !strings.Contains(stderr.String(), "--timeout") {
		t.Errorf("--no-config: exit %d, stderr %q", code, stderr.String())
	}
	// --config FILE names one.
	other := filepath.Join(t.TempDir(), "ci.yml")
	if err := os.WriteFile(other, []byte("format: xml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	code = run(&stdout, &stderr, []string{"run", "--config", other, mod})
	if code != exitUsage || !strings.Contains(stderr.String(), `unknown --format "xml"`) {
		t.Errorf("--config: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	code = run(&stdout, &stderr, []string{"run", "--config", other, "--no-config", mod})
	if code != exitUsage || !strings.Contains(stderr.String(), "contradict") {
		t.Errorf("--config with --no-config: exit %d, stderr %q", code, stderr.String())
	}
}
