package corpus

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// TestForgeCorpus reads a saved page of the Forge's module list (written
// for the test in the API's shape): the current releases, pinned, sorted;
// deprecated, release-less and repeated modules counted and left out; the
// corpus it makes parses back to the same modules.
func TestForgeCorpus(t *testing.T) {
	f, err := os.Open("testdata/forge-page.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, counts, err := ForgeCorpus(map[string]io.Reader{"forge-page.json": f})
	if err != nil {
		t.Fatal(err)
	}
	var specs []string
	for _, e := range entries {
		specs = append(specs, e.Spec)
	}
	if got := strings.Join(specs, " "); got != "puppetlabs-ntp@10.1.0 puppetlabs-stdlib@9.6.0" {
		t.Errorf("entries %q", got)
	}
	if counts != (ForgeCounts{Kept: 2, Deprecated: 1, NoRelease: 2, Duplicate: 1}) {
		t.Errorf("counts %+v", counts)
	}
	var text bytes.Buffer
	if err := Format(&text, []string{counts.String()}, entries); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(&text, "/")
	if err != nil || len(back) != 2 || back[1].Module.Version != "9.6.0" || back[1].Key != entries[1].Key {
		t.Errorf("the corpus does not parse back: %v, %+v\n%s", err, back, text.String())
	}
	if _, _, err := ForgeCorpus(map[string]io.Reader{"bad.json": strings.NewReader("<html>")}); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("a page that is not JSON: %v", err)
	}
}
