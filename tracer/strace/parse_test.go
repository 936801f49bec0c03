package strace

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
)

// events reads a whole trace given as text.
func events(t *testing.T, text string, opts Options) ([]tracer.Event, *Reader) {
	t.Helper()
	r := NewReader(strings.NewReader(text), opts)
	return readAll(t, r), r
}

// one reads a one-line trace that must give exactly one event and no warning.
func one(t *testing.T, line string) tracer.Event {
	t.Helper()
	evs, r := events(t, line+"\n", Options{Failed: tracer.FailedAll})
	if len(r.Warnings()) != 0 {
		t.Fatalf("%s: warnings %+v", line, r.Warnings())
	}
	if len(evs) != 1 {
		t.Fatalf("%s: %d events, want 1", line, len(evs))
	}
	return evs[0]
}

func TestLinePrefixes(t *testing.T) {
	const call = `openat(AT_FDCWD, "/etc/x", O_RDONLY) = 3`
	cases := []struct {
		line string
		pid  int
	}{
		{"123 " + call, 123},
		{"123   " + call, 123},
		{"[pid 77] " + call, 77},
		{"[pid  7] " + call, 7},
		{call, 0},
		{"12:34:56 " + call, 0},
		{"12:34:56.123456 " + call, 0},
		{"1700000000.123456 " + call, 0},
		{"     0.000123 " + call, 0},
		{"123 12:34:56.123456 " + call, 123},
		{"123      0.000123 " + call, 123},
		{"[pid 9] 1700000000.123456 " + call, 9},
		{"123 " + call + " <0.000012>", 123},
		{"123 " + call + "\r", 123},
		{"123 [00007f2c4d6f6e3b] " + call, 123},
		{"123<sh> " + call, 123},
		{"[pid 42<cat>] " + call, 42},
		{"[pid 5] 12:34:56.123456 [00007f2c4d6f6e3b] " + call, 5},
	}
	for _, c := range cases {
		ev := one(t, c.line)
		if ev.Pid != c.pid || ev.Syscall != "openat" || ev.Ret != 3 || ev.Arg(1).Str != "/etc/x" {
			t.Errorf("%q: got pid %d %s ret %d path %q", c.line, ev.Pid, ev.Syscall, ev.Ret, ev.Arg(1).Str)
		}
	}
}

func TestReturnValues(t *testing.T) {
	cases := []struct {
		line  string
		ret   int64
		errno string
	}{
		{`1 openat(AT_FDCWD, "/x", O_RDONLY) = -1 ENOENT (No such file or directory)`, -1, "ENOENT"},
		{`1 exit_group(0)                = ?`, 0, "?"},
		{`1 execve("/bin/x", ["x"], 0x7ffd /* 3 vars */) = ?`, 0, "?"},
		{`1 wait4(-1, 0x7ffd, 0, NULL) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)`, 0, "ERESTARTSYS"},
		{`1 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f1234560000`, 0x7f1234560000, ""},
		{`1 brk(NULL) = 0x55e24b956000`, 0x55e24b956000, ""},
		{`1 select(4, [3], NULL, NULL, {tv_sec=1, tv_usec=0}) = 0 (Timeout)`, 0, ""},
		{`1 poll([{fd=3, events=POLLIN}], 1, -1) = 1 ([{fd=3, revents=POLLIN}])`, 1, ""},
		{`1 fcntl(3, F_GETFL) = 0x8000 (flags O_RDONLY|O_LARGEFILE)`, 0x8000, ""},
		{`1 openat(AT_FDCWD</root>, "/etc/x", O_RDONLY) = 3</etc/x>`, 3, ""},
		{`1 openat(AT_FDCWD, "/dev/null", O_RDONLY) = 3</dev/null<char 1:3>>`, 3, ""},
		{`1 socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 3<TCP:[12345]>`, 3, ""},
		{`1 accept(3<TCP:[1.2.3.4:22->5.6.7.8:999]>, NULL, NULL) = 4<TCP:[1.2.3.4:22->5.6.7.8:999]> <0.000100>`, 4, ""},
		{`1 close(3) = 0 <0.000012>`, 0, ""},
		{`1 unlink("/x") = -1 EACCES (Permission denied) <0.000012>`, -1, "EACCES"},
	}
	for _, c := range cases {
		ev := one(t, c.line)
		if ev.Ret != c.ret || ev.Errno != c.errno {
			t.Errorf("%q: ret %d errno %q, want %d %q", c.line, ev.Ret, ev.Errno, c.ret, c.errno)
		}
		if (c.errno != "") != ev.Failed() {
			t.Errorf("%q: Failed() = %v", c.line, ev.Failed())
		}
	}
}

