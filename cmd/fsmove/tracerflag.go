package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/fsmove/fsmove/puppet/runner"
)

// tracerFlag declares --tracer and --trusted, the same for fsmove run and
// fsmove bench.
func tracerFlag(fs *pflag.FlagSet, p *string, trusted *bool) {
	enumVar(fs, p, "tracer", "", runner.Tracers(), "capture `backend`: "+orList(runner.Tracers())+" (default: first allowed)")
	fs.BoolVar(trusted, "trusted", false, "allow strace and ptrace (a module could subvert them)")
}

// chooseTracer is runner.ChooseTracer for fsmove cmd: the default's note
// goes to stderr, and a tracer this host cannot use fails the command
// before anything starts.
func chooseTracer(stderr io.Writer, cmd, name string, trusted bool) (tracer, note string, err error) {
	c, note, err := runner.ChooseTracer(name, trusted)
	var notTrusted *runner.NotTrustedError
	if errors.As(err, &notTrusted) {
		return "", "", usageError{err}
	}
	if err != nil {
		return "", "", runError{err}
	}
	if note != "" {
		fmt.Fprintf(stderr, "fsmove %s: %s\n", cmd, note)
	}
	return c.Name(), note, nil
}
