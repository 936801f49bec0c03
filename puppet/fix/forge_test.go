package fix

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/container/containertest"
)

// forgeDir holds manifests of real Forge modules, each beside what
// Puppet's parser says of it (testdata/forge/README.md).
var forgeDir = filepath.Join("testdata", "forge")

// forgeTexts are the .pp files under forgeDir, by path.
func forgeTexts(t *testing.T) map[string][]byte {
	t.Helper()
	texts := map[string][]byte{}
	err := filepath.WalkDir(forgeDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".pp") {
			texts[p], err = os.ReadFile(p)
		}
		return err
	})
	if err != nil || len(texts) == 0 {
		t.Fatalf("%s: %d manifests, %v", forgeDir, len(texts), err)
	}
	return texts
}

// forgeSources are the Forge manifests with their saved parser answers.
func forgeSources(t *testing.T) map[string]*Source {
	t.Helper()
	sources := map[string]*Source{}
	for p, text := range forgeTexts(t) {
		data, err := os.ReadFile(strings.TrimSuffix(p, ".pp") + ".json")
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseManifests([]byte(`{"files":[` + string(data) + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		m.Files[0].Path = p
		sources[p] = &Source{Text: text, Manifest: &m.Files[0]}
	}
	return sources
}

// TestLocateForge keeps each Forge manifest's .json equal to what the
// Puppet of fsmove's image says of it (-update rewrites them).
func TestLocateForge(t *testing.T) {
	eng := containertest.Engine(t)
	texts := forgeTexts(t)
	got, err := Locate(context.Background(), eng, container.DefaultImage, texts)
	if err != nil {
		t.Fatal(err)
	}
	for p, m := range got {
		if m.Error != "" || len(m.Resources) == 0 {
			t.Errorf("%s: Puppet's parser: %q, %d resources", p, m.Error, len(m.Resources))
		}
		m.Path = ""
		data, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, '\n')
		golden := strings.TrimSuffix(p, ".pp") + ".json"
		if *update {
			if err := os.WriteFile(golden, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(data, want) {
			t.Errorf("%s: Puppet's parser no longer says what %s holds (-update) (%v)", p, golden, err)
		}
	}
}

// forgeCase is a target in a Forge manifest and what its edit must do:
// want are runs of whole lines the edited file holds, keep runs it still
// holds (a near miss: another body that must not change), note a part of
// the plan's note.
type forgeCase struct {
	name    string
	target  Target
	file    string // the edited file, under forgeDir
	want    []string
	keep    []string
	note    string
	skipped string
}

func forgeRes(typ, title, file string, line int) *catalog.Resource {
	return &catalog.Resource{Type: typ, Title: title, File: filepath.Join(forgeDir, file), Line: line}
}

var (
	ntpConfig      = filepath.Join("puppetlabs-ntp", "manifests", "config.pp")
	mysqlServer    = filepath.Join("puppetlabs-mysql", "manifests", "server.pp")
	mysqlConfig    = filepath.Join("puppetlabs-mysql", "manifests", "server", "config.pp")
	mysqlInstalldb = filepath.Join("puppetlabs-mysql", "manifests", "server", "installdb.pp")
	mysqlService   = filepath.Join("puppetlabs-mysql", "manifests", "server", "service.pp")
	nginxServer    = filepath.Join("voxpupuli-nginx", "manifests", "resource", "server.pp")
)

var forgeCases = []forgeCase{
	// Three file_line bodies share a title in three branches of a case:
	// the catalog's line picks the Ubuntu one, realigned for require; the
	// Red Hat one is left as it was.
	{name: "one of three bodies with one title", file: ntpConfig,
		target: Target{Number: 1, Kind: "MOR", Producer: out("Package", "ntp"), Consumer: forgeRes("File_line", "Set NTPD daemon user", ntpConfig, 40)},
		want: []string{
			"          file_line { 'Set NTPD daemon user':\n",
			"            ensure  => present,\n            path    => '/usr/lib/ntp/ntp-systemd-wrapper',\n            line    => \"RUNASUSER=${ntp::user}\",\n            match   => '^RUNASUSER\\=',\n            require => Package['ntp'],\n          }\n"},
		keep: []string{"        file_line { 'Set NTPD daemon user':\n          ensure => present,\n          path   => '/etc/systemd/system/multi-user.target.wants/ntpd.service',\n"}},
	// A title from a variable, in a class: the body at the catalog's line
	// notifies the service, named by its catalog title.
	{name: "a title from a variable in a class", file: ntpConfig,
		target: Target{Number: 1, Kind: "MN", Producer: forgeRes("File", "/etc/ntp.conf", ntpConfig, 107), Consumer: out("Service", "ntp")},
		want:   []string{"  file { $ntp::config:\n    ensure  => file,\n    owner   => 0,\n    group   => 0,\n    mode    => $ntp::config_file_mode,\n    content => $config_content,\n    notify  => Service['ntp'],\n  }\n"}},
	// A chain of classes written over several lines: the arrow between
	// installdb and service becomes ~>, the others stay.
	{name: "one arrow of a long chain of classes", file: mysqlServer,
		target: Target{Number: 1, Kind: "MN", Producer: forgeRes("File", "/var/log/mysql", mysqlInstalldb, 34), Consumer: forgeRes("Service", "mysqld", mysqlService, 27)},
		want:   []string{"  -> Class['mysql::server::installdb']\n  ~> Class['mysql::server::service']\n  -> Class['mysql::server::root_password']\n"},
		keep:   []string{"  -> Class['mysql::server::config']\n  -> Class['mysql::server::install']\n"}},
	// An exec in a lambda (one body, a title from a variable) that already
	// notifies another: require is added in the body's alignment.
	{name: "a body in a lambda", file: mysqlConfig,
		target: Target{Number: 1, Kind: "MOR", Producer: out("Package", "mysql-server"), Consumer: forgeRes("Exec", "datadir-managed_dir-mkdir", mysqlConfig, 47)},
		want:   []string{"              unless  => [['/usr/bin/dpkg', '-s', $clean_package_name]],\n              notify  => Exec[\"${entry}-managed_dir-chmod\"],\n              require => Package['mysql-server'],\n            }\n"}},
	// A defined type's body with a computed title and a notify already:
	// the service joins its notify, for every instance (said).
	{name: "a defined type's body with a notify", file: nginxServer,
		target: Target{Number: 1, Kind: "MN", Producer: forgeRes("File", "www.example.com.conf symlink", nginxServer, 635), Consumer: out("Service", "nginx")},
		want:   []string{"      notify  => [Class['nginx::service'], Service['nginx']],\n    }\n"},
		note:   "defined type nginx::resource::server"},
	// Resource defaults (File { … }) are not a declaration: the line of
	// one is no place for an edit.
	{name: "resource defaults are no declaration", file: mysqlConfig,
		target:  Target{Number: 1, Kind: "MOR", Producer: out("Package", "mysql-server"), Consumer: forgeRes("File", "/etc/mysql", mysqlConfig, 11)},
		skipped: "no declaration of File[/etc/mysql]"},
}

// TestForgeEdits: each edit lands in the right body of a real module's
// manifest, in that body's own style, and changes nothing else.
func TestForgeEdits(t *testing.T) {
	for _, c := range forgeCases {
		sources := forgeSources(t)
		p := Make([]Target{c.target}, sources)
		if c.skipped != "" {
			if len(p.Edits) != 0 || len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Why, c.skipped) {
				t.Errorf("%s: want no edit, skipped for %q; got %+v", c.name, c.skipped, p)
			}
			continue
		}
		if len(p.Skipped) != 0 || len(p.Edits) == 0 {
			t.Errorf("%s: no edit: %+v", c.name, p.Skipped)
			continue
		}
		edited, err := Apply(p.Edits, sources)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		file := filepath.Join(forgeDir, c.file)
		if len(edited) != 1 || edited[file] == nil {
			t.Errorf("%s: edited %d files, want only %s", c.name, len(edited), file)
			continue
		}
		old, text := string(sources[file].Text), string(edited[file])
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the edited file lacks\n%s\ngot the diff\n%s", c.name, w, Diff(sources, edited, func(f string) string { return f }))
			}
		}
		for _, k := range c.keep {
			if !strings.Contains(old, k) || !strings.Contains(text, k) {
				t.Errorf("%s: the edit changed another body:\n%s", c.name, k)
			}
		}
		if !onlyAdds(old, text, nil) && c.target.Kind == "MOR" {
			t.Errorf("%s: an MOR's edit removed text", c.name)
		}
		if got := strings.Join(p.Notes, "; "); c.note != "" && !strings.Contains(got, c.note) || c.note == "" && got != "" {
			t.Errorf("%s: notes %q, want one with %q", c.name, got, c.note)
		}
	}
}
