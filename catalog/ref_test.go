package catalog

import (
	"strings"
	"testing"
)

// The cases of the three parsers ParseRef replaced (catalog.ParseRef,
// puppet.SplitRef, detector.cutRef) are here, marked where the answer
// changed.
func TestParseRef(t *testing.T) {
	cases := []struct {
		in, typ, title string
		ok             bool
	}{
		{"File[/etc/x]", "File", "/etc/x", true},
		{"Notify[a [b]]", "Notify", "a [b]", true},
		{"Exec[echo a: b]", "Exec", "echo a: b", true},
		{" Apt::Source[local repo bookworm] ", "Apt::Source", "local repo bookworm", true},
		{"Apache::Vhost[default]", "Apache::Vhost", "default", true},
		{"Class[::Foo]", "Class", "::Foo", true},
		{"Class[Main]", "Class", "Main", true},
		{"::Foo::Bar[x]", "Foo::Bar", "x", true}, // was "::Foo::Bar": the type is canonical now
		{"File[x]]", "File", "x]", true},
		{"File [x]", "File", "x", true},
		// Types are case-insensitive and come out capitalised per segment.
		{"file[/etc/x]", "File", "/etc/x", true},
		{"exec[x]", "Exec", "x", true}, // SplitRef refused lower case
		{"SERVICE[ntp]", "Service", "ntp", true},
		{"foo::bar_baz[x]", "Foo::Bar_baz", "x", true},
		// Titles are literal: quotes stay.
		{"File['/etc/x']", "File", "'/etc/x'", true},
		{"File", "", "", false},
		{"File[]", "", "", false},
		{"Exec[]", "", "", false}, // SplitRef accepted it; Puppet refuses empty titles
		{"File[x", "", "", false},
		{"Exec[", "", "", false},
		{"[x]", "", "", false},
		{"Exec]x[", "", "", false},
		{"Exec[x]y", "", "", false},
		{"Fi le[x]", "", "", false},
		{"Foo::[x]", "", "", false},
		{"A::[x]", "", "", false},
		{"::[x]", "", "", false},
		{"Fo-o[x]", "", "", false},
		{"", "", "", false},
	}
	for _, tc := range cases {
		r, err := ParseRef(tc.in)
		if (err == nil) != tc.ok || r.Type != tc.typ || r.Title != tc.title {
			t.Errorf("ParseRef(%q) = %+v, %v; want %q, %q, ok %v", tc.in, r, err, tc.typ, tc.title, tc.ok)
		}
		if err == nil && r.String() != tc.typ+"["+tc.title+"]" {
			t.Errorf("ParseRef(%q).String() = %q", tc.in, r.String())
		}
	}
}

func TestCutRef(t *testing.T) {
	cases := []struct {
		in, typ, title, rest string
		err                  string // "" when it parses; else a part of the message
	}{
		{"File[/etc/x] Exec[y] -- why", "File", "/etc/x", " Exec[y] -- why", ""},
		{"  Exec[use-conf]", "Exec", "use-conf", "", ""},
		{"Exec[echo [a] b] Notify[x]", "Exec", "echo [a] b", " Notify[x]", ""},
		{"Notify[hi there]\tx", "Notify", "hi there", "\tx", ""},
		{"apt::source[main] x", "Apt::Source", "main", " x", ""},
		// Quoted titles, as fixes print them: quotes removed, \ escapes.
		{"File['/etc/q'] x", "File", "/etc/q", " x", ""},
		{`Service["x"]`, "Service", "x", "", ""},
		{`Exec['echo \'hi\' \\ x'] y`, "Exec", `echo 'hi' \ x`, " y", ""},
		{"File['a]'] x", "File", "a]", " x", ""}, // cutRef counted the bracket inside the quotes
		{`Exec["a\b"]`, "Exec", `a\b`, "", ""},
		// A leading quote that does not close before "]" is literal text.
		{"Exec['a b] c", "Exec", "'a b", " c", ""},
		{"Exec['a' b] c", "Exec", "'a' b", " c", ""},
		{"File[/a Exec[b] -- why", "", "", "", "unbalanced"},
		{"File[/a]x Exec[b]", "", "", "", "unexpected 'x'"},
		{"hello world -- why", "", "", "", "expected Type[title]"},
		{"[x] y", "", "", "", "expected Type[title]"},
		{"File[] y", "", "", "", "empty title"},
		{"File[''] y", "", "", "", "empty title"},
		{"Fi-le[x] y", "", "", "", "bad type name"},
		{"", "", "", "", "expected Type[title]"},
	}
	for _, tc := range cases {
		r, rest, err := CutRef(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("CutRef(%q) = %+v, %q, %v; want an error with %q", tc.in, r, rest, err, tc.err)
			}
			continue
		}
		if err != nil || r.Type != tc.typ || r.Title != tc.title || rest != tc.rest {
			t.Errorf("CutRef(%q) = %+v, %q, %v; want %q, %q, rest %q", tc.in, r, rest, err, tc.typ, tc.title, tc.rest)
		}
	}
}

