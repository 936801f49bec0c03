package ptrace

import (
	"encoding/binary"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Puppet's own realpath lookups, and every other program's.
//
// Ruby resolves the path of every file it requires with glibc's realpath,
// which calls readlink on each prefix of the path (with its 1024-byte
// scratch buffer: a bufsiz of realpathBufsiz). In the bench fixture's apply
// that is 325,029 readlinks of Puppet's own process, two stops in three of
// the whole trace, and none reads a link: 324,781 fail with EINVAL (not a
// link: never recorded) and 248 with ENOENT, of 9 names on Ruby's load path
// (/usr/local/lib/site_ruby, /enumerator.so…) that Ruby also looks up with
// stat, whose failures are recorded. On this kind of machine a stop costs
// 16 µs at the least (a C tracer that does nothing but resume), so those
// stops alone made the traced apply more than twice as long.
//
// So the traced command's own process runs with a filter that lets
// realpath's readlink run unstopped (filterPolicy, lax), whatever program
// it executes (fsmove run's command is a shell that executes Puppet in its
// place), and every other process gets the full filter before it executes
// a program: at the seccomp stop of such a lax process's execve the tracer
// makes that call a
// seccomp(SECCOMP_SET_MODE_FILTER) of strictProgram (a filter that stops
// every readlink; filters stack, and the strictest action wins), then
// restores the registers one instruction back, so that the execve runs
// again, now under both filters. A `readlink -f` or `realpath` in an Exec,
// whose glibc or gnulib realpath reads a link a File made, is stopped and
// recorded as before. Options.NoPredict and tracer.FailedAll keep every
// readlink stopped everywhere.

// realpathBufsiz is the bufsiz of glibc's realpath readlink calls
// (stdlib/canonicalize.c: its scratch buffer's 1024 bytes, less one).
const realpathBufsiz = 1023

// strictPolicy stops every readlink; stacked on the lax filter it gives a
// program the full filter.
var strictPolicy = seccomp.Policy{
	DefaultAction: seccomp.ActionAllow,
	Syscalls:      []seccomp.SyscallGroup{{Action: seccomp.ActionTrace, Names: []string{"readlink"}}},
}

// strictProgram is strictPolicy as the bytes written into a tracee: a
// struct sock_fprog (length, padding, pointer) then the instructions; the
// pointer is filled in for the address it is written at (strictAt).
var strictProgram = func() []byte {
	insts, err := strictPolicy.Assemble()
	if err != nil {
		panic("ptrace: strict filter: " + err.Error()) // a constant policy: a bug
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		panic("ptrace: strict filter: " + err.Error())
	}
	b := make([]byte, fprogSize+8*len(raw))
	binary.LittleEndian.PutUint16(b, uint16(len(raw)))
	for i, in := range raw {
		o := fprogSize + 8*i
		binary.LittleEndian.PutUint16(b[o:], in.Op)
		b[o+2], b[o+3] = in.Jt, in.Jf
		binary.LittleEndian.PutUint32(b[o+4:], in.K)
	}
	return b
}()

// fprogSize is the size of struct sock_fprog on x86_64.
const fprogSize = 16

// strictAt returns strictProgram as written at addr.
func strictAt(addr uint64) []byte {
	b := append([]byte(nil), strictProgram...)
	binary.LittleEndian.PutUint64(b[8:], addr+fprogSize)
	return b
}

// redZone is the x86_64 ABI's area below the stack pointer that a leaf
// function may use without moving it: the program goes below it.
const redZone = 128

// injectStrict turns the execve at which lax task tk is stopped (its
// registers in tk.regs) into a seccomp call loading the strict filter; the
// exit stop (injected) puts the execve back. It reports false when the
// program could not be written (a stack at the end of its mapping): the
// execve then runs as it is, counted in Stats.StrictFailed.
func (l *loop) injectStrict(tk *task) bool {
	addr := (tk.regs.Rsp - redZone - uint64(len(strictProgram))) &^ 15
	prog := strictAt(addr)
	local := []unix.Iovec{{Base: &prog[0], Len: uint64(len(prog))}}
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(prog)}}
	regs := tk.regs
	regs.Orig_rax = unix.SYS_SECCOMP
	regs.Rdi, regs.Rsi, regs.Rdx = unix.SECCOMP_SET_MODE_FILTER, 0, addr
	if n, err := unix.ProcessVMWritev(tk.tid, local, remote, 0); err != nil || n != len(prog) || unix.PtraceSetRegs(tk.tid, &regs) != nil {
		tk.lax = false
		l.stats.StrictFailed++
		return false
	}
	tk.injecting = true
	unix.PtraceSyscall(tk.tid, 0) // to the seccomp call's exit
	return true
}

// injected is the exit stop of the seccomp call injectStrict made: the
// registers of the execve's entry go back, one instruction (the 2-byte
// syscall) earlier and with the call's number in rax, so that the thread
// makes the execve again when it resumes.
func (l *loop) injected(tk *task) {
	tk.injecting = false
	tk.lax = false // (on a failure too: the next execve must not try again)
	var now unix.PtraceRegs
	if err := unix.PtraceGetRegs(tk.tid, &now); err == nil && int64(now.Rax) == 0 {
		l.stats.Strict++
	} else {
		l.stats.StrictFailed++
	}
	regs := tk.regs
	regs.Rip -= 2
	regs.Rax = regs.Orig_rax
	if err := unix.PtraceSetRegs(tk.tid, &regs); err != nil {
		l.stats.StrictFailed++
	}
	unix.PtraceCont(tk.tid, 0)
}
