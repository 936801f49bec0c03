package ebpf

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
	"golang.org/x/sys/unix"
)

// record builds a ring buffer record as the BPF program writes it.
type record struct {
	kind       uint32
	tid        uint32
	nr         int64
	ret        int64
	args       [6]uint64
	extra      uint64
	str0, str1 string // written with their NUL
	data       string
	flags      uint16
}

func (r record) bytes() []byte {
	b := make([]byte, headerSize)
	le := binary.LittleEndian
	le.PutUint32(b[0:], r.kind)
	le.PutUint32(b[4:], r.tid)
	le.PutUint64(b[8:], uint64(r.nr))
	le.PutUint64(b[16:], uint64(r.ret))
	for i, a := range r.args {
		le.PutUint64(b[24+8*i:], a)
	}
	le.PutUint64(b[72:], r.extra)
	var len0, len1 int
	if r.str0 != "" {
		len0 = len(r.str0) + 1
	}
	if r.str1 != "" {
		len1 = len(r.str1) + 1
	}
	le.PutUint16(b[80:], uint16(len0))
	le.PutUint16(b[82:], uint16(len1))
	le.PutUint16(b[84:], uint16(len(r.data)))
	le.PutUint16(b[86:], r.flags)
	if r.str0 != "" {
		b = append(append(b, r.str0...), 0)
	}
	if r.str1 != "" {
		b = append(append(b, r.str1...), 0)
	}
	return append(b, r.data...)
}

func decodeOne(t *testing.T, r record) *tracer.Event {
	t.Helper()
	var tr Tracer
	ok, err := tr.decode(r.bytes())
	if err != nil || !ok {
		t.Fatalf("decode: ok %v, %v", ok, err)
	}
	ev := tr.ev
	return &ev
}

const atFdcwd = uint64(0xffffffffffffff9c) // -100 as the register holds it

func TestDecodeRenameat2(t *testing.T) {
	ev := decodeOne(t, record{kind: evSyscall, tid: 42, nr: unix.SYS_RENAMEAT2,
		args: [6]uint64{atFdcwd, 0x1000, 0xffffffff9c, 0x2000, 1}, str0: "a", str1: "dir/b"})
	if ev.Kind != tracer.KindSyscall || ev.Syscall != "renameat2" || ev.Pid != 42 || ev.Failed() {
		t.Fatalf("event %+v", ev)
	}
	want := []tracer.Arg{
		{Kind: tracer.ArgInt, Int: -100},
		{Kind: tracer.ArgStr, Str: "a"},
		{Kind: tracer.ArgInt, Int: -100}, // only the low 32 bits are the int
		{Kind: tracer.ArgStr, Str: "dir/b"},
		{Kind: tracer.ArgInt, Int: 1},
	}
	if len(ev.Args) != len(want) {
		t.Fatalf("%d args, want %d", len(ev.Args), len(want))
	}
	for i := range want {
		if ev.Args[i].Kind != want[i].Kind || ev.Args[i].Int != want[i].Int || ev.Args[i].Str != want[i].Str {
			t.Errorf("arg %d = %+v, want %+v", i, ev.Args[i], want[i])
		}
	}
}

func TestDecodeSpecialArguments(t *testing.T) {
	// pipe2([5, 6], O_CLOEXEC)
	ev := decodeOne(t, record{kind: evSyscall, nr: unix.SYS_PIPE2, args: [6]uint64{0x7ffd0000, 0x80000}, extra: 5 | 6<<32})
	if a := ev.Arg(0); a.Kind != tracer.ArgArray || len(a.Ints) != 2 || a.Ints[0] != 5 || a.Ints[1] != 6 {
		t.Errorf("pipe2 fds %+v", a)
	}
	// clone(flags=CLONE_FILES|CLONE_FS|SIGCHLD, …) = 77
	ev = decodeOne(t, record{kind: evSyscall, nr: unix.SYS_CLONE, ret: 77, args: [6]uint64{0x600 | 17}})
	if a, ok := ev.NamedArg("flags"); !ok || a.Int != 0x611 || ev.Ret != 77 {
		t.Errorf("clone flags %+v %v, ret %d", a, ok, ev.Ret)
	}
	// clone3({flags=CLONE_THREAD…}, 88)
	ev = decodeOne(t, record{kind: evSyscall, nr: unix.SYS_CLONE3, ret: 78, args: [6]uint64{0x7ffd0000, 88}, extra: 0x10000})
	if a := ev.Arg(0); a.Kind != tracer.ArgStruct || a.Int != 0x10000 {
		t.Errorf("clone3 struct %+v", a)
	}
	// writev(1, [{iov_base="Info: …"}], 1): the data as an array's Str.
	ev = decodeOne(t, record{kind: evSyscall, nr: unix.SYS_WRITEV, ret: 6, args: [6]uint64{1, 0x7ffd0000, 1}, data: "hello\n"})
	if a := ev.Arg(1); a.Kind != tracer.ArgArray || a.Str != "hello\n" {
		t.Errorf("writev data %+v", a)
	}
	// write(2, "…", 1000) of which DATA_MAX bytes were kept: truncated.
	long := strings.Repeat("x", dataMax)
	ev = decodeOne(t, record{kind: evSyscall, nr: unix.SYS_WRITE, ret: 1000, args: [6]uint64{2, 0x7ffd0000, 1000}, data: long})
	if a := ev.Arg(1); a.Kind != tracer.ArgStr || a.Str != long || !a.Truncated {
		t.Errorf("write data: kind %v, %d bytes, truncated %v", a.Kind, len(a.Str), a.Truncated)
	}
	// utimensat(3, NULL, …): a NULL path is ArgNull (the fd itself).
	ev = decodeOne(t, record{kind: evSyscall, nr: unix.SYS_UTIMENSAT, args: [6]uint64{3, 0, 0x7ffd0000, 0}})
	if a := ev.Arg(1); a.Kind != tracer.ArgNull {
		t.Errorf("NULL path %+v", a)
	}
	// close_range(3, ~0U, 0): unsigned, not -1.
	ev = decodeOne(t, record{kind: evSyscall, nr: unix.SYS_CLOSE_RANGE, args: [6]uint64{3, 0xffffffff, 0}})
	if a := ev.Arg(1); a.Int != 4294967295 {
		t.Errorf("close_range last fd %+v", a)
	}
}

