package main

// The project file, .fsmove.yml (cmd/fsmove/internal/project reads it):
// default flags, filters, waivers and fail_on for a module. fsmove run
// picks it up from the module directory it is
// given; fsmove analyze from the module directory of the run whose trace
// it analyzes (run.json), else from the current directory. --config FILE
// names another, --no-config ignores it. A flag given on the command line
// wins over the file.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/fsmove/fsmove/cmd/fsmove/internal/project"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// notConfigFlags are flags the file cannot set: the ones that choose the
// file, and those it has keys of its own for.
var notConfigFlags = []string{"config", "no-config", "help", "filter", "waivers"}

// configFlags are --config and --no-config.
type configFlags struct {
	file     string
	noConfig bool
}

// addConfigFlags registers --config and --no-config on fs.
func addConfigFlags(fs *pflag.FlagSet) *configFlags {
	cf := &configFlags{}
	fs.StringVar(&cf.file, "config", "", "read defaults and waivers from `FILE` (default: "+project.FileName+")")
	fs.BoolVar(&cf.noConfig, "no-config", false, "ignore "+project.FileName)
	return cf
}

// load finds and reads the project file for cmd: --config, else
// .fsmove.yml in dir when there is one; nil without a file (or with
// --no-config). It sets the flags the command line did not give, and
// returns the file's filters and waivers for the analysis.
func (cf *configFlags) load(cmd *cobra.Command, dir string) (*project.Config, error) {
	if cf.noConfig {
		if cf.file != "" {
			return nil, usagef("--config and --no-config contradict each other")
		}
		return nil, nil
	}
	name := cf.file
	if name == "" {
		name = filepath.Join(dir, project.FileName)
		if _, err := os.Stat(name); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, usagef("--config: %v", err)
	}
	pc, err := project.Parse(name, data, configurableFlags(cmd.Root()))
	if err != nil {
		return nil, usageError{err}
	}
	if err := setFlags(pc, cmd.Flags(), filepath.Dir(name)); err != nil {
		return nil, usageError{err}
	}
	return pc, nil
}

// configurableFlags are the long names of the flags a project file may
// set: those of every command that reads one (has --config), but
// notConfigFlags. A key for another command's flag (run's --tracer, read
// by analyze) is not an error; it is not used there.
func configurableFlags(root *cobra.Command) []string {
	var names []string
	for _, cmd := range root.Commands() {
		if cmd.Flags().Lookup("config") == nil {
			continue
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !slices.Contains(names, f.Name) && !slices.Contains(notConfigFlags, f.Name) {
				names = append(names, f.Name)
			}
		})
	}
	slices.Sort(names)
	return names
}

// setFlags gives every flag of fs that the file sets and the command line
// did not (Changed) the file's value, as if given there: generically,
// through the flag's own Set, so each flag checks its value as it does on
// the command line. A path (a flag whose value is a DIR, FILE or SCRIPT)
// is relative to the file's directory.
func setFlags(pc *project.Config, fs *pflag.FlagSet, dir string) error {
	for _, cf := range pc.Flags {
		fl := fs.Lookup(cf.Name)
		if fl == nil || fl.Changed {
			continue
		}
		if len(cf.Values) != 1 && !repeatable(fl) {
			return fmt.Errorf("%s: %s: want one value, not a list", pc.File, cf.Key)
		}
		for _, v := range cf.Values {
			if name, _ := pflag.UnquoteUsage(fl); (name == "DIR" || name == "FILE" || name == "SCRIPT") && v != "" && !filepath.IsAbs(v) {
				v = filepath.Join(dir, v)
			}
			if err := fl.Value.Set(v); err != nil {
				return fmt.Errorf("%s: %s: %q: %v", pc.File, cf.Key, v, err)
			}
		}
	}
	return nil
}

// repeatable reports whether a flag takes several values (--param,
// --modulepath, --setup): each Set adds one.
func repeatable(f *pflag.Flag) bool {
	switch f.Value.(type) {
	case pflag.SliceValue, setupFlag:
		return true
	}
	return false
}

// record is what run.json keeps of the file.
func configRecord(pc *project.Config) *runner.ConfigRecord {
	if pc == nil {
		return nil
	}
	file, err := filepath.Abs(pc.File) // run.json is read from elsewhere later
	if err != nil {
		file = pc.File
	}
	return &runner.ConfigRecord{File: file, Settings: pc.Settings}
}

// runConfigDir is where fsmove run looks for .fsmove.yml: the module
// directory it is given, else (a Debian package, a Forge module, -e) the
// current directory.
func runConfigDir(args []string) string {
	if len(args) == 1 {
		if info, err := os.Stat(args[0]); err == nil && info.IsDir() {
			return args[0]
		}
	}
	return "."
}

// analyzeConfigDir is where fsmove analyze looks for .fsmove.yml: the
// module directory of the run whose trace it analyzes (run.json beside the
// trace), else the current directory.
func analyzeConfigDir(args []string, af *analyzeFlags) string {
	if af.fstrace == "" && len(args) == 2 && args[0] != "-" {
		if rec, err := runner.ReadRecord(filepath.Dir(args[0])); err == nil && rec.Module.Kind == runner.SourceDir && rec.Module.Dir != "" {
			return rec.Module.Dir
		}
	}
	return "."
}
