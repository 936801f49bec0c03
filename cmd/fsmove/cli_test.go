package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/internal/testenv"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestExitCode checks the one mapping from a subcommand's error to the
// exit status, and what it says on stderr.
func TestExitCode(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name   string
		err    error
		code   int
		stderr string // "" nothing
	}{
		{"nil", nil, exitOK, ""},
		{"findings", errFindings, exitFindings, ""},
		{"usage", usagef("bad %s", "flag"), exitUsage, "fsmove x: bad flag\n"},
		{"usage, said", usageError{errSaid}, exitUsage, ""},
		{"run", runError{boom}, exitRun, "fsmove x: boom\n"},
		{"run, said", runError{errSaid}, exitRun, ""},
		{"traced command's status", statusError{code: 7}, 7, ""},
		{"tracer failed", statusError{traceFailed, boom}, traceFailed, "fsmove x: boom\n"},
		{"untyped", boom, exitRun, "fsmove x: boom\n"},
		{"usage joined with run: the first", errors.Join(usagef("a"), runError{boom}), exitUsage, "fsmove x: a\nboom\n"},
		{"said, joined with a failed close", errors.Join(runError{errSaid}, usagef("writing the trace: close")), exitRun, "fsmove x: writing the trace: close\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := exitCode(&stderr, "fsmove x", c.err); code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if stderr.String() != c.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), c.stderr)
			}
		})
	}
}

// TestCloseFile: a failed close of a written file is not lost, and
// outweighs findings.
func TestCloseFile(t *testing.T) {
	closed := func(t *testing.T) *os.File {
		f, err := os.Create(filepath.Join(t.TempDir(), "f"))
		if err != nil {
			t.Fatal(err)
		}
		f.Close() // closing again fails
		return f
	}
	for _, c := range []struct {
		name string
		err  error
		code int
	}{
		{"no error before", nil, exitUsage},
		{"findings before", errFindings, exitUsage},
		{"a run error before", runError{errors.New("boom")}, exitRun},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.err
			closeFile(closed(t), "writing the report", &err)
			var stderr bytes.Buffer
			if code := exitCode(&stderr, "fsmove x", err); code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if !strings.Contains(stderr.String(), "writing the report: close ") {
				t.Errorf("stderr does not name the failed close: %q", stderr.String())
			}
		})
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "ok"))
	if err != nil {
		t.Fatal(err)
	}
	err = errFindings
	if closeFile(f, "x", &err); err != errFindings {
		t.Errorf("a good close changed the error to %v", err)
	}
}

// TestFlagSyntax: GNU long and short flags, --flag=value, flags after the
// arguments, and "--" ending the flags.
func TestFlagSyntax(t *testing.T) {
	trace, cat := filepath.Join(fig1Dir, "trace.log"), filepath.Join(fig1Dir, "catalog.json")
	dir := t.TempDir()
	for i, args := range [][]string{
		{"analyze", "-o", "{out}", "--format", "json", trace, cat},
		{"analyze", "--output", "{out}", "--format=json", trace, cat},
		{"analyze", trace, "--format", "json", cat, "-o", "{out}"},
		{"analyze", "--format", "json", "-o{out}", "--", trace, cat},
	} {
		out := filepath.Join(dir, "report"+string(rune('a'+i))+".json")
		for j := range args {
			args[j] = strings.ReplaceAll(args[j], "{out}", out)
		}
		var stdout, stderr bytes.Buffer
		if code := run(&stdout, &stderr, args); code != exitFindings {
			t.Errorf("%q: exit %d, want %d; stderr:\n%s", args, code, exitFindings, stderr.String())
			continue
		}
		data, err := os.ReadFile(out)
		if err != nil || !bytes.Contains(data, []byte(`"kind": "MOR"`)) {
			t.Errorf("%q: report %q, %v", args, data, err)
		}
	}
}

// TestReportWriteError: a report that cannot be written is an error
// (exit 2), even with findings, which would otherwise exit 1.
func TestReportWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		testenv.Missing(t, "no /dev/full: %v", err)
	}
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"analyze", "-o", "/dev/full", filepath.Join(fig1Dir, "trace.log"), filepath.Join(fig1Dir, "catalog.json")})
	if code != exitUsage || !strings.Contains(stderr.String(), "writing the report") {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr.String())
	}
}

