package strace

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
)

// straceLines are lines of strace 6.1 (-f -o FILE) whose arguments Reader
// keeps whole (no stat structs or argv arrays, which it reduces): written
// back by Writer, each reads the same, spaces aside.
var straceLines = []string{
	`openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3`,
	`openat(AT_FDCWD, "/fsmove/puppet.pid", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
	`openat(AT_FDCWD, "/tmp/d", O_RDONLY|O_NOCTTY|O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY) = 3`,
	`openat(AT_FDCWD, "/usr/lib/locale/locale-archive", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`,
	`newfstatat(AT_FDCWD, "/usr/local/go/bin/cat", 0x7fffa47f9ee0, 0) = -1 ENOENT (No such file or directory)`,
	`faccessat2(AT_FDCWD, "/usr/lib/ruby/vendor_ruby/puppet/pops/loader/", F_OK, AT_EACCESS) = 0`,
	`faccessat2(3, "cpu0/topology/thread_siblings", F_OK, 0) = 0`,
	`access("/etc/ld.so.preload", R_OK) = -1 ENOENT (No such file or directory)`,
	`readlink("/fsmove/enumerator.so", 0x7ffe07749390, 1023) = -1 ENOENT (No such file or directory)`,
	`statfs("/sys/fs/selinux", 0x7ffe07747a70) = -1 ENOENT (No such file or directory)`,
	`fcntl(1, F_DUPFD, 10) = 10`,
	`fcntl(10, F_SETFD, FD_CLOEXEC) = 0`,
	`fcntl(5, F_GETFD) = 0x1 (flags FD_CLOEXEC)`,
	`fcntl(3, F_GETFL) = 0x38800 (flags O_RDONLY|O_NONBLOCK|O_LARGEFILE|O_NOFOLLOW|O_DIRECTORY)`,
	`clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7fa093a06a10) = 174`,
	`vfork() = 5595`,
	`mkdir("/run/puppet", 0755) = 0`,
	`mkdir("/tmp", 0777) = -1 EEXIST (File exists)`,
	`chdir("/tmp") = 0`,
	`fchdir(3) = 0`,
	`chown("/run/puppet", 100, -1) = 0`,
	`chmod("/var/cache/puppet/state", 01755) = 0`,
	`fchmod(5, 0644) = 0`,
	`rename("/opt/clean/app.conf20261122-16-1k027bi", "/opt/clean/app.conf") = 0`,
	`unlink("/opt/clean/app.conf20261122-16-1k027bi") = -1 ENOENT (No such file or directory)`,
	`rmdir("/opt/clean/app.conf20261122-16-1k027bi.lock") = 0`,
	`dup(1) = 3`,
	`dup2(3, 1) = 1`,
	`close(3) = 0`,
	`pipe2([5, 6], O_NONBLOCK|O_CLOEXEC) = 0`,
	`socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, 0) = 5`,
	`socket(AF_INET, SOCK_DGRAM|SOCK_CLOEXEC, 0) = 5`,
	`eventfd2(0, EFD_CLOEXEC|EFD_NONBLOCK) = 3`,
	`getcwd("/fsmove", 1024) = 8`,
	`write(1, "16\n", 3) = 3`,
	`write(3, "\1\0\0\0\0\0\0\0", 8) = 8`,
	`writev(1, [{iov_base="\33[0;36mDebug: Facter\33[0m\n", iov_len=25}], 1) = 25`,
	`exit_group(0) = ?`,
	`+++ exited with 0 +++`,
}

// TestWriterPrintsStraceLines: strace's own lines, read and written back,
// come out as strace printed them.
func TestWriterPrintsStraceLines(t *testing.T) {
	for _, line := range straceLines {
		evs := readBack(t, "16 "+line+"\n")
		if len(evs) != 1 {
			t.Fatalf("%s: %d events", line, len(evs))
		}
		got := strings.TrimSuffix(writeAll(t, evs), "\n")
		if want := "16 " + line; got != want {
			t.Errorf("strace printed\n\t%s\nWriter prints\n\t%s", want, got)
		}
	}
}

// ptr is a user-space address as the native tracers see them.
const ptr = 0x7ffd18733ad0

func iarg(v int64) tracer.Arg                 { return tracer.Arg{Kind: tracer.ArgInt, Int: v} }
func sarg(s string) tracer.Arg                { return tracer.Arg{Kind: tracer.ArgStr, Str: s} }
func parg(v int64) tracer.Arg                 { return tracer.Arg{Kind: tracer.ArgPtr, Int: v} }
func named(n string, a tracer.Arg) tracer.Arg { a.Name = n; return a }

var nullArg = tracer.Arg{Kind: tracer.ArgNull}

// nativeCalls are events as the native tracers decode them (one argument
// per register, in the kernel's order; the arguments of a failed call
// that is not a failed lookup from the registers alone), with the line
// Writer prints for each after Normalize: strace's.
var nativeCalls = []struct {
	ev   tracer.Event
	want string
}{
	{tracer.Event{Syscall: "openat", Args: []tracer.Arg{iarg(-100), sarg("/etc/ld.so.cache"), iarg(0x80000), iarg(0)}, Ret: 3},
		`openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3`},
	{tracer.Event{Syscall: "openat", Args: []tracer.Arg{iarg(-100), sarg("/tmp/x"), iarg(0x241), iarg(0666)}, Ret: 3},
		`openat(AT_FDCWD, "/tmp/x", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`},
	{tracer.Event{Syscall: "openat", Args: []tracer.Arg{iarg(4), sarg("e"), iarg(0x30900), iarg(0)}, Ret: 3},
		`openat(4, "e", O_RDONLY|O_NOCTTY|O_NONBLOCK|O_NOFOLLOW|O_DIRECTORY) = 3`},
	{tracer.Event{Syscall: "openat", Args: []tracer.Arg{iarg(-100), sarg("/fifo"), iarg(1), iarg(0)}, Ret: -1, Errno: "ERESTARTSYS"},
		`openat(AT_FDCWD, "/fifo", O_WRONLY) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)`},
	{tracer.Event{Syscall: "open", Args: []tracer.Arg{sarg("/etc/passwd"), iarg(0), iarg(0)}, Ret: -1, Errno: "ENOENT"},
		`open("/etc/passwd", O_RDONLY) = -1 ENOENT (No such file or directory)`},
	{tracer.Event{Syscall: "open", Args: []tracer.Arg{sarg("/tmp"), iarg(0x410002), iarg(0600)}, Ret: 3},
		`open("/tmp", O_RDWR|O_TMPFILE, 0600) = 3`},
	{tracer.Event{Syscall: "openat2", Args: []tracer.Arg{iarg(-100), sarg("/x"), {Kind: tracer.ArgStruct, Int: 0x80000}, iarg(24)}, Ret: 3},
		`openat2(AT_FDCWD, "/x", {flags=O_RDONLY|O_CLOEXEC}, 24) = 3`},
	{tracer.Event{Syscall: "mkdir", Args: []tracer.Arg{sarg("/run/puppet"), iarg(0755)}},
		`mkdir("/run/puppet", 0755) = 0`},
	{tracer.Event{Syscall: "mkdir", Args: []tracer.Arg{parg(0x7ffcc4e54ac5), iarg(0777)}, Ret: -1, Errno: "EEXIST"},
		`mkdir(0x7ffcc4e54ac5, 0777) = -1 EEXIST (File exists)`},
	{tracer.Event{Syscall: "mkdirat", Args: []tracer.Arg{iarg(-100), sarg("d"), iarg(0777)}},
		`mkdirat(AT_FDCWD, "d", 0777) = 0`},
	{tracer.Event{Syscall: "mkdirat", Args: []tracer.Arg{iarg(3), sarg("e"), iarg(0)}},
		`mkdirat(3, "e", 000) = 0`},
	{tracer.Event{Syscall: "mknod", Args: []tracer.Arg{sarg("/fifo"), iarg(010644), iarg(0)}},
		`mknod("/fifo", S_IFIFO|0644) = 0`},
	{tracer.Event{Syscall: "mknodat", Args: []tracer.Arg{iarg(-100), sarg("/dev/x"), iarg(020600), iarg(259)}},
		`mknodat(AT_FDCWD, "/dev/x", S_IFCHR|0600, 259) = 0`},
	{tracer.Event{Syscall: "unlinkat", Args: []tracer.Arg{iarg(4), sarg("e"), iarg(0x200)}},
		`unlinkat(4, "e", AT_REMOVEDIR) = 0`},
	{tracer.Event{Syscall: "unlinkat", Args: []tracer.Arg{iarg(-100), sarg("/tmp/x"), iarg(0)}},
		`unlinkat(AT_FDCWD, "/tmp/x", 0) = 0`},
	{tracer.Event{Syscall: "renameat2", Args: []tracer.Arg{iarg(-100), sarg("a"), iarg(-100), sarg("b"), iarg(1)}},
		`renameat2(AT_FDCWD, "a", AT_FDCWD, "b", RENAME_NOREPLACE) = 0`},
	{tracer.Event{Syscall: "renameat2", Args: []tracer.Arg{iarg(3), sarg("a"), iarg(4), sarg("b"), iarg(0)}},
		`renameat2(3, "a", 4, "b", 0) = 0`},
	// ptrace: every register named; eBPF: flags only, tls as an integer.
	{tracer.Event{Syscall: "clone", Args: []tracer.Arg{named("flags", iarg(0x1200011)), named("child_stack", nullArg),
		named("parent_tid", nullArg), named("child_tidptr", parg(0x7fa093a06a10)), named("tls", nullArg)}, Ret: 174},
		`clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7fa093a06a10) = 174`},
	{tracer.Event{Syscall: "clone", Args: []tracer.Arg{named("flags", iarg(0x3d0f00)), parg(0x7fa08f893000),
		parg(0x7fa08fa93990), parg(0x7fa08fa93990), iarg(0x7fa08fa936c0)}, Ret: 175},
		`clone(child_stack=0x7fa08f893000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, parent_tid=0x7fa08fa93990, child_tidptr=0x7fa08fa93990, tls=0x7fa08fa936c0) = 175`},
	{tracer.Event{Syscall: "clone3", Args: []tracer.Arg{{Kind: tracer.ArgStruct, Int: 0x3d0f00}, iarg(88)}, Ret: 42},
		`clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID}, 88) = 42`},
	{tracer.Event{Syscall: "vfork", Ret: 5595}, `vfork() = 5595`},
	{tracer.Event{Syscall: "execve", Args: []tracer.Arg{sarg("/bin/sh"), parg(0x55dd06981a68), parg(0x55dd06981aa0)}},
		`execve("/bin/sh", 0x55dd06981a68, 0x55dd06981aa0) = 0`},
	{tracer.Event{Syscall: "execve", Args: []tracer.Arg{sarg("/usr/local/bin/puppet"), parg(0x55dd06981a68), parg(0x55dd06981aa0)}, Ret: -1, Errno: "ENOENT"},
		`execve("/usr/local/bin/puppet", 0x55dd06981a68, 0x55dd06981aa0) = -1 ENOENT (No such file or directory)`},
	{tracer.Event{Syscall: "fchmodat", Args: []tracer.Arg{iarg(-100), sarg("/etc/x"), iarg(0644)}},
		`fchmodat(AT_FDCWD, "/etc/x", 0644) = 0`},
	{tracer.Event{Syscall: "fchownat", Args: []tracer.Arg{iarg(-100), sarg("/etc/x"), iarg(0), iarg(0), iarg(0x100)}},
		`fchownat(AT_FDCWD, "/etc/x", 0, 0, AT_SYMLINK_NOFOLLOW) = 0`},
	{tracer.Event{Syscall: "fchownat", Args: []tracer.Arg{iarg(3), sarg(""), iarg(100), iarg(-1), iarg(0x1000)}},
		`fchownat(3, "", 100, -1, AT_EMPTY_PATH) = 0`},
	{tracer.Event{Syscall: "linkat", Args: []tracer.Arg{iarg(-100), sarg("a"), iarg(-100), sarg("b"), iarg(0)}},
		`linkat(AT_FDCWD, "a", AT_FDCWD, "b", 0) = 0`},
	{tracer.Event{Syscall: "linkat", Args: []tracer.Arg{iarg(3), sarg(""), iarg(-100), sarg("/c"), iarg(0x1000)}},
		`linkat(3, "", AT_FDCWD, "/c", AT_EMPTY_PATH) = 0`},
	{tracer.Event{Syscall: "symlinkat", Args: []tracer.Arg{sarg("target"), iarg(-100), sarg("/l")}},
		`symlinkat("target", AT_FDCWD, "/l") = 0`},
	{tracer.Event{Syscall: "write", Args: []tracer.Arg{iarg(1), sarg("hi\n"), iarg(3)}, Ret: 3},
		`write(1, "hi\n", 3) = 3`},
	{tracer.Event{Syscall: "write", Args: []tracer.Arg{iarg(9), parg(0x7ffd0000aa00), iarg(44)}, Ret: -1, Errno: "EBADF"},
		`write(9, 0x7ffd0000aa00, 44) = -1 EBADF (Bad file descriptor)`},
	{tracer.Event{Syscall: "writev", Args: []tracer.Arg{iarg(3), {Kind: tracer.ArgArray, Str: "58\n"}, iarg(1)}, Ret: 3},
		`writev(3, [{iov_base="58\n", iov_len=3}], 1) = 3`},
	{tracer.Event{Syscall: "close", Args: []tracer.Arg{iarg(3)}}, `close(3) = 0`},
	{tracer.Event{Syscall: "close", Args: []tracer.Arg{iarg(7)}, Ret: -1, Errno: "EBADF"},
		`close(7) = -1 EBADF (Bad file descriptor)`},
	{tracer.Event{Syscall: "dup2", Args: []tracer.Arg{iarg(3), iarg(1)}, Ret: 1}, `dup2(3, 1) = 1`},
	{tracer.Event{Syscall: "dup3", Args: []tracer.Arg{iarg(3), iarg(1), iarg(0x80000)}, Ret: 1}, `dup3(3, 1, O_CLOEXEC) = 1`},
	{tracer.Event{Syscall: "dup3", Args: []tracer.Arg{iarg(2), iarg(1), iarg(0)}, Ret: 1}, `dup3(2, 1, 0) = 1`},
	{tracer.Event{Syscall: "fcntl", Args: []tracer.Arg{iarg(1), iarg(0), iarg(10)}, Ret: 11}, `fcntl(1, F_DUPFD, 10) = 11`},
	{tracer.Event{Syscall: "fcntl", Args: []tracer.Arg{iarg(3), iarg(1030), iarg(3)}, Ret: 4}, `fcntl(3, F_DUPFD_CLOEXEC, 3) = 4`},
	{tracer.Event{Syscall: "fcntl", Args: []tracer.Arg{iarg(11), iarg(2), iarg(1)}}, `fcntl(11, F_SETFD, FD_CLOEXEC) = 0`},
	{tracer.Event{Syscall: "fcntl", Args: []tracer.Arg{iarg(3), iarg(3), iarg(ptr)}, Ret: 0x8000},
		`fcntl(3, F_GETFL) = 0x8000 (flags O_RDONLY|O_LARGEFILE)`},
	{tracer.Event{Syscall: "fcntl", Args: []tracer.Arg{iarg(3), iarg(4), iarg(0x800)}}, `fcntl(3, F_SETFL, O_RDONLY|O_NONBLOCK) = 0`},
	{tracer.Event{Syscall: "fcntl", Args: []tracer.Arg{iarg(3), iarg(7), iarg(ptr)}}, `fcntl(3, F_SETLKW, 0x7ffd18733ad0) = 0`},
	{tracer.Event{Syscall: "chdir", Args: []tracer.Arg{sarg("/tmp")}}, `chdir("/tmp") = 0`},
	{tracer.Event{Syscall: "fchdir", Args: []tracer.Arg{iarg(3)}}, `fchdir(3) = 0`},
	{tracer.Event{Syscall: "access", Args: []tracer.Arg{sarg("/etc/ld.so.preload"), iarg(4)}, Ret: -1, Errno: "ENOENT"},
		`access("/etc/ld.so.preload", R_OK) = -1 ENOENT (No such file or directory)`},
	{tracer.Event{Syscall: "newfstatat", Args: []tracer.Arg{iarg(3), sarg(""), parg(ptr), iarg(0x1000)}},
		`newfstatat(3, "", 0x7ffd18733ad0, AT_EMPTY_PATH) = 0`},
	{tracer.Event{Syscall: "statx", Args: []tracer.Arg{iarg(-100), sarg("/x"), iarg(0x100), iarg(0xfff), parg(ptr)}},
		`statx(AT_FDCWD, "/x", AT_SYMLINK_NOFOLLOW, 0xfff, 0x7ffd18733ad0) = 0`},
	{tracer.Event{Syscall: "pipe2", Args: []tracer.Arg{{Kind: tracer.ArgArray, Ints: []int64{5, 6}}, iarg(0x80800)}},
		`pipe2([5, 6], O_NONBLOCK|O_CLOEXEC) = 0`},
	{tracer.Event{Syscall: "socket", Args: []tracer.Arg{iarg(1), iarg(0x80801), iarg(0)}, Ret: 5},
		`socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, 0) = 5`},
	{tracer.Event{Syscall: "exit_group", Args: []tracer.Arg{iarg(0)}, Errno: "?"}, `exit_group(0) = ?`},
}

// openFlagsArg is the position of the open flags of the calls that have
// them.
var openFlagsArg = map[string]int{"open": 1, "openat": 2, "openat2": 2}

var (
	symbolicOpenFlags = regexp.MustCompile(`^(\{flags=)?O_(RDONLY|WRONLY|RDWR)(\|O_[A-Z]+)*\}?$`)
	emptyArgument     = regexp.MustCompile(`\(\s*,|,\s*,|,\s*\)|\(\s+\)`)
)

// TestWriterNativeForm: the native tracers' events, normalized, print as
// strace prints the calls: symbolic open flags, AT_FDCWD, octal modes,
// symbolic clone flags, errno names with their text, no empty argument;
// and read back to the same events.
func TestWriterNativeForm(t *testing.T) {
	var evs []tracer.Event
	for _, c := range nativeCalls {
		ev := c.ev
		ev.Pid = 42
		ev.Args = append([]tracer.Arg(nil), ev.Args...)
		Normalize(&ev)
		got := strings.TrimSuffix(writeAll(t, []tracer.Event{ev}), "\n")
		if want := "42 " + c.want; got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.ev.Syscall, got, want)
		}
		if emptyArgument.MatchString(got) {
			t.Errorf("empty argument: %s", got)
		}
		if ev.Errno != "" && ev.Errno != "?" && !strings.HasSuffix(got, ")") {
			t.Errorf("errno without its text: %s", got)
		}
		if i, ok := openFlagsArg[ev.Syscall]; ok {
			args := splitArgs(got)
			if i >= len(args) || !symbolicOpenFlags.MatchString(args[i]) {
				t.Errorf("open flags not symbolic: %s", got)
			}
		}
		evs = append(evs, ev)
	}
	back := readBack(t, writeAll(t, evs))
	for i := range evs {
		if len(evs[i].Args) == 0 {
			evs[i].Args = nil
		}
	}
	if !reflect.DeepEqual(back, evs) {
		for i := range evs {
			if i >= len(back) || !reflect.DeepEqual(back[i], evs[i]) {
				t.Fatalf("%s reads back differently:\n got %+v\nwant %+v", evs[i].Syscall, back[min(i, len(back)-1)], evs[i])
			}
		}
		t.Fatalf("%d events read back, want %d", len(back), len(evs))
	}
}

// splitArgs returns the top-level arguments of a call line (strings in
// the tests hold no commas).
func splitArgs(line string) []string {
	open := strings.IndexByte(line, '(')
	end := strings.LastIndex(line, ") = ")
	var args []string
	depth, start := 0, open+1
	for i := open + 1; i < end; i++ {
		switch line[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(line[start:i]))
				start = i + 1
			}
		}
	}
	return append(args, strings.TrimSpace(line[start:end]))
}

// TestNormalizeIsIdempotent: an event in strace's form stays as it is.
func TestNormalizeIsIdempotent(t *testing.T) {
	for _, c := range nativeCalls {
		ev := c.ev
		ev.Args = append([]tracer.Arg(nil), ev.Args...)
		Normalize(&ev)
		once := ev
		once.Args = append([]tracer.Arg(nil), ev.Args...)
		Normalize(&ev)
		if !reflect.DeepEqual(ev, once) {
			t.Errorf("%s: normalized twice %+v, once %+v", c.ev.Syscall, ev, once)
		}
	}
}

// TestErrnoTexts: every errno a program can see (errnoNames up to the
// kernel's internal codes) and the restart codes have strace's text, which
// the writer prints.
func TestErrnoTexts(t *testing.T) {
	internal := false
	for _, name := range errnoNames {
		internal = internal || name == "ERESTARTSYS"
		_, ok := linux.ErrnoMessage(name)
		switch {
		case name == "EWOULDBLOCK", name == "EDEADLOCK":
			// Aliases: strace prints EAGAIN and EDEADLK.
		case linux.IsRestart(name) && !ok, !internal && !ok:
			t.Errorf("no text for %s", name)
		}
	}
	if got := string(appendErrnoText(nil, "ENOENT")); got != " (No such file or directory)" {
		t.Errorf("ENOENT text %q", got)
	}
	if got := string(appendErrnoText(nil, "EWOULDBLOCK")); got != "" {
		t.Errorf("an alias printed %q", got)
	}
}
