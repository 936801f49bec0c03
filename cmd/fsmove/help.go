package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// help is a command's help, which commandHelp prints in this order: what a
// newcomer needs first, the long prose left to README.md and
// docs/DESIGN.md (more says where).
type help struct {
	synopsis    string      // the usage lines, without "Usage:"
	description string      // what the command does, in a few lines
	examples    []example   // real command lines
	groups      []flagGroup // every flag of the command, each in exactly one group
	exit        string      // the exit statuses ("" none of its own)
	more        string      // where the details are
}

// example is one command line of a command's help, with what it does.
type example struct{ command, comment string }

// flagGroup is one heading of a command's flags in its help (cobra lists
// every flag in one alphabetical list): its title and its flags' long
// names, in the order shown.
type flagGroup struct {
	title string
	flags []string
}

// Annotations of a command that carry its help from setHelp to
// commandHelp (cobra.Command has no field for them).
const (
	groupsAnnotation = "fsmove-groups" // help.groups: a line per group, "TITLE<tab>FLAG FLAG ..."
	exitAnnotation   = "fsmove-exit"   // help.exit
	moreAnnotation   = "fsmove-more"   // help.more
)

// exitStatusHelp is the exit-status table of every command that analyzes
// (run, analyze, confirm) and of fsmove's own help.
const exitStatusHelp = "Exit status:\n" + exitStatusTable

// setHelp gives cmd its help. The help flag (cobra's) joins the first
// group.
func setHelp(cmd *cobra.Command, h help) {
	cmd.Long = "Usage:\n" + indent(h.synopsis) + "\n" + strings.TrimSpace(h.description) + "\n"
	var ex strings.Builder
	for _, e := range h.examples {
		fmt.Fprintf(&ex, "  %-48s # %s\n", e.command, e.comment)
	}
	cmd.Example = ex.String()
	var groups []string
	for i, g := range h.groups {
		names := g.flags
		if i == 0 {
			names = append(names[:len(names):len(names)], "help")
		}
		groups = append(groups, g.title+"\t"+strings.Join(names, " "))
	}
	cmd.Annotations = map[string]string{
		groupsAnnotation: strings.Join(groups, "\n"),
		exitAnnotation:   h.exit,
		moreAnnotation:   h.more,
	}
}

// helpGroups reads the groups setHelp recorded on cmd.
func helpGroups(cmd *cobra.Command) []flagGroup {
	var groups []flagGroup
	for _, line := range strings.Split(cmd.Annotations[groupsAnnotation], "\n") {
		if title, names, ok := strings.Cut(line, "\t"); ok {
			groups = append(groups, flagGroup{title, strings.Fields(names)})
		}
	}
	return groups
}

// indent indents each line of s by two spaces.
func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
	return b.String()
}

// commandHelp prints a subcommand's help: usage and description, examples,
// the flags in their groups (a flag in none, as cobra's own commands have,
// under "Flags"), the subcommands, the exit statuses and where to read
// more.
func commandHelp(w io.Writer, cmd *cobra.Command) {
	fmt.Fprint(w, cmd.Long)
	if !strings.HasSuffix(cmd.Long, "\n") {
		fmt.Fprintln(w)
	}
	if cmd.Example != "" {
		fmt.Fprint(w, "\nExamples:\n", cmd.Example)
	}
	cmd.InitDefaultHelpFlag() // cobra adds it only when it runs the command
	type section struct {
		title string
		flags []*pflag.Flag
	}
	var sections []section
	grouped := map[string]bool{}
	for _, g := range helpGroups(cmd) {
		sec := section{title: g.title}
		for _, name := range g.flags {
			if f := cmd.Flags().Lookup(name); f != nil && !f.Hidden {
				sec.flags = append(sec.flags, f)
				grouped[name] = true
			}
		}
		sections = append(sections, sec)
	}
	rest := section{title: "Flags"} // cobra's own commands have no groups
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !grouped[f.Name] && !f.Hidden {
			rest.flags = append(rest.flags, f)
		}
	})
	sections = append(sections, rest)
	width := 0
	for _, sec := range sections {
		for _, f := range sec.flags {
			width = max(width, len(flagName(f)))
		}
	}
	for _, sec := range sections {
		if len(sec.flags) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", sec.title)
		for _, f := range sec.flags {
			lines := wrap(flagUsage(f), helpWidth-width-4)
			fmt.Fprintf(w, "  %-*s  %s\n", width, flagName(f), lines[0])
			for _, more := range lines[1:] {
				fmt.Fprintf(w, "  %*s  %s\n", width, "", more)
			}
		}
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintln(w, "\nCommands:")
		for _, sub := range cmd.Commands() {
			if sub.IsAvailableCommand() {
				fmt.Fprintf(w, "  %-10s %s\n", sub.Name(), sub.Short)
			}
		}
	}
	if exit := cmd.Annotations[exitAnnotation]; exit != "" {
		fmt.Fprint(w, "\n", exit)
	}
	if more := cmd.Annotations[moreAnnotation]; more != "" {
		fmt.Fprintf(w, "\n%s\n", more)
	}
}

// helpWidth is the width help is wrapped to.
const helpWidth = 100

// wrap breaks text into lines of at most width characters, between words
// (a longer word has a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// flagName is how a flag is written in help: "-o, --output FILE".
func flagName(f *pflag.Flag) string {
	name := "    --" + f.Name
	if f.Shorthand != "" {
		name = "-" + f.Shorthand + ", --" + f.Name
	}
	varname, _ := pflag.UnquoteUsage(f)
	if f.Value.Type() != "bool" && varname != "" {
		name += " " + varname
	}
	return name
}

// flagUsage is a flag's usage text in help, with its default when that is
// not the zero value.
func flagUsage(f *pflag.Flag) string {
	_, usage := pflag.UnquoteUsage(f)
	switch f.DefValue {
	case "", "false", "0", "0s", "[]":
	default:
		usage += " (default " + f.DefValue + ")"
	}
	return usage
}

// rootUsage prints fsmove's own help: the commands and the exit statuses.
func rootUsage(w io.Writer, root *cobra.Command) {
	fmt.Fprint(w, `fsmove finds missing ordering relationships (MOR) and missing notifiers (MN)
in Puppet code by tracing one real "puppet apply".

Usage:
  fsmove <command> [flags] [arguments]

Examples:
  fsmove run ./mymodule
      # apply your module in a fresh container, traced, and report (exit 1 on findings)
  fsmove analyze fsmove-out/mymodule/trace.log fsmove-out/mymodule/catalog.json
      # analyze a saved run again, offline

Commands:
`)
	for _, cmd := range root.Commands() {
		if cmd.IsAvailableCommand() {
			fmt.Fprintf(w, "  %-10s %s\n", cmd.Name(), cmd.Short)
		}
	}
	fmt.Fprint(w, `
Run "fsmove <command> --help" for a command's flags, "fsmove --version" for the
version, and "fsmove completion bash --help" to set up shell completion.

`, exitStatusHelp, `
More: README.md; the container and its sandbox: docs/DESIGN.md.
`)
}
