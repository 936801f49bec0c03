package interp

import "strings"

// pathCache remembers the resolution of absolute path strings, so that the
// common case (a path seen before, the model unchanged around it) costs
// one map lookup instead of one per component. An entry is trusted only
// while the model's structGen is unchanged and the entry slot it names is
// still linked and in the same use (version). Results whose last
// component is a symlink are not cached: they depend on the follow mode.
type pathCache struct {
	byPath map[string]cachedLoc
}

type cachedLoc struct {
	entry   entryID
	version uint32
	gen     uint32
}

// maxCachedPaths bounds the cache's memory; it is emptied when full.
const maxCachedPaths = 1 << 18

func newPathCache() pathCache {
	return pathCache{byPath: make(map[string]cachedLoc, 1024)}
}

func (c *pathCache) lookup(m *fsModel, path string) (location, bool) {
	cl, ok := c.byPath[path]
	if !ok || cl.gen != m.structGen {
		return location{}, false
	}
	en := &m.entries[cl.entry]
	if !en.linked || en.version != cl.version {
		return location{}, false
	}
	return location{dir: en.dir, name: en.name, entry: cl.entry, ino: en.ino}, true
}

func (c *pathCache) store(m *fsModel, path string, l location) {
	if l.entry == noEntry || !m.entries[l.entry].linked {
		return
	}
	cl := cachedLoc{entry: l.entry, version: m.entries[l.entry].version, gen: m.structGen}
	if _, ok := c.byPath[path]; ok {
		c.byPath[path] = cl // the key is already owned by the map
		return
	}
	if len(c.byPath) >= maxCachedPaths {
		c.byPath = make(map[string]cachedLoc, 1024)
	}
	c.byPath[strings.Clone(path)] = cl
}

// missCache remembers the path ids that failed lookups of absolute paths
// named (fsModel.lookupPath), per follow mode: a Puppet run probes the same
// few missing paths again and again (Ruby's load path). An entry is
// trusted while no symlink was linked (linkGen), no directory or symlink
// was unlinked, renamed or exchanged (structGen) and no directory renamed
// (pathGen). Other changes cannot change the answer: a plain name added
// where the walk stopped makes it go one step further, to the same path id
// (a path id is lexical), and removing one is a structGen change only for
// directories and symlinks, while a file in the middle of a path stops the
// walk at the same id either way.
type missCache struct {
	byPath [2]map[string]missEntry // [0]: not following a final symlink, [1]: following
}

type missEntry struct {
	id                          pathID
	structGen, pathGen, linkGen uint32
}

func (c *missCache) lookup(m *fsModel, path string, follow bool) (pathID, bool) {
	e, ok := c.byPath[b2i(follow)][path]
	if !ok || e.structGen != m.structGen || e.pathGen != m.pathGen || e.linkGen != m.linkGen {
		return 0, false
	}
	return e.id, true
}

func (c *missCache) store(m *fsModel, path string, follow bool, id pathID) {
	e := missEntry{id: id, structGen: m.structGen, pathGen: m.pathGen, linkGen: m.linkGen}
	mp := &c.byPath[b2i(follow)]
	if _, ok := (*mp)[path]; ok {
		(*mp)[path] = e // the key is already owned by the map
		return
	}
	if *mp == nil || len(*mp) >= maxCachedPaths {
		*mp = make(map[string]missEntry, 1024)
	}
	(*mp)[strings.Clone(path)] = e
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
