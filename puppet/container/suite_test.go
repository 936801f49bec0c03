package container

import (
	"slices"
	"strings"
	"testing"
)

// The bookworm image that everyone runs now is labelled with this digest:
// a change to its recipe (packages, build steps) rebuilds it on every
// machine, so it must be a deliberate one that updates this test.
const bookwormRecipe = "cf6df51a2c4484ea"

func TestBookwormRecipeKept(t *testing.T) {
	if got := (ImageOptions{}).Recipe(); got != bookwormRecipe {
		t.Errorf("the default (bookworm) recipe is %s, the built images' is %s", got, bookwormRecipe)
	}
	if got := (ImageOptions{Suite: "bookworm", Tag: DefaultImage}).Recipe(); got != bookwormRecipe {
		t.Errorf("an explicit bookworm recipe is %s, want %s", got, bookwormRecipe)
	}
}

func TestSuites(t *testing.T) {
	if DefaultImage != "fsmove/puppet:bookworm" {
		t.Errorf("DefaultImage = %s", DefaultImage)
	}
	for _, s := range Suites {
		got, err := LookupSuite(s.Name)
		if err != nil || got.Name != s.Name {
			t.Errorf("LookupSuite(%s) = %+v, %v", s.Name, got, err)
		}
		// What the apply needs is in every suite's image.
		for _, p := range []string{"puppet-agent", "strace", "procps", "systemd", "systemd-sysv"} {
			if !slices.Contains(s.Packages, p) {
				t.Errorf("suite %s lacks %s", s.Name, p)
			}
		}
		o := ImageOptions{Suite: s.Name}
		if o.ImageTag() != "fsmove/puppet:"+s.Name {
			t.Errorf("suite %s: tag %s", s.Name, o.ImageTag())
		}
		if df := Dockerfile(o); !strings.HasPrefix(df, "FROM debian:"+s.Name+"\n") || !strings.Contains(df, strings.Join(s.Packages, " ")) {
			t.Errorf("suite %s: Dockerfile\n%s", s.Name, df)
		}
	}
	if (ImageOptions{Suite: "trixie", Tag: "x/y:z"}).ImageTag() != "x/y:z" {
		t.Error("an explicit tag was not kept")
	}
	if _, err := LookupSuite("sid"); err == nil || !strings.Contains(err.Error(), "bookworm, trixie") {
		t.Errorf("unknown suite: %v", err)
	}
	// The Puppet a module's metadata.json requirements are checked against.
	for name, major := range map[string]string{"bookworm": "7", "trixie": "8"} {
		if s, _ := LookupSuite(name); s.PuppetMajor() != major || !strings.HasPrefix(s.Puppet, major+".") {
			t.Errorf("suite %s: Puppet %q, major %q; want %s", name, s.Puppet, s.PuppetMajor(), major)
		}
	}
	if (ImageOptions{Suite: "trixie"}).Recipe() == bookwormRecipe {
		t.Error("trixie has bookworm's recipe")
	}
}

func TestSuiteMirror(t *testing.T) {
	// A bookworm host names only its own suites; trixie is served by the
	// same mirror.
	dir := writeSources(t, map[string]string{
		"sources.list.d/other.list":     "deb http://127.0.0.9/node nodistro main\n",
		"sources.list.d/debian.sources": "Types: deb\nURIs: http://127.0.0.3/debian\nSuites: bookworm bookworm-updates\nComponents: main\n",
	})
	for _, suite := range []string{"bookworm", "trixie"} {
		if m, err := SuiteMirror(dir, suite); err != nil || m != "http://127.0.0.3/debian" {
			t.Errorf("%s: %q, %v", suite, m, err)
		}
	}
	// A suite of its own wins over another suite's mirror.
	dir = writeSources(t, map[string]string{"sources.list": "deb http://127.0.0.3/debian bookworm main\ndeb http://127.0.0.4/debian trixie main\n"})
	if m, err := SuiteMirror(dir, "trixie"); err != nil || m != "http://127.0.0.4/debian" {
		t.Errorf("trixie with its own source: %q, %v", m, err)
	}
	// No Debian suite at all: the error names the suite asked for.
	dir = writeSources(t, map[string]string{"sources.list": "deb http://127.0.0.9/node nodistro main\n"})
	if _, err := SuiteMirror(dir, "trixie"); err == nil || !strings.Contains(err.Error(), "trixie") {
		t.Errorf("no Debian source: %v", err)
	}
}