func TestStrings(t *testing.T) {
	cases := []struct {
		arg       string
		want      string
		truncated bool
	}{
		{`"plain"`, "plain", false},
		{`""`, "", false},
		{`"a\nb\tc\"d\\e"`, "a\nb\tc\"d\\e", false},
		{`"\33[0;32mInfo\33[0m"`, "\x1b[0;32mInfo\x1b[0m", false},
		{`"\0\1\177\377"`, "\x00\x01\x7f\xff", false},
		{`"\x1b\x41z"`, "\x1bAz", false},
		{`"abc"...`, "abc", true},
		{`"/tmp/d (1)/a b,c\"q[1].txt"`, `/tmp/d (1)/a b,c"q[1].txt`, false},
		{`"/x{y}/(z), w"`, "/x{y}/(z), w", false},
		{`"\r\v\f\b\a\'\?"`, "\r\v\f\b\a'?", false},
	}
	for _, c := range cases {
		ev := one(t, `1 write(1, `+c.arg+`, 5) = 5`)
		a := ev.Arg(1)
		if a.Kind != tracer.ArgStr || a.Str != c.want || a.Truncated != c.truncated {
			t.Errorf("%s: got %+v, want %q truncated=%v", c.arg, a, c.want, c.truncated)
		}
		if n := ev.Arg(2); n.Kind != tracer.ArgInt || n.Int != 5 {
			t.Errorf("%s: the argument after the string is %+v", c.arg, n)
		}
	}
}

// TestShortWrites: with ShortWrites, a write's data is decoded on fds 1
// and 2, and elsewhere only when it is short (at most linux.ShortWrite
// bytes, as the native tracers read it); the rest of the line still reads,
// past any quote or backslash in the skipped text.
func TestShortWrites(t *testing.T) {
	long := strings.Repeat(`\377`, 33) // 33 bytes, four characters each
	cases := []struct {
		line string
		want string // "" for skipped data
	}{
		{`1 write(1, "` + long + `", 33) = 33`, strings.Repeat("\xff", 33)},
		{`1 write(2, "Notice: ` + strings.Repeat("x", 200) + `", 208) = 208`, "Notice: " + strings.Repeat("x", 200)},
		{`1 write(7, "57\n", 3) = 3`, "57\n"},
		{`1 write(7, "` + strings.Repeat(`\0`, 32) + `", 32) = 32`, strings.Repeat("\x00", 32)},
		{`1 write(7, "` + strings.Repeat(`\0`, 33) + `", 33) = 33`, ""},
		{`1 write(7, "` + long + `", 33) = 33`, ""},
		{`1 write(7, "a\"b\\", 4) = 4`, "a\"b\\"},
		{`1 write(7, "` + strings.Repeat(`\"\\`, 40) + `", 80) = 80`, ""},
		{`1 write(7, "abc"..., 4096) = 4096`, ""},
		{`1 pwrite64(9, "` + strings.Repeat("y", 40) + `", 40, 0) = 40`, ""},
		{`1 writev(7, [{iov_base="12", iov_len=2}, {iov_base="\n", iov_len=1}], 2) = 3`, "12\n"},
		{`1 writev(7, [{iov_base="` + strings.Repeat("z", 30) + `", iov_len=30}, {iov_base="zzz", iov_len=3}], 2) = 33`, ""},
		{`1 writev(1, [{iov_base="` + strings.Repeat("z", 30) + `", iov_len=30}, {iov_base="zzz", iov_len=3}], 2) = 33`, strings.Repeat("z", 33)},
	}
	// MarkerData lets the long writes to fds 1 and 2 through that it says
	// may mark.
	mayMark := func(printed []byte) bool { return strings.Contains(string(printed), "Info") }
	cases = append(cases, []struct{ line, want string }{
		{`1 write(1, "Debug: ` + strings.Repeat("x", 200) + `", 207) = 207`, ""},
		{`1 write(1, "Info: ` + strings.Repeat("x", 200) + `", 206) = 206`, "Info: " + strings.Repeat("x", 200)},
		{`1 write(2, "` + long + `", 33) = 33`, ""},
		{`1 write(2, "57\n", 3) = 3`, "57\n"},
		{`1 write(7, "57\n", 3) = 3`, "57\n"},
		{`1 writev(1, [{iov_base="` + strings.Repeat("z", 300) + `", iov_len=300}], 1) = 300`, strings.Repeat("z", 300)},
	}...)
	for k, c := range cases {
		opts := Options{ShortWrites: true}
		if k >= len(cases)-6 {
			opts.MarkerData = mayMark
		}
		evs, r := events(t, c.line+"\n", opts)
		if len(evs) != 1 || r.Malformed() != 0 {
			t.Errorf("%s: %d events, %d malformed", c.line, len(evs), r.Malformed())
			continue
		}
		ev := evs[0]
		got := ev.Arg(1)
		if c.want == "" && (got.Kind != tracer.ArgOther || got.Str != "") || c.want != "" && got.Str != c.want {
			t.Errorf("%s: data %+v, want %q", c.line, got, c.want)
		}
		if n := ev.Arg(2); n.Kind != tracer.ArgInt || n.Int == 0 {
			t.Errorf("%s: the argument after the data is %+v", c.line, n)
		}
		if full := one(t, c.line); c.want != "" && full.Arg(1).Str != got.Str {
			t.Errorf("%s: %q without ShortWrites, %q with", c.line, full.Arg(1).Str, got.Str)
		}
		// DropDataless leaves out, and counts, the writes whose data is
		// skipped.
		opts.DropDataless = true
		evs, r = events(t, c.line+"\n", opts)
		if dropped := c.want == ""; (len(evs) == 0) != dropped || r.DroppedWrites() != int64(1-len(evs)) {
			t.Errorf("%s: with DropDataless, %d events and %d dropped writes", c.line, len(evs), r.DroppedWrites())
		}
	}
}