func TestDecodeFailuresAndFaults(t *testing.T) {
	// openat(AT_FDCWD, …) = -1 ENOENT: the errno's name, no string.
	ev := decodeOne(t, record{kind: evSyscall, nr: unix.SYS_OPENAT, ret: -2, args: [6]uint64{atFdcwd, 0x1000, 0}})
	if ev.Errno != "ENOENT" || ev.Ret != -1 || ev.Arg(1).Kind != tracer.ArgPtr {
		t.Errorf("failed openat: errno %q ret %d path %+v", ev.Errno, ev.Ret, ev.Arg(1))
	}
	// A path the program could not read is a pointer, which the lowering
	// counts as a bad argument instead of using a wrong path.
	ev = decodeOne(t, record{kind: evSyscall, nr: unix.SYS_UNLINK, args: [6]uint64{0x1000}, flags: fStr0Fault})
	if a := ev.Arg(0); a.Kind != tracer.ArgPtr || a.Int != 0x1000 {
		t.Errorf("unreadable path %+v", a)
	}
	// An exit.
	ev = decodeOne(t, record{kind: evExit, tid: 9, nr: -1})
	if ev.Kind != tracer.KindExit || ev.Pid != 9 || ev.Syscall != "" || len(ev.Args) != 0 || ev.Ret != 0 {
		t.Errorf("exit %+v", ev)
	}
	// An exit status (4 << 8: exit(4)), and a death by SIGKILL with a
	// core dump flag: the wait status as the kernel keeps it.
	ev = decodeOne(t, record{kind: evExit, tid: 9, nr: -1, ret: 4 << 8})
	if ev.Kind != tracer.KindExit || ev.Ret != 4 || len(ev.Args) != 0 {
		t.Errorf("exit(4) %+v", ev)
	}
	ev = decodeOne(t, record{kind: evExit, tid: 9, nr: -1, ret: 0x80 | 9})
	if ev.Kind != tracer.KindExit || ev.Ret != -9 || ev.Arg(0).Str != "SIGKILL" {
		t.Errorf("killed %+v", ev)
	}
	// Broken records are errors, never panics.
	var tr Tracer
	if _, err := tr.decode(make([]byte, headerSize-1)); err == nil {
		t.Error("a short record decoded")
	}
	bad := record{kind: evSyscall, nr: unix.SYS_UNLINK, args: [6]uint64{0x1000}, str0: "abc"}.bytes()
	bad = bad[:len(bad)-2] // the string is cut
	if _, err := tr.decode(bad); err == nil {
		t.Error("a record shorter than its strings decoded")
	}
	if _, err := tr.decode(record{kind: 7}.bytes()); err == nil {
		t.Error("a record of unknown kind decoded")
	}
	// A call outside the table is skipped, not an error.
	if ok, err := tr.decode(record{kind: evSyscall, nr: unix.SYS_READ}.bytes()); ok || err != nil {
		t.Errorf("read: ok %v, %v", ok, err)
	}
}

