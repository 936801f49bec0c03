package runner

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// journalSample is journalctl --output json --output-fields UNIT,MESSAGE
// _PID=1 as fsmove's bookworm (systemd 252) and trixie (systemd 257)
// containers wrote it after applying a module whose service has
// ConditionCapability=CAP_SYS_TIME (cursors cut).
const journalSample = `{"UNIT":"chrony.service","MESSAGE":"chrony.service - chrony, an NTP client/server was skipped because of an unmet condition check (ConditionCapability=CAP_SYS_TIME).","MESSAGE_ID":"39f53479d3a045ac8e11786248231fbf","_BOOT_ID":"d03b93093b1c41e0bea64e4301032113"}
{"__SEQNUM":"74","MESSAGE":"ntpsec.service - Network Time Service skipped, unmet condition check ConditionCapability=CAP_SYS_TIME","UNIT":"ntpsec.service"}
{"UNIT":"systemd-binfmt.service","MESSAGE":"systemd-binfmt.service - Set Up Additional Binary Formats skipped, unmet condition check ConditionPathIsMountPoint=/proc/sys/fs/binfmt_misc"}
{"UNIT":"haproxy.service","MESSAGE":"Started haproxy.service - HAProxy Load Balancer."}
{"MESSAGE":"foo skipped, unmet condition check ConditionPathExists=/etc/foo"}
{"UNIT":"bytes.service","MESSAGE":[98,121,116,101,115]}
not json, unmet condition check ConditionFirstBoot=yes
{"UNIT":"odd.service","MESSAGE":"odd.service skipped, unmet condition check (not a condition)"}
`

func TestParseUnmetConditions(t *testing.T) {
	got := parseUnmetConditions(strings.NewReader(journalSample))
	want := map[string]string{
		"chrony.service":         "ConditionCapability=CAP_SYS_TIME",
		"ntpsec.service":         "ConditionCapability=CAP_SYS_TIME",
		"systemd-binfmt.service": "ConditionPathIsMountPoint=/proc/sys/fs/binfmt_misc",
	}
	if !maps.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func FuzzParseUnmetConditions(f *testing.F) {
	for _, line := range strings.Split(journalSample, "\n") {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, journal string) {
		for unit, cond := range parseUnmetConditions(strings.NewReader(journal)) {
			if unit == "" || !strings.HasPrefix(cond, "Condition") || strings.Contains(cond, ")") {
				t.Errorf("%q: %q", unit, cond)
			}
		}
	})
}

// systemctl show --property=Id,Names of three units, as Debian 12 prints
// it (ntpsec.service has two aliases).
func TestParseUnitNames(t *testing.T) {
	got := parseUnitNames(strings.NewReader("Id=ntpsec.service\nNames=ntpsec.service ntpd.service ntp.service\n\n" +
		"Id=chrony.service\nNames=chrony.service\n\nNames=orphan.service\n"))
	want := map[string][]string{
		"ntpsec.service": {"ntpsec.service", "ntpd.service", "ntp.service"},
		"chrony.service": {"chrony.service"},
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("got %v, want %v", got, want)
	}
}