// TestDroppedCalls: with FailedLookups, the failed calls are dropped and
// counted unless tracer/linux's table says they are failed lookups (openat
// failing with ENOENT; not rmdir's ENOENT, nor rename's ENOTDIR); without
// it none is; a write that failed is not a dataless one; a write that wrote
// nothing is.
func TestDroppedCalls(t *testing.T) {
	const trace = `1 rmdir("/a") = -1 ENOENT (No such file or directory)
1 openat(AT_FDCWD, "/b", O_RDONLY) = -1 ENOENT (No such file or directory)
1 rmdir("/c") = -1 ENOTEMPTY (Directory not empty)
1 write(3, "x", 1) = -1 EPIPE (Broken pipe)
1 write(3, "", 0) = 0
1 write(3, "1\n", 2) = 2
1 rename("/d", "/e") = -1 ENOTDIR (Not a directory)
`
	cases := []struct {
		failed            tracer.Failed
		events            []string // syscall names delivered
		dropped, dataless int64
	}{
		{tracer.FailedAll, []string{"rmdir", "openat", "rmdir", "write", "write", "rename"}, 0, 1},
		{tracer.FailedLookups, []string{"openat", "write"}, 4, 1},
	}
	for k, c := range cases {
		opts := Options{Failed: c.failed, ShortWrites: true, DropDataless: true}
		evs, r := events(t, trace, opts)
		var names []string
		for _, ev := range evs {
			names = append(names, ev.Syscall)
		}
		if !slices.Equal(names, c.events) || r.DroppedFailed() != c.dropped || r.DroppedWrites() != c.dataless {
			t.Errorf("case %d: events %v, dropped %d failed and %d writes; want %v, %d and %d",
				k, names, r.DroppedFailed(), r.DroppedWrites(), c.events, c.dropped, c.dataless)
		}
	}
}

// TestRecentExprs: symbolic expressions decode to the same value when read
// again from lineParser.recentExprs, also after more expressions than it
// has slots, in another order, and next to numeric ones of the same text.
func TestRecentExprs(t *testing.T) {
	names := make([]string, 0, len(constantValues))
	for name := range constantValues {
		names = append(names, name)
	}
	slices.Sort(names)
	type expr struct {
		text string
		want int64
	}
	var exprs []expr
	for i := 0; i < 3*recentExprSlots; i++ {
		x, y := names[(i*7)%len(names)], names[(i*13+5)%len(names)]
		exprs = append(exprs, expr{x + "|" + y, constantValues[x] | constantValues[y]}, expr{x, constantValues[x]})
	}
	exprs = append(exprs, expr{"O_RDONLY|0x80000", 0x80000}, expr{"UNKNOWN_NAME|O_CLOEXEC", constantValues["O_CLOEXEC"]})
	var text strings.Builder
	for pass := 0; pass < 2; pass++ {
		for i := range exprs {
			e := exprs[i]
			if pass == 1 {
				e = exprs[len(exprs)-1-i]
			}
			fmt.Fprintf(&text, "1 fcntl(3, F_SETFL, %s) = 0\n", e.text)
		}
	}
	evs, _ := events(t, text.String(), Options{})
	if len(evs) != 2*len(exprs) {
		t.Fatalf("%d events, want %d", len(evs), 2*len(exprs))
	}
	for i, ev := range evs {
		e := exprs[i%len(exprs)]
		if i >= len(exprs) {
			e = exprs[len(exprs)-1-i%len(exprs)]
		}
		if a := ev.Arg(2); a.Kind != tracer.ArgInt || a.Int != e.want {
			t.Fatalf("event %d, %s: %+v, want %#o", i, e.text, a, e.want)
		}
	}
}

