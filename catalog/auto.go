package catalog

import (
	"strconv"
	"strings"
)

// Automatic relationships: the edges Puppet adds at apply time from each
// type's autorequire/autobefore rules (Puppet::Type#autorelation). Like
// Puppet, an automatic edge is only added towards a resource managed in the
// catalog, and is skipped when the catalog already has an explicit edge in
// the opposite direction ("Skipping automatic relationship").
//
// Modelled, one row per type (rules read from Puppet 7's lib/puppet/type and
// the *_core modules):
//
//	File               nearest managed ancestor File (grandparents when the
//	                   parent is unmanaged); File of a link's target; User
//	                   of owner and Group of group when given by name;
//	                   every Mount whose mount point is an ancestor of the
//	                   path (mount's autobefore of the files below it)
//	Exec               File of cwd; File of the command's first word when
//	                   it is an absolute path (or a "quoted" path), and of
//	                   each onlyif/unless line's first word; User of user
//	                   when given by name
//	Cron               User of user
//	User               Group of gid (by name, or the Group whose gid
//	                   parameter equals a numeric gid) and of each of groups
//	Ssh_authorized_key User of user (sshkeys_core has no file rule: the
//	                   target file is not autorequired)
//	Mount              Mount of each ancestor of the mount point
//
// Not modelled: Service and Package (none in core), Tidy, Zfs/Zpool,
// Selmodule, Windows types, and rules of types from other modules: Puppet's
// own graph brings those when the run has it (AddPuppetGraph).
var autoRules = map[string]func(b *builder, r *Resource){
	"file":               autoFile,
	"exec":               autoExec,
	"cron":               autoUserParam,
	"ssh_authorized_key": autoUserParam,
	"user":               autoUser,
	"mount":              autoMount,
}

// auto applies the automatic rules of r's type.
func (b *builder) auto(r *Resource) {
	if rule := autoRules[strings.ToLower(r.Type)]; rule != nil {
		rule(b, r)
	}
}

// autoEdge adds source -> target as an automatic relation unless it is a
// self-edge or the catalog has an explicit edge target -> source.
func (b *builder) autoEdge(source, target *Resource) {
	if source == nil || target == nil || source == target {
		return
	}
	back := b.relation[[2]int32{int32(target.ID), int32(source.ID)}]
	if back&(Before|Notify) != 0 {
		return
	}
	b.relation[[2]int32{int32(source.ID), int32(target.ID)}] |= Auto
}

// require adds "typ[name] -> r" when typ[name] is managed.
func (b *builder) require(r *Resource, typ, name string) {
	if name == "" {
		return
	}
	if dep, ok := b.c.lookup(typ, name); ok {
		b.autoEdge(dep, r)
	}
}

// byName returns a user or group parameter that names an account: a
// string that is not all digits (Puppet skips numeric ids).
func byName(v any) string {
	s, ok := v.(string)
	if !ok || s == "" || isDigits(s) {
		return ""
	}
	return s
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// parentDir returns the directory of an absolute path, "" for the root.
func parentDir(p string) string {
	if p == "/" || p == "" {
		return ""
	}
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func autoFile(b *builder, r *Resource) {
	path := cleanFilePath(r.Namevar())
	if strings.HasPrefix(path, "/") {
		// Nearest managed ancestor directory only, as Puppet does.
		for dir := parentDir(path); dir != ""; dir = parentDir(dir) {
			if dep, ok := b.c.lookup(TypeFile, dir); ok && dep != r {
				b.autoEdge(dep, r)
				break
			}
		}
		// Mount autobefore: every mount above the file.
		for dir := parentDir(path); dir != ""; dir = parentDir(dir) {
			if m, ok := b.c.lookup(TypeMount, dir); ok {
				b.autoEdge(m, r)
			}
		}
	}
	if t, ok := r.StringParam("target"); ok {
		b.require(r, TypeFile, t)
	}
	b.require(r, TypeUser, byName(r.Params["owner"]))
	b.require(r, TypeGroup, byName(r.Params["group"]))
}

// absoluteWord returns the first word of a command line when it is an
// absolute path, or the text of a leading "quoted" path, else "".
func absoluteWord(cmd string) string {
	if strings.HasPrefix(cmd, "\"") {
		if end := strings.IndexByte(cmd[1:], '"'); end > 0 {
			return cmd[1 : 1+end]
		}
		return ""
	}
	if !strings.HasPrefix(cmd, "/") {
		return ""
	}
	if i := strings.IndexAny(cmd, " \t\n\r\f\v"); i >= 0 {
		return cmd[:i]
	}
	return cmd
}

func autoExec(b *builder, r *Resource) {
	if cwd, ok := r.StringParam("cwd"); ok {
		b.require(r, TypeFile, cwd)
	}
	command, argv := r.ExecCommand()
	if len(argv) > 0 {
		command = argv[0]
	}
	b.require(r, TypeFile, absoluteWord(command))
	for _, param := range []string{"onlyif", "unless"} {
		for _, line := range stringList(r.Params[param]) {
			b.require(r, TypeFile, absoluteWord(line))
		}
	}
	b.require(r, TypeUser, byName(r.Params["user"]))
}

// autoUserParam is the rule of Cron and Ssh_authorized_key: the user
// parameter names a User (cron_core and sshkeys_core do not skip numeric
// ids, unlike File and Exec).
func autoUserParam(b *builder, r *Resource) {
	if u, ok := r.StringParam("user"); ok {
		b.require(r, TypeUser, u)
	}
}

func autoUser(b *builder, r *Resource) {
	for _, gid := range gidValues(r.Params["gid"]) {
		if !isDigits(gid) {
			b.require(r, TypeGroup, gid)
			continue
		}
		// A numeric gid names the Group that manages that gid.
		for _, g := range b.groupsWithGid(gid) {
			b.autoEdge(g, r)
		}
	}
	for _, list := range stringList(r.Params["groups"]) {
		for _, name := range strings.Split(list, ",") {
			b.require(r, TypeGroup, byName(strings.TrimSpace(name)))
		}
	}
}

// gidValues returns a gid parameter (string, number or array) as text.
func gidValues(v any) []string {
	switch v := v.(type) {
	case float64:
		return []string{strconv.FormatInt(int64(v), 10)}
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, gidValues(e)...)
		}
		return out
	}
	return nil
}

func autoMount(b *builder, r *Resource) {
	name := cleanFilePath(r.Namevar())
	if !strings.HasPrefix(name, "/") {
		return
	}
	for dir := parentDir(name); dir != ""; dir = parentDir(dir) {
		b.require(r, TypeMount, dir)
	}
}

// groupsWithGid returns the Group resources whose gid parameter is gid,
// indexing them on first use.
func (b *builder) groupsWithGid(gid string) []*Resource {
	if b.gids == nil {
		b.gids = make(map[string][]*Resource)
		for _, g := range b.c.Resources {
			if g.Is(TypeGroup) {
				for _, v := range gidValues(g.Params["gid"]) {
					b.gids[v] = append(b.gids[v], g)
				}
			}
		}
	}
	return b.gids[gid]
}
