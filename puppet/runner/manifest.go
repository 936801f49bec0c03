package runner

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Entry says what Puppet applies: by default "include <module>", else a
// chosen class (with parameters), inline code (-e) or a manifest file; and
// how the node is prepared before, untraced (Setup).
type Entry struct {
	Class    string  `json:"class,omitempty"`
	Params   []Param `json:"params,omitempty"`
	Code     string  `json:"code,omitempty"`     // -e
	Manifest string  `json:"manifest,omitempty"` // --manifest: the file's name, for messages
	// ManifestText is the content of the --manifest file.
	ManifestText string `json:"-"`
	// Setup are the --setup commands and --setup-file scripts, in the
	// order given, run after the modules are in place and before the
	// traced apply (see setup.go). SitePP ignores them.
	Setup []SetupStep `json:"setup,omitempty"`
	// Append is Puppet code added after the entry: the relationship that
	// fsmove confirm adds to force the reverse order of a finding.
	Append string `json:"append,omitempty"`
}

// Param is one class parameter from --param key=value.
type Param struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ParseParam reads "key=value". The value is Puppet code when it is a
// number, true/false/undef, a quoted string, an array, a hash or a
// variable; anything else is taken as a string and quoted.
func ParseParam(s string) (Param, error) {
	key, value, ok := strings.Cut(s, "=")
	if !ok {
		return Param{}, fmt.Errorf("--param %q: expected key=value", s)
	}
	key = strings.TrimSpace(key)
	if err := checkParamName(key); err != nil {
		return Param{}, fmt.Errorf("--param %q: %w", s, err)
	}
	return Param{Key: key, Value: value}, nil
}

// splitParamKey splits a parameter key into its class and name: "port" is
// the entry class's, "aodh::db::database_connection" (Hiera's naming) is
// class aodh::db's.
func splitParamKey(key string) (class, name string) {
	if i := strings.LastIndex(key, "::"); i >= 0 {
		return key[:i], key[i+2:]
	}
	return "", key
}

func checkParamName(key string) error {
	if class, name := splitParamKey(key); class != "" {
		if err := checkClassName(class); err != nil {
			return fmt.Errorf("bad parameter name %q: %w", key, err)
		}
		key = name
	}
	if key == "" || key[0] < 'a' || key[0] > 'z' {
		return fmt.Errorf("bad parameter name %q: it must start with a lower-case letter", key)
	}
	for _, r := range key {
		if !isNameRune(r) {
			return fmt.Errorf("bad parameter name %q: only a-z, 0-9 and _ are allowed", key)
		}
	}
	return nil
}

// puppetValue renders a --param value as Puppet code.
func puppetValue(v string) string {
	switch {
	case v == "true" || v == "false" || v == "undef":
		return v
	case v != "" && strings.ContainsRune("'\"[{$", rune(v[0])):
		return v
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return v
	}
	// A single-quoted Puppet string: only \ and ' are special.
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(v) + "'"
}

// checkClassName accepts Puppet class names: name(::name)*, optionally
// with a leading "::".
func checkClassName(class string) error {
	parts := strings.Split(strings.TrimPrefix(class, "::"), "::")
	for _, p := range parts {
		if err := checkModuleName(p); err != nil {
			return fmt.Errorf("bad class name %q", class)
		}
	}
	return nil
}

// SitePP returns the entry manifest for module (the default class), with
// Append after it.
func (e Entry) SitePP(module string) (string, error) {
	site, err := e.entrySite(module)
	if err != nil || e.Append == "" {
		return site, err
	}
	if !strings.HasSuffix(site, "\n") {
		site += "\n"
	}
	return site + e.Append + "\n", nil
}

// entrySite is the entry manifest without Append.
func (e Entry) entrySite(module string) (string, error) {
	sources := 0
	for _, set := range []bool{e.Class != "" || len(e.Params) > 0, e.Code != "", e.Manifest != ""} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		return "", errors.New("choose one entry: --class/--param, -e or --manifest")
	}
	switch {
	case e.Code != "":
		return e.Code + "\n", nil
	case e.Manifest != "":
		if strings.TrimSpace(e.ManifestText) == "" {
			return "", fmt.Errorf("manifest %s is empty", e.Manifest)
		}
		return e.ManifestText, nil
	}
	class := e.Class
	if class == "" {
		class = module
	}
	if err := checkClassName(class); err != nil {
		return "", err
	}
	// Parameters of other classes (CLASS::KEY) declare those classes
	// first, so that the entry class's own include of them finds them
	// declared with these values.
	byClass := map[string][]Param{}
	for _, p := range e.Params {
		c, name := splitParamKey(p.Key)
		if c == "" {
			c = class
		}
		c = strings.TrimPrefix(c, "::")
		byClass[c] = append(byClass[c], Param{Key: name, Value: p.Value})
	}
	var others []string
	for c := range byClass {
		if c != strings.TrimPrefix(class, "::") {
			others = append(others, c)
		}
	}
	sort.Strings(others)
	var b strings.Builder
	for _, c := range others {
		if err := declareClass(&b, c, byClass[c]); err != nil {
			return "", err
		}
	}
	own := byClass[strings.TrimPrefix(class, "::")]
	if len(own) == 0 {
		b.WriteString("include " + class + "\n")
		return b.String(), nil
	}
	if err := declareClass(&b, class, own); err != nil {
		return "", err
	}
	return b.String(), nil
}

// declareClass writes a resource-like declaration of class with params.
func declareClass(b *strings.Builder, class string, params []Param) error {
	params = append([]Param(nil), params...)
	sort.SliceStable(params, func(i, j int) bool { return params[i].Key < params[j].Key })
	fmt.Fprintf(b, "class { '%s':\n", class)
	for i, p := range params {
		if i > 0 && params[i-1].Key == p.Key {
			return fmt.Errorf("--param %s given twice", p.Key)
		}
		fmt.Fprintf(b, "  %s => %s,\n", p.Key, puppetValue(p.Value))
	}
	b.WriteString("}\n")
	return nil
}