// TestHelpAndCompletion: help lists every command, in order, on stdout
// with exit 0; a command's help has its text and its flags; completion
// scripts are generated.
func TestHelpAndCompletion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"--help"}); code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	last := -1
	for _, name := range []string{"run", "analyze", "lower", "trace", "image", "bench", "ebpf", "gc", "version", "completion"} {
		i := strings.Index(stdout.String(), "\n  "+name+" ")
		if i < 0 || i < last {
			t.Errorf("--help lists %q at %d, after %d:\n%s", name, i, last, stdout.String())
		}
		last = i
	}
	stdout.Reset()
	if code := run(&stdout, &stderr, []string{"help", "lower"}); code != exitOK ||
		!strings.Contains(stdout.String(), "fsmove lower [flags] TRACE") || !strings.Contains(stdout.String(), "--strict") {
		t.Errorf("help lower: exit %d:\n%s", code, stdout.String())
	}
	stdout.Reset()
	if code := run(&stdout, &stderr, []string{"completion", "bash"}); code != exitOK || !strings.Contains(stdout.String(), "__start_fsmove") {
		t.Errorf("completion bash: exit %d, %d bytes", code, stdout.Len())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, nil); code != exitUsage || !strings.Contains(stderr.String(), "Commands:") || stdout.Len() > 0 {
		t.Errorf("no command: exit %d, want the usage on stderr", code)
	}
}

// TestAnalyzeCancelled: the command's context reaches the analysis; once
// it is cancelled (an interrupt) the analysis stops and fsmove exits 3.
func TestAnalyzeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(interruptedError{os.Interrupt})
	var stdout, stderr bytes.Buffer
	code := execute(ctx, nil, &stdout, &stderr, []string{"analyze", filepath.Join(fig1Dir, "trace.log"), filepath.Join(fig1Dir, "catalog.json")})
	if code != exitRun || !strings.Contains(stderr.String(), "fsmove analyze: interrupted") {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitRun, stderr.String())
	}
	if stdout.Len() > 0 {
		t.Errorf("an interrupted analysis wrote a report:\n%s", stdout.String())
	}
}

// TestHelpFlagGroups: every flag of every fsmove command is in exactly
// one group of its help and every name a group lists is a flag; a
// command's help is at most 100 columns wide, run's under 100 lines, with
// its parts in order.
func TestHelpFlagGroups(t *testing.T) {
	root := newRootCmd(&cli{})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	walkCommands(root, func(cmd *cobra.Command) {
		if cmd == root || cmd.Name() == "help" || strings.HasPrefix(cmd.CommandPath(), "fsmove completion") {
			return // fsmove's own help; cobra's commands
		}
		cmd.InitDefaultHelpFlag()
		in := map[string]int{}
		for _, g := range helpGroups(cmd) {
			for _, name := range g.flags {
				if cmd.Flags().Lookup(name) == nil {
					t.Errorf("%s: group %q lists --%s, which is no flag", cmd.CommandPath(), g.title, name)
				}
				in[name]++
			}
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if in[f.Name] != 1 {
				t.Errorf("%s --%s is in %d groups, want 1", cmd.CommandPath(), f.Name, in[f.Name])
			}
		})
		var out bytes.Buffer
		commandHelp(&out, cmd)
		for _, line := range strings.Split(out.String(), "\n") {
			if len([]rune(line)) > helpWidth {
				t.Errorf("%s --help has a line of %d columns: %q", cmd.CommandPath(), len(line), line)
			}
		}
	})

	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"run", "--help"}); code != exitOK {
		t.Fatalf("run --help: exit %d", code)
	}
	help := stdout.String()
	if n := strings.Count(help, "\n"); n >= 100 {
		t.Errorf("run --help is %d lines, want under 100", n)
	}
	last := -1
	for _, part := range []string{"Usage:\n  fsmove run", "\nExamples:\n  fsmove run ", "\nCommon flags:\n", "\nWhat to apply:\n",
		"\nContainer and tracing:\n", "\nConfirmation:\n", "\nReport output:\n", "\nFilters:\n", "\nDebugging:\n", "\nExit status:\n", "README.md"} {
		i := strings.Index(help, part)
		if i <= last {
			t.Errorf("run --help: %q at %d, want it after %d", part, i, last)
		}
		last = i
	}
	examples, _, _ := strings.Cut(help[strings.Index(help, "Examples:\n"):], "\n\n")
	if n := strings.Count(examples, "\n  fsmove run "); n < 4 || n > 8 {
		t.Errorf("run --help has %d examples, want 4 to 8", n)
	}
}

// run runs a command line without signal handling (tests).
func run(stdout, stderr io.Writer, args []string) int {
	return execute(context.Background(), nil, stdout, stderr, args)
}
