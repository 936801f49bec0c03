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