// A successful exec's arguments come from the path the kernel kept: the
// path as given, or /dev/fd/N[/PATH] for an execveat relative to fd N.
func TestDecodeExecArgsLost(t *testing.T) {
	for _, c := range []struct {
		nr          int64
		kept        string
		call        string
		dirfd       int64
		path        string
		flags       int64
		description string
	}{
		{unix.SYS_EXECVE, "/usr/bin/env", "execve", 0, "/usr/bin/env", 0, "execve"},
		// x86_64 returns from a successful execveat as execve.
		{unix.SYS_EXECVE, "bin/sh", "execve", 0, "bin/sh", 0, "execveat from the cwd"},
		{unix.SYS_EXECVE, "/dev/fd/7/sub/prog", "execveat", 7, "sub/prog", 0, "execveat relative to a directory fd"},
		{unix.SYS_EXECVE, "/dev/fd/5", "execveat", 5, "", unix.AT_EMPTY_PATH, "fexecve"},
		{unix.SYS_EXECVEAT, "/dev/fd/5", "execveat", 5, "", unix.AT_EMPTY_PATH, "fexecve, its number kept"},
		{unix.SYS_EXECVE, "/dev/fd/x/prog", "execve", 0, "/dev/fd/x/prog", 0, "not an fd number"},
		{unix.SYS_EXECVE, "/dev/fd/99999999999/prog", "execve", 0, "/dev/fd/99999999999/prog", 0, "not an fd number"},
	} {
		ev := decodeOne(t, record{kind: evSyscall, nr: c.nr, str0: c.kept, flags: fArgsLost})
		if ev.Syscall != c.call {
			t.Errorf("%s: %s, want %s", c.description, ev.Syscall, c.call)
			continue
		}
		row := linux.Lookup(ev.Syscall)
		got := map[linux.ArgKind]tracer.Arg{}
		for i, k := range row.Args {
			got[k] = ev.Arg(i)
		}
		if p := got[linux.ExecPath]; p.Kind != tracer.ArgStr || p.Str != c.path {
			t.Errorf("%s: path %+v, want %q", c.description, p, c.path)
		}
		if c.call == "execveat" {
			if d, f := got[linux.DirFD], got[linux.Flags]; d.Int != c.dirfd || f.Int != c.flags {
				t.Errorf("%s: dirfd %+v flags %+v, want %d %#x", c.description, d, f, c.dirfd, c.flags)
			}
		}
	}
	// Without the path (the exec began before the tracer started) the
	// path is unreadable, not empty.
	ev := decodeOne(t, record{kind: evSyscall, nr: unix.SYS_EXECVE, flags: fArgsLost | fStr0Fault})
	if a := ev.Arg(0); a.Kind == tracer.ArgStr {
		t.Errorf("an exec without its kept path decoded its path as %+v", a)
	}
}

// Plans read what the rows say: which calls are execs, strings in order,
// the special readings at their argument.
func TestPlans(t *testing.T) {
	for _, row := range syscallTable {
		p := planFor(row)
		if (p.Lookup == 1) != row.Lookup {
			t.Errorf("%s: lookup %d, the row says %v", row.Name, p.Lookup, row.Lookup)
		}
		if want := row.ExecsAtEntry(); (p.Exec == 1) != want {
			t.Errorf("%s: exec %v", row.Name, p.Exec)
		}
		if (p.Forks == 1) != row.Forks {
			t.Errorf("%s: forks %d, the row says %v", row.Name, p.Forks, row.Forks)
		}
		for i, k := range row.Args {
			if v := k.Value(); (v == linux.ValString || v == linux.ValOutString) && p.Str0 == 0 {
				t.Errorf("%s: argument %d is a string but no str0", row.Name, i)
			}
		}
		if row.Writes() != (p.Special == spWrite || p.Special == spWritev) {
			t.Errorf("%s: special %d", row.Name, p.Special)
		}
	}
	if p := planFor(linux.Lookup("renameat")); p.Str0 != 2 || p.Str1 != 4 {
		t.Errorf("renameat plan %+v", p)
	}
	if p := planFor(linux.Lookup("socketpair")); p.Special != spIntPair || p.SpecialArg != 3 || p.Lookup != 0 {
		t.Errorf("socketpair plan %+v", p)
	}
	if p := planFor(linux.Lookup("openat2")); p.Special != spStructU64 || p.SpecialArg != 2 || p.Lookup != 1 {
		t.Errorf("openat2 plan %+v", p)
	}
}

// BenchmarkDecode measures the Go side's cost per event: one openat record
// with a path, decoded into a tracer.Event.
func BenchmarkDecode(b *testing.B) {
	raw := record{kind: evSyscall, tid: 42, nr: unix.SYS_OPENAT, ret: 3,
		args: [6]uint64{atFdcwd, 0x1000, 0x80000}, str0: "/usr/lib/ruby/vendor_ruby/puppet/type/file.rb"}.bytes()
	var tr Tracer
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for i := 0; i < b.N; i++ {
		if ok, err := tr.decode(raw); !ok || err != nil {
			b.Fatal(err)
		}
	}
}
