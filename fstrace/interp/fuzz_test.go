package interp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

// fuzzPaths are names that exercise the resolver: dots, repeated and
// trailing slashes, links made by the program itself, empty paths.
var fuzzPaths = []string{
	"", "/", ".", "..", "a", "a/b", "/a", "/a/b", "/a/b/", "//a//b/./c", "../x", "/a/../b",
	"/l", "/l/x", "l/../y", "/a/b/c/d", "b", "/tmp/t", "/tmp", "/a b", "/a/l2", "../../..",
}

// decodeProgram turns fuzz bytes into statements, 7 bytes each.
func decodeProgram(data []byte) []fstrace.Statement {
	var prog []fstrace.Statement
	for len(data) >= 7 {
		b := data[:7]
		data = data[7:]
		st := fstrace.Statement{
			Op:      fstrace.Op(b[0] % 16),
			Effect:  fstrace.Effect(b[1] % 5),
			Pid:     int32(b[1]>>4) % 5,
			Dir:     fstrace.AtFdcwd,
			Fd:      int32(b[3]%10) - 1,
			Fd2:     int32(b[4] % 12),
			Child:   int32(b[4]>>4) % 6,
			Flags:   uint32(b[5]) & 0x7f,
			Path:    fuzzPaths[int(b[2])%len(fuzzPaths)],
			Path2:   fuzzPaths[int(b[6])%len(fuzzPaths)],
			Block:   []string{"A", "B", "C"}[b[6]%3],
			Syscall: "fuzz",
			Line:    int64(len(prog) + 1),
		}
		if b[3]&0x80 != 0 {
			st.Dir = int32(b[3] % 8)
		}
		if b[5]&0x80 != 0 {
			st.Dir2 = int32(b[5] % 8)
		} else {
			st.Dir2 = fstrace.AtFdcwd
		}
		if st.Op == fstrace.OpDelFd && b[4]&0x80 != 0 {
			st.Fd2 = 1<<31 - 1 // close_range(fd, ~0U)
		}
		prog = append(prog, st)
	}
	return prog
}

// checkModel verifies the model's counters against its contents.
func checkModel(t *testing.T, in *Interp) {
	t.Helper()
	m := &in.m
	nlink := make(map[inodeID]int32)
	children := make(map[inodeID]int32)
	for e := entryID(1); int(e) < len(m.entries); e++ {
		en := &m.entries[e]
		if !en.linked {
			continue
		}
		if got, ok := m.lookupEntry(en.dir, en.name); !ok || got != e {
			t.Fatalf("entry %d (%d/%q) not indexed", e, en.dir, en.name)
		}
		if m.inodes[en.ino].free {
			t.Fatalf("entry %d names a free inode %d", e, en.ino)
		}
		nlink[en.ino]++
		children[en.dir]++
		// Every name leads up to "/" (no directory is its own ancestor).
		dir, steps := en.dir, 0
		for ; dir != rootInode && steps < 10000; steps++ {
			dir = m.parentOf(dir)
		}
		if dir != rootInode {
			t.Fatalf("entry %d (%q) is in a directory cycle", e, en.name)
		}
	}
	opens := make(map[inodeID]int32)
	seen := make(map[*fdTable]bool)
	for _, p := range in.procs {
		if seen[p.files] {
			continue
		}
		seen[p.files] = true
		for _, s := range p.files.fds {
			if s.ino.hasPath() {
				opens[s.ino]++
			}
		}
	}
	for ino := rootInode + 1; int(ino) < len(m.inodes); ino++ {
		n := &m.inodes[ino]
		if n.free {
			continue
		}
		if n.nlink != nlink[ino] || n.children != children[ino] || n.opens != opens[ino] {
			t.Fatalf("inode %d: nlink %d/%d children %d/%d opens %d/%d", ino,
				n.nlink, nlink[ino], n.children, children[ino], n.opens, opens[ino])
		}
	}
}

