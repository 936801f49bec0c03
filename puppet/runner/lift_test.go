package runner

import (
	"maps"
	"strings"
	"testing"
)

func TestParseLifted(t *testing.T) {
	out := "chrony.service # fsmove lifted: ConditionCapability=CAP_SYS_TIME\n" +
		"fstrim.service # fsmove lifted: ConditionVirtualization=!container ConditionCapability=CAP_SYS_ADMIN\n" +
		"forged.service # not ours\n" + // not the generator's first line
		"empty.service # fsmove lifted:\n" +
		"mount.mount # fsmove lifted: ConditionCapability=CAP_SYS_ADMIN\n" +
		"lonely\n"
	want := map[string]string{
		"chrony.service": "ConditionCapability=CAP_SYS_TIME",
		"fstrim.service": "ConditionVirtualization=!container ConditionCapability=CAP_SYS_ADMIN",
	}
	if got := parseLifted(strings.NewReader(out)); !maps.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestLiftedAndFailed(t *testing.T) {
	lifted := map[string]string{"chrony.service": "ConditionCapability=CAP_SYS_TIME", "ntp.service": "ConditionCapability=CAP_SYS_TIME"}
	failed := map[string]string{"chrony.service": "its start failed", "haproxy.service": "its start failed"}
	for name, want := range map[string]bool{
		"chrony":          true,  // Puppet's provider adds .service
		"chrony.service":  true,  // named in full
		"ntp":             false, // lifted, but did not fail
		"haproxy":         false, // failed, but nothing was lifted
		"chrony.socket":   false,
		"chrony.service2": false,
	} {
		if got := liftedAndFailed(name, lifted, failed); got != want {
			t.Errorf("liftedAndFailed(%q) = %v, want %v", name, got, want)
		}
	}
}
