package catalog

import (
	"strings"
	"testing"
)

func TestGenerator(t *testing.T) {
	cat, err := Read(strings.NewReader(`{"name":"n","resources":[
	 {"type":"User","title":"www-data","parameters":{"ensure":"present"}},
	 {"type":"File","title":"/opt/tree","parameters":{"recurse":true,"source":"puppet:///x"}},
	 {"type":"File","title":"/opt/flat","parameters":{"ensure":"directory"}},
	 {"type":"Concat_file","title":"motd","parameters":{"path":"/etc/motd"}},
	 {"type":"Tidy","title":"/var/tmp/app","parameters":{"age":"1w"}},
	 {"type":"Exec","title":"gen","parameters":{"command":"/bin/true"}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"File[/opt/tree/a/b.sh]":    "File[/opt/tree]",
		"File[/opt/tree/a]":         "File[/opt/tree]",
		"File[/etc/motd]":           "Concat_file[motd]",
		"File[/var/tmp/app/old]":    "Tidy[/var/tmp/app]",
		"File[/opt/flat/a]":         "", // not recursive
		"File[/opt/treehouse]":      "", // a sibling, not a child
		"Exec[other]":               "",
		"file[/opt/tree/lowercase]": "File[/opt/tree]",
	}
	for ref, want := range cases {
		r, ok := cat.Generator(ref)
		got := ""
		if ok {
			got = r.Ref()
		}
		if got != want {
			t.Errorf("Generator(%s) = %q, want %q", ref, got, want)
		}
	}
	// Puppet's graph: an edge from a catalog resource to an unknown node.
	// (The shape Puppet 7 writes: attributes on the lines after the edge.)
	dot := `digraph Expanded_relationships {
    "Exec[gen]" -> "Notify[made by generate]" [
        fontsize = 8,
        label = ""
    ]
    "User[www-data]" -> "File[/etc/motd]" [
        fontsize = 8
    ]
    "Concat_file[motd]" -> "File[/etc/motd]" [
        fontsize = 8
    ]
    "Whit[Admissible_class[Main]]" -> "Notify[contained]" [
        fontsize = 8
    ]
}`
	if err := cat.AddPuppetGraph(strings.NewReader(dot)); err != nil {
		t.Fatal(err)
	}
	if r, ok := cat.Generator("Notify[made by generate]"); !ok || r.Ref() != "Exec[gen]" {
		t.Errorf("from Puppet's graph: %v %v", r, ok)
	}
	// The File's owner autorequires it, an edge from User[www-data] (an
	// earlier resource) in the same graph: the generator is still the
	// Concat_file that the path names.
	if r, ok := cat.Generator("File[/etc/motd]"); !ok || r.Ref() != "Concat_file[motd]" {
		t.Errorf("a concat File whose owner's User has an edge to it: %v %v, want Concat_file[motd]", r, ok)
	}
	if _, ok := cat.Generator("Notify[contained]"); ok {
		t.Errorf("a whit is no generator")
	}
}
