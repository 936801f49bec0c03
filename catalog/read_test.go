package catalog

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestReadForms(t *testing.T) {
	for _, name := range []string{"app.json", "app-find.txt", "app-wrapped.json"} {
		t.Run(name, func(t *testing.T) {
			c, err := ReadFile("../testdata/catalogs/" + name)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Resources) != 18 || c.Skipped != 0 {
				t.Errorf("%d resources, %d skipped; want 18, 0", len(c.Resources), c.Skipped)
			}
			if len(c.Edges) != 16 {
				t.Errorf("%d containment edges, want 16", len(c.Edges))
			}
			if c.Name != "node1.example.com" || c.Environment != "production" || c.Version != "1763771234" {
				t.Errorf("name %q env %q version %q", c.Name, c.Environment, c.Version)
			}
			if strings.Join(c.Classes, ",") != "settings,repo,ntp" {
				t.Errorf("classes %v", c.Classes)
			}
			for i, r := range c.Resources {
				if r.ID != i {
					t.Fatalf("resource %d has ID %d", i, r.ID)
				}
			}
			r := lookup(t, c, "File[ntp.conf]")
			if r.File != "/etc/puppet/code/environments/production/manifests/site.pp" || r.Line != 10 {
				t.Errorf("File[ntp.conf] at %s:%d", r.File, r.Line)
			}
			if s, _ := r.StringParam("path"); s != "/etc/ntp.conf" {
				t.Errorf("path param %q", s)
			}
			if len(c.Warnings) != 0 {
				t.Errorf("warnings: %v", c.Warnings)
			}
		})
	}
}

func TestReadSkipsResourcesWithoutTypeOrTitle(t *testing.T) {
	data := `{"resources":[{"type":"File","title":"/a"},{"type":"File"},{"title":"x"},{"type":"Notify","title":""},{"type":7,"title":"y"}],"edges":[]}`
	c, err := Read(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Resources) != 1 || c.Skipped != 4 || len(c.Warnings) != 4 {
		t.Fatalf("resources %d skipped %d warnings %v", len(c.Resources), c.Skipped, c.Warnings)
	}
	if !strings.Contains(c.Warnings[0], "resources[1]") {
		t.Errorf("warning does not name the element: %q", c.Warnings[0])
	}
}

func TestReadNumericTitleAndUnknownEdges(t *testing.T) {
	data := `{"resources":[{"type":"Notify","title":42},{"type":"Class","title":"main"}],
	"edges":[{"source":"Class[main]","target":"Notify[42]"},{"source":"Class[main]","target":"File[/nowhere]"}]}`
	c := mustRead(t, []byte(data))
	lookup(t, c, "Notify[42]")
	if len(c.Edges) != 1 {
		t.Errorf("%d edges, want 1", len(c.Edges))
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "File[/nowhere]") {
		t.Errorf("warnings %v", c.Warnings)
	}
}

// TestReadErrorOffsets checks that errors name the field and the exact byte
// offset in the input (Go's convention: the error happened after reading
// that many bytes), also after a skipped "Notice:" line.
func TestReadErrorOffsets(t *testing.T) {
	const notice = "Notice: Compiled catalog for n in environment production in 0.01 seconds\n"
	cases := []struct {
		name, input, field string
		at                 func(s string) int
	}{
		{"syntax in resource",
			`{"name":"n","resources":[{"type":"File","title":"/x"},  {"type":"File",,"title":"/y"}],"edges":[]}`,
			`"resources[1]"`,
			func(s string) int { return strings.Index(s, ",,") + 2 }},
		{"type in resource",
			`{"resources":[{"type":"File","title":"/x","line":"ten"}],"edges":[]}`,
			`"resources[0].line"`,
			func(s string) int { return strings.Index(s, `"ten"`) + len(`"ten"`) }},
		{"parameters not an object",
			`{"resources":[{"type":"File","title":"/x","parameters":[1]}]}`,
			`"resources[0].parameters"`,
			func(s string) int { return strings.Index(s, `[1]`) + 1 }},
		{"syntax in edge",
			`{"resources":[],"edges":[{"source":"A[b]" "target":"C[d]"}]}`,
			`"edges[0]"`,
			func(s string) int { return strings.Index(s, `"target"`) + 1 }},
		{"resources not an array",
			`{"resources":{"type":"File"}}`,
			`"resources"`,
			func(s string) int { return strings.Index(s, `{"type"`) + 1 }},
		{"truncated",
			`{"resources":[{"type":"File","title":"/x"}`,
			`"resources"`,
			func(s string) int { return len(s) }},
	}
	for _, tc := range cases {
		for _, prefix := range []string{"", notice} {
			t.Run(fmt.Sprintf("%s/prefix=%v", tc.name, prefix != ""), func(t *testing.T) {
				input := prefix + tc.input
				_, err := Read(strings.NewReader(input))
				if err == nil {
					t.Fatal("no error")
				}
				msg := err.Error()
				if !strings.Contains(msg, tc.field) {
					t.Errorf("error %q does not name field %s", msg, tc.field)
				}
				want := fmt.Sprintf("byte offset %d", tc.at(input))
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			})
		}
	}
}

func TestReadRejectsNonCatalogs(t *testing.T) {
	for _, in := range []string{"", "Notice: nothing\n", `[1,2]`, `{"name":"x"}`, `"str"`, `{"resources":[1]}`} {
		if c, err := Read(strings.NewReader(in)); err == nil {
			t.Errorf("Read(%q) = %d resources, no error", in, len(c.Resources))
		}
	}
}

