package runner

import (
	"strings"
	"testing"
)

func TestParseParam(t *testing.T) {
	p, err := ParseParam("port=8080")
	if err != nil || p.Key != "port" || p.Value != "8080" {
		t.Errorf("got %+v %v", p, err)
	}
	p, err = ParseParam("motd=a=b")
	if err != nil || p.Key != "motd" || p.Value != "a=b" {
		t.Errorf("value with '=': got %+v %v", p, err)
	}
	p, err = ParseParam("aodh::db::database_connection=x")
	if err != nil || p.Key != "aodh::db::database_connection" {
		t.Errorf("class-qualified key: got %+v %v", p, err)
	}
	for _, bad := range []string{"novalue", "=x", "Port=1", "a-b=1", "Aodh::x=1", "aodh::=1", "::x=1", "aodh::Db::x=1"} {
		if _, err := ParseParam(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestPuppetValue(t *testing.T) {
	cases := map[string]string{
		"8080":           "8080",
		"-1.5":           "-1.5",
		"true":           "true",
		"undef":          "undef",
		"'quoted'":       "'quoted'",
		`"dq ${x}"`:      `"dq ${x}"`,
		"[1, 2]":         "[1, 2]",
		"{'a' => 1}":     "{'a' => 1}",
		"$facts['fqdn']": "$facts['fqdn']",
		"hello world":    "'hello world'",
		"it's":           `'it\'s'`,
		`C:\dir`:         `'C:\\dir'`,
		"":               "''",
		"True":           "'True'",
	}
	for in, want := range cases {
		if got := puppetValue(in); got != want {
			t.Errorf("puppetValue(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestSitePP(t *testing.T) {
	cases := []struct {
		name  string
		entry Entry
		want  string
	}{
		{"default include", Entry{}, "include ntp\n"},
		{"class", Entry{Class: "ntp::server"}, "include ntp::server\n"},
		{"params sorted", Entry{Params: []Param{{"servers", "[a]"}, {"enable", "true"}, {"motd", "hi there"}}},
			"class { 'ntp':\n  enable => true,\n  motd => 'hi there',\n  servers => [a],\n}\n"},
		{"other class's params first", Entry{Params: []Param{{"ntp::config::file", "/x"}, {"enable", "true"}, {"ntp::a::b", "1"}}},
			"class { 'ntp::a':\n  b => 1,\n}\nclass { 'ntp::config':\n  file => '/x',\n}\nclass { 'ntp':\n  enable => true,\n}\n"},
		{"only another class's params", Entry{Params: []Param{{"aodh::db::database_connection", "mysql://x"}}},
			"class { 'aodh::db':\n  database_connection => 'mysql://x',\n}\ninclude ntp\n"},
		{"the entry class's own name", Entry{Class: "ntp::server", Params: []Param{{"ntp::server::port", "1"}}},
			"class { 'ntp::server':\n  port => 1,\n}\n"},
		{"code", Entry{Code: "notify { 'x': }"}, "notify { 'x': }\n"},
		{"manifest", Entry{Manifest: "m.pp", ManifestText: "include foo\n"}, "include foo\n"},
	}
	for _, c := range cases {
		got, err := c.entry.SitePP("ntp")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestSitePPErrors(t *testing.T) {
	cases := []struct {
		name  string
		entry Entry
		want  string
	}{
		{"two entries", Entry{Class: "a", Code: "b"}, "choose one"},
		{"params and code", Entry{Params: []Param{{"a", "1"}}, Code: "b"}, "choose one"},
		{"empty manifest", Entry{Manifest: "m.pp", ManifestText: "  \n"}, "empty"},
		{"bad class", Entry{Class: "Foo::bar"}, "bad class"},
		{"duplicate param", Entry{Params: []Param{{"a", "1"}, {"a", "2"}}}, "twice"},
	}
	for _, c := range cases {
		_, err := c.entry.SitePP("ntp")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}
