package detector

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// DefaultFilterPrefixes are the paths the detector ignores unless
// Options.NoDefaultFilters is set. Each entry filters itself and everything
// below it, by whole path components: /proc filters /proc/1, not /procx.
//
// The rule for an entry: only Puppet itself (or the kernel) touches it, so
// a conflict on it says nothing about the order of two resources. Module
// code under /etc/puppet/code (and /etc/puppetlabs/code) is NOT filtered:
// a resource that writes there (vcsrepo, r10k) really changes what later
// resources load. Debian-packaged modules under /usr/share/puppet are
// filtered: they are installed by dpkg, and reads of them are Puppet's
// autoloader working for whatever block is open.
//
// The Ruby load path is filtered because Puppet loads providers, types and
// the Ruby standard library lazily while a resource is evaluated, which
// charges those reads to that resource; a Package upgrading Ruby would then
// "conflict" with every later resource. The cost: an Exec running a Ruby
// script whose library a Package installs is missed (it is usually caught
// anyway by the script's interpreter or gem executable outside these trees).
var DefaultFilterPrefixes = []string{
	// Kernel and device trees.
	"/proc",
	"/sys",
	"/dev",
	// Puppet's run, state and log directories, Debian's package (vardir
	// /var/cache/puppet holds statedir, clientbucket, reports, client_data;
	// ssldir under /var/lib/puppet) and the original's Docker image.
	"/run/puppet",
	"/var/run/puppet",
	"/var/cache/puppet",
	"/var/lib/puppet",
	"/var/log/puppet",
	// Puppet's data and packaged modules (Debian).
	"/usr/share/puppet",
	// Puppet's Ruby load path (Debian: ruby -e 'puts $LOAD_PATH' starts
	// with the site_ruby directories under /usr/local).
	"/usr/local/lib/site_ruby",
	"/usr/local/lib/x86_64-linux-gnu/site_ruby",
	"/usr/local/lib/aarch64-linux-gnu/site_ruby",
	"/usr/lib/ruby",
	"/usr/share/ruby",
	"/usr/lib/x86_64-linux-gnu/ruby",
	"/usr/lib/aarch64-linux-gnu/ruby",
	"/var/lib/gems",
	"/usr/share/rubygems-integration",
	// puppet-agent AIO packages: vardir, bundled Ruby, vendored modules,
	// run and log directories.
	"/opt/puppetlabs/puppet/cache",
	"/opt/puppetlabs/puppet/lib",
	"/opt/puppetlabs/puppet/vendor_modules",
	"/opt/puppetlabs/puppet/public",
	"/var/run/puppetlabs",
	"/run/puppetlabs",
	"/var/log/puppetlabs",
	// The dynamic linker's cache: every exec reads it and every package
	// install with a library rewrites it (ldconfig trigger), which would pair
	// every Package with every later Exec. A program that really needs a
	// library from a package also reads the library or the program itself,
	// which are not filtered, so the real conflict is still found.
	"/etc/ld.so.cache",
}

// Filter decides which paths the detector ignores. Match is called once per
// distinct path, so it does one map lookup per path component and allocates
// nothing.
type Filter struct {
	prefixes map[string]struct{}
	all      bool // "/" was added: everything is filtered
	maxLen   int  // longest prefix: no need to look at longer components
}

// NewFilter returns a filter for the given prefixes (see AddPrefix).
func NewFilter(prefixes ...string) *Filter {
	f := &Filter{prefixes: make(map[string]struct{}, len(prefixes))}
	for _, p := range prefixes {
		f.AddPrefix(p)
	}
	return f
}

// AddPrefix filters p and every path below it. Trailing slashes are
// ignored; relative or empty prefixes are ignored (paths in a Result are
// absolute), so ParseFilters rejects them with an error instead.
func (f *Filter) AddPrefix(p string) {
	p = trimSlashes(p)
	if p == "" || p[0] != '/' {
		return
	}
	if p == "/" {
		f.all = true
		return
	}
	f.prefixes[p] = struct{}{}
	if len(p) > f.maxLen {
		f.maxLen = len(p)
	}
}

// Match reports whether path is filtered: it equals a prefix or lies below
// one.
func (f *Filter) Match(path string) bool {
	if f == nil {
		return false
	}
	if f.all {
		return true
	}
	if len(f.prefixes) == 0 {
		return false
	}
	// Try every leading run of components: "/a", "/a/b", … then the path.
	for i := 1; i < len(path) && i <= f.maxLen; i++ {
		if path[i] == '/' {
			if _, ok := f.prefixes[path[:i]]; ok {
				return true
			}
		}
	}
	if len(path) <= f.maxLen {
		_, ok := f.prefixes[path]
		return ok
	}
	return false
}

// trimSlashes drops trailing slashes (not spaces: a path may end in one).
func trimSlashes(p string) string {
	for len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	return p
}

// ParseFilters reads a filter file: one absolute path prefix per line;
// blank lines and lines starting with # are skipped, and so is anything
// after a " #". A relative path is an error naming the line.
func ParseFilters(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] != '/' {
			return nil, fmt.Errorf("line %d: filter %q is not an absolute path", n, line)
		}
		out = append(out, trimSlashes(line))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// LoadFilterFile reads a filter file (see ParseFilters).
func LoadFilterFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	prefixes, err := ParseFilters(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return prefixes, nil
}
