package detector

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestParseSuppression(t *testing.T) {
	cases := []struct {
		line   string
		ok     bool
		kinds  KindSet
		reason string
	}{
		{"# fsmove:ignore MOR the exec only reads it once", true, KindSet(0).Add(MOR), "the exec only reads it once"},
		{"  # fsmove:ignore MN -- the service rereads it", true, KindSet(0).Add(MN), "the service rereads it"},
		{"# fsmove:ignore mor,mn -- both", true, KindSet(0).Add(MOR).Add(MN), "both"},
		{"# fsmove:ignore NI -- runs on purpose every time", true, KindSet(0).Add(NI), "runs on purpose every time"},
		{"# fsmove:ignore -- any kind", true, 0, "any kind"},
		{"# fsmove:ignore generated at build time", true, 0, "generated at build time"},
		{"# fsmove:ignore", true, 0, ""},
		{"# fsmove:ignore MOR", true, KindSet(0).Add(MOR), ""},
		{"# fsmove:ignore MOR --", true, KindSet(0).Add(MOR), ""},
		{"file { '/etc/x': # fsmove:ignore MOR trailing", true, KindSet(0).Add(MOR), "trailing"},
		{"##fsmove:ignore MN doubled hash", true, KindSet(0).Add(MN), "doubled hash"},
		{"# fsmove:ignored MOR not the marker", false, 0, ""},
		{"# see fsmove:ignore elsewhere", false, 0, ""},
		{"file { '/etc/#x': ensure => file }", false, 0, ""},
		{`exec { "echo \"# fsmove:ignore MOR x\"": }`, false, 0, ""},
		{`exec { 'it''s': } # fsmove:ignore MOR after a quote`, true, KindSet(0).Add(MOR), "after a quote"},
		{"", false, 0, ""},
	}
	for _, c := range cases {
		s, ok := ParseSuppression(c.line)
		if ok != c.ok || s.Kinds != c.kinds || s.Reason != c.reason {
			t.Errorf("%q: got %+v ok=%v, want kinds %v reason %q ok=%v", c.line, s, ok, c.kinds, c.reason, c.ok)
		}
	}
}

// manifests is a fake file system for InlineWaivers.
type manifests map[string]string

func (m manifests) read(name string) ([]byte, error) {
	if s, ok := m[name]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

// threePairs declares three File/Exec pairs, each unordered, at the lines
// threePairsManifest has them.
func threePairs() *fakeGraph {
	g := newFake()
	g.Add("File[/etc/a]", "site.pp", 3)
	g.Add("Exec[use-a]", "site.pp", 4)
	g.Add("File[/etc/b]", "site.pp", 7)
	g.Add("Exec[use-b]", "site.pp", 8)
	g.Add("File[/etc/c]", "site.pp", 9)
	g.Add("Exec[use-c]", "site.pp", 10)
	return g
}

const threePairsManifest = `# a: suppressed with a reason
# fsmove:ignore MOR written once at install
file { '/etc/a': ensure => file }
exec { 'use-a': command => '/bin/cat /etc/a' }

# b: nothing says anything
file { '/etc/b': ensure => file }
exec { 'use-b': command => '/bin/cat /etc/b' }
file { '/etc/c': ensure => file } # fsmove:ignore
exec { 'use-c': command => '/bin/cat /etc/c' } # fsmove:ignore MN -- an MN comment does not cover an MOR
`

func TestInlineSuppression(t *testing.T) {
	g := threePairs()
	res := result(
		p("/etc/a", a("File[/etc/a]", "p", 10), a("Exec[use-a]", "c", 11)),
		p("/etc/b", a("File[/etc/b]", "p", 12), a("Exec[use-b]", "c", 13)),
		p("/etc/c", a("File[/etc/c]", "p", 14), a("Exec[use-c]", "c", 15)),
	)
	rep := Detect(res, g, Options{ReadManifest: manifests{"site.pp": threePairsManifest}.read})
	expect(t, rep,
		"MOR File[/etc/a]->Exec[use-a] /etc/a waived(written once at install)",
		"MOR File[/etc/b]->Exec[use-b] /etc/b",
		"MOR File[/etc/c]->Exec[use-c] /etc/c",
	)
	a := &rep.Findings[0]
	if !a.Suppressed || a.WaiverSource != "site.pp:2" {
		t.Errorf("a: suppressed %v at %q, want true at site.pp:2", a.Suppressed, a.WaiverSource)
	}
	if rep.Faults() != 2 || rep.Stats.Suppressed != 1 || rep.Stats.Waived != 1 || len(rep.UnusedWaivers) != 0 {
		t.Errorf("faults %d, suppressed %d, waived %d, unused %v", rep.Faults(), rep.Stats.Suppressed, rep.Stats.Waived, rep.UnusedWaivers)
	}
	// The reasonless comment on File[/etc/c] is a warning naming its line.
	var warned bool
	for _, w := range rep.Warnings {
		if strings.Contains(w.Kind, "without a reason") && w.Count == 1 && w.Example == "site.pp:9" {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning for the comment without a reason: %+v", rep.Warnings)
	}

	// Without a reader, nothing is suppressed.
	rep = Detect(res, g, Options{})
	if rep.Faults() != 3 {
		t.Errorf("without ReadManifest: %d faults, want 3", rep.Faults())
	}

}

func TestInlineSuppressionKindAndUnreadable(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/x]", "gone.pp", 2)
	g.Add("Service[svc]", "svc.pp", 2)
	res := result(p("/etc/x", a("File[/etc/x]", "p", 10), a("Service[svc]", "c", 11)))
	read := manifests{"svc.pp": "# fsmove:ignore MOR -- only MOR\nservice { 'svc': }\n"}.read
	if rep := Detect(res, g, Options{ReadManifest: read}); rep.Faults() != 1 {
		t.Errorf("an MOR comment suppressed an MN: %d faults", rep.Faults())
	}
	read = manifests{"svc.pp": "# fsmove:ignore MN -- reloads itself\nservice { 'svc': }\n"}.read
	rep := Detect(res, g, Options{ReadManifest: read})
	if rep.Faults() != 0 || !rep.Findings[0].Suppressed {
		t.Errorf("an MN comment on the Service did not suppress the MN: %+v", rep.Findings)
	}
	// A reader that fails (gone.pp) is not an error.
	failing := func(string) ([]byte, error) { return nil, errors.New("boom") }
	if rep := Detect(res, g, Options{ReadManifest: failing}); rep.Faults() != 1 {
		t.Errorf("failing reader: %d faults", rep.Faults())
	}
}

func FuzzParseSuppression(f *testing.F) {
	for _, s := range []string{"# fsmove:ignore MOR why", "x # fsmove:ignore MN -- why", "'#' # fsmove:ignore", `"\"#`, "# fsmove:ignore ,", "# fsmove:ignore MOR,,MN x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		s, ok := ParseSuppression(line)
		if !ok && (s.Reason != "" || s.Kinds != 0) {
			t.Fatalf("not a suppression, yet %+v", s)
		}
		if ok && !strings.Contains(line, suppressMarker) {
			t.Fatalf("%q has no marker, yet parsed", line)
		}
		if s.Reason != strings.TrimSpace(s.Reason) {
			t.Fatalf("reason %q not trimmed", s.Reason)
		}
	})
}
