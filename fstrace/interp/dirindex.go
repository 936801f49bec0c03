package interp

import "hash/maphash"

// direntIndex maps (directory inode, name) to the entry of that name. It
// is the hottest structure of the interpreter (one lookup per path
// component), so it is keyed by a 64-bit hash, which Go's maps look up much
// faster than a struct holding a string. A hit is checked against the
// entry itself; the rare entries whose hash collides with a live one go to
// the spill map, keyed exactly.
type direntIndex struct {
	seed   maphash.Seed
	byHash map[uint64]entryID
	spill  map[dirKey]entryID
}

func newDirentIndex() direntIndex {
	return direntIndex{
		seed:   maphash.MakeSeed(),
		byHash: make(map[uint64]entryID, 1024),
		spill:  make(map[dirKey]entryID),
	}
}

func (x *direntIndex) hash(dir inodeID, name string) uint64 {
	return maphash.String(x.seed, name) ^ (uint64(uint32(dir)) * 0x9E3779B97F4A7C15)
}

func (m *fsModel) lookupEntry(dir inodeID, name string) (entryID, bool) {
	x := &m.dirents
	if e, ok := x.byHash[x.hash(dir, name)]; ok {
		if en := &m.entries[e]; en.dir == dir && en.name == name {
			return e, true
		}
	}
	if len(x.spill) == 0 {
		return noEntry, false
	}
	e, ok := x.spill[dirKey{dir, name}]
	return e, ok
}

// insertEntry indexes e, which must not be indexed yet under its name.
func (m *fsModel) insertEntry(e entryID) {
	x := &m.dirents
	en := &m.entries[e]
	h := x.hash(en.dir, en.name)
	if _, taken := x.byHash[h]; taken {
		x.spill[dirKey{en.dir, en.name}] = e
		return
	}
	x.byHash[h] = e
}

func (m *fsModel) removeEntry(e entryID) {
	x := &m.dirents
	en := &m.entries[e]
	h := x.hash(en.dir, en.name)
	if cur, ok := x.byHash[h]; ok && cur == e {
		delete(x.byHash, h)
		return
	}
	delete(x.spill, dirKey{en.dir, en.name})
}
