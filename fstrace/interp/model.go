package interp

import (
	pathpkg "path"
	"slices"
	"strings"
)

// The file-system model: inodes, the directory entries that name them, and
// path resolution over them. Paths are never stored whole in the model; a
// directory entry is (parent directory inode, name) → inode, so renaming a
// directory moves its whole subtree by changing one entry.

// inodeID indexes fsModel.inodes.
type inodeID int32

const (
	noInode      inodeID = 0 // a closed fd slot, or a name missing from the model
	anonInode    inodeID = 1 // pipes, sockets, eventfds: open, but no path
	unknownInode inodeID = 2 // an fd copied from an fd the trace never opened
	rootInode    inodeID = 3 // "/"
)

// hasPath reports whether ino is a real inode that can have a path.
func (ino inodeID) hasPath() bool { return ino >= rootInode }

type inode struct {
	// entry is the name used when the inode itself must be named: a
	// directory's only name, or the last name a file was created or renamed
	// under. It may be unlinked (an open file that was removed).
	entry    entryID
	nlink    int32 // linked entries naming the inode
	opens    int32 // fd slots pointing at the inode
	children int32 // linked entries inside this directory
	isDir    bool
	isLink   bool
	free     bool
	target   string // symlink target text, when isLink
}

// entryID indexes fsModel.entries.
type entryID int32

const (
	noEntry   entryID = -1
	rootEntry entryID = 0 // names "/" itself; its dir is the root (so "/.." is "/")
)

type entry struct {
	dir    inodeID // the directory holding the name
	name   string
	ino    inodeID
	linked bool // indexed in fsModel.dirents
	// version counts the uses of this slot, so that a cached resolution
	// naming a recycled slot is recognised as stale.
	version uint32
	// pathID caches the path string of the entry; valid while pathGen equals
	// fsModel.pathGen (renaming a directory changes every path below it).
	pathID  pathID
	pathGen uint32
}

type dirKey struct {
	dir  inodeID
	name string
}

// location is the outcome of resolving a path: the directory holding the
// final name and the name in it, and what the name refers to (ino ==
// noInode when the model has no such entry yet).
type location struct {
	dir   inodeID
	name  string
	entry entryID
	ino   inodeID
}

func (l location) exists() bool { return l.ino != noInode }

// resolveStatus says why a resolution failed.
type resolveStatus uint8

const (
	resolveOK resolveStatus = iota
	resolveLoop
	resolveTooDeep
	// resolveMissing: a walk with walkLookup met a missing intermediate
	// name (fsModel.walk); never returned by resolve or lookupPath.
	resolveMissing
)

// maxPathDepth bounds walks up the entry chain (a corrupt trace could make
// a directory its own ancestor; the model must not loop forever).
const maxPathDepth = 4096

type fsModel struct {
	inodes      []inode
	freeInodes  []inodeID
	entries     []entry
	freeEntries []entryID
	dirents     direntIndex
	pathGen     uint32
	// structGen changes whenever an existing resolution may change: a
	// directory or symlink unlinked, renamed or exchanged. It validates
	// the path cache (see pathcache.go).
	structGen uint32
	// linkGen changes whenever a name is linked to a symlink (symlink, or
	// a hard link of one): with structGen and pathGen it validates the
	// cache of failed lookups (see missCache).
	linkGen uint32
	// finalLink is set by walk when the last component was a symlink
	// (followed or not): such results depend on the follow mode.
	finalLink bool
	paths     pathTable
	maxLinks  int
}

func newFSModel(maxLinks int) fsModel {
	m := fsModel{
		inodes:   make([]inode, rootInode+1, 1024),
		entries:  make([]entry, 1, 1024),
		dirents:  newDirentIndex(),
		pathGen:  1,
		paths:    newPathTable(),
		maxLinks: maxLinks,
	}
	m.inodes[rootInode] = inode{entry: rootEntry, nlink: 1, isDir: true}
	m.entries[rootEntry] = entry{dir: rootInode, ino: rootInode, linked: true, pathID: rootPath, pathGen: m.pathGen}
	return m
}

func (m *fsModel) newInode(isDir bool) inodeID {
	var ino inodeID
	if n := len(m.freeInodes); n > 0 {
		ino = m.freeInodes[n-1]
		m.freeInodes = m.freeInodes[:n-1]
	} else {
		m.inodes = append(m.inodes, inode{})
		ino = inodeID(len(m.inodes) - 1)
	}
	m.inodes[ino] = inode{entry: noEntry, isDir: isDir}
	return ino
}

