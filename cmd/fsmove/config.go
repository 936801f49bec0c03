package main

// The project file, .fsmove.yml: default flags, filters, waivers and
// fail_on for a module, kept with the module the way .puppet-lint.rc or
// .rubocop.yml are. fsmove run picks it up from the module directory it is
// given; fsmove analyze from the module directory of the run whose trace
// it analyzes (run.json), else from the current directory. --config FILE
// names another, --no-config ignores it. A flag given on the command line
// wins over the file.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// projectConfigName is the project file's name in a module's root.
const projectConfigName = ".fsmove.yml"

// projectFile is .fsmove.yml as written. Keys other than filters and
// waivers are flags' long names (fail_on or fail-on), collected in Flags.
type projectFile struct {
	Filters []string             `yaml:"filters"`
	Waivers []projectWaiver      `yaml:"waivers"`
	Flags   map[string]yaml.Node `yaml:",inline"`
}

// projectWaiver is one of the file's waivers: what a line of a --waivers
// file says, as YAML.
type projectWaiver struct {
	A      string `yaml:"a"`
	B      string `yaml:"b"`
	Path   string `yaml:"path"`
	Reason string `yaml:"reason"`
}

// projectConfig is a project file read and checked.
type projectConfig struct {
	File     string   // as found or given
	Settings []string // its top-level keys, in the file's order
	flags    []configFlag
	filters  []string
	waivers  []detector.Waiver
}

// configFlag is one flag's default from the file: its values (a list for a
// repeatable flag).
type configFlag struct {
	key    string // as written
	name   string // the flag's long name
	values []string
}

// notConfigFlags are flags the file cannot set: the ones that choose the
// file, and those it has keys of its own for.
var notConfigFlags = []string{"config", "no-config", "help", "filter", "waivers"}

// parseProjectConfig reads a project file's text; flagNames are the flags
// it may set. name is the file's name, for messages.
func parseProjectConfig(name string, data []byte, flagNames []string) (*projectConfig, error) {
	pc := &projectConfig{File: name}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(doc.Content) == 0 {
		return pc, nil // empty
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: want a mapping of settings (key: value), not a %s", name, nodeKind(top))
	}
	var file projectFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: want one YAML document", name)
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key := top.Content[i].Value
		pc.Settings = append(pc.Settings, key)
		node, isFlag := file.Flags[key]
		if !isFlag {
			continue
		}
		flag := strings.ReplaceAll(key, "_", "-")
		if !slices.Contains(flagNames, flag) {
			return nil, fmt.Errorf("%s: unknown key %q (line %d)%s", name, key, top.Content[i].Line, didYouMean(flag, append(flagNames, "filters", "waivers")))
		}
		values, err := nodeValues(&node)
		if err != nil {
			return nil, fmt.Errorf("%s: %s (line %d): %v", name, key, node.Line, err)
		}
		pc.flags = append(pc.flags, configFlag{key: key, name: flag, values: values})
	}
	for _, f := range file.Filters {
		if !strings.HasPrefix(f, "/") {
			return nil, fmt.Errorf("%s: filters: %q is not an absolute path prefix as the trace names paths (e.g. /var/cache)", name, f)
		}
	}
	pc.filters = file.Filters
	for i, w := range file.Waivers {
		wv, err := detector.NewWaiver(w.A, w.B, w.Path, w.Reason)
		if err != nil {
			return nil, fmt.Errorf("%s: waivers[%d]: %v", name, i+1, err)
		}
		wv.Source = fmt.Sprintf("%s waivers[%d]", name, i+1)
		pc.waivers = append(pc.waivers, wv)
	}
	return pc, nil
}

// nodeValues reads a flag's value: a scalar, or a list of scalars.
func nodeValues(n *yaml.Node) ([]string, error) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return nil, errors.New("no value")
	case n.Kind == yaml.ScalarNode:
		return []string{n.Value}, nil
	case n.Kind == yaml.SequenceNode:
		var out []string
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
				return nil, fmt.Errorf("want a list of values, not a %s in it", nodeKind(item))
			}
			out = append(out, item.Value)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a value or a list of values, not a %s", nodeKind(n))
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	}
	return "value"
}

// didYouMean is suggest's answer as the end of a message:
// ` (did you mean "x"?)`, or "".
func didYouMean(name string, known []string) string {
	if best := suggest(name, known); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// configFlags are --config and --no-config.
type configFlags struct {
	file     string
	noConfig bool
}

// addConfigFlags registers --config and --no-config on fs.
func addConfigFlags(fs *pflag.FlagSet) *configFlags {
	cf := &configFlags{}
	fs.StringVar(&cf.file, "config", "", "read default flags, filters, waivers and fail_on from `FILE` (default: "+projectConfigName+" in the module's root)")
	fs.BoolVar(&cf.noConfig, "no-config", false, "ignore "+projectConfigName)
	return cf
}

// load finds and reads the project file for cmd: --config, else
// .fsmove.yml in dir when there is one; nil without a file (or with
// --no-config). It sets the flags the command line did not give, and
// returns the file's filters and waivers for the analysis.
func (cf *configFlags) load(cmd *cobra.Command, dir string) (*projectConfig, error) {
	if cf.noConfig {
		if cf.file != "" {
			return nil, usagef("--config and --no-config contradict each other")
		}
		return nil, nil
	}
	name := cf.file
	if name == "" {
		name = filepath.Join(dir, projectConfigName)
		if _, err := os.Stat(name); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, usagef("--config: %v", err)
	}
	pc, err := parseProjectConfig(name, data, configurableFlags(cmd.Root()))
	if err != nil {
		return nil, usageError{err}
	}
	if err := pc.setFlags(cmd.Flags(), filepath.Dir(name)); err != nil {
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
func (pc *projectConfig) setFlags(fs *pflag.FlagSet, dir string) error {
	for _, cf := range pc.flags {
		fl := fs.Lookup(cf.name)
		if fl == nil || fl.Changed {
			continue
		}
		if len(cf.values) != 1 && !repeatable(fl) {
			return fmt.Errorf("%s: %s: want one value, not a list", pc.File, cf.key)
		}
		for _, v := range cf.values {
			if name, _ := pflag.UnquoteUsage(fl); (name == "DIR" || name == "FILE" || name == "SCRIPT") && v != "" && !filepath.IsAbs(v) {
				v = filepath.Join(dir, v)
			}
			if err := fl.Value.Set(v); err != nil {
				return fmt.Errorf("%s: %s: %q: %v", pc.File, cf.key, v, err)
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

// String is what the run's progress and run.json say of the file.
func (pc *projectConfig) String() string {
	return fmt.Sprintf("%s (%d settings)", pc.File, len(pc.Settings))
}

// record is what run.json keeps of the file.
func (pc *projectConfig) record() *runner.ConfigRecord {
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
