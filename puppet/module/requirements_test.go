package module

import (
	"strings"
	"testing"
)

func TestParsePlatform(t *testing.T) {
	p, err := ParsePlatform([]byte(`{
  "name": "acme-web",
  "requirements": [
    {"name": "pdk", "version_requirement": "not a range"},
    {"name": "puppet", "version_requirement": ">= 7.0.0 < 9.0.0"},
    {"name": "OpenVox", "version_requirement": ">= 8.0.0"}
  ],
  "operatingsystem_support": [{"operatingsystem": "RedHat"}, {"operatingsystem": " Debian "}]
}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.PuppetString(); got != "puppet >= 7.0.0 < 9.0.0 or OpenVox >= 8.0.0" {
		t.Errorf("requirements %q", got)
	}
	for version, want := range map[string]bool{"6.28.0": false, "7.23.0": true, "8.10.0": true, "9.0.0": true} {
		if p.AllowsPuppet(version) != want {
			t.Errorf("Puppet %s allowed: %v, want %v", version, !want, want)
		}
	}
	if strings.Join(p.OperatingSystems, ",") != "RedHat,Debian" || !p.SupportsDebian() {
		t.Errorf("operating systems %q", p.OperatingSystems)
	}

	if p, err := ParsePlatform([]byte(`{"name": "acme-web"}`)); err != nil || len(p.Puppet) != 0 || p.OperatingSystems != nil || !p.AllowsPuppet("7.23.0") || !p.SupportsDebian() {
		t.Errorf("no requirements: %+v, %v", p, err)
	}
	if _, err := ParsePlatform([]byte(`{"requirements": [{"name": "puppet", "version_requirement": ">= seven"}]}`)); err == nil || !strings.Contains(err.Error(), "requirements[0] (puppet)") {
		t.Errorf("a malformed range: %v", err)
	}
}
