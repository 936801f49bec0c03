package runner

import (
	"strings"
	"testing"
)

// Two compiles of one manifest, as Puppet cached them: only version and
// catalog_uuid differ (measured with Puppet 7.23).
const (
	compiledA = `{"tags":["settings"],"name":"n","version":1796402199,"code_id":null,"catalog_uuid":"52ebc9d0","catalog_format":2,"environment":"production","resources":[{"type":"Exec","title":"write","file":"/m/init.pp","line":1,"parameters":{"command":"w"}},{"type":"Exec","title":"read","file":"/m/init.pp","line":2,"parameters":{"command":"r"}}],"edges":[{"source":"Class[main]","target":"Exec[write]"}],"classes":["settings"]}`
	compiledB = `{"name":"n","tags":["settings"],"version":1796402204,"code_id":null,"catalog_uuid":"6680ebfe","catalog_format":2,"environment":"production","resources":[{"type":"Exec","title":"read","file":"/m/init.pp","line":2,"parameters":{"command":"r"}},{"type":"Exec","title":"write","file":"/m/init.pp","line":1,"parameters":{"command":"w"}}],"edges":[{"source":"Class[main]","target":"Exec[write]"}],"classes":["settings"]}`
)

func TestCatalogDiff(t *testing.T) {
	if d, drift, err := catalogDiff([]byte(compiledA), []byte(compiledB)); err != nil || d != "" || drift != "" {
		t.Errorf("two compiles of one manifest: %q, %q, %v; want no difference", d, drift, err)
	}
	// A value computed at compile time (a Timestamp in a content) is
	// drift, not a difference: the relationships are the same.
	stamped := strings.Replace(compiledA, `"command":"w"`, `"command":"w at 12:01"`, 1)
	if d, drift, err := catalogDiff([]byte(compiledA), []byte(stamped)); err != nil || d != "" || drift != `parameter values of "Exec[write]"` {
		t.Errorf("a value that changes per compile: %q, %q, %v; want drift only", d, drift, err)
	}
	// The forgery of issue 43: the missing require added to the cache.
	forged := strings.Replace(compiledA, `"parameters":{"command":"r"}`, `"parameters":{"command":"r","require":"Exec[write]"}`, 1)
	forged = strings.Replace(forged, `"edges":[`, `"edges":[{"source":"Exec[write]","target":"Exec[read]"},`, 1)
	d, drift, err := catalogDiff([]byte(compiledA), []byte(forged))
	if err != nil || drift != "" || !strings.Contains(d, `resource changed "Exec[read]"`) || !strings.Contains(d, `edge added "Exec[write] -> Exec[read]"`) {
		t.Errorf("forged: %q, %v; want the changed resource and the added edge named", d, err)
	}
	removed := strings.Replace(compiledA, `,{"type":"Exec","title":"read","file":"/m/init.pp","line":2,"parameters":{"command":"r"}}`, "", 1)
	if d, _, _ := catalogDiff([]byte(compiledA), []byte(removed)); !strings.Contains(d, `resource removed "Exec[read]"`) {
		t.Errorf("a resource removed: %q", d)
	}
	env := strings.Replace(compiledA, `"production"`, `"other"`, 1)
	if d, _, _ := catalogDiff([]byte(compiledA), []byte(env)); d != "its other fields differ" {
		t.Errorf("another environment: %q", d)
	}
	if _, _, err := catalogDiff([]byte(compiledA), []byte(`{"resources":3}`)); err == nil {
		t.Error("a catalog whose resources are a number: no error")
	}
}

func TestGraphDiff(t *testing.T) {
	a := "digraph x {\n  \"Exec[a]\" -> \"Exec[b]\"\n}\n"
	b := "digraph x {\n  \"Exec[a]\" -> \"Exec[b]\"\n  \"Exec[write]\" -> \"Exec[read]\"\n}\n"
	if d := graphDiff([]byte(a), []byte(b)); !strings.Contains(d, `lines added "\"Exec[write]\" -> \"Exec[read]\""`) {
		t.Errorf("an edge added: %q", d)
	}
	if d := graphDiff([]byte(b), []byte(a)); !strings.HasPrefix(d, "lines removed") {
		t.Errorf("an edge removed: %q", d)
	}
}

func TestFirstFew(t *testing.T) {
	got := firstFew([]string{"d", "b", "a", "c", "\x1b]0;x\x07"})
	if got != `"\x1b]0;x\a", "a", "b" and 2 more` {
		t.Errorf("firstFew = %s", got)
	}
}
