package catalog

import (
	"regexp"
	"strings"
)

// This file holds what the catalog's parameters say about how a resource
// edits a file, so that the detector can tell a pair that needs an order
// from a pair that commutes (the paper's future work, §6). Only facts of
// Puppet's own types and of the Forge's common key-level editors are here;
// anything not recognised is "not known to commute".

// Edit is a resource's key-level edit of one file: it reads the file,
// changes the lines of one key and writes the rest back unchanged (same
// inode, so mode and owner stay). Two edits of one family with disjoint
// keys give the same file in either order.
type Edit struct {
	Family string   // which editors compare keys: "ini", "file_line", "augeas", "shellvar", "debconf", a parsedfile type, or a *_config type
	Keys   []string // the keys it changes; disjoint means no key equals or contains another
}

// parsedFileDefaults are the record-per-resource types of Puppet's core and
// split type modules (parsedfile providers) with their default files; a
// record is keyed by the resource's name. ssh_authorized_key's file depends
// on the user: its family is its target or user.
var parsedFileDefaults = map[string]string{
	"mailalias":          "/etc/aliases",
	"host":               "/etc/hosts",
	"sshkey":             "/etc/ssh/ssh_known_hosts",
	"mount":              "/etc/fstab",
	"ssh_authorized_key": "~",
}

// KeyEdit returns r's key-level edit, or false when r is not a key-level
// editor or its keys cannot be told from the catalog.
//
//   - ini_setting: key "section/setting" of its path (puppetlabs-inifile).
//   - <anything>_config whose title is "section/setting" (the OpenStack
//     modules' ini types, built on ini_setting's provider): key is the
//     name, family the type.
//   - file_line (puppetlabs-stdlib): key is its line and its match; two
//     file_lines commute when neither's match matches the other's line
//     and their lines differ (see Commute).
//   - shellvar (augeasproviders_shellvar): key is variable.
//   - mailalias, host, sshkey, mount, ssh_authorized_key (parsedfile): key
//     is the name, one record each;
//   - debconf (stm-debconf): key is the item ("tzdata/Areas"), its title
//     unless item names it; one question of debconf's database each;
//   - augeas: keys are the tree paths its set/rm/clear/touch changes write,
//     under its context; any other command (ins, mv, defnode, …) makes the
//     edit unknown.
func KeyEdit(r *Resource) (Edit, bool) {
	typ := strings.ToLower(r.Type)
	switch {
	case typ == "ini_setting":
		if ensure, _ := r.StringParam("ensure"); ensure != "" && ensure != "present" && ensure != "absent" {
			return Edit{}, false
		}
		path, _ := r.StringParam("path")
		sec, _ := r.StringParam("section")
		set, ok := r.StringParam("setting")
		if !ok || path == "" {
			return Edit{}, false
		}
		return Edit{Family: "ini:" + path, Keys: []string{sec + "/" + set}}, true
	case strings.HasSuffix(typ, "_config") && typ != "_config":
		name := r.Title
		if n, ok := r.StringParam("name"); ok && n != "" {
			name = n
		}
		if !strings.Contains(name, "/") {
			return Edit{}, false
		}
		return Edit{Family: typ, Keys: []string{name}}, true
	case typ == "file_line":
		path, _ := r.StringParam("path")
		line, ok := r.StringParam("line")
		if !ok || path == "" {
			return Edit{}, false
		}
		keys := []string{"line:" + line}
		if m, ok := r.StringParam("match"); ok && m != "" {
			keys = append(keys, "match:"+m)
		}
		return Edit{Family: "file_line:" + path, Keys: keys}, true
	case typ == "shellvar":
		target, _ := r.StringParam("target")
		v, ok := r.StringParam("variable")
		if !ok {
			v = r.Title
		}
		return Edit{Family: "shellvar:" + target, Keys: []string{v}}, true
	case typ == "augeas":
		return augeasEdit(r)
	case typ == "debconf":
		item, _ := r.StringParam("item")
		if item == "" {
			item = r.Title
		}
		return Edit{Family: "debconf", Keys: []string{item}}, true
	case parsedFileDefaults[typ] != "":
		// Puppet's parsedfile types edit one record, keyed by the name.
		target, _ := r.StringParam("target")
		if target == "" {
			target = parsedFileDefaults[typ]
			if typ == "ssh_authorized_key" {
				user, _ := r.StringParam("user")
				target = "~" + user
			}
		}
		return Edit{Family: typ + ":" + target, Keys: []string{r.Namevar()}}, true
	}
	return Edit{}, false
}

// augeasCommands reads the changes of an augeas resource: a string of
// commands one a line, or an array of them; ok is false for anything else.
func augeasCommands(r *Resource) (cmds []string, ok bool) {
	switch v := r.Params["changes"].(type) {
	case string:
		return strings.Split(v, "\n"), true
	case []any:
		for _, c := range v {
			s, ok := c.(string)
			if !ok {
				return nil, false
			}
			cmds = append(cmds, strings.Split(s, "\n")...)
		}
		return cmds, true
	}
	return nil, false
}

