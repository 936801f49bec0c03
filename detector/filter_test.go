package detector

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFilterMatch(t *testing.T) {
	f := NewFilter("/proc", "/var/cache/puppet/", "/etc/ld.so.cache", "relative", "")
	cases := map[string]bool{
		"/proc":                          true,
		"/proc/1/status":                 true,
		"/procx":                         false,
		"/pro":                           false,
		"/var/cache/puppet":              true,
		"/var/cache/puppet/state/x.yaml": true,
		"/var/cache/puppetx":             false,
		"/var/cache":                     false,
		"/etc/ld.so.cache":               true,
		"/etc/ld.so.cache~":              false,
		"/etc/ld.so.conf":                false,
		"/relative":                      false,
		"/":                              false,
		"":                               false,
	}
	for path, want := range cases {
		if got := f.Match(path); got != want {
			t.Errorf("Match(%q) = %v, want %v", path, got, want)
		}
	}
	if f.Len() != 3 {
		t.Errorf("Len = %d: relative and empty prefixes must be ignored", f.Len())
	}
	var nilFilter *Filter
	if nilFilter.Match("/proc") {
		t.Error("nil filter matched")
	}
	if !NewFilter("/").Match("/anything") {
		t.Error("/ must filter everything")
	}
}

func TestDefaultFilters(t *testing.T) {
	f := NewFilterFor(Options{})
	filtered := []string{"/proc/self/maps", "/sys/fs/cgroup", "/dev/null", "/run/puppet/x.pid",
		"/var/cache/puppet/state/state.yaml", "/var/cache/puppet/clientbucket/a/b",
		"/var/cache/puppet/reports/host/1.yaml", "/var/lib/puppet/ssl/certs/ca.pem",
		"/usr/lib/ruby/vendor_ruby/puppet/type/file.rb", "/usr/lib/x86_64-linux-gnu/ruby/3.1.0/etc.so",
		"/usr/share/puppet/modules/stdlib/lib/puppet/functions/x.rb",
		"/opt/puppetlabs/puppet/cache/state/last_run_summary.yaml", "/etc/ld.so.cache"}
	kept := []string{"/etc/puppet/code/environments/production/modules/m/files/a",
		"/etc/x", "/var/cache/apt/pkgcache.bin", "/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/share/doc/x", "/device", "/tmp/x", "/etc/ld.so.conf.d/x.conf"}
	for _, p := range filtered {
		if !f.Match(p) {
			t.Errorf("%s not filtered by default", p)
		}
	}
	for _, p := range kept {
		if f.Match(p) {
			t.Errorf("%s filtered by default", p)
		}
	}
	if NewFilterFor(Options{NoDefaultFilters: true}).Match("/proc/1") {
		t.Error("NoDefaultFilters still filters /proc")
	}
}

func TestParseFilters(t *testing.T) {
	got, err := ParseFilters(strings.NewReader("# Puppet cache\n/srv/cache/ # trailing comment\n\n  /opt/x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "/srv/cache,/opt/x" {
		t.Errorf("got %q", got)
	}
	_, err = ParseFilters(strings.NewReader("/ok\nnot/absolute\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v, want one naming line 2", err)
	}
}

func TestLoadFilterFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "filters")
	os.WriteFile(name, []byte("/srv/a\n"), 0o644)
	got, err := LoadFilterFile(name)
	if err != nil || len(got) != 1 || got[0] != "/srv/a" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := LoadFilterFile(name + ".missing"); err == nil {
		t.Error("missing file gave no error")
	}
}

// BenchmarkFilterMatch measures the default filter on a mix of filtered
// and kept paths, the per-path cost in Detect.
func BenchmarkFilterMatch(b *testing.B) {
	f := NewFilterFor(Options{})
	paths := []string{
		"/usr/lib/ruby/vendor_ruby/puppet/provider/package/apt.rb",
		"/etc/puppet/code/environments/production/modules/nginx/templates/site.conf.erb",
		"/proc/12345/status",
		"/usr/lib/x86_64-linux-gnu/libssl.so.3",
		"/var/lib/dpkg/info/nginx-common.list",
		"/etc/nginx/sites-enabled/default",
	}
	b.ReportAllocs()
	n := 0
	for i := 0; b.Loop(); i++ {
		if f.Match(paths[i%len(paths)]) {
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/path")
	_ = fmt.Sprint(n)
}

// Len is the number of prefixes.
func (f *Filter) Len() int {
	n := len(f.prefixes)
	if f.all {
		n++
	}
	return n
}
