package module

import (
	"strings"
	"testing"
)

// TestParseUnknown: the messages of Puppet 7 and 8 for a name it does not
// find, as puppet.log has them.
func TestParseUnknown(t *testing.T) {
	for line, want := range map[string]Unknown{
		"Error: Evaluation Error: Error while evaluating a Function Call, Could not find class ::epel for host1 (file: /fsmove/modules/m/manifests/init.pp, line: 2, column: 3) on node host1": {"class", "epel"},
		"Error: Could not find class ::Epel::Repo for host1 on node host1":                                                         {"class", "epel::repo"},
		"Error: Evaluation Error: Error while evaluating a Resource Statement, Could not find declared class epel::repo (file: x)": {"class", "epel::repo"},
		"Error: Evaluation Error: Error while evaluating a Resource Statement, Unknown resource type: 'selinux_boolean' (file: x)": {"type", "selinux_boolean"},
		"Error: Evaluation Error: Resource type not found: Selinux::Boolean (file: x, line: 3, column: 14) on node h":              {"type", "selinux::boolean"},
		"Error: Evaluation Error: Resource type not found: Stdlib::Absolutepath (file: x) on node h":                               {"type", "stdlib::absolutepath"},
		"Error: Evaluation Error: Unknown function: 'ensure_packages'. (file: x, line: 4, column: 3) on node h":                    {"function", "ensure_packages"},
		"Error: Evaluation Error: Unknown function: 'epel::foo'. (file: x)":                                                        {"function", "epel::foo"},
		"Error: Function x(): Unknown function: 'stdlib::merge'":                                                                   {"function", "stdlib::merge"},
		"Error: Unknown function 'validate_string' at x":                                                                           {"function", "validate_string"},
		"Error: Invalid resource type cron_job":                                                                                    {"type", "cron_job"},
		"Error: Could not find resource type 'zypprepo'":                                                                           {"type", "zypprepo"},
	} {
		got, ok := ParseUnknown(line)
		if !ok || got != want {
			t.Errorf("ParseUnknown(%q) = %+v, %v; want %+v", line, got, ok, want)
		}
	}
	for _, line := range []string{
		"Error: Could not find a suitable provider for foo",
		"Error: Could not find class  for host1",
		"Error: Evaluation Error: Unknown variable: 'epel::x'.",
		"Error: /Stage[main]/Foo/Package[bar]/ensure: change from 'purged' to 'present' failed",
	} {
		if u, ok := ParseUnknown(line); ok {
			t.Errorf("ParseUnknown(%q) = %+v", line, u)
		}
	}
}

// TestExplain: the unknown name's module, by Puppet's autoload rules or a
// listed dependency's name, and how to give it.
func TestExplain(t *testing.T) {
	res := &Resolution{
		Found: []Found{{Name: "stdlib", Wanted: "puppetlabs-stdlib", Source: FromDebian}},
		Missing: []Found{
			{Name: "epel", Wanted: "puppet-epel", RequiredBy: "mymod's metadata.json"},
			{Name: "selinux", Wanted: "puppet-selinux", RequiredBy: "mymod's metadata.json"},
		},
		TestOnlyMissing: []Found{{Name: "facts", Wanted: "facts", RequiredBy: "mymod's .fixtures.yml"}},
	}
	for _, c := range []struct {
		u        Unknown
		res      *Resolution
		self     string
		fixtures bool
		want     string // "" for nothing said
	}{
		{Unknown{"class", "epel::repo"}, res, "mymod", true,
			"the catalog needs class epel::repo from puppet-epel, which was found nowhere: give --modulepath DIR holding epel (or put it in spec/fixtures/modules/epel)"},
		{Unknown{"class", "epel"}, res, "mymod", false,
			"the catalog needs class epel from puppet-epel, which was found nowhere: give --modulepath DIR holding epel"},
		{Unknown{"type", "selinux_boolean"}, res, "mymod", false,
			"the catalog needs type selinux_boolean from puppet-selinux, which was found nowhere: give --modulepath DIR holding selinux"},
		{Unknown{"type", "selinux::boolean"}, res, "mymod", false,
			"the catalog needs type selinux::boolean from puppet-selinux, which was found nowhere: give --modulepath DIR holding selinux"},
		{Unknown{"function", "facts::x"}, res, "mymod", false,
			"the catalog needs function facts::x from facts, which only .fixtures.yml lists and was found nowhere: give --modulepath DIR holding facts"},
		{Unknown{"class", "apt::source"}, res, "mymod", true,
			"the catalog needs class apt::source from a module apt that mymod's metadata.json does not list: give --modulepath DIR holding apt (or put it in spec/fixtures/modules/apt)"},
		{Unknown{"class", "apt"}, nil, "mymod", false,
			"the catalog needs class apt from a module apt, which Puppet did not find: give --modulepath DIR holding apt"},
		{Unknown{"class", "apt"}, &Resolution{}, "", false,
			"the catalog needs class apt from a module apt, which is not on the module path: give --modulepath DIR holding apt"},
		// A Ruby name without namespace that no dependency starts: the
		// modules found nowhere are named.
		{Unknown{"function", "ensure_resource"}, res, "mymod", false,
			"the catalog needs function ensure_resource, which no module found has; found nowhere: puppet-epel, puppet-selinux (give them with --modulepath DIR)"},
		{Unknown{"function", "ensure_resource"}, &Resolution{}, "mymod", false, ""},
		// The module's own names, and a module that was found: Puppet's
		// error says enough.
		{Unknown{"class", "mymod::params"}, res, "mymod", false, ""},
		{Unknown{"function", "stdlib::merge"}, res, "mymod", false, ""},
		{Unknown{"function", "stdlib_thing"}, res, "mymod", false, ""},
	} {
		if got := c.u.Explain(c.res, c.self, c.fixtures); got != c.want {
			t.Errorf("%+v.Explain:\n got %q\nwant %q", c.u, got, c.want)
		}
		if strings.Contains(c.want, "\n") {
			t.Errorf("more than one line: %q", c.want)
		}
	}
}