// augeasEdit reads the changes of an augeas resource (augeasCommands).
func augeasEdit(r *Resource) (Edit, bool) {
	cmds, ok := augeasCommands(r)
	if !ok {
		return Edit{}, false
	}
	ctx, _ := r.StringParam("context")
	file, _ := r.StringParam("incl")
	if file == "" {
		file = ctx
	}
	ctx = strings.TrimSuffix(ctx, "/")
	var keys []string
	for _, c := range cmds {
		f := augeasArgs(c)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "set", "rm", "remove", "clear", "touch", "setm", "clearm":
		default:
			return Edit{}, false // ins, mv, defvar, …: the tree shape changes
		}
		if len(f) < 2 {
			return Edit{}, false
		}
		key := f[1]
		if !strings.HasPrefix(key, "/") && ctx != "" {
			key = ctx + "/" + key
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return Edit{}, false
	}
	return Edit{Family: "augeas:" + file, Keys: keys}, true
}

// MetadataOnly reports whether r is a File that manages only metadata
// (mode, owner, group, seluser…) of an existing file: no content, source,
// target or ensure other than file/present. Its change keeps the content,
// and a key-level edit keeps the inode and so the metadata.
func MetadataOnly(r *Resource) bool {
	if !r.IsFile() || r.SetsContent() {
		return false
	}
	switch ensure, _ := r.StringParam("ensure"); ensure {
	case "", "file", "present":
	default:
		return false
	}
	_, mode := r.Params["mode"]
	_, owner := r.Params["owner"]
	_, group := r.Params["group"]
	return mode || owner || group
}

// Commute reports whether applying a then b leaves the same files as b then
// a, as far as the catalog's parameters tell, and why.
func Commute(a, b *Resource) (string, bool) {
	ea, okA := KeyEdit(a)
	eb, okB := KeyEdit(b)
	switch {
	case okA && okB:
		if ea.Family != eb.Family {
			return "", false
		}
		if strings.HasPrefix(ea.Family, "file_line:") {
			if fileLinesCommute(a, b) {
				return "file_line edits of different lines", true
			}
			return "", false
		}
		for _, x := range ea.Keys {
			for _, y := range eb.Keys {
				if keysOverlap(x, y) {
					return "", false
				}
			}
		}
		return "key-level edits of different keys (" + strings.Join(ea.Keys, ",") + " / " + strings.Join(eb.Keys, ",") + ")", true
	case okA && MetadataOnly(b), okB && MetadataOnly(a):
		return "a metadata-only File and a key-level edit of the same file", true
	}
	return "", false
}

// keysOverlap: equal, or one is a tree path above the other (augeas: /a/b
// and /a/b/c touch the same node).
func keysOverlap(x, y string) bool {
	if x == y {
		return true
	}
	if len(x) > len(y) {
		x, y = y, x
	}
	return strings.HasPrefix(y, x+"/")
}

// fileLinesCommute: two file_lines commute when both ensure present, their
// lines differ, and neither's match (a Ruby regexp; Go's syntax agrees for
// the common subset, and one that does not compile is not known to commute)
// matches the other's line.
func fileLinesCommute(a, b *Resource) bool {
	la, _ := a.StringParam("line")
	lb, _ := b.StringParam("line")
	if la == lb {
		return false
	}
	for _, r := range []*Resource{a, b} {
		if e, _ := r.StringParam("ensure"); e != "" && e != "present" {
			return false
		}
	}
	matches := func(r *Resource, line string) (bool, bool) {
		m, ok := r.StringParam("match")
		if !ok || m == "" {
			return false, true
		}
		re, err := regexp.Compile(m)
		if err != nil {
			return false, false
		}
		return re.MatchString(line), true
	}
	mab, okA := matches(a, lb)
	mba, okB := matches(b, la)
	return okA && okB && !mab && !mba
}

// EnforcesContent reports whether r is a File whose check of its own path
// can make it change the path's content or existence: it has content,
// source or a link target, removes the path, or purges a directory. A File
// that found such a path already right still produced it, as far as
// another node is concerned. Content with replace => false is written only
// when the path is missing, so it is not enforced on a path that is there.
// A File that manages only metadata
// (MetadataOnly) or only ensures a file or directory exists changes
// nothing when it finds the path there.
func EnforcesContent(r *Resource) bool {
	if !r.IsFile() {
		return false
	}
	if r.SetsContent() && !r.falseParam("replace") {
		return true
	}
	switch ensure, _ := r.StringParam("ensure"); ensure {
	case "absent":
		return true
	case "link":
		return !r.falseParam("replace")
	case "directory":
		return r.boolParam("purge")
	}
	return false
}