func TestArguments(t *testing.T) {
	cases := []struct {
		arg  string
		want tracer.Arg
	}{
		{`NULL`, tracer.Arg{Kind: tracer.ArgNull}},
		{`0x7ffd4d3c1a20`, tracer.Arg{Kind: tracer.ArgPtr, Int: 0x7ffd4d3c1a20}},
		{`42`, tracer.Arg{Kind: tracer.ArgInt, Int: 42}},
		{`-1`, tracer.Arg{Kind: tracer.ArgInt, Int: -1}},
		{`0x80000`, tracer.Arg{Kind: tracer.ArgInt, Int: 0x80000}},
		{`0644`, tracer.Arg{Kind: tracer.ArgInt, Int: 0644}},
		{`0`, tracer.Arg{Kind: tracer.ArgInt, Int: 0}},
		{`AT_FDCWD`, tracer.Arg{Kind: tracer.ArgInt, Int: -100}},
		{`AT_FDCWD</root>`, tracer.Arg{Kind: tracer.ArgInt, Int: -100}},
		{`3</etc/x, y>`, tracer.Arg{Kind: tracer.ArgInt, Int: 3}},
		{`3<pipe:[1234]>`, tracer.Arg{Kind: tracer.ArgInt, Int: 3}},
		{`O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC`, tracer.Arg{Kind: tracer.ArgInt, Int: 01 | 0100 | 01000 | 02000000}},
		{`AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH`, tracer.Arg{Kind: tracer.ArgInt, Int: 0x1100}},
		{`F_DUPFD_CLOEXEC`, tracer.Arg{Kind: tracer.ArgInt, Int: 1030}},
		{`RENAME_EXCHANGE`, tracer.Arg{Kind: tracer.ArgInt, Int: 2}},
		{`CLOSE_RANGE_CLOEXEC`, tracer.Arg{Kind: tracer.ArgInt, Int: 4}},
		{`S_IFREG|0644`, tracer.Arg{Kind: tracer.ArgInt, Int: 0100644}},
		{`O_RDONLY|O_NOT_A_FLAG|O_CLOEXEC`, tracer.Arg{Kind: tracer.ArgInt, Int: 02000000}},
		{`0x80000 /* O_RDONLY|O_CLOEXEC */`, tracer.Arg{Kind: tracer.ArgInt, Int: 0x80000}},
		{`-100 /* AT_FDCWD */</tmp>`, tracer.Arg{Kind: tracer.ArgInt, Int: -100}},
		{`0x1200000 /* CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID */|17 /* SIGCHLD */`, tracer.Arg{Kind: tracer.ArgInt, Int: 0x1200011}},
		{`0x7ffd /* 20 vars */`, tracer.Arg{Kind: tracer.ArgInt, Int: 0x7ffd}},
		{`0x7ffc2a1b3c40 /* 20 vars */`, tracer.Arg{Kind: tracer.ArgPtr, Int: 0x7ffc2a1b3c40}},
		{`[3, 4]`, tracer.Arg{Kind: tracer.ArgArray, Ints: []int64{3, 4}}},
		{`[3<pipe:[99]>, 4<pipe:[99]>]`, tracer.Arg{Kind: tracer.ArgArray, Ints: []int64{3, 4}}},
		{`["sh", "-c", "ls, \"x\""]`, tracer.Arg{Kind: tracer.ArgArray, Str: `sh-cls, "x"`}},
		{`[{iov_base="\33[0;32mInfo: a\33[0m", iov_len=14}, {iov_base="\n", iov_len=1}]`, tracer.Arg{Kind: tracer.ArgArray, Str: "\x1b[0;32mInfo: a\x1b[0m\n"}},
		{`[]`, tracer.Arg{Kind: tracer.ArgArray}},
		{`{flags=O_RDONLY|O_CLOEXEC, resolve=0}`, tracer.Arg{Kind: tracer.ArgStruct, Int: 02000000}},
		{`{flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f0000000000, stack_size=0x9000} => {parent_tid=[123]}`, tracer.Arg{Kind: tracer.ArgStruct, Int: 0x4100}},
		{`{st_mode=S_IFREG|0644, st_size=12, ...}`, tracer.Arg{Kind: tracer.ArgStruct}},
		{`{sa_family=AF_UNIX, sun_path="/run/x.sock"}`, tracer.Arg{Kind: tracer.ArgStruct, Str: "/run/x.sock"}},
		{`[RTMIN RT_1]`, tracer.Arg{Kind: tracer.ArgOther, Str: "[RTMIN RT_1]"}},
		{`~[KILL STOP RTMIN RT_1]`, tracer.Arg{Kind: tracer.ArgOther, Str: "~[KILL STOP RTMIN RT_1]"}},
		{`[CHLD]`, tracer.Arg{Kind: tracer.ArgOther, Str: "[CHLD]"}},
		{`makedev(0x1, 0x3)`, tracer.Arg{Kind: tracer.ArgOther, Str: "makedev(0x1, 0x3)"}},
		{`[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]`, tracer.Arg{Kind: tracer.ArgArray}},
		{`1<<20`, tracer.Arg{Kind: tracer.ArgOther, Str: "1<<20"}},
		{`1 2`, tracer.Arg{Kind: tracer.ArgOther, Str: "1 2"}}, // unknown syntax is kept, not rejected
		{`child_stack=NULL`, tracer.Arg{Kind: tracer.ArgNull, Name: "child_stack"}},
		{`flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID|SIGCHLD`,
			tracer.Arg{Kind: tracer.ArgInt, Name: "flags", Int: 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x80000 | 0x100000 | 0x200000 | 17}},
	}
	for _, c := range cases {
		ev := one(t, `1 anycall(7, `+c.arg+`, 9) = 0`)
		if len(ev.Args) != 3 {
			t.Errorf("%s: %d args, want 3: %+v", c.arg, len(ev.Args), ev.Args)
			continue
		}
		if got := ev.Args[1]; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.arg, got, c.want)
		}
		if ev.Args[0].Int != 7 || ev.Args[2].Int != 9 {
			t.Errorf("%s: neighbours %+v %+v", c.arg, ev.Args[0], ev.Args[2])
		}
	}
}

func TestNamedArgs(t *testing.T) {
	ev := one(t, `5 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f63c6f4fa10) = 6`)
	flags, ok := ev.NamedArg("flags")
	if !ok || flags.Int != 0x1200000|17 {
		t.Errorf("flags = %+v %v", flags, ok)
	}
	if a, ok := ev.NamedArg("child_stack"); !ok || a.Kind != tracer.ArgNull {
		t.Errorf("child_stack = %+v", a)
	}
	if a, ok := ev.NamedArg("child_tidptr"); !ok || a.Kind != tracer.ArgPtr {
		t.Errorf("child_tidptr = %+v", a)
	}
	if ev.Ret != 6 {
		t.Errorf("ret %d", ev.Ret)
	}
}