// TestReadLargeCatalogStreams checks that a catalog of many resources with
// big parameters is read in full (values spanning the decoder's buffer).
func TestReadLargeCatalogStreams(t *testing.T) {
	var rs []res
	for i := 0; i < 3000; i++ {
		rs = append(rs, res{"File", fmt.Sprintf("/srv/f%d", i), map[string]any{
			"content": strings.Repeat("x", i%700), "require": fmt.Sprintf("File[/srv/f%d]", i/2),
		}})
	}
	c := mustRead(t, catalogJSON(t, rs, nil))
	if len(c.Resources) != 3000 {
		t.Fatalf("%d resources", len(c.Resources))
	}
	if s, _ := c.Resources[2999].StringParam("content"); len(s) != 2999%700 {
		t.Errorf("content length %d", len(s))
	}
	// And the error offset of a fault far into the stream is still exact.
	data := catalogJSON(t, rs, nil)
	at := bytes.LastIndex(data, []byte(`"exported"`))
	bad := append(append(append([]byte{}, data[:at]...), '!'), data[at:]...)
	_, err := Read(bytes.NewReader(bad))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("byte offset %d", at+1)) {
		t.Errorf("error %v, want byte offset %d", err, at+1)
	}
}

func TestLookup(t *testing.T) {
	c := mustRead(t, readTestdata(t, "app.json"))
	cases := []struct{ ref, want string }{
		{"File[ntp.conf]", "File[ntp.conf]"},
		{"File[/etc/ntp.conf]", "File[ntp.conf]"}, // namevar path
		{"file[/etc/ntp.conf/]", "File[ntp.conf]"},
		{"Service[ntp]", "Service[ntpd]"}, // namevar name
		{"SERVICE[ntpd]", "Service[ntpd]"},
		{"File[appdir]", "File[/srv/app/]"}, // alias
		{"File[/srv/app]", "File[/srv/app/]"},
		{"File[/srv/app//]", "File[/srv/app/]"},
		{"Class[Main]", "Class[main]"},
		{"class[MAIN]", "Class[main]"},
		{"Class[::ntp]", "Class[Ntp]"},
		{"Notify[done [all]]", "Notify[done [all]]"},
		{"Exec[build app]", "Exec[build app]"},
	}
	for _, tc := range cases {
		r, ok := c.Lookup(tc.ref)
		if !ok || r.Ref() != tc.want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", tc.ref, r, ok, tc.want)
		}
	}
	for _, ref := range []string{
		"Exec[/usr/local/bin/build-app --all]", // exec is not isomorphic: no namevar alias
		"Service[ntp.conf]",                    // right title, wrong type
		"File[/etc/NTP.conf]",                  // file titles keep their case
		"Notify[done [all]",                    // malformed
		"Filebucket[/x]",
	} {
		if r, ok := c.Lookup(ref); ok {
			t.Errorf("Lookup(%q) = %s, want not found", ref, r.Ref())
		}
	}
}

// TestLookupConflictsAreOrderIndependent: a title beats an alias of another
// resource whatever their order in the file.
func TestLookupConflictsAreOrderIndependent(t *testing.T) {
	a := res{"File", "/etc/a", map[string]any{"alias": "/etc/b"}}
	b := res{"File", "/etc/b", nil}
	for _, order := range [][]res{{a, b}, {b, a}} {
		c := mustRead(t, catalogJSON(t, order, nil))
		if r := lookup(t, c, "File[/etc/b]"); r.Title != "/etc/b" {
			t.Errorf("File[/etc/b] resolved to %s", r.Ref())
		}
		if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "ambiguous") {
			t.Errorf("warnings %v", c.Warnings)
		}
	}
}

func TestTypePredicates(t *testing.T) {
	c := mustRead(t, readTestdata(t, "app.json"))
	fb := lookup(t, c, "Filebucket[puppet]")
	if fb.IsFile() || !fb.Is("filebucket") {
		t.Error("Filebucket taken for a File (bug 10)")
	}
	if !lookup(t, c, "File[ntp.conf]").IsFile() || !lookup(t, c, "Service[ntpd]").IsService() ||
		!lookup(t, c, "Package[ntp]").IsPackage() || !lookup(t, c, "Exec[build app]").IsExec() {
		t.Error("exact type predicates")
	}
	if got := lookup(t, c, "File[ntp.conf]").Namevar(); got != "/etc/ntp.conf" {
		t.Errorf("Namevar = %q", got)
	}
	if got := lookup(t, c, "Exec[build app]").Namevar(); got != "build app" {
		t.Errorf("Exec Namevar = %q (exec has no namevar alias)", got)
	}
}

func TestUnitService(t *testing.T) {
	c := mustRead(t, catalogJSON(t, []res{
		{"Service", "web", map[string]any{"name": "nginx"}},
		{"Service", "db.service", nil},
		{"File", "/etc/cron.service", nil},
	}, nil))
	for unit, want := range map[string]string{
		"nginx.service": "Service[web]", // by name, suffix dropped
		"web.service":   "Service[web]", // by title
		"db.service":    "Service[db.service]",
		"cron.service":  "", // a File is no Service
		"journal.scope": "",
	} {
		r, ok := c.UnitService(unit)
		got := ""
		if ok {
			got = r.Ref()
		}
		if got != want {
			t.Errorf("UnitService(%q) = %q, want %q", unit, got, want)
		}
	}
}