// addEntry links name in dir to ino. The name is copied: statement strings
// may alias a large input buffer.
func (m *fsModel) addEntry(dir inodeID, name string, ino inodeID) entryID {
	var e entryID
	if n := len(m.freeEntries); n > 0 {
		e = m.freeEntries[n-1]
		m.freeEntries = m.freeEntries[:n-1]
	} else {
		m.entries = append(m.entries, entry{})
		e = entryID(len(m.entries) - 1)
	}
	name = strings.Clone(name)
	m.entries[e] = entry{dir: dir, name: name, ino: ino, linked: true, version: m.entries[e].version + 1}
	m.insertEntry(e)
	if m.inodes[ino].isLink {
		m.linkGen++
	}
	m.inodes[ino].nlink++
	if cur := m.inodes[ino].entry; cur == noEntry || !m.entries[cur].linked || m.inodes[ino].isDir {
		m.setPrimary(ino, e)
	}
	d := &m.inodes[dir]
	d.children++
	d.isDir = true
	return e
}

// unlinkEntry removes e from its directory. The inode stays while fds point
// at it (unlink of an open file).
func (m *fsModel) unlinkEntry(e entryID) {
	if e <= rootEntry || !m.entries[e].linked {
		return
	}
	en := &m.entries[e]
	m.removeEntry(e)
	en.linked = false
	m.inodes[en.dir].children--
	ino := en.ino
	if m.inodes[ino].isDir || m.inodes[ino].isLink {
		m.structGen++
	}
	m.inodes[ino].nlink--
	if m.inodes[ino].entry != e {
		m.freeEntry(e)
	}
	m.maybeFree(ino)
}

// setPrimary makes e the name of ino, releasing an unlinked previous name.
func (m *fsModel) setPrimary(ino inodeID, e entryID) {
	old := m.inodes[ino].entry
	m.inodes[ino].entry = e
	if old > rootEntry && old != e && !m.entries[old].linked {
		m.freeEntry(old)
	}
}

func (m *fsModel) freeEntry(e entryID) {
	m.entries[e] = entry{ino: noInode, version: m.entries[e].version}
	m.freeEntries = append(m.freeEntries, e)
}

// maybeFree recycles a file inode nothing refers to any more. Directories
// are kept: a cwd may still point at them and children may hang off them.
func (m *fsModel) maybeFree(ino inodeID) {
	if !ino.hasPath() || ino == rootInode {
		return
	}
	in := &m.inodes[ino]
	if in.free || in.nlink > 0 || in.opens > 0 || in.isDir || in.children > 0 {
		return
	}
	if e := in.entry; e > rootEntry && !m.entries[e].linked {
		m.freeEntry(e)
	}
	*in = inode{free: true, entry: noEntry}
	m.freeInodes = append(m.freeInodes, ino)
}

// parentOf is the directory holding ino's name: the model's "..".
func (m *fsModel) parentOf(ino inodeID) inodeID {
	if ino == rootInode {
		return rootInode
	}
	e := m.inodes[ino].entry
	if e == noEntry {
		return rootInode
	}
	return m.entries[e].dir
}

// locOf names an existing inode (Path "" with a dirfd; a path ending in
// "." or "..").
func (m *fsModel) locOf(ino inodeID) location {
	e := m.inodes[ino].entry
	if ino == rootInode || e == noEntry {
		return location{dir: rootInode, entry: rootEntry, ino: rootInode}
	}
	en := &m.entries[e]
	return location{dir: en.dir, name: en.name, entry: e, ino: ino}
}

// walkPolicy says what a walk does with names the model lacks and the
// directories it crosses: the one difference between resolving a path a
// call used (the names existed) and naming the path of a failed lookup
// (they may not have).
type walkPolicy uint8

const (
	// walkResolve: a missing intermediate directory existed before the
	// trace started and is added to the model; every directory crossed is
	// marked one.
	walkResolve walkPolicy = iota
	// walkLookup changes nothing in the model: the walk stops at the first
	// missing intermediate name (resolveMissing).
	walkLookup
)

// seedLink makes path a symbolic link to target before the trace (its
// directories existed too). A path that is not absolute and clean, or
// that is there already, is left as it is.
func (m *fsModel) seedLink(path, target string) {
	if path == "/" || !strings.HasPrefix(path, "/") || pathpkg.Clean(path) != path || target == "" {
		return
	}
	var links int
	l, st := m.resolve(rootInode, path, false, &links)
	if st != resolveOK || l.exists() {
		return
	}
	ino := m.newInode(false)
	m.inodes[ino].isLink = true
	m.inodes[ino].target = target
	m.addEntry(l.dir, l.name, ino)
}

// resolve walks path from start with walkResolve (see walk): it never
// returns resolveMissing.
func (m *fsModel) resolve(start inodeID, path string, followFinal bool, links *int) (location, resolveStatus) {
	l, _, st := m.walk(start, path, followFinal, walkResolve, links)
	return l, st
}