// TestMountFlags: a bind mount's flags read as the kernel's bits (the
// lowering keeps MS_BIND without MS_REMOUNT).
func TestMountFlags(t *testing.T) {
	for _, c := range []struct {
		line  string
		flags int64
	}{
		{`604 mount("/", "/run/systemd/unit-root", NULL, MS_BIND|MS_REC, NULL) = 0`, 0x1000 | 0x4000},
		{`604 mount(NULL, "/run/systemd/unit-root/usr", NULL, MS_RDONLY|MS_NOSUID|MS_REMOUNT|MS_BIND, NULL) = 0`, 0x1 | 0x2 | 0x20 | 0x1000},
		{`604 mount(".", "/", NULL, MS_MOVE, NULL) = 0`, 0x2000},
	} {
		ev := one(t, c.line)
		if len(ev.Args) != 5 || ev.Args[3].Int != c.flags {
			t.Errorf("%s: args %+v, want flags %#x", c.line, ev.Args, c.flags)
		}
	}
}

func TestNotices(t *testing.T) {
	trace := strings.Join([]string{
		`10 +++ exited with 3 +++`,
		`11 +++ killed by SIGKILL +++`,
		`12 +++ killed by SIGSEGV (core dumped) +++`,
		`13 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=16473, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---`,
		`14 --- stopped by SIGSTOP ---`,
		`strace: Process 15 attached`,
		`15 strace: Process 16 detached`,
		`[ Process PID=17 runs in 32 bit mode. ]`,
		` > /usr/lib/x86_64-linux-gnu/libc.so.6(__open64+0x5b) [0xf2e3b]`,
		``,
	}, "\n")
	evs, r := events(t, trace, Options{})
	if len(r.Warnings()) != 0 || r.Lines() != 9 {
		t.Fatalf("warnings %+v, lines %d", r.Warnings(), r.Lines())
	}
	want := []struct {
		kind tracer.EventKind
		pid  int
		ret  int64
		sig  string
	}{
		{tracer.KindExit, 10, 3, ""},
		{tracer.KindExit, 11, -9, "SIGKILL"},
		{tracer.KindExit, 12, -11, "SIGSEGV"},
		{tracer.KindSignal, 13, 0, "SIGCHLD"},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i, w := range want {
		ev := evs[i]
		if ev.Kind != w.kind || ev.Pid != w.pid || ev.Ret != w.ret || ev.Syscall != "" || ev.Arg(0).Str != w.sig && w.sig != "" {
			t.Errorf("event %d = %+v, want %+v", i, ev, w)
		}
		if ev.Line != int64(i+1) {
			t.Errorf("event %d line %d", i, ev.Line)
		}
	}
	if evs[3].Arg(0).Int != 17 {
		t.Errorf("SIGCHLD number %d", evs[3].Arg(0).Int)
	}
}

// TestUnfinishedResumed checks the pairing of halves with other pids' lines
// in between, the line number of the resumed half and orphan warnings.
func TestUnfinishedResumed(t *testing.T) {
	trace := strings.Join([]string{
		/* 1 */ `100 openat(AT_FDCWD, "/etc/a b", O_RDONLY <unfinished ...>`,
		/* 2 */ `200 read(3,  <unfinished ...>`,
		/* 3 */ `300 openat(AT_FDCWD, "/etc/c", O_RDONLY) = 4`,
		/* 4 */ `200 <... read resumed>"data", 10) = 4`,
		/* 5 */ `100 <... openat resumed>)          = 3`,
		/* 6 */ `300 <... close resumed>) = 0`,
		/* 7 */ `400 clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f0000000000, stack_size=0x9000} <unfinished ...>`,
		/* 8 */ `401 execve("/bin/true", ["true"], 0x7ffd /* 3 vars */ <unfinished ...>`,
		/* 9 */ `400 <... clone3 resumed> => {parent_tid=[401]}, 88) = 401`,
		/* 10 */ `401 <... execve resumed>) = 0`,
		/* 11 */ `500 wait4(-1,  <unfinished ...>`,
		/* 12 */ `500 +++ killed by SIGKILL +++`,
		/* 13 */ `500 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 501`,
	}, "\n") + "\n"
	evs, r := events(t, trace, Options{})
	type want struct {
		pid  int
		name string
		line int64
		ret  int64
		arg0 int64
	}
	wants := []want{
		{300, "openat", 3, 4, -100},
		{200, "read", 4, 4, 3},
		{100, "openat", 5, 3, -100},
		{400, "clone3", 9, 401, 0x4100},
		{401, "execve", 10, 0, 0},
		{500, "", 12, -9, 9}, // the kill; wait4's first half dies with the process
	}
	if len(evs) != len(wants) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(wants), evs)
	}
	for i, w := range wants {
		ev := evs[i]
		if ev.Pid != w.pid || ev.Syscall != w.name || ev.Line != w.line || ev.Ret != w.ret || ev.Arg(0).Int != w.arg0 {
			t.Errorf("event %d = %+v, want %+v", i, ev, w)
		}
	}
	if p := evs[2].Arg(1); p.Str != "/etc/a b" || evs[2].Arg(2).Kind != tracer.ArgInt {
		t.Errorf("resumed openat args %+v", evs[2].Args)
	}
	if d := evs[1].Arg(1); d.Str != "data" {
		t.Errorf("resumed read data %+v", d)
	}
	if evs[4].Arg(0).Str != "/bin/true" || evs[4].Arg(1).Str != "true" {
		t.Errorf("resumed execve args %+v", evs[4].Args)
	}
	// Lines 6 and 13 are resumed halves without a start.
	ws := r.Warnings()
	if len(ws) != 2 || ws[0].Line != 6 || ws[1].Line != 13 || r.Malformed() != 0 || r.WarningCount() != 2 {
		t.Errorf("warnings %+v (malformed %d)", ws, r.Malformed())
	}
}

