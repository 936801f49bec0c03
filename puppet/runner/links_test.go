package runner

import (
	"maps"
	"strings"
	"testing"
)

func TestParseRunLinks(t *testing.T) {
	out := "/bin\tusr/bin\n" + // merged /usr: not kept (links.go says why)
		"/lib\tusr/lib\n" +
		"/var/run\t/run\n" +
		"/var/lock\t../run/lock\n" + // relative, into /run
		"/var/spool\t../runner\n" + // /runner is not /run
		"/var/x\t/run/../etc\n" + // resolves out of /run
		"no tab\n" +
		"relative\t/run\n"
	want := map[string]string{"/var/run": "/run", "/var/lock": "../run/lock"}
	if got := parseRunLinks(strings.NewReader(out)); !maps.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
