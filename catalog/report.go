package catalog

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Puppet's report of an apply, beside the catalog it applied: what became
// of each of the catalog's resources. It is here, below the detector,
// because the detector's non-idempotence and coverage rules read it; the
// pipeline (puppet/analyze) reads the file.

// ResourceStatus is what Puppet's report of a run (last_run_report.yaml,
// `puppet config print lastrunreport`) says of one resource: whether it
// changed or failed, and each change as an event.
type ResourceStatus struct {
	Ref     string // Exec[foo]
	Type    string // Exec
	Title   string
	File    string
	Line    int
	Changed bool
	Failed  bool
	// Skipped: Puppet did not apply the resource (a dependency failed).
	Skipped bool
	Events  []ResourceEvent
}

// ResourceEvent is one property Puppet changed (or failed to change) on a
// resource: the values are as the report writes them, a list joined with
// ", ".
type ResourceEvent struct {
	Property string
	Previous string
	Desired  string
	Status   string // success, failure, noop, audit
	Message  string
}

// Report is what fsmove reads of a Puppet report.
type Report struct {
	// Status is the run's: changed, failed or unchanged: how the second
	// apply of --idempotence ended.
	Status string
	// Resources are the resource statuses, sorted by reference.
	Resources []ResourceStatus
}

// ParseReport reads a Puppet report in YAML: its status and the statuses
// of the resources it lists. The report carries Ruby tags
// (!ruby/object:Puppet::Transaction::Report), which a YAML node tree keeps
// without needing Ruby's types: it is walked as a tree, and what it does
// not hold (an older or newer report format) is left zero.
func ParseReport(r io.Reader) (*Report, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(r).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("Puppet's report is empty")
		}
		return nil, fmt.Errorf("Puppet's report: %w", err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("Puppet's report is not a mapping")
	}
	report := &Report{Status: yamlScalar(mapValue(root, "status"))}
	statuses := mapValue(root, "resource_statuses")
	if statuses == nil {
		return nil, errors.New("Puppet's report has no resource_statuses")
	}
	if statuses.Kind != yaml.MappingNode {
		if yamlScalar(statuses) == "" { // resource_statuses: {} or empty
			return report, nil
		}
		return nil, errors.New("Puppet's report: resource_statuses is not a mapping")
	}
	var out []ResourceStatus
	for i := 0; i+1 < len(statuses.Content); i += 2 {
		key, v := statuses.Content[i], statuses.Content[i+1]
		if v.Kind != yaml.MappingNode {
			continue
		}
		s := ResourceStatus{
			Ref:     yamlScalar(mapValue(v, "resource")),
			Type:    yamlScalar(mapValue(v, "resource_type")),
			Title:   yamlScalar(mapValue(v, "title")),
			File:    yamlScalar(mapValue(v, "file")),
			Changed: yamlScalar(mapValue(v, "changed")) == "true",
			Failed:  yamlScalar(mapValue(v, "failed")) == "true",
			Skipped: yamlScalar(mapValue(v, "skipped")) == "true",
		}
		fmt.Sscan(yamlScalar(mapValue(v, "line")), &s.Line)
		if s.Ref == "" {
			s.Ref = yamlScalar(key)
		}
		if events := mapValue(v, "events"); events != nil && events.Kind == yaml.SequenceNode {
			for _, e := range events.Content {
				if e.Kind != yaml.MappingNode {
					continue
				}
				s.Events = append(s.Events, ResourceEvent{
					Property: yamlScalar(mapValue(e, "property")),
					Previous: checksumText(yamlScalar(mapValue(e, "previous_value"))),
					Desired:  checksumText(yamlScalar(mapValue(e, "desired_value"))),
					Status:   yamlScalar(mapValue(e, "status")),
					Message:  yamlScalar(mapValue(e, "message")),
				})
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	report.Resources = out
	return report, nil
}

// checksumPattern is a file checksum as Puppet writes it: {sha256}hex.
var checksumPattern = regexp.MustCompile(`^\{[a-z0-9]+\}[0-9a-f]+$`)

// checksumText is v, or the checksum it encodes: Puppet writes a
// checksum that Ruby holds as binary data base64-encoded, without a tag
// (the desired content of a File: e3NoYTI1Nn0… for {sha256}…).
func checksumText(v string) string {
	if len(v) < 16 || checksumPattern.MatchString(v) {
		return v
	}
	if data, err := base64.StdEncoding.DecodeString(v); err == nil && checksumPattern.Match(data) {
		return string(data)
	}
	return v
}

// mapValue is the value of key in mapping m, nil when m has none (or is
// not a mapping).
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// scalarText is a value as text: a scalar's value, a sequence's scalars
// joined with ", ", "" for anything else. Depth is bounded: a report is
// the module's to fill.
func yamlScalar(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return ""
		}
		return n.Value
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			if c.Kind == yaml.ScalarNode {
				parts = append(parts, c.Value)
			}
		}
		return strings.Join(parts, ", ")
	case yaml.AliasNode:
		if n.Alias != nil && n.Alias.Kind == yaml.ScalarNode {
			return n.Alias.Value
		}
	}
	return ""
}