// TestWantSkipsButPairs checks that rejected calls are skipped while their
// halves still pair (no orphan warning) and exits still come through.
func TestWantSkipsButPairs(t *testing.T) {
	trace := strings.Join([]string{
		`1 read(3,  <unfinished ...>`,
		`2 openat(AT_FDCWD, "/x", O_RDONLY <unfinished ...>`,
		`1 <... read resumed>"abc", 3) = 3`,
		`2 <... openat resumed>) = 5`,
		`1 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f0000000000`,
		`1 +++ exited with 0 +++`,
	}, "\n")
	asked := map[string]int{}
	want := func(name string) bool { asked[name]++; return name == "openat" }
	evs, r := events(t, trace, Options{Want: want})
	if len(r.Warnings()) != 0 {
		t.Fatalf("warnings %+v", r.Warnings())
	}
	if len(evs) != 2 || evs[0].Syscall != "openat" || evs[0].Ret != 5 || evs[0].Line != 4 || evs[1].Kind != tracer.KindExit {
		t.Fatalf("events %+v", evs)
	}
	if asked["read"] != 1 || asked["openat"] != 1 || asked["mmap"] != 1 {
		t.Errorf("Want asked %v, want once per name", asked)
	}
}

func TestMalformedLines(t *testing.T) {
	bad := []string{
		`1 close(3`,                      // cut by a killed strace
		`1 close(3) =`,                   // no value
		`1 close(3) 0`,                   // no '='
		`1 open("/x, O_RDONLY) = 3`,      // unterminated string
		`1 open("/x", O_RDONLY)) = 3`,    // stray ')'
		`1 <... close resumed`,           // no '>'
		`1 +++ exploded +++`,             // unknown notice
		`[pid x] close(3) = 0`,           // bad pid
		`1 12:34:56.789openat() = 3`,     // timestamp glued to the call
		`1 close(3) = abc`,               // not a number
		`hello world`,                    // not a call
		`1 write(1, "\x", 1) = 1`,        // bad hex escape
		`1 f(3</x) = 0`,                  // unterminated annotation
		`1 f(/* never closed) = 0`,       // unterminated comment
		`1 f({a=1, b=2) = 0`,             // unclosed struct
		`1 f([1, 2) = 0`,                 // unclosed array
		`1 f(x) = 3</unclosed`,           // unterminated return annotation
		`1 write(1, "abc" "def", 6) = 6`, // two strings
		`1 f(a=) = 0`,                    // name without a value
		`[pid 3 close(3) = 0`,            // unclosed [pid
		`--x`,                            // not a notice
		`1 +++ exited with x +++`,        // no status
		`1 +++ killed by  +++`,           // no signal
		`1 +++ superseded by execve +++`, // no pid
		`1 execve("/x", ["a"], 0x1 /* 3 vars */ => ) = 0`, // dangling out-part
	}
	for _, line := range bad {
		r := NewReader(strings.NewReader("1 close(9) = 0\n"+line+"\n1 close(8) = 0\n"), Options{})
		evs := readAll(t, r)
		if len(evs) != 2 || r.Malformed() != 1 || len(r.Warnings()) != 1 || r.Warnings()[0].Line != 2 {
			t.Errorf("%s: %d events, malformed %d, warnings %+v", line, len(evs), r.Malformed(), r.Warnings())
			continue
		}
		if w := r.Warnings()[0]; w.Text != line || w.Message == "" {
			t.Errorf("%s: warning %+v", line, w)
		}
		if evs[1].Line != 3 {
			t.Errorf("%s: next event on line %d", line, evs[1].Line)
		}
	}
}

func TestWarningsKeptAndCounted(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 250; i++ {
		b.WriteString("1 broken(\n")
	}
	_, r := events(t, b.String(), Options{})
	if len(r.Warnings()) != maxKeptWarnings || r.Malformed() != 250 || r.WarningCount() != 250 {
		t.Fatalf("kept %d, malformed %d, count %d", len(r.Warnings()), r.Malformed(), r.WarningCount())
	}
	if r.Warnings()[99].Line != 100 {
		t.Errorf("100th warning on line %d", r.Warnings()[99].Line)
	}
}

// TestStderrAttachNotices reads strace -f output to stderr, where
// "strace: Process N attached" cuts a line in two and the first process has
// no "[pid N]" prefix until it has children.
func TestStderrAttachNotices(t *testing.T) {
	trace := strings.Join([]string{
		`close(3)                                = 0`,
		`vfork(strace: Process 24974 attached`,
		` <unfinished ...>`,
		`[pid 24974] execve("/usr/bin/cat", ["cat"], 0x562d /* 35 vars */ <unfinished ...>`,
		`[pid 24973] <... vfork resumed>)        = 24974`,
		`[pid 24974] <... execve resumed>)       = 0`,
		`[pid 24974] +++ exited with 0 +++`,
		`close(4)                                = 0`,
	}, "\n")
	evs, r := events(t, trace, Options{})
	if len(r.Warnings()) != 0 {
		t.Fatalf("warnings %+v", r.Warnings())
	}
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%s@%d", ev.Syscall, ev.Pid))
	}
	want := []string{"close@0", "vfork@24973", "execve@24974", "@24974", "close@24973"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if evs[1].Ret != 24974 || evs[1].Line != 5 {
		t.Errorf("vfork %+v", evs[1])
	}
}