// lookupPath names the path of a failed lookup (ENOENT, ENOTDIR) of path
// from the directory start, without adding anything to the model (a walk
// with walkLookup): the path-table id of the deepest name the model has,
// followed lexically by the components it does not have ("." dropped, ".."
// one lexical level up). A path the model has whole, or all but its final
// name, is named as resolve would name it.
func (m *fsModel) lookupPath(start inodeID, path string, followFinal bool, links *int) (pathID, resolveStatus) {
	l, missing, st := m.walk(start, path, followFinal, walkLookup, links)
	switch st {
	case resolveOK:
		return m.locPath(l), resolveOK
	case resolveMissing:
		return missing, resolveOK
	}
	return 0, st
}

// walk is the one path walk: it follows path from the directory start
// (ignored for absolute paths) component by component, "." and ".." on the
// model. Symlinks the model knows are followed for intermediate components,
// and for the final one when followFinal is set or the path ends in "/";
// relative targets against the link's directory; links counts the symlinks
// followed so far (Linux's ELOOP bound is on the total). A missing final
// name is returned with ino == noInode for the caller to create or not. A
// missing intermediate name is added as a directory under walkResolve;
// under walkLookup the walk stops there with resolveMissing, and missing is
// the path of that name with the rest of path appended lexically.
func (m *fsModel) walk(start inodeID, path string, followFinal bool, policy walkPolicy, links *int) (l location, missing pathID, st resolveStatus) {
	cur := start
	if len(path) > 0 && path[0] == '/' {
		cur = rootInode
	}
	i := 0
	for {
		comp, next, last, trailingSlash, ok := nextComponent(path, i)
		if !ok {
			m.finalLink = false
			return m.locOf(cur), 0, resolveOK
		}
		i = next
		switch comp {
		case ".":
			if last {
				m.finalLink = false
				return m.locOf(cur), 0, resolveOK
			}
			continue
		case "..":
			cur = m.parentOf(cur)
			if last {
				m.finalLink = false
				return m.locOf(cur), 0, resolveOK
			}
			continue
		}
		e, ok := m.lookupEntry(cur, comp)
		if !ok {
			if last {
				m.finalLink = false
				return location{dir: cur, name: comp, entry: noEntry}, 0, resolveOK
			}
			if policy == walkLookup {
				return location{}, m.paths.lexical(m.paths.child(m.dirPath(cur), comp), path[i:]), resolveMissing
			}
			// An intermediate directory the trace never showed: it existed
			// before tracing started.
			e = m.addEntry(cur, comp, m.newInode(true))
		}
		ino := m.entries[e].ino
		if m.inodes[ino].isLink && (!last || followFinal || trailingSlash) {
			*links++
			if *links > m.maxLinks {
				return location{}, 0, resolveLoop
			}
			tl, tmissing, st := m.walk(cur, m.inodes[ino].target, true, policy, links)
			switch {
			case st == resolveMissing:
				return location{}, m.paths.lexical(tmissing, path[i:]), resolveMissing
			case st != resolveOK:
				return location{}, 0, st
			}
			if last {
				m.finalLink = true
				return tl, 0, resolveOK
			}
			if !tl.exists() {
				if policy == walkLookup {
					return location{}, m.paths.lexical(m.locPath(tl), path[i:]), resolveMissing
				}
				tl.entry = m.addEntry(tl.dir, tl.name, m.newInode(true))
				tl.ino = m.entries[tl.entry].ino
			}
			cur = tl.ino
			if policy == walkResolve {
				m.inodes[cur].isDir = true
			}
			continue
		}
		if last {
			m.finalLink = m.inodes[ino].isLink
			return location{dir: cur, name: comp, entry: e, ino: ino}, 0, resolveOK
		}
		if policy == walkResolve {
			m.inodes[ino].isDir = true
		}
		cur = ino
	}
}

// entryPath is the path of entry e as it is named now.
func (m *fsModel) entryPath(e entryID) pathID {
	return m.entryPathDepth(e, 0)
}

func (m *fsModel) entryPathDepth(e entryID, depth int) pathID {
	if e <= rootEntry {
		return rootPath
	}
	en := &m.entries[e]
	if en.pathGen == m.pathGen {
		return en.pathID
	}
	if depth > maxPathDepth {
		return rootPath
	}
	dir, name := en.dir, en.name
	parent := m.entryPathDepth(m.inodes[dir].entry, depth+1)
	id := m.paths.child(parent, name)
	en = &m.entries[e] // paths.child does not touch entries, but stay safe
	en.pathID = id
	en.pathGen = m.pathGen
	return id
}

