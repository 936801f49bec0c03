package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTimeoutAndDeps(t *testing.T) {
	entries, err := Parse(strings.NewReader("deb:puppet-module-nova timeout=20m deps=puppet-module-puppetlabs-vcsrepo,python3-pymysql param.nova::db::x=1\n"), ".")
	if err != nil {
		t.Fatal(err)
	}
	e := entries[0]
	if e.Timeout != 20*time.Minute || strings.Join(e.Deps, " ") != "puppet-module-puppetlabs-vcsrepo python3-pymysql" {
		t.Fatalf("timeout %v deps %q", e.Timeout, e.Deps)
	}
	re := e.RunnerEntry()
	if len(re.Setup) != 1 || re.Setup[0].Command != "apt-get install -y --no-install-recommends puppet-module-puppetlabs-vcsrepo python3-pymysql" {
		t.Errorf("setup = %+v", re.Setup)
	}
	if len(Entry{}.RunnerEntry().Setup) != 0 {
		t.Error("an entry without deps has a setup step")
	}
	// Format writes them back, and they read the same.
	var buf bytes.Buffer
	if err := Format(&buf, nil, entries); err != nil {
		t.Fatal(err)
	}
	again, err := Parse(&buf, ".")
	if err != nil {
		t.Fatalf("%v in %q", err, buf.String())
	}
	if again[0].Timeout != e.Timeout || strings.Join(again[0].Deps, ",") != strings.Join(e.Deps, ",") || len(again[0].Params) != 1 {
		t.Errorf("round trip: %+v", again[0])
	}
	for _, bad := range []string{"timeout=0s", "timeout=soon", "timeout=-1m", "deps=a", "deps=Foo", "deps=x;rm", "deps=a,,b", "deps=ok-pkg,$(x)"} {
		if _, err := Parse(strings.NewReader("deb:puppet-module-nova "+bad+"\n"), "."); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestOverride(t *testing.T) {
	entries, err := Parse(strings.NewReader("deb:puppet-module-nova version=1\ndeb:puppet-module-heini-wait-for module=wait_for\ndeb:puppet-module-ceph\n"), ".")
	if err != nil {
		t.Fatal(err)
	}
	params, err := Parse(strings.NewReader("deb:puppet-module-ceph param.fsid=abc timeout=5m\ndeb:puppet-module-nova class=nova::compute\ndeb:puppet-module-gone param.x=1\n"), ".")
	if err != nil {
		t.Fatal(err)
	}
	unused := Override(entries, params)
	if strings.Join(unused, " ") != "deb:puppet-module-gone" {
		t.Errorf("unused = %q", unused)
	}
	nova, wait, ceph := entries[0], entries[1], entries[2]
	if nova.Class != "nova::compute" || nova.Key != "puppet-module-nova+nova__compute" || nova.Version != "1" {
		t.Errorf("nova = %+v", nova)
	}
	if wait.Module.Name != "wait_for" || wait.Class != "" || wait.Key != "puppet-module-heini-wait-for" {
		t.Errorf("an entry the file does not name changed: %+v", wait)
	}
	if len(ceph.Params) != 1 || ceph.Params[0].Key != "fsid" || ceph.Timeout != 5*time.Minute || ceph.Key != "puppet-module-ceph" {
		t.Errorf("ceph = %+v", ceph)
	}
}

// The committed parameters file parses, and names each module once.
func TestDebianParams(t *testing.T) {
	params, err := DebianParamsEntries()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range params {
		if !strings.HasPrefix(p.Spec, "deb:puppet-module-") {
			t.Errorf("line %d: %s is not a Debian module", p.Line, p.Spec)
		}
	}
	// Each entry has a comment saying where its values come from: on
	// its line or on the line above.
	lines := strings.Split(DebianParams, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "deb:") && !strings.Contains(line, " # ") && (i == 0 || !strings.HasPrefix(lines[i-1], "#")) {
			t.Errorf("line %d has no comment: %s", i+1, line)
		}
	}
	if len(params) == 0 {
		t.Error("the parameters file is empty")
	}
}

func TestReadHeader(t *testing.T) {
	p := filepath.Join(t.TempDir(), "corpus.txt")
	os.WriteFile(p, []byte("# one\n#two\n# skipped x: y\ndeb:puppet-module-nova\n# not header\n"), 0o644)
	h, err := ReadHeader(p)
	if err != nil || strings.Join(h, "|") != "one|two|skipped x: y" {
		t.Errorf("header = %q, %v", h, err)
	}
}