func TestStrict(t *testing.T) {
	r := NewReader(strings.NewReader("1 close(3) = 0\n2 close(3\n3 close(4) = 0\n"), Options{Strict: true})
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want a malformed-line error naming line 2", err)
	}
	if _, again := r.Next(); again != err {
		t.Errorf("the error is not sticky: then %v", again)
	}
}

func TestOverlongLine(t *testing.T) {
	saved := maxLineSize
	maxLineSize = 2 << 20
	defer func() { maxLineSize = saved }()
	long := `1 write(1, "` + strings.Repeat("x", 5<<20) + `", 5242880) = 5242880`
	text := "1 close(3) = 0\n" + long + "\n1 close(4) = 0\n"
	evs, r := events(t, text, Options{})
	if len(evs) != 2 || evs[1].Arg(0).Int != 4 || evs[1].Line != 3 {
		t.Fatalf("events %+v", evs)
	}
	if r.Malformed() != 1 || r.Warnings()[0].Line != 2 || r.Bytes() != int64(len(text)) || r.Lines() != 3 {
		t.Fatalf("malformed %d warnings %+v bytes %d lines %d", r.Malformed(), r.Warnings(), r.Bytes(), r.Lines())
	}
}

// TestFailedCalls: tracer.FailedAll delivers every line decoded; with
// tracer.FailedLookups a failed call that is no failed lookup is not
// delivered, a failed lookup is (decoded, or with its Ret and Errno only
// when LookupArgs says no), and every other line decodes as with
// FailedAll, even when an argument string holds the words of a failed
// return.
func TestFailedCalls(t *testing.T) {
	lines := []struct {
		line   string
		errno  string
		lookup bool // a failed lookup
	}{
		{`7 readlink("/usr/lib/ruby", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)`, "EINVAL", false},
		{`7 openat(AT_FDCWD, "/x", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000012>`, "ENOENT", true},
		{`7 access("/y", R_OK) = -13 EACCES`, "EACCES", false},
		{`7 rmdir("/z") = -1 ENOENT (No such file or directory)`, "ENOENT", false},
		{`7 write(1, "x = -1 ENOENT (No such file or directory)", 41) = 41`, "", false},
		{`7 write(1, "= -1 EPERM (Operation not permitted)"..., 300) = 300`, "", false},
		{`7 openat(AT_FDCWD, "/a (b)", O_RDONLY) = 3`, "", false},
		{`7 fcntl(3, F_GETFL) = 0x8000 (flags O_RDONLY|O_LARGEFILE)`, "", false},
	}
	no := func(*tracer.Event) bool { return false }
	for _, c := range lines {
		for _, opts := range []Options{{Failed: tracer.FailedAll}, {}, {LookupArgs: no}} {
			r := NewReader(strings.NewReader(c.line+"\n"), opts)
			ev, err := r.Next()
			failed := c.errno != ""
			if failed && !c.lookup && opts.Failed == tracer.FailedLookups {
				if err != io.EOF || r.DroppedFailed() != 1 {
					t.Errorf("%s (%v): delivered %+v, %v, %d dropped; want it dropped", c.line, opts.Failed, ev, err, r.DroppedFailed())
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", c.line, err)
			}
			if ev.Failed() != failed || ev.Errno != c.errno {
				t.Errorf("%s (%v): failed=%v errno=%q, want %v %q", c.line, opts.Failed, ev.Failed(), ev.Errno, failed, c.errno)
			}
			wantArgs := !(c.lookup && opts.LookupArgs != nil)
			if (len(ev.Args) > 0) != wantArgs {
				t.Errorf("%s (%v, LookupArgs %v): %d args decoded, want args=%v", c.line, opts.Failed, opts.LookupArgs != nil, len(ev.Args), wantArgs)
			}
			if failed && ev.Ret >= 0 {
				t.Errorf("%s: Ret %d, want negative", c.line, ev.Ret)
			}
		}
	}
}

// TestLookupArgs: of the failed calls, the failed lookups only are
// delivered; LookupArgs is asked about them (with the name and errno) and
// those it accepts are decoded, the arguments of Args only; the others are
// delivered without arguments. A call split into unfinished and resumed
// halves is decided on the whole.
func TestLookupArgs(t *testing.T) {
	text := `7 readlink("/usr/lib/ruby", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)
7 newfstatat(AT_FDCWD, "/usr/local/bin/x", 0x7ffd, 0) = -1 ENOENT (No such file or directory)
7 openat(AT_FDCWD, "/etc/passwd/x", O_RDONLY|O_CLOEXEC <unfinished ...>
8 close(3) = 0
7 <... openat resumed>) = -1 ENOTDIR (Not a directory) <0.000012>
7 unlink("/run/x.pid") = -1 ENOENT (No such file or directory)
7 newfstatat(AT_FDCWD, "/etc", {st_mode=S_IFDIR|0755, ...}, 0) = 0
7 newfstatat(AT_FDCWD, "/usr/bin/x", 0x7ffd, 0) = -1 ENOENT (No such file or directory)
`
	var asked []string
	opts := Options{
		LookupArgs: func(ev *tracer.Event) bool {
			if len(ev.Args) != 0 || ev.Ret != -1 || ev.Pid != 7 {
				t.Errorf("LookupArgs asked with %+v", ev)
			}
			asked = append(asked, ev.Syscall+" "+ev.Errno)
			return ev.Arg(1).Str == "" && len(asked) < 3
		},
		Args: func(name string) uint64 {
			if name == "newfstatat" {
				return 1<<0 | 1<<1 | 1<<3
			}
			return 0
		},
	}
	evs, r := events(t, text, opts)
	if strings.Join(asked, ",") != "newfstatat ENOENT,openat ENOTDIR,newfstatat ENOENT" {
		t.Errorf("LookupArgs asked %q", asked)
	}
	if r.DroppedFailed() != 2 {
		t.Errorf("%d failed calls dropped, want 2 (readlink, unlink)", r.DroppedFailed())
	}
	type want struct {
		name, errno, path string
		args              int
	}
	wants := []want{
		{"newfstatat", "ENOENT", "/usr/local/bin/x", 4},
		{"close", "", "", 1},
		{"openat", "ENOTDIR", "/etc/passwd/x", 3},
		{"newfstatat", "", "/etc", 4},
		{"newfstatat", "ENOENT", "", 0}, // LookupArgs said no
	}
	if len(evs) != len(wants) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(wants), evs)
	}
	for i, ev := range evs {
		w := wants[i]
		if ev.Syscall != w.name || ev.Errno != w.errno || len(ev.Args) != w.args {
			t.Errorf("event %d: %s %q with %d args, want %s %q with %d", i, ev.Syscall, ev.Errno, len(ev.Args), w.name, w.errno, w.args)
			continue
		}
		if w.path != "" && ev.Arg(1).Str != w.path && ev.Arg(0).Str != w.path {
			t.Errorf("event %d: path %+v, want %q", i, ev.Args, w.path)
		}
		if ev.Syscall == "newfstatat" && len(ev.Args) > 2 && ev.Arg(2).Kind != tracer.ArgOther {
			t.Errorf("event %d: the stat buffer was decoded: %+v", i, ev.Arg(2))
		}
		if w.errno != "" && ev.Ret != -1 {
			t.Errorf("event %d: Ret %d", i, ev.Ret)
		}
	}
}