func checkResult(t *testing.T, res *Result) {
	t.Helper()
	for i, pa := range res.Paths {
		if i > 0 && res.Paths[i-1].Path >= pa.Path {
			t.Fatalf("paths not sorted/unique: %q then %q", res.Paths[i-1].Path, pa.Path)
		}
		p := pa.Path
		if !strings.HasPrefix(p, "/") || strings.Contains(p, "//") || strings.Contains(p, "/./") ||
			strings.Contains(p, "/../") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..") ||
			(len(p) > 1 && strings.HasSuffix(p, "/")) {
			t.Fatalf("path not clean: %q", p)
		}
		if len(pa.Accesses) == 0 {
			t.Fatalf("%s listed without accesses", p)
		}
		for j, a := range pa.Accesses {
			if a.Block < 0 || int(a.Block) >= len(res.Blocks) {
				t.Fatalf("%s: block %d out of range", p, a.Block)
			}
			if j > 0 && pa.Accesses[j-1].Block >= a.Block {
				t.Fatalf("%s: accesses not in block order", p)
			}
			if !a.Consumed && !a.Produced && !a.Expunged && !a.Missing {
				t.Fatalf("%s: empty access", p)
			}
		}
	}
}

func FuzzInterp(f *testing.F) {
	f.Add([]byte("\x0d\x01\x00\x00\x00\x00\x00\x04\x02\x07\x00\x00\x00\x00\x04\x12\x0d\x00\x00\x00\x00\x08\x00\x05\x00\x00\x00\x09"))
	f.Add([]byte("\x07\x00\x0c\x00\x00\x00\x05\x04\x01\x0d\x00\x00\x00\x00\x04\x03\x0e\x00\x00\x00\x00\x08\x00\x02\x00\x00\x10\x09"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := New(Options{MaxSymlinkDepth: 8})
		prog := decodeProgram(data)
		for _, st := range prog {
			stepUnchanged(t, in, &st)
			if len(prog) <= 200 { // per step is quadratic: short programs only
				checkModel(t, in)
			}
		}
		checkModel(t, in)
		res := in.Result()
		checkResult(t, res)
		checkMissCache(t, prog, res)
	})
}

// checkMissCache runs prog again without the cache of failed lookups: the
// result must be the same.
func checkMissCache(t *testing.T, prog []fstrace.Statement, res *Result) {
	t.Helper()
	in := New(Options{MaxSymlinkDepth: 8})
	in.noMissCache = true
	for i := range prog {
		in.Step(&prog[i])
	}
	if plain := in.Result(); !reflect.DeepEqual(plain.Paths, res.Paths) {
		t.Fatalf("the cache of failed lookups changed the result:\nwith:    %+v\nwithout: %+v", res.Paths, plain.Paths)
	}
}

// modelState is what a failed lookup must leave as it was.
type modelState struct {
	entries, inodes, freeEntries, freeInodes, linked, dirs int
	structGen, pathGen                                     uint32
	cwd                                                    inodeID
}

// stepUnchanged runs st and, when it is a failed lookup by a known
// process, checks that the model did not change.
func stepUnchanged(t *testing.T, in *Interp, st *fstrace.Statement) {
	t.Helper()
	lookup := st.Effect == fstrace.Missing && (st.Op == fstrace.OpHpath || st.Op == fstrace.OpHpathSym) && in.procs[st.Pid] != nil
	var before modelState
	if lookup {
		before = fingerprint(in, st.Pid)
	}
	in.Step(st)
	if lookup {
		if after := fingerprint(in, st.Pid); after != before {
			t.Fatalf("a failed lookup (%q) changed the model: %+v then %+v", st.Path, before, after)
		}
	}
}

// fingerprint summarises the model and pid's cwd.
func fingerprint(in *Interp, pid int32) modelState {
	m := &in.m
	s := modelState{entries: len(m.entries), inodes: len(m.inodes), freeEntries: len(m.freeEntries),
		freeInodes: len(m.freeInodes), structGen: m.structGen, pathGen: m.pathGen}
	for e := range m.entries {
		if m.entries[e].linked {
			s.linked++
		}
	}
	for i := range m.inodes {
		if m.inodes[i].isDir {
			s.dirs++
		}
	}
	if p := in.procs[pid]; p != nil {
		s.cwd = p.fs.cwd
	}
	return s
}

// TestRandomPrograms runs the fuzz target's checks over pseudo-random
// programs, so that plain `go test` covers them.
func TestRandomPrograms(t *testing.T) {
	seed := uint32(1)
	for range 300 {
		data := make([]byte, 7*200)
		for i := range data {
			seed = seed*1664525 + 1013904223
			data[i] = byte(seed >> 24)
		}
		in := New(Options{MaxSymlinkDepth: 8})
		prog := decodeProgram(data)
		for _, st := range prog {
			stepUnchanged(t, in, &st)
		}
		checkModel(t, in)
		res := in.Result()
		checkResult(t, res)
		checkMissCache(t, prog, res)
	}
}
