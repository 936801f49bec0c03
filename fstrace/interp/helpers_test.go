package interp

import (
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

// Statement builders: tests write programs directly, without the lowering.

const puppet int32 = 100 // the root process in most tests

var line int64

func ev(s fstrace.Statement) fstrace.Statement {
	line++
	s.Line = line
	if s.Syscall == "" {
		s.Syscall = "test"
	}
	return s
}

func begin(pid int32, block string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpBegin, Pid: pid, Block: block})
}

func end(pid int32, block string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpEnd, Pid: pid, Block: block})
}

// hp accesses path relative to the cwd, following a final symlink.
func hp(pid int32, eff fstrace.Effect, path string) fstrace.Statement {
	return hpAt(pid, fstrace.AtFdcwd, path, eff)
}

func hpAt(pid, dir int32, path string, eff fstrace.Effect) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpHpath, Pid: pid, Dir: dir, Path: path, Effect: eff})
}

func hpsym(pid int32, eff fstrace.Effect, path string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpHpathSym, Pid: pid, Dir: fstrace.AtFdcwd, Path: path, Effect: eff})
}

func mkdir(pid int32, path string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpHpathSym, Pid: pid, Dir: fstrace.AtFdcwd, Path: path,
		Effect: fstrace.Produced, Flags: fstrace.MakeDir, Syscall: "mkdir"})
}

func openAt(pid, dir int32, path string, fd int32, flags uint32) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpNewFd, Pid: pid, Dir: dir, Path: path, Fd: fd, Flags: flags, Syscall: "openat"})
}

func open(pid int32, path string, fd int32) fstrace.Statement {
	return openAt(pid, fstrace.AtFdcwd, path, fd, 0)
}

func closeFd(pid, fd int32) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpDelFd, Pid: pid, Fd: fd, Fd2: fd, Syscall: "close"})
}

func dup2(pid, old, nu int32) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpDupFd, Pid: pid, Fd: old, Fd2: nu, Syscall: "dup2"})
}

func newProc(pid, child int32, flags uint32) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpNewProc, Pid: pid, Child: child, Flags: flags, Syscall: "clone"})
}

func chdir(pid int32, path string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpSetCwd, Pid: pid, Dir: fstrace.AtFdcwd, Path: path, Syscall: "chdir"})
}

func execve(pid int32) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpExec, Pid: pid, Syscall: "execve"})
}

func exit(pid int32) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpExit, Pid: pid, Syscall: "exit"})
}

func symlink(pid int32, target, linkPath string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpSymlink, Pid: pid, Path: target, Dir2: fstrace.AtFdcwd, Path2: linkPath, Syscall: "symlink"})
}

func rename(pid int32, old, nu string, flags uint32) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpRename, Pid: pid, Dir: fstrace.AtFdcwd, Path: old,
		Dir2: fstrace.AtFdcwd, Path2: nu, Flags: flags, Syscall: "rename"})
}

func link(pid int32, old, nu string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpLink, Pid: pid, Dir: fstrace.AtFdcwd, Path: old,
		Dir2: fstrace.AtFdcwd, Path2: nu, Syscall: "link"})
}

// run interprets stmts in a fresh interpreter.
func run(stmts ...fstrace.Statement) (*Interp, *Result) {
	in := New(Options{})
	in.Run(stmts)
	return in, in.Result()
}

func findPath(res *Result, path string) *PathAccesses {
	for i := range res.Paths {
		if res.Paths[i].Path == path {
			return &res.Paths[i]
		}
	}
	return nil
}

// access returns block's access to path, or nil.
func access(res *Result, path, block string) *Access {
	pa := findPath(res, path)
	if pa == nil {
		return nil
	}
	for i := range pa.Accesses {
		if res.Blocks[pa.Accesses[i].Block] == block {
			return &pa.Accesses[i]
		}
	}
	return nil
}

// wantEffects checks block's effects on path exactly ("" = no access).
func wantEffects(t *testing.T, res *Result, path, block, want string) {
	t.Helper()
	got := ""
	if a := access(res, path, block); a != nil {
		for _, e := range []fstrace.Effect{fstrace.Consumed, fstrace.Produced, fstrace.Expunged, fstrace.Missing} {
			if a.Has(e) {
				if got != "" {
					got += "+"
				}
				got += e.String()
			}
		}
		if got == "" {
			got = "empty access"
		}
	}
	if got != want {
		t.Errorf("%s on %s: got %q, want %q\npaths: %v", block, path, got, want, pathNames(res))
	}
}

func pathNames(res *Result) []string {
	var out []string
	for _, p := range res.Paths {
		out = append(out, p.Path)
	}
	return out
}

// Has reports whether the access includes effect e.
func (a *Access) Has(e fstrace.Effect) bool {
	switch e {
	case fstrace.Produced:
		return a.Produced
	case fstrace.Consumed:
		return a.Consumed
	case fstrace.Expunged:
		return a.Expunged
	case fstrace.Missing:
		return a.Missing
	}
	return false
}

// By returns the evidence of effect e.
func (a *Access) By(e fstrace.Effect) Evidence {
	switch e {
	case fstrace.Produced:
		return a.ProducedBy
	case fstrace.Consumed:
		return a.ConsumedBy
	case fstrace.Missing:
		return a.MissingBy
	}
	return a.ExpungedBy
}

// Failure returns block b's failure report, or nil when b did not fail.
func (r *Result) Failure(b BlockID) *BlockFailure {
	for i := range r.Failures {
		if r.Failures[i].Block == b {
			return &r.Failures[i]
		}
	}
	return nil
}
