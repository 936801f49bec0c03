package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fsmove/fsmove/internal/suggest"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError makes a flag that cobra could not parse a usage error: an
// unknown flag with the nearest one's name, an enum flag's value with the
// values it takes.
func flagError(cmd *cobra.Command, err error) error {
	var notExist *pflag.NotExistError
	var invalid *pflag.InvalidValueError
	var enum enumError
	switch {
	case errors.As(err, &notExist) && notExist.GetSpecifiedShortnames() == "":
		var names []string
		for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.InheritedFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		}
		if near := suggest.Nearest(notExist.GetSpecifiedName(), names); near != "" {
			return usagef("%v; did you mean --%s? (see %s --help)", err, near, cmd.CommandPath())
		}
	case errors.As(err, &invalid) && errors.As(err, &enum):
		return usagef("%v (see %s --help)", enum, cmd.CommandPath())
	}
	return usagef("%v (see %s --help)", err, cmd.CommandPath())
}

// unknownCommand is the usage error of a command name that parent does not
// have, with the nearest one's name.
func unknownCommand(parent *cobra.Command, name string) error {
	var names []string
	for _, sub := range parent.Commands() {
		if sub.IsAvailableCommand() || sub.Name() == "help" {
			names = append(names, sub.Name())
		}
	}
	msg := fmt.Sprintf("unknown command %q", name)
	if parent.HasParent() {
		msg = fmt.Sprintf("unknown subcommand %q (%s has %s)", name, parent.CommandPath(), strings.Join(names, ", "))
	}
	if near := suggest.Nearest(name, names); near != "" {
		return usagef("%s; did you mean %q? (see %s --help)", msg, near, parent.CommandPath())
	}
	return usagef("%s (see %s --help)", msg, parent.CommandPath())
}

// enumValue is a flag that takes one of a fixed list of words in any case
// (--format JSON is --format json, --tracer EBPF is --tracer ebpf): Set
// stores the list's own spelling, so the code after it compares exact
// strings, and a new value needs nothing beyond its name in the list.
type enumValue struct {
	p      *string
	name   string
	values []string
}

// enumVar defines the enum flag name with the values it takes; value is
// its default (which may be "", for a default chosen later).
func enumVar(fs *pflag.FlagSet, p *string, name, value string, values []string, usage string) {
	*p = value
	fs.Var(&enumValue{p: p, name: name, values: values}, name, usage)
}

func (e *enumValue) String() string { return *e.p }
func (e *enumValue) Type() string   { return "string" }

func (e *enumValue) Set(s string) error {
	for _, v := range e.values {
		if strings.EqualFold(strings.TrimSpace(s), v) {
			*e.p = v
			return nil
		}
	}
	return enumError{flag: e.name, value: s, values: e.values}
}

// enumError is a value that an enum flag does not take.
type enumError struct {
	flag, value string
	values      []string
}

func (e enumError) Error() string {
	return fmt.Sprintf("unknown --%s %q (want %s)", e.flag, e.value, orList(e.values))
}

// orList is "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
