package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestDidYouMean: a misspelled flag or command names the nearest one; a
// word near nothing names nothing; either way exit 2.
func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" no suggestion
	}{
		{[]string{"run", "--tracr", "strace", "x"}, "did you mean --tracer?"},
		{[]string{"run", "--Tracer=strace", "x"}, "did you mean --tracer?"},
		{[]string{"analyze", "--fromat", "json", "t", "c"}, "did you mean --format?"},
		{[]string{"run", "--modulpath", "d", "x"}, "did you mean --modulepath?"},
		{[]string{"run", "--frobnicate", "x"}, ""},
		{[]string{"rn", "x"}, `did you mean "run"?`},
		{[]string{"analyse"}, `did you mean "analyze"?`},
		{[]string{"verison"}, `did you mean "version"?`},
		{[]string{"xyzzy"}, ""},
		{[]string{"image", "biuld"}, `did you mean "build"?`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, c.args)
		got := stderr.String()
		if code != exitUsage || strings.Count(got, "\n") != 1 {
			t.Errorf("%q: exit %d, want %d and one line; stderr:\n%s", c.args, code, exitUsage, got)
		}
		if c.want == "" && strings.Contains(got, "did you mean") || !strings.Contains(got, c.want) {
			t.Errorf("%q: stderr %q, want %q", c.args, got, c.want)
		}
	}
}

// TestEnumFlagsIgnoreCase: every enum flag of every command takes each of
// its values in upper case and stores the list's spelling; a value not in
// the list is refused with the list.
func TestEnumFlagsIgnoreCase(t *testing.T) {
	enums := 0
	walkCommands(newRootCmd(&cli{}), func(cmd *cobra.Command) {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			e, ok := f.Value.(*enumValue)
			if !ok {
				return
			}
			enums++
			for _, v := range e.values {
				if err := f.Value.Set(strings.ToUpper(v)); err != nil || f.Value.String() != v {
					t.Errorf("%s --%s %s: %v, stored %q", cmd.CommandPath(), f.Name, strings.ToUpper(v), err, f.Value.String())
				}
			}
			if err := f.Value.Set("no-such-value"); err == nil || !strings.Contains(err.Error(), orList(e.values)) {
				t.Errorf("%s --%s no-such-value: %v", cmd.CommandPath(), f.Name, err)
			}
		})
	})
	// run: --tracer --init --network --format --color --scope; analyze and
	// confirm: --format --color --scope; bench, bench k8s and bench pod:
	// --tracer --init; --suite of run, confirm, bench, bench k8s, bench pod
	// and image build: 24.
	if enums != 24 {
		t.Errorf("%d enum flags, want 24", enums)
	}

	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"analyze", "--format", "JSON", "--color", "Never",
		filepath.Join(fig1Dir, "trace.log"), filepath.Join(fig1Dir, "catalog.json")})
	if code != exitFindings || !json.Valid(stdout.Bytes()) {
		t.Errorf("analyze --format JSON: exit %d, report %.200q; stderr:\n%s", code, stdout.String(), stderr.String())
	}
}

// walkCommands calls fn on cmd and every command below it.
func walkCommands(cmd *cobra.Command, fn func(*cobra.Command)) {
	fn(cmd)
	for _, sub := range cmd.Commands() {
		walkCommands(sub, fn)
	}
}