// SetsContent reports whether a File has a parameter that says what is in
// it: content, source or target.
func (r *Resource) SetsContent() bool {
	for _, p := range []string{"content", "source", "target"} {
		if _, ok := r.Params[p]; ok {
			return true
		}
	}
	return false
}

// boolParam reads a boolean parameter (true, "true").
func (r *Resource) boolParam(name string) bool {
	switch v := r.Params[name].(type) {
	case bool:
		return v
	case string:
		return strings.EqualFold(v, "true")
	}
	return false
}

// falseParam reports whether a boolean parameter is given as false
// (false, "false", "no"): Puppet's booleans accept yes and no too.
func (r *Resource) falseParam(name string) bool {
	switch v := r.Params[name].(type) {
	case bool:
		return !v
	case string:
		return strings.EqualFold(v, "false") || strings.EqualFold(v, "no")
	}
	return false
}

// RunsAsRoot reports whether what r does on the node runs as root, as
// Puppet itself does: every type but a Service (its daemon usually drops
// root) and an Exec given another user. Root reads and writes whatever the
// mode and owner say; only a file's execute bits matter to it.
func RunsAsRoot(r *Resource) bool {
	if r.IsService() {
		return false
	}
	if r.IsExec() {
		if u, ok := r.StringParam("user"); ok && u != "" && u != "root" && u != "0" {
			return false
		}
	}
	return true
}

// EntryNames returns the names of the entries a key-level editor of a
// name-service database (/etc/hosts, /etc/services, …) adds or changes, as
// a lookup would ask for them: a Host's name, aliases and address, the
// words of a file_line's line, the values an augeas set writes. Nil when r
// is not such an editor.
func EntryNames(r *Resource) []string {
	e, ok := KeyEdit(r)
	if !ok {
		return nil
	}
	var names []string
	add := func(s string) {
		s = strings.Trim(s, `"' `)
		if s != "" && s != "*" {
			names = append(names, s)
		}
	}
	switch {
	case strings.HasPrefix(e.Family, "host:"):
		add(r.Namevar())
		for _, a := range r.StringsParam("host_aliases") {
			add(a)
		}
		if ip, ok := r.StringParam("ip"); ok {
			add(ip)
		}
	case strings.HasPrefix(e.Family, "file_line:"):
		line, _ := r.StringParam("line")
		line, _, _ = strings.Cut(line, "#")
		for _, f := range strings.Fields(line) {
			add(f)
		}
	case strings.HasPrefix(e.Family, "augeas:"):
		for _, v := range augeasSetValues(r) {
			add(v)
		}
	default:
		for _, k := range e.Keys {
			add(k)
		}
	}
	return names
}

// augeasSetValues are the values of an augeas resource's set commands
// (setm's is its third argument).
func augeasSetValues(r *Resource) []string {
	cmds, _ := augeasCommands(r)
	var vals []string
	for _, c := range cmds {
		f := augeasArgs(c)
		switch {
		case len(f) >= 3 && f[0] == "set":
			vals = append(vals, f[2])
		case len(f) >= 4 && f[0] == "setm":
			vals = append(vals, f[3])
		}
	}
	return vals
}

// augeasArgs splits one augeas command into its words as augtool reads
// them: a word ends at a space outside quotes and outside a path's
// brackets, so that "set service-name[port = '9200']/port 9200" is three
// words; a word that is one quoted string loses its quotes. Unbalanced
// brackets or quotes run to the end of the line.
func augeasArgs(cmd string) []string {
	var words []string
	var b strings.Builder
	depth, quote, inWord := 0, byte(0), false
	end := func() {
		if inWord {
			words = append(words, unquote(b.String()))
			b.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(cmd) {
				b.WriteByte(c)
				i++
				c = cmd[i]
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case (c == ' ' || c == '\t' || c == '\r') && depth == 0:
			end()
			continue
		}
		b.WriteByte(c)
		inWord = true
	}
	end()
	return words
}

// unquote takes the quotes off a word that is one quoted string.
func unquote(w string) string {
	if len(w) >= 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] && !strings.ContainsRune(w[1:len(w)-1], rune(w[0])) {
		return w[1 : len(w)-1]
	}
	return w
}

// Mentions reports whether any of names appears as a word (between
// characters that are not letters, digits, '-', '_' or '.') in r's title
// or in a string of its parameters: an Exec whose command looks a host or a
// service up by that name. The relationship metaparameters (require,
// before, notify, subscribe) name other resources, not what r uses.
func Mentions(r *Resource, names []string) bool {
	texts := []string{r.Title}
	for k, v := range r.Params {
		if isRelationParam(k) {
			continue
		}
		texts = append(texts, stringList(v)...)
	}
	for _, t := range texts {
		for _, n := range names {
			if containsWord(t, n) {
				return true
			}
		}
	}
	return false
}

// containsWord reports whether w occurs in s with no name character on
// either side.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !nameChar(s[j-1])
		after := j+len(w) == len(s) || !nameChar(s[j+len(w)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func nameChar(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
