package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
	"golang.org/x/mod/modfile"
)

// TestCIExamples checks the CI configurations in examples/: each parses as
// YAML, installs fsmove from this module's import path, and every fsmove
// command line in them names a command of this build with flags it accepts
// and values those flags take.
func TestCIExamples(t *testing.T) {
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	install := modfile.ModulePath(gomod) + "/cmd/fsmove@"
	files, _ := filepath.Glob("../../examples/*.yml")
	if len(files) < 2 {
		t.Fatalf("examples/: %d YAML files, want the GitHub Actions and the GitLab CI ones", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var doc any
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Fatalf("not YAML: %v", err)
			}
			lines := shellLines(doc)
			installs, runs := 0, 0
			for _, line := range lines {
				if strings.Contains(line, "go install") {
					if !strings.Contains(line, install) {
						t.Errorf("%q: want go install %s…", line, install)
					}
					installs++
					continue
				}
				for _, args := range fsmoveCommands(line) {
					runs++
					checkCommandLine(t, args)
				}
			}
			if installs == 0 || runs == 0 {
				t.Errorf("%d go install and %d fsmove commands; want both (script lines: %q)", installs, runs, lines)
			}
		})
	}
}

// shellLines are the shell commands of a CI configuration: GitHub Actions'
// steps' "run" and GitLab CI's "script" entries, wherever they are.
func shellLines(node any) []string {
	var out []string
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			switch s := v.(type) {
			case string:
				if k == "run" {
					out = append(out, strings.Split(s, "\n")...)
				}
			case []any:
				if k == "script" || k == "before_script" {
					for _, e := range s {
						if str, ok := e.(string); ok {
							out = append(out, str)
						}
					}
					continue
				}
			}
			out = append(out, shellLines(v)...)
		}
	case []any:
		for _, v := range n {
			out = append(out, shellLines(v)...)
		}
	}
	return out
}

// fsmoveCommands returns the arguments of each fsmove command in a shell
// line: the words after a word naming the fsmove binary, up to the end of
// that command (||, &&, ;, |).
func fsmoveCommands(line string) [][]string {
	var cmds [][]string
	words := shellWords(line)
	for i := 0; i < len(words); i++ {
		atCommand := i == 0 || slices.Contains([]string{"||", "&&", ";", "|", "sudo"}, words[i-1])
		if !atCommand || words[i] != "fsmove" && !strings.HasSuffix(words[i], "/fsmove") {
			continue
		}
		var args []string
		for i++; i < len(words) && !slices.Contains([]string{"||", "&&", ";", "|", ">"}, words[i]); i++ {
			args = append(args, words[i])
		}
		cmds = append(cmds, args)
	}
	return cmds
}

// shellWords splits a line into words the way sh would for the simple
// lines of a CI file: blanks separate, quotes group, a comment ends it.
func shellWords(line string) []string {
	var words []string
	var cur bytes.Buffer
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			// A command substitution is one word, whatever it holds.
			depth := 0
			for ; i < len(line); i++ {
				cur.WriteByte(line[i])
				if line[i] == '(' {
					depth++
				} else if line[i] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			in = true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '#' && !in:
			return words
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// checkCommandLine checks one fsmove command line against this build's
// command tree: the command exists and its flags parse with their values.
func checkCommandLine(t *testing.T, args []string) {
	t.Helper()
	root := newRootCmd(&cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	root.InitDefaultCompletionCmd() // cobra adds it when it executes
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root {
		t.Errorf("fsmove %s: no such command (%v)", strings.Join(args, " "), err)
		return
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("fsmove %s: %v", strings.Join(args, " "), err)
		return
	}
	if f := cmd.Flags().Lookup("format"); f != nil && f.Changed {
		rf := reportFlags{format: f.Value.String(), color: "auto"}
		if err := rf.check(); err != nil {
			t.Errorf("fsmove %s: %v", strings.Join(args, " "), err)
		}
	}
}

// TestHelpAndREADMEExamples checks every example of every command's --help
// and every fsmove command line of README.md's shell blocks as
// TestCIExamples checks the CI files': the command exists and takes the
// flags and values given.
func TestHelpAndREADMEExamples(t *testing.T) {
	root := newRootCmd(&cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	var lines []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		lines = append(lines, strings.Split(c.Example, "\n")...)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	helpLines := len(lines)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	inShell := false
	for _, line := range strings.Split(string(readme), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inShell = line == "```sh" || line == "```bash"
		case inShell:
			lines = append(lines, line)
		}
	}
	checked := map[bool]int{}
	for i, line := range lines {
		for _, args := range fsmoveCommands(strings.TrimSpace(line)) {
			if len(args) == 0 || strings.Contains(strings.Join(args, " "), "<") {
				continue // "fsmove" alone; "fsmove <command> --help", a pattern
			}
			checked[i < helpLines]++
			checkCommandLine(t, args)
		}
	}
	if checked[true] < 20 || checked[false] < 10 {
		t.Errorf("checked %d help examples and %d README commands; want the many there are", checked[true], checked[false])
	}
}
