// Package project reads the project file, .fsmove.yml: default flags,
// filters, waivers and fail_on for a module, kept with the module the way
// .puppet-lint.rc or .rubocop.yml are. The command line (cmd/fsmove) finds
// the file, gives the flags it may set, and sets them; this package only
// parses and checks the text, so that it can be fuzzed on its own.
package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/internal/suggest"
	"go.yaml.in/yaml/v3"
)

// FileName is the project file's name in a module's root.
const FileName = ".fsmove.yml"

// file is .fsmove.yml as written. Keys other than filters and waivers are
// flags' long names (fail_on or fail-on), collected in Flags.
type file struct {
	Filters []string             `yaml:"filters"`
	Waivers []waiver             `yaml:"waivers"`
	Flags   map[string]yaml.Node `yaml:",inline"`
}

// waiver is one of the file's waivers: what a line of a --waivers file
// says, as YAML.
type waiver struct {
	A      string `yaml:"a"`
	B      string `yaml:"b"`
	Path   string `yaml:"path"`
	Reason string `yaml:"reason"`
}

// Config is a project file read and checked.
type Config struct {
	File     string   // as found or given
	Settings []string // its top-level keys, in the file's order
	Flags    []Flag
	Filters  []string
	Waivers  []detector.Waiver
}

// Flag is one flag's default from the file: its values (a list for a
// repeatable flag).
type Flag struct {
	Key    string // as written
	Name   string // the flag's long name
	Values []string
}

// String is what the run's progress and run.json say of the file.
func (c *Config) String() string {
	return fmt.Sprintf("%s (%d settings)", c.File, len(c.Settings))
}

// Parse reads a project file's text; flagNames are the flags it may set.
// name is the file's name, for messages: every error names it.
func Parse(name string, data []byte, flagNames []string) (*Config, error) {
	pc := &Config{File: name}
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
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: want one YAML document", name)
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key := top.Content[i].Value
		pc.Settings = append(pc.Settings, key)
		node, isFlag := f.Flags[key]
		if !isFlag {
			continue
		}
		flag := strings.ReplaceAll(key, "_", "-")
		if !slices.Contains(flagNames, flag) {
			return nil, fmt.Errorf("%s: unknown key %q (line %d)%s", name, key, top.Content[i].Line, didYouMean(flag, append(slices.Clip(flagNames), "filters", "waivers")))
		}
		values, err := nodeValues(&node)
		if err != nil {
			return nil, fmt.Errorf("%s: %s (line %d): %v", name, key, node.Line, err)
		}
		pc.Flags = append(pc.Flags, Flag{Key: key, Name: flag, Values: values})
	}
	for _, p := range f.Filters {
		if !strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("%s: filters: %q is not an absolute path prefix as the trace names paths (e.g. /var/cache)", name, p)
		}
	}
	pc.Filters = f.Filters
	for i, w := range f.Waivers {
		wv, err := detector.NewWaiver(w.A, w.B, w.Path, w.Reason)
		if err != nil {
			return nil, fmt.Errorf("%s: waivers[%d]: %v", name, i+1, err)
		}
		wv.Source = fmt.Sprintf("%s waivers[%d]", name, i+1)
		pc.Waivers = append(pc.Waivers, wv)
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

// didYouMean is the nearest name as the end of a message:
// ` (did you mean "x"?)`, or "".
func didYouMean(name string, known []string) string {
	if best := suggest.Nearest(name, known); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}
