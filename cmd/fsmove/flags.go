package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
)

// newFlagSet returns a subcommand's flag set; usage is the command's
// synopsis and description, printed before the flags' defaults.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a subcommand's arguments. Flags may come before or
// after the positional arguments ("fsmove run ./mod --class x"); a "--"
// ends them, and what follows is positional as is ("fsmove trace -- cmd -v").
// ok is false when the command must return code at once: 0 after --help,
// whose usage goes to stdout, or 2 after a bad flag, which the flag package
// has reported on stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (positional []string, code int, ok bool) {
	usage := fs.Usage
	fs.Usage = func() {} // printed below, once, on the right stream
	defer func() { fs.Usage = usage }()

	var verbatim []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, verbatim = args[:i], args[i+1:]
	}
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			usage()
			return nil, exitOK, false
		}
		if err != nil {
			fmt.Fprintf(fs.Output(), "run \"fsmove %s --help\" for usage\n", fs.Name())
			return nil, exitUsage, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(positional, verbatim...), exitOK, true
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}