// dirPath is the path of directory inode dir.
func (m *fsModel) dirPath(dir inodeID) pathID {
	if dir == rootInode {
		return rootPath
	}
	return m.entryPath(m.inodes[dir].entry)
}

// locPath is the path of a resolved location, existing or not.
func (m *fsModel) locPath(l location) pathID {
	if l.entry != noEntry {
		return m.entryPath(l.entry)
	}
	return m.paths.child(m.dirPath(l.dir), l.name)
}

// isAncestor reports whether directory a is dir or one of its ancestors.
func (m *fsModel) isAncestor(a, dir inodeID) bool {
	for depth := 0; depth < maxPathDepth; depth++ {
		if dir == a {
			return true
		}
		if dir == rootInode {
			return false
		}
		dir = m.parentOf(dir)
	}
	return true
}

// nextComponent returns the path component that starts at or after i
// (slashes skipped), the index after it and its trailing slashes, whether
// it is the last one, and whether it had a trailing slash; ok is false
// when no component is left.
func nextComponent(path string, i int) (comp string, next int, last, trailingSlash, ok bool) {
	for i < len(path) && path[i] == '/' {
		i++
	}
	if i == len(path) {
		return "", i, false, false, false
	}
	j := i
	for j < len(path) && path[j] != '/' {
		j++
	}
	k := j
	for k < len(path) && path[k] == '/' {
		k++
	}
	last = k == len(path)
	return path[i:j], k, last, last && j < len(path), true
}

// cgroupUnit reports whether ino is the cgroup.procs (or tasks) file of a
// systemd unit's cgroup under /sys/fs/cgroup (in any hierarchy: v2, or v1's
// name=systemd and controllers), and returns the unit, the name of the
// cgroup's directory: "foo.service", "init.scope". Cgroups that are not
// units (the container's own, a controller's root) are not.
func (m *fsModel) cgroupUnit(ino inodeID) (string, bool) {
	name, dir, ok := m.entryName(ino)
	if !ok || (name != "cgroup.procs" && name != "tasks") {
		return "", false
	}
	unit, cur, ok := m.entryName(dir)
	if !ok || !isUnitName(unit) {
		return "", false
	}
	// The three names nearest the root must be sys/fs/cgroup.
	var top [3]string
	for cur != rootInode {
		n, up, ok := m.entryName(cur)
		if !ok {
			return "", false
		}
		top[0], top[1], top[2] = n, top[0], top[1]
		cur = up
	}
	return unit, top == [3]string{"sys", "fs", "cgroup"}
}

// entryName returns the name of ino's entry and the directory holding it.
func (m *fsModel) entryName(ino inodeID) (name string, dir inodeID, ok bool) {
	if ino == rootInode || !ino.hasPath() {
		return "", rootInode, false
	}
	e := m.inodes[ino].entry
	if e == noEntry {
		return "", rootInode, false
	}
	return m.entries[e].name, m.entries[e].dir, true
}

// isUnitName reports whether a cgroup directory is named like a systemd
// unit that holds processes.
func isUnitName(name string) bool {
	return isServiceName(name) || len(name) > len(".scope") && strings.HasSuffix(name, ".scope")
}

// UnitOfFile returns the systemd unit that a file called name, in a
// directory called dir, configures: its unit file (foo.service,
// foo.timer) or one of its drop-ins (in foo.service.d). systemd reads them
// when it loads, reloads or starts the unit, on the unit's behalf; a
// Service may manage a unit of any type that can be started (a timer, a
// socket, a path, a target), not only a service.
func UnitOfFile(dir, name string) (unit string, ok bool) {
	switch {
	case isUnitFileName(name):
		return name, true
	case strings.HasSuffix(dir, ".d") && isUnitFileName(strings.TrimSuffix(dir, ".d")):
		return strings.TrimSuffix(dir, ".d"), true
	}
	return "", false
}

// unitSuffixes are the suffixes of the unit types whose unit files systemd
// reads from disk (systemd.unit(5)); scopes and devices have none.
var unitSuffixes = []string{".service", ".socket", ".timer", ".path", ".target", ".mount", ".automount", ".swap", ".slice"}

// isUnitFileName reports whether name is a unit file's (foo.service,
// foo.timer): a suffix of unitSuffixes after a non-empty stem.
func isUnitFileName(name string) bool {
	dot := strings.LastIndexByte(name, '.')
	return dot > 0 && slices.Contains(unitSuffixes, name[dot:])
}

// isServiceName reports whether name is a service unit's (foo.service).
func isServiceName(name string) bool {
	return len(name) > len(".service") && strings.HasSuffix(name, ".service")
}