// TestLookupArgsMatchFullDecode: on real traces, a failed lookup decoded
// for LookupArgs has the arguments a full decode (tracer.FailedAll) gives,
// up to the last one Args selects; one not decoded has none; the failed
// calls that are no failed lookups are the ones left out; and every other
// event is unchanged.
func TestLookupArgsMatchFullDecode(t *testing.T) {
	mask := func(name string) uint64 {
		if name == "openat" || name == "newfstatat" {
			return 1<<1 | 1<<0
		}
		return 1 << 0
	}
	for _, name := range []string{"f.log", "stderr.log", "modern.log", "threads.log"} {
		path := "../../testdata/strace/" + name
		read := func(opts Options) ([]tracer.Event, int64) {
			r, err := Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			return readAll(t, r), r.DroppedFailed()
		}
		full, _ := read(Options{Args: mask, Failed: tracer.FailedAll})
		lookups, dropped := read(Options{Args: mask,
			LookupArgs: func(ev *tracer.Event) bool { return ev.Errno == "ENOENT" }})
		decoded, left := 0, int64(0)
		j := 0
		for _, f := range full {
			// "= ?" is no failed return: it is decoded.
			if f.Failed() && f.Errno != "?" && !(linux.LooksUp(f.Syscall) && linux.LookupErrno(f.Errno)) {
				left++
				continue
			}
			if j == len(lookups) {
				t.Fatalf("%s: line %d (%s) missing with FailedLookups", name, f.Line, f.Syscall)
			}
			s := lookups[j]
			j++
			if f.Syscall != s.Syscall || f.Pid != s.Pid || f.Ret != s.Ret || f.Errno != s.Errno || f.Line != s.Line {
				t.Fatalf("%s: %+v, with FailedLookups %+v", name, f, s)
			}
			want := f.Args
			switch {
			case f.Errno == "ENOENT":
				if n := bits.Len64(mask(f.Syscall)); len(want) > n {
					want = want[:n]
				}
				decoded++
			case f.Failed() && f.Errno != "?":
				want = nil
			}
			if len(want) != len(s.Args) || (len(want) > 0 && !reflect.DeepEqual(want, s.Args)) {
				t.Errorf("%s line %d: %s args %+v, with LookupArgs %+v", name, f.Line, f.Syscall, want, s.Args)
			}
		}
		if j != len(lookups) || left != dropped {
			t.Errorf("%s: %d events more with FailedLookups; %d failed calls left out, %d counted dropped", name, len(lookups)-j, left, dropped)
		}
		if decoded == 0 && name == "f.log" {
			t.Errorf("%s: no failed lookup decoded", name)
		}
	}
}
