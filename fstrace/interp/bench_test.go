package interp

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

// syntheticProgram builds one pass of a Puppet-like run: blocks in which
// the Puppet process stats and reads library files, spawns children that
// chdir, exec, open and close files, write temp files and rename them into
// place, and exit (pids are reused across passes). Paths repeat: a few
// thousand distinct ones.
func syntheticProgram(blocks, filesPerChild int) []fstrace.Statement {
	var prog []fstrace.Statement
	add := func(s fstrace.Statement) { prog = append(prog, s) }
	const nPaths = 3000
	lib := make([]string, nPaths)
	for i := range lib {
		lib[i] = fmt.Sprintf("/usr/lib/ruby/vendor_ruby/puppet/mod%02d/sub%d/file%d.rb", i%40, i%7, i)
	}
	k := 0
	next := func() string { k = (k*7 + 13) % nPaths; return lib[k] }
	for b := range blocks {
		name := fmt.Sprintf("File[/etc/app/conf%d]", b%200)
		add(fstrace.Statement{Op: fstrace.OpBegin, Pid: puppet, Block: name})
		for range 10 {
			add(fstrace.Statement{Op: fstrace.OpHpath, Pid: puppet, Dir: fstrace.AtFdcwd, Path: next(), Effect: fstrace.Consumed, Syscall: "newfstatat"})
		}
		thread := int32(101 + b%4)
		add(fstrace.Statement{Op: fstrace.OpHpath, Pid: thread, Dir: fstrace.AtFdcwd, Path: next(), Effect: fstrace.Consumed, Syscall: "statx"})
		child := int32(1000 + b%64)
		add(fstrace.Statement{Op: fstrace.OpNewProc, Pid: puppet, Child: child, Syscall: "vfork"})
		add(fstrace.Statement{Op: fstrace.OpSetCwd, Pid: child, Dir: fstrace.AtFdcwd, Path: "/usr/lib/ruby", Syscall: "chdir"})
		add(fstrace.Statement{Op: fstrace.OpHpath, Pid: child, Dir: fstrace.AtFdcwd, Path: "/usr/bin/ruby", Effect: fstrace.Consumed, Syscall: "execve"})
		add(fstrace.Statement{Op: fstrace.OpExec, Pid: child, Syscall: "execve"})
		for range filesPerChild {
			p := next()
			add(fstrace.Statement{Op: fstrace.OpHpath, Pid: child, Dir: fstrace.AtFdcwd, Path: p, Effect: fstrace.Consumed, Syscall: "openat"})
			add(fstrace.Statement{Op: fstrace.OpNewFd, Pid: child, Dir: fstrace.AtFdcwd, Path: p, Fd: 3, Flags: fstrace.FdCloexec, Syscall: "openat"})
			add(fstrace.Statement{Op: fstrace.OpHpath, Pid: child, Dir: 3, Path: "", Effect: fstrace.Consumed, Syscall: "fstat"})
			add(fstrace.Statement{Op: fstrace.OpDelFd, Pid: child, Fd: 3, Fd2: 3, Syscall: "close"})
		}
		// A relative path from the cwd.
		add(fstrace.Statement{Op: fstrace.OpHpath, Pid: child, Dir: fstrace.AtFdcwd, Path: "vendor_ruby/puppet/../puppet.rb", Effect: fstrace.Consumed, Syscall: "openat"})
		add(fstrace.Statement{Op: fstrace.OpExit, Pid: child})
		// Puppet writes the file through a temp name.
		tmp := fmt.Sprintf("/etc/app/conf%d.tmp", b%200)
		conf := fmt.Sprintf("/etc/app/conf%d", b%200)
		add(fstrace.Statement{Op: fstrace.OpHpath, Pid: puppet, Dir: fstrace.AtFdcwd, Path: tmp, Effect: fstrace.Produced, Syscall: "openat"})
		add(fstrace.Statement{Op: fstrace.OpNewFd, Pid: puppet, Dir: fstrace.AtFdcwd, Path: tmp, Fd: 7, Syscall: "openat"})
		add(fstrace.Statement{Op: fstrace.OpDelFd, Pid: puppet, Fd: 7, Fd2: 7, Syscall: "close"})
		add(fstrace.Statement{Op: fstrace.OpRename, Pid: puppet, Dir: fstrace.AtFdcwd, Path: tmp, Dir2: fstrace.AtFdcwd, Path2: conf, Syscall: "rename"})
		add(fstrace.Statement{Op: fstrace.OpEnd, Pid: puppet, Block: name})
	}
	return prog
}

// BenchmarkInterp runs passes of the synthetic program through one
// interpreter (the model is warm after the first pass, as in a long
// trace). One op is one pass; stmts/s and allocs/stmt are reported.
func BenchmarkInterp(b *testing.B) {
	prog := syntheticProgram(400, 30)
	in := New(Options{})
	in.Step(&fstrace.Statement{Op: fstrace.OpNewProc, Pid: puppet, Child: 101, Flags: fstrace.ShareFiles | fstrace.ShareFS | fstrace.ShareThread})
	for t := int32(102); t <= 104; t++ {
		in.Step(&fstrace.Statement{Op: fstrace.OpNewProc, Pid: puppet, Child: t, Flags: fstrace.ShareFiles | fstrace.ShareFS | fstrace.ShareThread})
	}
	in.Run(prog) // warm the model
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		in.Run(prog)
	}
	b.StopTimer()
	stmts := float64(b.N) * float64(len(prog))
	b.ReportMetric(stmts/b.Elapsed().Seconds(), "stmts/s")
	b.ReportMetric(float64(len(prog)), "stmts/op")
	res := in.Result()
	if len(res.Paths) == 0 {
		b.Fatal("no paths")
	}
}

// BenchmarkInterpCold includes building the model: a fresh interpreter
// per pass.
func BenchmarkInterpCold(b *testing.B) {
	prog := syntheticProgram(400, 30)
	b.ReportAllocs()
	for b.Loop() {
		in := New(Options{})
		in.Run(prog)
		_ = in.Result()
	}
	stmts := float64(b.N) * float64(len(prog))
	b.ReportMetric(stmts/b.Elapsed().Seconds(), "stmts/s")
}

// BenchmarkInterpMemoryPerPath reports the heap the interpreter keeps per
// distinct path (model, path table, cache, one access each), the figure
// that bounds memory on a long trace.
func BenchmarkInterpMemoryPerPath(b *testing.B) {
	const n = 200_000
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("/var/lib/app%d/dir%d/file-%d.dat", i%50, i%1000, i)
	}
	b.ReportAllocs()
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		in := New(Options{})
		in.Step(&fstrace.Statement{Op: fstrace.OpBegin, Pid: puppet, Block: "B"})
		for _, p := range paths {
			st := fstrace.Statement{Op: fstrace.OpHpath, Pid: puppet, Dir: fstrace.AtFdcwd, Path: p, Effect: fstrace.Consumed, Syscall: "stat"}
			in.Step(&st)
			in.Step(&st) // the second sight fills the path cache
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heapB/path")
		runtime.KeepAlive(in)
	}
}
