package corpus

import (
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/module"
)

// TestCheckDebPackages: a deb: entry the image's index lacks is the
// corpus's error, by its line, with the nearest package; known packages and
// Forge modules pass.
func TestCheckDebPackages(t *testing.T) {
	entries, err := Parse(strings.NewReader("deb:puppet-module-puppetlabs-stdlib\npuppetlabs-apt\ndeb:puppet-module-puppetlabs-stdlb\npuppetlabs-ntp\ndeb:puppet-module-nothing-like-it\n"), "/")
	if err != nil {
		t.Fatal(err)
	}
	index := []module.DebPackage{{Package: "puppet-module-puppetlabs-stdlib"}, {Package: "puppet-module-puppetlabs-ntp"}}
	err = CheckDebPackages("c.txt", entries, index)
	if err == nil {
		t.Fatal("unknown packages passed")
	}
	msg := err.Error()
	for _, want := range []string{
		"c.txt:3: deb:puppet-module-puppetlabs-stdlb: no such puppet-module-* package in the image (did you mean deb:puppet-module-puppetlabs-stdlib?)",
		"c.txt:5: deb:puppet-module-nothing-like-it: no such puppet-module-* package in the image",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Count(msg, "\n") != 1 || strings.Contains(msg, "it in the image (did") {
		t.Errorf("want one line per unknown package, the far one without a guess:\n%s", msg)
	}
	if err := CheckDebPackages("c.txt", entries[:2], index); err != nil {
		t.Errorf("a known package and a Forge module: %v", err)
	}
}
