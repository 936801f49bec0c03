package runner

import (
	"maps"
	"strings"
	"testing"
)

func TestParseFailedUnits(t *testing.T) {
	out := "unit haproxy.service exit-code 1\n" +
		"line Starting haproxy.service...\n" +
		"line [ALERT] cannot bind socket\n" +
		"unit bare.service\n" +
		"line   \n" + // a blank journal line is kept as one
		"stray line\n" +
		"unit other.service signal 0\n"
	got := parseFailedUnits(strings.NewReader(out))
	want := map[string]string{
		"haproxy.service": "its start failed (result exit-code, exit status 1); its journal ends: Starting haproxy.service... | [ALERT] cannot bind socket",
		"bare.service":    "its start failed; its journal ends: ",
		"other.service":   "its start failed (result signal, exit status 0)",
	}
	if !maps.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := parseFailedUnits(strings.NewReader("line orphan\n")); len(got) != 0 {
		t.Errorf("a journal line without its unit: %q", got)
	}
}
