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