// FuzzRefs checks that the two readers agree where both apply: a reference
// that CutRef reads whole with an unquoted title is what ParseRef reads,
// and what either reads writes back (String) as a reference ParseRef reads
// the same.
func FuzzRefs(f *testing.F) {
	for _, s := range []string{"File[/etc/x]", "Notify[a [b]]", "apt::source[x y]", "File['q']", "A[]]", "::b[c] d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if r, rest, err := CutRef(s); err == nil {
			if back, err := ParseRef(r.String()); err != nil || back != r {
				t.Fatalf("CutRef(%q) = %+v, which writes as %q, read back as %+v, %v", s, r, r.String(), back, err)
			}
			if rest == "" && !strings.ContainsAny(s, `'"`) {
				if p, err := ParseRef(s); err != nil || p != r {
					t.Fatalf("CutRef(%q) = %+v, ParseRef = %+v, %v", s, r, p, err)
				}
			}
		}
		if r, err := ParseRef(s); err == nil {
			if back, err := ParseRef(r.String()); err != nil || back != r {
				t.Fatalf("ParseRef(%q) = %+v, which writes as %q, read back as %+v, %v", s, r, r.String(), back, err)
			}
		}
	})
}

func TestCanonicalType(t *testing.T) {
	cases := map[string]string{
		"file": "File", "File": "File", "FILE": "File", "Foo::bar": "Foo::Bar",
		"::apt::SOURCE": "Apt::Source", "concat_file": "Concat_file", "a1::b_C": "A1::B_c",
	}
	for in, want := range cases {
		if got := CanonicalType(in); got != want {
			t.Errorf("CanonicalType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTypeNameLen(t *testing.T) {
	cases := map[string]int{
		"File[x]": 4, "Foo::Bar[x]": 8, "Foo::[x]": 3, "::Foo[x]": 5, "::[x]": 0, "[x]": 0,
		"Foo::": 3, "": 0, "a_1::b2 rest": 7, "Foo:Bar": 3,
	}
	for in, want := range cases {
		if got := TypeNameLen(in); got != want {
			t.Errorf("TypeNameLen(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestRefIs(t *testing.T) {
	r := Ref{Type: "File", Title: "/x"}
	if !r.Is(TypeFile) || !r.Is("file") || r.Is(TypeFilebucket) || r.Is("Fil") {
		t.Errorf("Ref.Is answers wrong for %v", r)
	}
}

// TestRefIsPuppetDefault: the resources Puppet adds at apply time, and
// their near misses, which a catalog may hold.
func TestRefIsPuppetDefault(t *testing.T) {
	for _, c := range []struct {
		ref  Ref
		want bool
	}{
		{Ref{Type: "Schedule", Title: "daily"}, true},
		{Ref{Type: "schedule", Title: "puppet"}, true},
		{Ref{Type: "Filebucket", Title: "puppet"}, true},
		{Ref{Type: "Filebucket", Title: "main"}, false},
		{Ref{Type: "Filebucket", Title: "Puppet"}, false},
		{Ref{Type: "File", Title: "puppet"}, false},
		{Ref{Type: "Schedules", Title: "daily"}, false},
	} {
		if got := c.ref.IsPuppetDefault(); got != c.want {
			t.Errorf("%v.IsPuppetDefault() = %v, want %v", c.ref, got, c.want)
		}
	}
}
