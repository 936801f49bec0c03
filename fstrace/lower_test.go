package fstrace

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
)

// Builders for the arguments of realistic events, as the strace reader
// decodes them (symbolic constants become numbers).
func str(s string) tracer.Arg { return tracer.Arg{Kind: tracer.ArgStr, Str: s} }
func num(v int64) tracer.Arg  { return tracer.Arg{Kind: tracer.ArgInt, Int: v} }
func null() tracer.Arg        { return tracer.Arg{Kind: tracer.ArgNull} }
func ptr() tracer.Arg         { return tracer.Arg{Kind: tracer.ArgPtr, Int: 0x7ffd1234} }
func strct(flags int64) tracer.Arg {
	return tracer.Arg{Kind: tracer.ArgStruct, Int: flags}
}
func named(name string, v int64) tracer.Arg {
	return tracer.Arg{Kind: tracer.ArgInt, Name: name, Int: v}
}
func ints(v ...int64) tracer.Arg { return tracer.Arg{Kind: tracer.ArgArray, Ints: v} }
func iov(s string) tracer.Arg    { return tracer.Arg{Kind: tracer.ArgArray, Str: s} }
func truncated(s string) tracer.Arg {
	return tracer.Arg{Kind: tracer.ArgStr, Str: s, Truncated: true}
}

var atFdcwd = num(int64(AtFdcwd))

// call is a successful system call by pid 100 on trace line 7.
func call(name string, ret int64, args ...tracer.Arg) tracer.Event {
	return tracer.Event{Kind: tracer.KindSyscall, Pid: 100, Syscall: name, Args: args, Ret: ret, Line: 7}
}

// testMarker recognises "BEGIN name\n", "END name\n" and "FAIL name: message\n".
type testMarker struct{}

func (testMarker) NextMark(data string) (Op, string, string, string) {
	for data != "" {
		line, rest, _ := strings.Cut(data, "\n")
		if name, ok := strings.CutPrefix(line, "BEGIN "); ok {
			return OpBegin, name, "", rest
		}
		if name, ok := strings.CutPrefix(line, "END "); ok {
			return OpEnd, name, "", rest
		}
		if f, ok := strings.CutPrefix(line, "FAIL "); ok {
			name, msg, _ := strings.Cut(f, ": ")
			return OpFail, name, msg, rest
		}
		data = rest
	}
	return OpNop, "", "", ""
}

// lowerCase is one realistic event of a table row and the statements it
// must lower to, in the textual syntax without the pid and the evidence
// (both are added: "100 " before, "@7 <syscall>" after; block lines get
// "pid 100 @7 <syscall>").
type lowerCase struct {
	strace string // the strace line the event stands for
	ev     tracer.Event
	want   string
}

const (
	cloneThreadFlags = 0x100 | cloneFS | cloneFiles | 0x800 | cloneThread | 0x40000 | 0x80000 | 0x100000 | 0x200000
	sockStream       = 1
	sockNonblock     = 0x800
	atEaccess        = 0x200
	fGetfl           = 3
	tildeZeroU       = 4294967295
)

var lowerCases = []lowerCase{
	{`open("/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3`,
		call("open", 3, str("/etc/ld.so.cache"), num(oRdonly|oCloexec)),
		`hpath AT_FDCWD "/etc/ld.so.cache" consumed
		 newfd 3 = AT_FDCWD "/etc/ld.so.cache" cloexec`},
	{`openat(AT_FDCWD, "/etc/app.conf", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 5`,
		call("openat", 5, atFdcwd, str("/etc/app.conf"), num(oWronly|oCreat|oTrunc|oCloexec), num(0o644)),
		`hpath AT_FDCWD "/etc/app.conf" produced
		 newfd 5 = AT_FDCWD "/etc/app.conf" cloexec`},
	{`openat(AT_FDCWD, "/var/lib/dpkg/lock", O_RDWR) = 4`,
		call("openat", 4, atFdcwd, str("/var/lib/dpkg/lock"), num(oRdwr)),
		`hpath AT_FDCWD "/var/lib/dpkg/lock" consumed
		 hpath AT_FDCWD "/var/lib/dpkg/lock" produced keeps
		 newfd 4 = AT_FDCWD "/var/lib/dpkg/lock"`},
	{`openat(AT_FDCWD, "/var/lib/dpkg/status-new", O_RDWR|O_CREAT, 0644) = 4`,
		call("openat", 4, atFdcwd, str("/var/lib/dpkg/status-new"), num(oRdwr|oCreat), num(0o644)),
		`hpath AT_FDCWD "/var/lib/dpkg/status-new" produced
		 newfd 4 = AT_FDCWD "/var/lib/dpkg/status-new"`},
	{`openat(AT_FDCWD, "/var/log/app.log", O_WRONLY|O_APPEND) = 6`,
		call("openat", 6, atFdcwd, str("/var/log/app.log"), num(oWronly|0x400)),
		`hpath AT_FDCWD "/var/log/app.log" consumed
		 hpath AT_FDCWD "/var/log/app.log" produced keeps
		 newfd 6 = AT_FDCWD "/var/log/app.log"`},
	{`openat(AT_FDCWD, "/var/log/app.log", O_WRONLY|O_APPEND|O_CREAT, 0640) = 6`,
		call("openat", 6, atFdcwd, str("/var/log/app.log"), num(oWronly|0x400|oCreat), num(0o640)),
		`hpath AT_FDCWD "/var/log/app.log" produced keeps
		 newfd 6 = AT_FDCWD "/var/log/app.log"`},
	{`openat(AT_FDCWD, "/srv/db", O_RDWR|O_TRUNC) = 6`,
		call("openat", 6, atFdcwd, str("/srv/db"), num(oRdwr|oTrunc)),
		`hpath AT_FDCWD "/srv/db" produced
		 newfd 6 = AT_FDCWD "/srv/db"`},
	{`openat(3, "sub", O_RDONLY|O_NOFOLLOW|O_DIRECTORY|O_CLOEXEC) = 4`,
		call("openat", 4, num(3), str("sub"), num(oRdonly|oNofollow|oDirectory|oCloexec)),
		`hpathsym 3 "sub" consumed
		 newfd 4 = 3 "sub" cloexec`},
	{`openat(AT_FDCWD, "/usr", O_WRONLY|O_PATH) = 3`,
		call("openat", 3, atFdcwd, str("/usr"), num(oWronly|oPath)),
		`hpath AT_FDCWD "/usr" consumed probe
		 newfd 3 = AT_FDCWD "/usr"`},
	{`openat(AT_FDCWD, "/etc/.lock", O_WRONLY|O_CREAT|O_EXCL, 0600) = 3`,
		call("openat", 3, atFdcwd, str("/etc/.lock"), num(oWronly|oCreat|oExcl), num(0o600)),
		`hpathsym AT_FDCWD "/etc/.lock" produced
		 newfd 3 = AT_FDCWD "/etc/.lock"`},
	{`openat(AT_FDCWD, "/tmp", O_RDWR|O_TMPFILE, 0600) = 3`,
		call("openat", 3, atFdcwd, str("/tmp"), num(oRdwr|oTmpfile|oDirectory), num(0o600)),
		`hpath AT_FDCWD "/tmp" consumed
		 newfd 3 = anon`},
	{`openat(AT_FDCWD, "/a/very/long/pa"..., O_RDONLY) = 3 (cut by strace -s)`,
		call("openat", 3, atFdcwd, truncated("/a/very/long/pa"), num(oRdonly)),
		`newfd 3 = anon`},
	{`openat2(AT_FDCWD, "/etc/hosts", {flags=O_RDONLY|O_CLOEXEC, resolve=RESOLVE_NO_SYMLINKS}, 24) = 3`,
		call("openat2", 3, atFdcwd, str("/etc/hosts"), strct(oRdonly|oCloexec), num(24)),
		`hpath AT_FDCWD "/etc/hosts" consumed
		 newfd 3 = AT_FDCWD "/etc/hosts" cloexec`},
	{`openat2(AT_FDCWD, "/etc/motd", {flags=O_WRONLY|O_CREAT|O_TRUNC, mode=0644}, 24) = 3`,
		call("openat2", 3, atFdcwd, str("/etc/motd"), strct(oWronly|oCreat|oTrunc), num(24)),
		`hpath AT_FDCWD "/etc/motd" produced
		 newfd 3 = AT_FDCWD "/etc/motd"`},
	{`creat("/tmp/out", 0644) = 3`,
		call("creat", 3, str("/tmp/out"), num(0o644)),
		`hpath AT_FDCWD "/tmp/out" produced
		 newfd 3 = AT_FDCWD "/tmp/out"`},

	{`stat("/etc/passwd", {st_mode=S_IFREG|0644, st_size=1234, ...}) = 0`,
		call("stat", 0, str("/etc/passwd"), strct(0)),
		`hpath AT_FDCWD "/etc/passwd" consumed probe`},
	{`lstat("/etc/alternatives/awk", {st_mode=S_IFLNK|0777, ...}) = 0`,
		call("lstat", 0, str("/etc/alternatives/awk"), strct(0)),
		`hpathsym AT_FDCWD "/etc/alternatives/awk" consumed probe`},
	{`newfstatat(AT_FDCWD, "/etc/localtime", {...}, AT_SYMLINK_NOFOLLOW) = 0`,
		call("newfstatat", 0, atFdcwd, str("/etc/localtime"), strct(0), num(atSymlinkNofollow)),
		`hpathsym AT_FDCWD "/etc/localtime" consumed probe`},
	{`newfstatat(3, "", {st_mode=S_IFREG|0644, ...}, AT_EMPTY_PATH) = 0`,
		call("newfstatat", 0, num(3), str(""), strct(0), num(atEmptyPath)),
		`hpath 3 "" consumed probe`},
	{`statx(AT_FDCWD, "/usr/bin/ruby", AT_STATX_SYNC_AS_STAT, STATX_ALL, {...}) = 0`,
		call("statx", 0, atFdcwd, str("/usr/bin/ruby"), num(0), num(0xfff), strct(0)),
		`hpath AT_FDCWD "/usr/bin/ruby" consumed probe`},
	{`statx(4, "lib", AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW, STATX_MODE, {...}) = 0`,
		call("statx", 0, num(4), str("lib"), num(atSymlinkNofollow), num(2), strct(0)),
		`hpathsym 4 "lib" consumed probe`},
	{`statfs("/sys/fs/selinux", 0x7ffd1234) = 0`,
		call("statfs", 0, str("/sys/fs/selinux"), ptr()),
		`hpath AT_FDCWD "/sys/fs/selinux" consumed probe`},
	{`access("/etc/ld.so.preload", R_OK) = 0`,
		call("access", 0, str("/etc/ld.so.preload"), num(4)),
		`hpath AT_FDCWD "/etc/ld.so.preload" consumed probe`},
	{`faccessat(AT_FDCWD, "/usr/bin/apt-get", X_OK) = 0`,
		call("faccessat", 0, atFdcwd, str("/usr/bin/apt-get"), num(1)),
		`hpath AT_FDCWD "/usr/bin/apt-get" consumed probe`},
	{`faccessat2(AT_FDCWD, "/bin/sh", X_OK, AT_EACCESS|AT_SYMLINK_NOFOLLOW) = 0`,
		call("faccessat2", 0, atFdcwd, str("/bin/sh"), num(1), num(atEaccess|atSymlinkNofollow)),
		`hpathsym AT_FDCWD "/bin/sh" consumed probe`},
	{`faccessat2(AT_FDCWD, "/bin/sh", X_OK, AT_EACCESS) = 0`,
		call("faccessat2", 0, atFdcwd, str("/bin/sh"), num(1), num(atEaccess)),
		`hpath AT_FDCWD "/bin/sh" consumed probe`},
	{`readlink("/proc/self/exe", "/usr/bin/ruby3.1", 4096) = 16`,
		call("readlink", 16, str("/proc/self/exe"), str("/usr/bin/ruby3.1"), num(4096)),
		`hpathsym AT_FDCWD "/proc/self/exe" consumed`},
	{`readlinkat(AT_FDCWD, "/etc/alternatives/awk", "/usr/bin/mawk", 4096) = 13`,
		call("readlinkat", 13, atFdcwd, str("/etc/alternatives/awk"), str("/usr/bin/mawk"), num(4096)),
		`hpathsym AT_FDCWD "/etc/alternatives/awk" consumed`},
	{`getdents(3, 0x55d0 /* 4 entries */, 32768) = 112`,
		call("getdents", 112, num(3), ptr(), num(32768)),
		`hpath 3 "" consumed lists`},
	{`getdents64(3, 0x55d0 /* 12 entries */, 32768) = 400`,
		call("getdents64", 400, num(3), ptr(), num(32768)),
		`hpath 3 "" consumed lists`},
	{`chroot("/srv/jail") = 0`,
		call("chroot", 0, str("/srv/jail")),
		`hpath AT_FDCWD "/srv/jail" consumed roots`},
	{`mount("/", "/run/systemd/unit-root", NULL, MS_BIND|MS_REC, NULL) = 0`,
		call("mount", 0, str("/"), str("/run/systemd/unit-root"), null(), num(msBind|0x4000), null()),
		`bind AT_FDCWD "/" AT_FDCWD "/run/systemd/unit-root"`},
	{`mount(NULL, "/run/systemd/unit-root/usr", NULL, MS_RDONLY|MS_REMOUNT|MS_BIND, NULL) = 0`,
		call("mount", 0, null(), str("/run/systemd/unit-root/usr"), null(), num(1|msRemount|msBind), null()),
		``},
	{`mount("tmpfs", "/run/systemd/unit-root/dev", "tmpfs", MS_NOSUID|MS_STRICTATIME, "mode=0755") = 0`,
		call("mount", 0, str("tmpfs"), str("/run/systemd/unit-root/dev"), ptr(), num(2|0x1000000), ptr()),
		``},
	{`mount(".", "/", NULL, MS_MOVE, NULL) = 0`,
		call("mount", 0, str("."), str("/"), null(), num(0x2000), null()),
		``},

	{`execve("/usr/bin/apt-get", ["apt-get", "install", "-y", "nginx"], 0x7ffd /* 20 vars */) = 0`,
		call("execve", 0, str("/usr/bin/apt-get"), tracer.Arg{Kind: tracer.ArgArray, Str: "apt-getinstall-ynginx"}, ptr()),
		`hpath AT_FDCWD "/usr/bin/apt-get" consumed runs
		 exec`},
	{`execveat(3, "", ["script"], 0x7ffd /* 3 vars */, AT_EMPTY_PATH) = 0`,
		call("execveat", 0, num(3), str(""), tracer.Arg{Kind: tracer.ArgArray, Str: "script"}, ptr(), num(atEmptyPath)),
		`hpath 3 "" consumed runs
		 exec`},

	{`mkdir("/srv/app", 0755) = 0`,
		call("mkdir", 0, str("/srv/app"), num(0o755)),
		`hpathsym AT_FDCWD "/srv/app" produced makedir`},
	{`mkdirat(AT_FDCWD, "/srv/app/data", 0700) = 0`,
		call("mkdirat", 0, atFdcwd, str("/srv/app/data"), num(0o700)),
		`hpathsym AT_FDCWD "/srv/app/data" produced makedir`},
	{`mknod("/run/app.fifo", S_IFIFO|0644) = 0`,
		call("mknod", 0, str("/run/app.fifo"), num(0o10644), num(0)),
		`hpathsym AT_FDCWD "/run/app.fifo" produced`},
	{`mknodat(3, "fifo", S_IFIFO|0600) = 0`,
		call("mknodat", 0, num(3), str("fifo"), num(0o10600), num(0)),
		`hpathsym 3 "fifo" produced`},
	{`unlink("/etc/app.conf.bak") = 0`,
		call("unlink", 0, str("/etc/app.conf.bak")),
		`hpathsym AT_FDCWD "/etc/app.conf.bak" expunged`},
	{`unlinkat(AT_FDCWD, "/tmp/puppet-dir", AT_REMOVEDIR) = 0`,
		call("unlinkat", 0, atFdcwd, str("/tmp/puppet-dir"), num(atRemovedir)),
		`hpathsym AT_FDCWD "/tmp/puppet-dir" expunged`},
	{`unlinkat(5, "old.conf", 0) = 0`,
		call("unlinkat", 0, num(5), str("old.conf"), num(0)),
		`hpathsym 5 "old.conf" expunged`},
	{`rmdir("/srv/old") = 0`,
		call("rmdir", 0, str("/srv/old")),
		`hpathsym AT_FDCWD "/srv/old" expunged`},
	{`rename("/etc/.app.conf20261122-1-x", "/etc/app.conf") = 0`,
		call("rename", 0, str("/etc/.app.conf20261122-1-x"), str("/etc/app.conf")),
		`rename AT_FDCWD "/etc/.app.conf20261122-1-x" AT_FDCWD "/etc/app.conf"`},
	{`renameat(AT_FDCWD, "new.d", 3, "conf.d") = 0`,
		call("renameat", 0, atFdcwd, str("new.d"), num(3), str("conf.d")),
		`rename AT_FDCWD "new.d" 3 "conf.d"`},
	{`renameat2(AT_FDCWD, "/srv/a", AT_FDCWD, "/srv/b", RENAME_EXCHANGE) = 0`,
		call("renameat2", 0, atFdcwd, str("/srv/a"), atFdcwd, str("/srv/b"), num(renameExchange)),
		`rename AT_FDCWD "/srv/a" AT_FDCWD "/srv/b" exchange`},
	{`renameat2(AT_FDCWD, "/srv/a", AT_FDCWD, "/srv/c", RENAME_NOREPLACE) = 0`,
		call("renameat2", 0, atFdcwd, str("/srv/a"), atFdcwd, str("/srv/c"), num(renameNoreplace)),
		`rename AT_FDCWD "/srv/a" AT_FDCWD "/srv/c"`},
	{`link("/etc/a", "/etc/b") = 0`,
		call("link", 0, str("/etc/a"), str("/etc/b")),
		`link AT_FDCWD "/etc/a" AT_FDCWD "/etc/b"`},
	{`linkat(AT_FDCWD, "/etc/a", AT_FDCWD, "/etc/b", AT_SYMLINK_FOLLOW) = 0`,
		call("linkat", 0, atFdcwd, str("/etc/a"), atFdcwd, str("/etc/b"), num(atSymlinkFollow)),
		`link AT_FDCWD "/etc/a" AT_FDCWD "/etc/b"`},
	{`linkat(3, "", AT_FDCWD, "/var/lib/app/state", AT_EMPTY_PATH) = 0`,
		call("linkat", 0, num(3), str(""), atFdcwd, str("/var/lib/app/state"), num(atEmptyPath)),
		`link 3 "" AT_FDCWD "/var/lib/app/state"`},
	{`symlink("/usr/bin/mawk", "/etc/alternatives/awk") = 0`,
		call("symlink", 0, str("/usr/bin/mawk"), str("/etc/alternatives/awk")),
		`symlink "/usr/bin/mawk" AT_FDCWD "/etc/alternatives/awk"`},
	{`symlinkat("../lib", 3, "lib64") = 0`,
		call("symlinkat", 0, str("../lib"), num(3), str("lib64")),
		`symlink "../lib" 3 "lib64"`},

	{`truncate("/var/log/app.log", 0) = 0`,
		call("truncate", 0, str("/var/log/app.log"), num(0)),
		`hpath AT_FDCWD "/var/log/app.log" produced`},
	{`ftruncate(5, 0) = 0`,
		call("ftruncate", 0, num(5), num(0)),
		`hpath 5 "" produced`},
	{`chmod("/etc/app.conf", 0640) = 0`,
		call("chmod", 0, str("/etc/app.conf"), num(0o640)),
		`hpath AT_FDCWD "/etc/app.conf" produced keeps meta noexec`},
	{`fchmod(5, 0640) = 0`,
		call("fchmod", 0, num(5), num(0o640)),
		`hpath 5 "" produced keeps meta noexec`},
	{`fchmodat(AT_FDCWD, "/etc/app.conf", 0640) = 0`,
		call("fchmodat", 0, atFdcwd, str("/etc/app.conf"), num(0o640)),
		`hpath AT_FDCWD "/etc/app.conf" produced keeps meta noexec`},
	{`fchmodat2(AT_FDCWD, "/etc/app.link", 0640, AT_SYMLINK_NOFOLLOW) = 0`,
		call("fchmodat2", 0, atFdcwd, str("/etc/app.link"), num(0o640), num(atSymlinkNofollow)),
		`hpathsym AT_FDCWD "/etc/app.link" produced keeps meta noexec`},
	{`chown("/etc/app.conf", 0, 33) = 0`,
		call("chown", 0, str("/etc/app.conf"), num(0), num(33)),
		`hpath AT_FDCWD "/etc/app.conf" produced keeps meta`},
	{`lchown("/etc/app.link", 0, 0) = 0`,
		call("lchown", 0, str("/etc/app.link"), num(0), num(0)),
		`hpathsym AT_FDCWD "/etc/app.link" produced keeps meta`},
	{`fchown(5, 0, 0) = 0`,
		call("fchown", 0, num(5), num(0), num(0)),
		`hpath 5 "" produced keeps meta`},
	{`fchownat(AT_FDCWD, "/etc/app.conf", 0, 33, AT_SYMLINK_NOFOLLOW) = 0`,
		call("fchownat", 0, atFdcwd, str("/etc/app.conf"), num(0), num(33), num(atSymlinkNofollow)),
		`hpathsym AT_FDCWD "/etc/app.conf" produced keeps meta`},
	{`fchownat(3, "", 0, 0, AT_EMPTY_PATH) = 0 (fatal in the original, notes §1.2)`,
		call("fchownat", 0, num(3), str(""), num(0), num(0), num(atEmptyPath)),
		`hpath 3 "" produced keeps meta`},
	{`utime("/etc/app.conf", NULL) = 0`,
		call("utime", 0, str("/etc/app.conf"), null()),
		`hpath AT_FDCWD "/etc/app.conf" produced keeps meta`},
	{`utimes("/etc/app.conf", [{tv_sec=1, tv_usec=0}, {tv_sec=1, tv_usec=0}]) = 0`,
		call("utimes", 0, str("/etc/app.conf"), ints()),
		`hpath AT_FDCWD "/etc/app.conf" produced keeps meta`},
	{`futimesat(AT_FDCWD, "/etc/app.conf", NULL) = 0`,
		call("futimesat", 0, atFdcwd, str("/etc/app.conf"), null()),
		`hpath AT_FDCWD "/etc/app.conf" produced keeps meta`},
	{`utimensat(AT_FDCWD, "/etc/app.link", [UTIME_NOW, UTIME_NOW], AT_SYMLINK_NOFOLLOW) = 0`,
		call("utimensat", 0, atFdcwd, str("/etc/app.link"), ints(), num(atSymlinkNofollow)),
		`hpathsym AT_FDCWD "/etc/app.link" produced keeps meta`},
	{`utimensat(4, NULL, [{tv_sec=1, tv_nsec=0}, {tv_sec=1, tv_nsec=0}], 0) = 0`,
		call("utimensat", 0, num(4), null(), ints(), num(0)),
		`hpath 4 "" produced keeps meta`},

	{`getxattr("/usr/bin/ping", "security.capability", "\x01\x00\x00\x02", 20) = 20`,
		call("getxattr", 20, str("/usr/bin/ping"), str("security.capability"), str("\x01\x00\x00\x02"), num(20)),
		`hpath AT_FDCWD "/usr/bin/ping" consumed probe`},
	{`lgetxattr("/etc/app.link", "user.x", "1", 255) = 1`,
		call("lgetxattr", 1, str("/etc/app.link"), str("user.x"), str("1"), num(255)),
		`hpathsym AT_FDCWD "/etc/app.link" consumed probe`},
	{`fgetxattr(5, "user.x", "1", 255) = 1`,
		call("fgetxattr", 1, num(5), str("user.x"), str("1"), num(255)),
		`hpath 5 "" consumed probe`},
	{`getxattrat(AT_FDCWD, "/etc/app.link", AT_SYMLINK_NOFOLLOW, "user.x", {value="1", size=255}, 16) = 1`,
		call("getxattrat", 1, atFdcwd, str("/etc/app.link"), num(atSymlinkNofollow), str("user.x"), strct(0), num(16)),
		`hpathsym AT_FDCWD "/etc/app.link" consumed probe`},
	{`listxattr("/etc/app.conf", NULL, 0) = 0`,
		call("listxattr", 0, str("/etc/app.conf"), null(), num(0)),
		`hpath AT_FDCWD "/etc/app.conf" consumed probe`},
	{`llistxattr("/etc/app.link", NULL, 0) = 0`,
		call("llistxattr", 0, str("/etc/app.link"), null(), num(0)),
		`hpathsym AT_FDCWD "/etc/app.link" consumed probe`},
	{`flistxattr(5, NULL, 0) = 0`,
		call("flistxattr", 0, num(5), null(), num(0)),
		`hpath 5 "" consumed probe`},
	{`listxattrat(AT_FDCWD, "/etc/app.conf", 0, NULL, 0) = 0`,
		call("listxattrat", 0, atFdcwd, str("/etc/app.conf"), num(0), null(), num(0)),
		`hpath AT_FDCWD "/etc/app.conf" consumed probe`},
	{`setxattr("/usr/bin/ping", "security.capability", "\x01\x00\x00\x02", 20, 0) = 0`,
		call("setxattr", 0, str("/usr/bin/ping"), str("security.capability"), str("\x01\x00\x00\x02"), num(20), num(0)),
		`hpath AT_FDCWD "/usr/bin/ping" produced keeps meta`},
	{`lsetxattr("/etc/app.link", "user.x", "1", 1, 0) = 0`,
		call("lsetxattr", 0, str("/etc/app.link"), str("user.x"), str("1"), num(1), num(0)),
		`hpathsym AT_FDCWD "/etc/app.link" produced keeps meta`},
	{`fsetxattr(5, "user.x", "1", 1, 0) = 0`,
		call("fsetxattr", 0, num(5), str("user.x"), str("1"), num(1), num(0)),
		`hpath 5 "" produced keeps meta`},
	{`setxattrat(AT_FDCWD, "/etc/app.conf", 0, "user.x", {value="1", size=1, flags=0}, 16) = 0`,
		call("setxattrat", 0, atFdcwd, str("/etc/app.conf"), num(0), str("user.x"), strct(0), num(16)),
		`hpath AT_FDCWD "/etc/app.conf" produced keeps meta`},
	{`removexattr("/etc/app.conf", "user.x") = 0`,
		call("removexattr", 0, str("/etc/app.conf"), str("user.x")),
		`hpath AT_FDCWD "/etc/app.conf" produced keeps meta`},
	{`lremovexattr("/etc/app.link", "user.x") = 0`,
		call("lremovexattr", 0, str("/etc/app.link"), str("user.x")),
		`hpathsym AT_FDCWD "/etc/app.link" produced keeps meta`},
	{`fremovexattr(5, "user.x") = 0`,
		call("fremovexattr", 0, num(5), str("user.x")),
		`hpath 5 "" produced keeps meta`},
	{`removexattrat(3, "conf", AT_SYMLINK_NOFOLLOW, "user.x") = 0`,
		call("removexattrat", 0, num(3), str("conf"), num(atSymlinkNofollow), str("user.x")),
		`hpathsym 3 "conf" produced keeps meta`},

	{`chdir("/srv/app") = 0`,
		call("chdir", 0, str("/srv/app")),
		`setcwd AT_FDCWD "/srv/app"`},
	{`fchdir(3) = 0`,
		call("fchdir", 0, num(3)),
		`setcwd 3 "."`},
	{`getcwd("/root", 4096) = 6`,
		call("getcwd", 6, str("/root"), num(4096)),
		`setcwd AT_FDCWD "/root"`},
	{`getcwd("(unreachable)/", 4096) = 15`,
		call("getcwd", 15, str("(unreachable)/"), num(4096)),
		``},

	{`clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f12) = 2345`,
		call("clone", 2345, named("child_stack", 0), named("flags", 0x01000000|0x00200000|17), named("child_tidptr", 0x7f12)),
		`newproc 2345`},
	{`clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, parent_tid=[2346], tls=0x7f01, child_tidptr=0x7f02) = 2346`,
		call("clone", 2346, named("child_stack", 0x7f00), named("flags", cloneThreadFlags), named("parent_tid", 0), named("tls", 0x7f01), named("child_tidptr", 0x7f02)),
		`newproc 2346 files fs thread`},
	{`clone(child_stack=NULL, flags=CLONE_VM|CLONE_VFORK|SIGCHLD) = 2350 (vfork via clone)`,
		call("clone", 2350, named("child_stack", 0), named("flags", 0x100|0x4000|17)),
		`newproc 2350`},
	{`clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f02, parent_tid=0x7f02, exit_signal=0, stack=0x7f00, stack_size=0x7fff00, tls=0x7f01} => {parent_tid=[2347]}, 88) = 2347`,
		call("clone3", 2347, strct(cloneThreadFlags), num(88)),
		`newproc 2347 files fs thread`},
	{`clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f00, stack_size=0x9000}, 88) = 2351`,
		call("clone3", 2351, strct(0x100|0x4000), num(88)),
		`newproc 2351`},
	{`fork() = 2348`,
		call("fork", 2348),
		`newproc 2348`},
	{`vfork() = 2349`,
		call("vfork", 2349),
		`newproc 2349`},

	{`dup(3) = 4`,
		call("dup", 4, num(3)),
		`dupfd 4 = 3`},
	{`dup2(4, 1) = 1`,
		call("dup2", 1, num(4), num(1)),
		`dupfd 1 = 4`},
	{`dup3(4, 1, O_CLOEXEC) = 1`,
		call("dup3", 1, num(4), num(1), num(oCloexec)),
		`dupfd 1 = 4 cloexec`},
	{`fcntl(3, F_DUPFD_CLOEXEC, 10) = 10`,
		call("fcntl", 10, num(3), num(fDupfdCloexec), num(10)),
		`dupfd 10 = 3 cloexec`},
	{`fcntl(3, F_DUPFD, 10) = 11`,
		call("fcntl", 11, num(3), num(fDupfd), num(10)),
		`dupfd 11 = 3`},
	{`fcntl(5, F_SETFD, FD_CLOEXEC) = 0`,
		call("fcntl", 0, num(5), num(fSetfd), num(fdCloexecBit)),
		`delfd 5 cloexec`},
	{`fcntl(5, F_GETFL) = 0x8000 (flags O_RDONLY|O_LARGEFILE)`,
		call("fcntl", 0x8000, num(5), num(fGetfl)),
		``},
	{`close(3) = 0`,
		call("close", 0, num(3)),
		`delfd 3`},
	{`close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) = 0`,
		call("close_range", 0, num(3), num(tildeZeroU), num(closeRangeCloexec)),
		`delfd 3..2147483647 cloexec`},
	{`close_range(3, ~0U, 0) = 0 (the reader keeps ~0U as text)`,
		call("close_range", 0, num(3), tracer.Arg{Kind: tracer.ArgOther, Str: "~0U"}, num(0)),
		`delfd 3..2147483647`},
	{`close_range(3, 10, 0) = 0`,
		call("close_range", 0, num(3), num(10), num(0)),
		`delfd 3..10`},

	{`pipe([3, 4]) = 0`,
		call("pipe", 0, ints(3, 4)),
		`newfd 3 = anon
		 newfd 4 = anon`},
	{`pipe2([5, 6], O_CLOEXEC) = 0`,
		call("pipe2", 0, ints(5, 6), num(oCloexec)),
		`newfd 5 = cloexec anon
		 newfd 6 = cloexec anon`},
	{`socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, 0) = 5`,
		call("socket", 5, num(1), num(sockStream|oCloexec|sockNonblock), num(0)),
		`newfd 5 = cloexec anon`},
	{`socketpair(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0, [7, 8]) = 0`,
		call("socketpair", 0, num(1), num(sockStream|oCloexec), num(0), ints(7, 8)),
		`newfd 7 = cloexec anon
		 newfd 8 = cloexec anon`},
	{`accept(3, {sa_family=AF_UNIX}, [110 => 2]) = 6`,
		call("accept", 6, num(3), strct(0), ints(110)),
		`newfd 6 = anon`},
	{`accept4(3, NULL, NULL, SOCK_CLOEXEC) = 6`,
		call("accept4", 6, num(3), null(), null(), num(oCloexec)),
		`newfd 6 = cloexec anon`},
	{`eventfd(0) = 3`,
		call("eventfd", 3, num(0)),
		`newfd 3 = anon`},
	{`eventfd2(0, EFD_CLOEXEC|EFD_NONBLOCK) = 4`,
		call("eventfd2", 4, num(0), num(oCloexec|sockNonblock)),
		`newfd 4 = cloexec anon`},
	{`memfd_create("ruby-jit", MFD_CLOEXEC) = 5`,
		call("memfd_create", 5, str("ruby-jit"), num(mfdCloexec)),
		`newfd 5 = cloexec anon`},
	{`epoll_create(1) = 3`,
		call("epoll_create", 3, num(1)),
		`newfd 3 = anon`},
	{`epoll_create1(EPOLL_CLOEXEC) = 4`,
		call("epoll_create1", 4, num(oCloexec)),
		`newfd 4 = cloexec anon`},
	{`inotify_init() = 3`,
		call("inotify_init", 3),
		`newfd 3 = anon`},
	{`inotify_init1(IN_NONBLOCK|IN_CLOEXEC) = 4`,
		call("inotify_init1", 4, num(sockNonblock|oCloexec)),
		`newfd 4 = cloexec anon`},
	{`timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC|TFD_NONBLOCK) = 5`,
		call("timerfd_create", 5, num(1), num(oCloexec|sockNonblock)),
		`newfd 5 = cloexec anon`},
	{`signalfd(-1, [CHLD], 8) = 6`,
		call("signalfd", 6, num(-1), ints(), num(8)),
		`newfd 6 = anon`},
	{`signalfd(6, [CHLD INT], 8) = 6 (updates fd 6)`,
		call("signalfd", 6, num(6), ints(), num(8)),
		``},
	{`signalfd4(-1, [CHLD], 8, SFD_CLOEXEC|SFD_NONBLOCK) = 7`,
		call("signalfd4", 7, num(-1), ints(), num(8), num(oCloexec|sockNonblock)),
		`newfd 7 = cloexec anon`},
	{`pidfd_open(1234, 0) = 8`,
		call("pidfd_open", 8, num(1234), num(0)),
		`newfd 8 = cloexec anon`},
	{`pidfd_getfd(8, 3, 0) = 9`,
		call("pidfd_getfd", 9, num(8), num(3), num(0)),
		`delfd 9`},
	{`userfaultfd(O_CLOEXEC|O_NONBLOCK) = 3`,
		call("userfaultfd", 3, num(oCloexec|sockNonblock)),
		`newfd 3 = cloexec anon`},
	{`fanotify_init(FAN_CLASS_NOTIF|FAN_CLOEXEC, O_RDONLY) = 3`,
		call("fanotify_init", 3, num(fanCloexec), num(oRdonly)),
		`newfd 3 = cloexec anon`},
	{`perf_event_open({type=PERF_TYPE_HARDWARE, ...}, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) = 3`,
		call("perf_event_open", 3, strct(0), num(0), num(-1), num(-1), num(perfFlagFdCloexec)),
		`newfd 3 = cloexec anon`},
	{`io_uring_setup(32, {flags=0, sq_thread_cpu=0, ...}) = 3`,
		call("io_uring_setup", 3, num(32), strct(0)),
		`newfd 3 = cloexec anon`},

	{`write(1, "BEGIN File[/etc/app.conf]\n", 26) = 26`,
		call("write", 26, num(1), str("BEGIN File[/etc/app.conf]\n"), num(26)),
		`begin "File[/etc/app.conf]"`},
	{`write(1, "Notice: hello\n", 14) = 14`,
		call("write", 14, num(1), str("Notice: hello\n"), num(14)),
		``},
	{`write(5, "BEGIN not a marker: fd 5\n", 25) = 25`,
		call("write", 25, num(5), str("BEGIN not a marker: fd 5\n"), num(25)),
		``},
	{`writev(1, [{iov_base="END Exec[use conf: x]", iov_len=21}, {iov_base="\n", iov_len=1}], 2) = 22`,
		call("writev", 22, num(1), iov("END Exec[use conf: x]\n"), num(2)),
		`end "Exec[use conf: x]"`},
	{`pwrite64(2, "BEGIN Service[cron]\n", 20, 0) = 20`,
		call("pwrite64", 20, num(2), str("BEGIN Service[cron]\n"), num(20), num(0)),
		`begin "Service[cron]"`},
	{`write(3, "86\n", 3) = 3`,
		call("write", 3, num(3), str("86\n"), num(3)),
		`writepid 3 86`},
	{`write(1, "0", 1) = 1`,
		call("write", 1, num(1), str("0"), num(1)),
		`writepid 1 0`},
	{`write(3, "-1\n", 3) = 3`,
		call("write", 3, num(3), str("-1\n"), num(3)),
		``},
	{`write(3, "86 87\n", 6) = 6`,
		call("write", 6, num(3), str("86 87\n"), num(6)),
		``},
	{`write(3, "99999999999\n", 12) = 12`,
		call("write", 12, num(3), str("99999999999\n"), num(12)),
		``},
	{`write(2, "FAIL Exec[use]: Could not find command\n", 39) = 39`,
		call("write", 39, num(2), str("FAIL Exec[use]: Could not find command\n"), num(39)),
		`fail "Exec[use]" "Could not find command"`},
}

// failed is a call by pid 100 on trace line 7 that failed with errno.
func failed(name, errno string, args ...tracer.Arg) tracer.Event {
	ev := call(name, -1, args...)
	ev.Errno = errno
	return ev
}

// failedCases are failed calls: a lookup row that failed with ENOENT or
// ENOTDIR lowers to one Hpath or HpathSym with Effect missing (following a
// final symlink as the successful call would), every other failed call to
// nothing. Every lookup row has a case (TestEveryLookupRowHasAFailedCase).
var failedCases = []lowerCase{
	// Opens that would consume.
	{`open("/etc/missing", O_RDONLY) = -1 ENOENT (No such file or directory)`,
		failed("open", "ENOENT", str("/etc/missing"), num(oRdonly)),
		`hpath AT_FDCWD "/etc/missing" missing`},
	{`openat(AT_FDCWD, "/usr/lib/ruby/vendor_ruby/x.rb", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`,
		failed("openat", "ENOENT", atFdcwd, str("/usr/lib/ruby/vendor_ruby/x.rb"), num(oRdonly|oCloexec)),
		`hpath AT_FDCWD "/usr/lib/ruby/vendor_ruby/x.rb" missing`},
	{`openat(3, "sub/x", O_RDONLY|O_NOFOLLOW) = -1 ENOTDIR (Not a directory)`,
		failed("openat", "ENOTDIR", num(3), str("sub/x"), num(oRdonly|oNofollow)),
		`hpathsym 3 "sub/x" missing`},
	{`openat(AT_FDCWD, "/var/log/app.log", O_WRONLY|O_APPEND) = -1 ENOENT (No such file or directory)`,
		failed("openat", "ENOENT", atFdcwd, str("/var/log/app.log"), num(oWronly|0x400)),
		`hpath AT_FDCWD "/var/log/app.log" missing`},
	{`openat2(AT_FDCWD, "/etc/hosts", {flags=O_RDONLY|O_CLOEXEC, resolve=0}, 24) = -1 ENOENT (No such file or directory)`,
		failed("openat2", "ENOENT", atFdcwd, str("/etc/hosts"), strct(oRdonly|oCloexec), num(24)),
		`hpath AT_FDCWD "/etc/hosts" missing`},
	// Opens that would produce: a failed create is no lookup.
	{`openat(AT_FDCWD, "/etc/new/app.conf", O_WRONLY|O_CREAT|O_TRUNC, 0644) = -1 ENOENT (No such file or directory)`,
		failed("openat", "ENOENT", atFdcwd, str("/etc/new/app.conf"), num(oWronly|oCreat|oTrunc), num(0o644)),
		``},
	{`creat("/etc/new/app.conf", 0644) = -1 ENOENT (No such file or directory)`,
		failed("creat", "ENOENT", str("/etc/new/app.conf"), num(0o644)),
		``},
	// Looking at a path.
	{`stat("/etc/puppet/hiera.yaml", 0x7ffd) = -1 ENOENT (No such file or directory)`,
		failed("stat", "ENOENT", str("/etc/puppet/hiera.yaml"), ptr()),
		`hpath AT_FDCWD "/etc/puppet/hiera.yaml" missing`},
	{`lstat("/etc/passwd/x", 0x7ffd) = -1 ENOTDIR (Not a directory)`,
		failed("lstat", "ENOTDIR", str("/etc/passwd/x"), ptr()),
		`hpathsym AT_FDCWD "/etc/passwd/x" missing`},
	{`newfstatat(AT_FDCWD, "/usr/local/bin/x", 0x7ffd, 0) = -1 ENOENT (No such file or directory)`,
		failed("newfstatat", "ENOENT", atFdcwd, str("/usr/local/bin/x"), ptr(), num(0)),
		`hpath AT_FDCWD "/usr/local/bin/x" missing`},
	{`newfstatat(AT_FDCWD, "/etc/alternatives/x", 0x7ffd, AT_SYMLINK_NOFOLLOW) = -1 ENOENT (No such file or directory)`,
		failed("newfstatat", "ENOENT", atFdcwd, str("/etc/alternatives/x"), ptr(), num(atSymlinkNofollow)),
		`hpathsym AT_FDCWD "/etc/alternatives/x" missing`},
	{`newfstatat(3, "", 0x7ffd, AT_EMPTY_PATH) = -1 ENOENT (No such file or directory) (an fd: no path)`,
		failed("newfstatat", "ENOENT", num(3), str(""), ptr(), num(atEmptyPath)),
		``},
	{`statx(AT_FDCWD, "x.conf", AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW, STATX_ALL, 0x7ffd) = -1 ENOENT (No such file or directory)`,
		failed("statx", "ENOENT", atFdcwd, str("x.conf"), num(atSymlinkNofollow), num(0xfff), ptr()),
		`hpathsym AT_FDCWD "x.conf" missing`},
	{`statfs("/srv/data", 0x7ffd) = -1 ENOENT (No such file or directory)`,
		failed("statfs", "ENOENT", str("/srv/data"), ptr()),
		`hpath AT_FDCWD "/srv/data" missing`},
	{`access("/usr/sbin/nginx", X_OK) = -1 ENOENT (No such file or directory)`,
		failed("access", "ENOENT", str("/usr/sbin/nginx"), num(1)),
		`hpath AT_FDCWD "/usr/sbin/nginx" missing`},
	{`faccessat(AT_FDCWD, "/usr/sbin/nginx", X_OK) = -1 ENOENT (No such file or directory)`,
		failed("faccessat", "ENOENT", atFdcwd, str("/usr/sbin/nginx"), num(1)),
		`hpath AT_FDCWD "/usr/sbin/nginx" missing`},
	{`faccessat2(AT_FDCWD, "/usr/local/bin/x", X_OK, AT_EACCESS) = -1 ENOENT (No such file or directory)`,
		failed("faccessat2", "ENOENT", atFdcwd, str("/usr/local/bin/x"), num(1), num(atEaccess)),
		`hpath AT_FDCWD "/usr/local/bin/x" missing`},
	{`readlink("/etc/alternatives/editor", 0x7ffd, 1023) = -1 ENOENT (No such file or directory)`,
		failed("readlink", "ENOENT", str("/etc/alternatives/editor"), ptr(), num(1023)),
		`hpathsym AT_FDCWD "/etc/alternatives/editor" missing`},
	{`readlinkat(AT_FDCWD, "/etc/localtime", 0x7ffd, 4095) = -1 ENOENT (No such file or directory)`,
		failed("readlinkat", "ENOENT", atFdcwd, str("/etc/localtime"), ptr(), num(4095)),
		`hpathsym AT_FDCWD "/etc/localtime" missing`},
	{`chroot("/srv/jail") = -1 ENOENT (No such file or directory)`,
		failed("chroot", "ENOENT", str("/srv/jail")),
		`hpath AT_FDCWD "/srv/jail" missing`},
	{`getxattr("/etc/x", "security.selinux", 0x7ffd, 255) = -1 ENOENT (No such file or directory)`,
		failed("getxattr", "ENOENT", str("/etc/x"), str("security.selinux"), ptr(), num(255)),
		`hpath AT_FDCWD "/etc/x" missing`},
	{`lgetxattr("/etc/x", "security.selinux", 0x7ffd, 255) = -1 ENOENT (No such file or directory)`,
		failed("lgetxattr", "ENOENT", str("/etc/x"), str("security.selinux"), ptr(), num(255)),
		`hpathsym AT_FDCWD "/etc/x" missing`},
	{`getxattrat(AT_FDCWD, "/etc/x", 0, "user.a", 0x7ffd, 0) = -1 ENOENT (No such file or directory)`,
		failed("getxattrat", "ENOENT", atFdcwd, str("/etc/x"), num(0), str("user.a"), ptr(), num(0)),
		`hpath AT_FDCWD "/etc/x" missing`},
	{`listxattr("/etc/x", 0x7ffd, 255) = -1 ENOENT (No such file or directory)`,
		failed("listxattr", "ENOENT", str("/etc/x"), ptr(), num(255)),
		`hpath AT_FDCWD "/etc/x" missing`},
	{`llistxattr("/etc/x", 0x7ffd, 255) = -1 ENOENT (No such file or directory)`,
		failed("llistxattr", "ENOENT", str("/etc/x"), ptr(), num(255)),
		`hpathsym AT_FDCWD "/etc/x" missing`},
	{`listxattrat(AT_FDCWD, "/etc/x", AT_SYMLINK_NOFOLLOW, 0x7ffd, 0) = -1 ENOENT (No such file or directory)`,
		failed("listxattrat", "ENOENT", atFdcwd, str("/etc/x"), num(atSymlinkNofollow), ptr(), num(0)),
		`hpathsym AT_FDCWD "/etc/x" missing`},
	// Running a program: no exec happened, so no cloexec fd closes.
	{`execve("/usr/local/bin/fsmove-made-later", ["/usr/local/bin/fsmove-made-later"], 0x7ffd /* 9 vars */) = -1 ENOENT (No such file or directory)`,
		failed("execve", "ENOENT", str("/usr/local/bin/fsmove-made-later"), tracer.Arg{Kind: tracer.ArgArray}, ptr()),
		`hpath AT_FDCWD "/usr/local/bin/fsmove-made-later" missing`},
	{`execveat(3, "run", ["run"], 0x7ffd /* 3 vars */, AT_SYMLINK_NOFOLLOW) = -1 ENOENT (No such file or directory)`,
		failed("execveat", "ENOENT", num(3), str("run"), tracer.Arg{Kind: tracer.ArgArray}, ptr(), num(atSymlinkNofollow)),
		`hpathsym 3 "run" missing`},
	// Changing directory: the cwd stays.
	{`chdir("/srv/app") = -1 ENOENT (No such file or directory)`,
		failed("chdir", "ENOENT", str("/srv/app")),
		`hpath AT_FDCWD "/srv/app" missing`},

	// Other errnos: nothing.
	{`readlink("/usr/lib/ruby", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)`,
		failed("readlink", "EINVAL", str("/usr/lib/ruby"), ptr(), num(1023)),
		``},
	{`access("/etc/shadow", R_OK) = -1 EACCES (Permission denied)`,
		failed("access", "EACCES", str("/etc/shadow"), num(4)),
		``},
	{`openat(AT_FDCWD, "/root/.x", O_RDONLY) = -1 EACCES (Permission denied)`,
		failed("openat", "EACCES", atFdcwd, str("/root/.x"), num(oRdonly)),
		``},
	{`execve("/usr/bin/x", ["x"], 0x7ffd /* 9 vars */) = -1 ENOEXEC (Exec format error)`,
		failed("execve", "ENOEXEC", str("/usr/bin/x"), tracer.Arg{Kind: tracer.ArgArray}, ptr()),
		``},
	{`stat("/x", ...) = ? (the call never returned: Errno "?")`,
		failed("stat", "?", str("/x"), ptr()),
		``},
	// Calls that are no lookups: nothing, whatever the errno.
	{`unlink("/run/app.pid") = -1 ENOENT (No such file or directory)`,
		failed("unlink", "ENOENT", str("/run/app.pid")),
		``},
	{`rmdir("/etc/x/y") = -1 ENOTDIR (Not a directory)`,
		failed("rmdir", "ENOTDIR", str("/etc/x/y")),
		``},
	{`mkdir("/a/b", 0755) = -1 ENOENT (No such file or directory)`,
		failed("mkdir", "ENOENT", str("/a/b"), num(0o755)),
		``},
	{`rename("/etc/x.tmp", "/etc/x") = -1 ENOENT (No such file or directory)`,
		failed("rename", "ENOENT", str("/etc/x.tmp"), str("/etc/x")),
		``},
	{`fchdir(3) = -1 ENOENT (No such file or directory)`,
		failed("fchdir", "ENOENT", num(3)),
		``},
	// A failed call delivered without its arguments (the default of the
	// native tracers for other failed calls): nothing, no bad argument.
	{`stat(0x7ffd1234, 0x7ffd) = -1 ENOENT (the tracer did not read the path)`,
		failed("stat", "ENOENT", ptr(), ptr()),
		``},
	{`stat() = -1 ENOENT (no arguments at all)`,
		failed("stat", "ENOENT"),
		``},
}

// expandWant adds the pid and evidence of a test case to its statements.
func expandWant(syscall, want string) string {
	var b strings.Builder
	for line := range strings.Lines(want) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "begin ") || strings.HasPrefix(line, "end ") || strings.HasPrefix(line, "fail ") {
			b.WriteString(line + " pid 100 @7 " + syscall + "\n")
		} else {
			b.WriteString("100 " + line + " @7 " + syscall + "\n")
		}
	}
	return b.String()
}

func mustParse(t *testing.T, name, text string) []Statement {
	t.Helper()
	stmts, err := Parse(name, strings.NewReader(text))
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", name, err, text)
	}
	return stmts
}

func printed(t *testing.T, stmts []Statement) string {
	t.Helper()
	var b bytes.Buffer
	if err := Print(&b, stmts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func sameStatements(a, b []Statement) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLowerRows checks every row of the table on realistic events; the
// subtests are named after the syscall.
func TestLowerRows(t *testing.T) {
	for _, tc := range lowerCases {
		t.Run(tc.ev.Syscall, func(t *testing.T) {
			l := NewLowerer(testMarker{})
			got := l.Lower(&tc.ev, nil)
			want := mustParse(t, "want", expandWant(tc.ev.Syscall, tc.want))
			if !sameStatements(got, want) {
				t.Fatalf("%s\n(row note: %q)\ngot:\n%swant:\n%s", tc.strace,
					rows.lookup(tc.ev.Syscall).note, printed(t, got), printed(t, want))
			}
			// Every lowered statement survives the textual syntax.
			back := mustParse(t, "printed", printed(t, got))
			if !sameStatements(got, back) {
				t.Fatalf("%s: print/parse changed the statements:\n%s", tc.strace, printed(t, back))
			}
			if l.Stats.Statements != int64(len(got)) || l.Stats.Events != 1 {
				t.Errorf("stats %+v after %d statements", l.Stats, len(got))
			}
		})
	}
}

// TestLowerFailedCalls checks the failed calls: lookups that found no
// such path lower to a Missing statement, everything else to nothing.
func TestLowerFailedCalls(t *testing.T) {
	for _, tc := range failedCases {
		t.Run(tc.ev.Syscall+"/"+tc.ev.Errno, func(t *testing.T) {
			l := NewLowerer(testMarker{})
			got := l.Lower(&tc.ev, nil)
			want := mustParse(t, "want", expandWant(tc.ev.Syscall, tc.want))
			if !sameStatements(got, want) {
				t.Fatalf("%s\ngot:\n%swant:\n%s", tc.strace, printed(t, got), printed(t, want))
			}
			back := mustParse(t, "printed", printed(t, got))
			if !sameStatements(got, back) {
				t.Fatalf("%s: print/parse changed the statements:\n%s", tc.strace, printed(t, back))
			}
			s := l.Stats
			if s.Failed != 1 || s.FailedLookups != int64(len(got)) || s.Statements != int64(len(got)) || s.BadArgs != 0 {
				t.Errorf("stats %+v after %d statements", s, len(got))
			}
			if failedLookup(tc.ev.Syscall, tc.ev.Errno) != (rows.lookup(tc.ev.Syscall).lookup && linux.LookupErrno(tc.ev.Errno)) {
				t.Errorf("failedLookup(%s, %s) disagrees with the lowering", tc.ev.Syscall, tc.ev.Errno)
			}
			if len(got) > 0 && !failedLookup(tc.ev.Syscall, tc.ev.Errno) {
				t.Errorf("%s lowered, but failedLookup says a reader need not decode it", tc.strace)
			}
		})
	}
}

// failedLookup is a failed lookup as every tracer reads tracer/linux's
// table: a call of its lookup column that failed with ENOENT or ENOTDIR.
func failedLookup(name, errno string) bool { return linux.LookupErrno(errno) && linux.LooksUp(name) }

// TestLookupRows keeps the lookup flag of the table honest: a row is a
// lookup exactly when its successful call consumes a path argument (open
// that reads, the stat family, access, readlink, exec, xattr reads) or
// changes the cwd to a path (chdir); and every lookup row has a failed case
// with ENOENT that lowers to a Missing statement.
func TestLookupRows(t *testing.T) {
	for _, row := range syscallTable {
		want := row.path != noArg && (row.form == formOpen && row.openFlags == 0 ||
			row.form == formPath && row.effect == Consumed ||
			row.form == formExec || row.form == formSetCwd)
		if row.lookup != want {
			t.Errorf("row %s: lookup %v, want %v", row.name, row.lookup, want)
		}
	}
	missing := map[string]bool{}
	for _, tc := range failedCases {
		out := NewLowerer(nil).Lower(&tc.ev, nil)
		if len(out) == 1 && out[0].Effect == Missing {
			missing[tc.ev.Syscall] = true
		}
	}
	for _, row := range syscallTable {
		if row.lookup && !missing[row.name] {
			t.Errorf("lookup row %s has no failed case that lowers to missing", row.name)
		}
	}
	for _, errno := range []string{"", "EINVAL", "EACCES", "ENOENTX", "ENOEN", "?"} {
		if failedLookup("stat", errno) {
			t.Errorf("failedLookup(stat, %q) = true", errno)
		}
	}
	if failedLookup("unlink", "ENOENT") || failedLookup("read", "ENOENT") || !failedLookup("stat", "ENOTDIR") {
		t.Error("failedLookup: wrong rows")
	}
}

// TestEveryRowHasACase keeps the row tests complete: a new row needs a case.
func TestEveryRowHasACase(t *testing.T) {
	tested := map[string]bool{}
	for _, tc := range lowerCases {
		if !Wanted(tc.ev.Syscall) {
			t.Errorf("case for %s, which no row lowers", tc.ev.Syscall)
		}
		tested[tc.ev.Syscall] = true
	}
	for _, row := range syscallTable {
		if !tested[row.name] {
			t.Errorf("row %s has no test case", row.name)
		}
	}
}

func TestTableWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, row := range syscallTable {
		if seen[row.name] {
			t.Errorf("duplicate row %s", row.name)
		}
		seen[row.name] = true
		if !Wanted(row.name) {
			t.Errorf("row %s is not Wanted", row.name)
		}
		if row.form == formNone || row.form >= formCount {
			t.Errorf("row %s has no form", row.name)
		}
		if row.form == formPath && row.effect == NoEffect {
			t.Errorf("row %s accesses a path with no effect", row.name)
		}
		if row.form == formPath && row.dir == noArg && row.path == noArg {
			t.Errorf("row %s has neither a dirfd nor a path", row.name)
		}
	}
	for _, name := range []string{"read", "fstat", "mmap", "", "OPENAT"} {
		if Wanted(name) {
			t.Errorf("Wanted(%q) = true", name)
		}
	}
}

func TestLowerExitSignalFailedUnknown(t *testing.T) {
	l := NewLowerer(nil)
	exit := tracer.Event{Kind: tracer.KindExit, Pid: 2345, Line: 90}
	out := l.Lower(&exit, nil)
	want := []Statement{{Op: OpExit, Pid: 2345, Line: 90}}
	if !sameStatements(out, want) {
		t.Fatalf("exit: %+v", out)
	}
	signal := tracer.Event{Kind: tracer.KindSignal, Pid: 100, Line: 91}
	denied := failed("openat", "EACCES", atFdcwd, str("/etc/shadow"), num(oRdonly))
	read := call("read", 10, num(3), str("0123456789"), num(10))
	rt := call("rt_sigaction", 0, num(2))
	for _, ev := range []*tracer.Event{&signal, &denied, &read, &read, &rt} {
		out = l.Lower(ev, out)
	}
	if len(out) != 1 {
		t.Fatalf("signal, failed and unknown calls lowered to %+v", out[1:])
	}
	s := l.Stats
	if s.Events != 6 || s.Exits != 1 || s.Failed != 1 || s.Unknown != 3 || s.Statements != 1 {
		t.Errorf("stats %+v", s)
	}
	if s.UnknownBySyscall["read"] != 2 || s.UnknownBySyscall["rt_sigaction"] != 1 {
		t.Errorf("unknown by syscall %v", s.UnknownBySyscall)
	}
}

func TestLowerBadArgs(t *testing.T) {
	l := NewLowerer(nil)
	events := []tracer.Event{
		// A path printed as a pointer (strace could not read it).
		call("stat", 0, ptr(), strct(0)),
		// Too few arguments (a malformed line).
		call("renameat", 0, atFdcwd, str("/a")),
		// A dirfd that is not a number.
		call("mkdirat", 0, str("3"), str("x"), num(0o755)),
		// pipe without its array.
		call("pipe", 0, ptr()),
	}
	var out []Statement
	for i := range events {
		out = l.Lower(&events[i], out)
	}
	if len(out) != 0 {
		t.Errorf("bad arguments lowered to:\n%s", printed(t, out))
	}
	if l.Stats.BadArgs != int64(len(events)) {
		t.Errorf("BadArgs = %d, want %d", l.Stats.BadArgs, len(events))
	}
	// A marker write with no marker set is not an error.
	w := call("write", 3, num(1), str("BEGIN x\n"), num(8))
	if out = l.Lower(&w, out); len(out) != 0 || l.Stats.BadArgs != int64(len(events)) {
		t.Errorf("write without a marker: %+v, stats %+v", out, l.Stats)
	}
}

func TestLowerDoesNotAllocate(t *testing.T) {
	l := NewLowerer(testMarker{})
	out := make([]Statement, 0, 16)
	evs := []tracer.Event{
		call("openat", 5, atFdcwd, str("/etc/app.conf"), num(oWronly|oCreat|oTrunc|oCloexec), num(0o644)),
		call("clone", 2346, named("child_stack", 0x7f00), named("flags", cloneThreadFlags)),
		call("writev", 22, num(1), iov("END Exec[x]\n"), num(2)),
		call("pipe2", 0, ints(5, 6), num(oCloexec)),
		failed("newfstatat", "ENOENT", atFdcwd, str("/usr/local/bin/x"), ptr(), num(0)),
		failed("readlink", "EINVAL", str("/usr/lib/ruby"), ptr(), num(1023)),
		call("writev", 22, num(2), iov("FAIL Exec[x]: boom\n"), num(2)),
	}
	allocs := testing.AllocsPerRun(100, func() {
		for i := range evs {
			out = l.Lower(&evs[i], out[:0])
		}
	})
	if allocs != 0 {
		t.Errorf("Lower allocates %.1f times per run", allocs)
	}
}

// BenchmarkLower lowers a mix shaped like a Puppet trace (mostly opens,
// stats, closes and writes, some failed and some untabled calls) and
// reports events per second and, through SetBytes, the MB/s of the strace
// text those events stand for (compare with the 450 MB/s end-to-end target).
func BenchmarkLower(b *testing.B) {
	failed := call("openat", -1, atFdcwd, str("/usr/lib/ruby/vendor_ruby/set.rb"), num(oRdonly|oCloexec))
	failed.Errno = "ENOENT"
	mix := []struct {
		strace string
		ev     tracer.Event
	}{
		{`openat(AT_FDCWD, "/usr/lib/ruby/3.1.0/set.rb", O_RDONLY|O_CLOEXEC) = 3`,
			call("openat", 3, atFdcwd, str("/usr/lib/ruby/3.1.0/set.rb"), num(oRdonly|oCloexec))},
		{`newfstatat(3, "", {st_mode=S_IFREG|0644, st_size=24079, ...}, AT_EMPTY_PATH) = 0`,
			call("newfstatat", 0, num(3), str(""), strct(0), num(atEmptyPath))},
		{`close(3) = 0`, call("close", 0, num(3))},
		{`newfstatat(AT_FDCWD, "/etc/puppet/puppet.conf", {st_mode=S_IFREG|0644, st_size=123, ...}, 0) = 0`,
			call("newfstatat", 0, atFdcwd, str("/etc/puppet/puppet.conf"), strct(0), num(0))},
		{`openat(AT_FDCWD, "/etc/app.conf", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 5`,
			call("openat", 5, atFdcwd, str("/etc/app.conf"), num(oWronly|oCreat|oTrunc|oCloexec), num(0o644))},
		{`rename("/etc/.app.conf-x", "/etc/app.conf") = 0`,
			call("rename", 0, str("/etc/.app.conf-x"), str("/etc/app.conf"))},
		{`writev(1, [{iov_base="\33[0;32mInfo: /Stage[main]/Main/File[/etc/app.conf]: Evaluated in 0.01 seconds\33[0m", iov_len=80}, {iov_base="\n", iov_len=1}], 2) = 81`,
			call("writev", 81, num(1), iov("\x1b[0;32mInfo: /Stage[main]/Main/File[/etc/app.conf]: Evaluated in 0.01 seconds\x1b[0m\n"), num(2))},
		{`clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f02, parent_tid=0x7f02, exit_signal=0, stack=0x7f00, stack_size=0x7fff00, tls=0x7f01} => {parent_tid=[2347]}, 88) = 2347`,
			call("clone3", 2347, strct(cloneThreadFlags), num(88))},
		{`read(3, "0123456789", 10) = 10`, call("read", 10, num(3), str("0123456789"), num(10))},
		{`openat(AT_FDCWD, "/usr/lib/ruby/vendor_ruby/set.rb", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`, failed},
	}
	evs := make([]tracer.Event, len(mix))
	bytes := 0
	for i, m := range mix {
		evs[i] = m.ev
		bytes += len("12345 ") + len(m.strace) + 1
	}
	l := NewLowerer(testMarker{})
	out := make([]Statement, 0, 64)
	b.SetBytes(int64(bytes / len(mix)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		out = l.Lower(&evs[n%len(evs)], out[:0])
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// FuzzLower feeds every row arguments of every kind and count: Lower must
// never panic, and what it emits must survive the textual syntax.
func FuzzLower(f *testing.F) {
	f.Add(uint8(0), int64(3), []byte{0, 1, 2, 3, 4, 5})
	f.Add(uint8(60), int64(-1), []byte{5, 5, 5})
	f.Add(uint8(200), int64(1<<40), []byte{})
	f.Fuzz(func(t *testing.T, rowIndex uint8, ret int64, argSpec []byte) {
		row := syscallTable[int(rowIndex)%len(syscallTable)]
		ev := tracer.Event{Kind: tracer.KindSyscall, Pid: 100, Syscall: row.name, Ret: ret, Line: 1}
		if len(argSpec) > 8 {
			argSpec = argSpec[:8]
		}
		for i, b := range argSpec {
			a := tracer.Arg{Kind: tracer.ArgKind(b % 8), Int: int64(int8(b)) * int64(i+1)}
			switch b % 5 {
			case 0:
				a.Str = "/etc/x"
			case 1:
				a.Str = "BEGIN File[x]\n"
			case 2:
				a.Ints = []int64{int64(b), -1, 1 << 40}
			case 3:
				a.Name = "flags"
			}
			a.Truncated = b&0x80 != 0
			ev.Args = append(ev.Args, a)
		}
		l := NewLowerer(testMarker{})
		out := l.Lower(&ev, nil)
		back, err := Parse("lowered", strings.NewReader(printed(t, out)))
		if err != nil || !sameStatements(out, back) {
			t.Fatalf("lowered statements do not round-trip: %v\n%s", err, printed(t, out))
		}
	})
}

// TestLowerMarkersSharingOneWrite: a buffered write may hold a block's Begin
// and End together; both must become statements, in order.
func TestLowerMarkersSharingOneWrite(t *testing.T) {
	l := NewLowerer(testMarker{})
	ev := call("write", 30, num(1), str("noise\nBEGIN Exec[a]\nEND Exec[a]\nBEGIN File[/b]\n"), num(30))
	out := l.Lower(&ev, nil)
	var got []string
	for _, s := range out {
		got = append(got, s.Op.String()+" "+s.Block)
	}
	want := []string{"begin Exec[a]", "end Exec[a]", "begin File[/b]"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestArgsUsedCoversEveryRow lowers every row's test event twice, once with
// all arguments and once with only the ArgsUsed positions (the others blanked
// as a reader that skips them delivers them), and requires the same
// statements: the mask may never hide an argument the lowering reads.
func TestArgsUsedCoversEveryRow(t *testing.T) {
	for _, c := range append(append([]lowerCase(nil), lowerCases...), failedCases...) {
		mask := ArgsUsed(c.ev.Syscall)
		if mask == 0 {
			continue
		}
		full := NewLowerer(testMarker{}).Lower(&c.ev, nil)
		ev := c.ev
		ev.Args = append([]tracer.Arg(nil), c.ev.Args...)
		for i := range ev.Args {
			if i >= 64 || mask&(1<<i) == 0 {
				ev.Args[i] = tracer.Arg{Kind: tracer.ArgOther}
			}
		}
		masked := NewLowerer(testMarker{}).Lower(&ev, nil)
		if len(full) != len(masked) {
			t.Errorf("%s: %d statements with all arguments, %d with ArgsUsed %b", c.strace, len(full), len(masked), mask)
			continue
		}
		for i := range full {
			if full[i] != masked[i] {
				t.Errorf("%s: statement %d differs with ArgsUsed %b:\n%+v\n%+v", c.strace, i, mask, full[i], masked[i])
			}
		}
	}
}

// TestNeedsFailedArgs: the lowering drives the one Attribution
// (TestAttribution has its rules) with the statements it produces, and
// asks it for failed lookups only: their arguments are needed while the
// process acts for a block.
func TestNeedsFailedArgs(t *testing.T) {
	l := NewLowerer(testMarker{})
	by := func(pid int, ev tracer.Event) *tracer.Event {
		ev.Pid = pid
		return &ev
	}
	lookup := func(pid int) *tracer.Event {
		return by(pid, failed("newfstatat", "ENOENT", atFdcwd, str("/x"), ptr(), num(0)))
	}
	step := func(pid int, ev tracer.Event) { l.Lower(by(pid, ev), nil) }
	clone := func(child int64, flags int64) tracer.Event {
		return call("clone", child, named("child_stack", 0), named("flags", flags))
	}
	want := func(what string, pids map[int]bool) {
		t.Helper()
		for pid, need := range pids {
			if got := l.NeedsFailedArgs(lookup(pid)); got != need {
				t.Errorf("%s: pid %d needs %v, want %v", what, pid, got, need)
			}
		}
	}
	step(100, clone(200, 0)) // a start-up child: acts for the open block, none now
	want("start-up", map[int]bool{100: false, 200: false, 999: false})
	step(100, call("write", 10, num(1), str("BEGIN A\n"), num(8)))
	want("block A open", map[int]bool{100: true, 200: true, 999: true})
	if l.NeedsFailedArgs(by(100, failed("access", "EACCES", str("/x"), num(4)))) ||
		l.NeedsFailedArgs(by(100, failed("unlink", "ENOENT", str("/x")))) {
		t.Error("a failed call that is no failed lookup needs its arguments")
	}
	step(100, clone(300, 0))                // pinned to A
	step(300, clone(301, cloneThreadFlags)) // its thread
	step(100, clone(100, 0))                // a corrupt self-clone: changes nothing
	step(100, call("write", 10, num(1), str("END B\n"), num(6)))
	want("end of another block", map[int]bool{100: true})
	step(100, call("write", 10, num(1), str("END A\n"), num(6)))
	want("between blocks", map[int]bool{100: false, 200: false, 300: true, 301: true, 999: false})
	l.Lower(&tracer.Event{Kind: tracer.KindExit, Pid: 300}, nil)
	want("after an exit", map[int]bool{300: false, 301: true})
	step(100, clone(301, 0)) // pid reuse outside blocks
	want("reused pid", map[int]bool{301: false})
}

// IgnoreMissing leaves out failed lookups of absolute paths the caller
// ignores, and only those.
func TestIgnoreMissing(t *testing.T) {
	l := NewLowerer(nil)
	l.IgnoreMissing = func(p string) bool { return strings.HasPrefix(p, "/usr/lib/ruby/") }
	evs := []tracer.Event{
		failed("newfstatat", "ENOENT", atFdcwd, str("/usr/lib/ruby/vendor_ruby/x.rb"), num(0), num(0)),
		failed("newfstatat", "ENOENT", atFdcwd, str("/etc/app.conf"), num(0), num(0)),
		failed("newfstatat", "ENOENT", atFdcwd, str("ruby/x.rb"), num(0), num(0)),
	}
	var out []Statement
	for i := range evs {
		evs[i].Pid = 100
		out = l.Lower(&evs[i], out)
	}
	if len(out) != 2 || out[0].Path != "/etc/app.conf" || out[1].Path != "ruby/x.rb" || l.Stats.IgnoredLookups != 1 {
		t.Errorf("statements %+v, ignored %d", out, l.Stats.IgnoredLookups)
	}
}

// TestTableMatchesLinux: the lowering has a row for exactly the calls that
// linux.Syscalls traces to be lowered.
func TestTableMatchesLinux(t *testing.T) {
	for _, row := range syscallTable {
		call := linux.Lookup(row.name)
		if call == nil || call.Why != linux.Lowered {
			t.Errorf("%s: lowered but not a linux.Syscalls row to lower", row.name)
		}
	}
	for _, call := range linux.Syscalls {
		if want := call.Why == linux.Lowered; Wanted(call.Name) != want {
			t.Errorf("%s: Wanted %v, linux says lowered %v", call.Name, !want, want)
		}
	}
}

// TestLayout: roles land where the calls' argument kinds put them.
func TestLayout(t *testing.T) {
	row := func(name string) *syscallRow {
		r := rows.lookup(name)
		if r == nil {
			t.Fatalf("no row %s", name)
		}
		return r
	}
	for _, c := range []struct {
		name string
		got  argLayout
		want argLayout
	}{
		{"renameat", layoutFromRow(row("renameat")), argLayout{dir: A0, path: A1, dir2: A2, path2: A3}},
		{"symlinkat", layoutFromRow(row("symlinkat")), argLayout{path: A0, dir2: A1, path2: A2}},
		{"execveat", layoutFromRow(row("execveat")), argLayout{dir: A0, path: A1, flags: A4}},
		{"fchmod", layoutFromRow(row("fchmod")), argLayout{dir: A0, mode: A1}},
		{"fchmodat", layoutFromRow(row("fchmodat")), argLayout{dir: A0, path: A1, mode: A2}},
		{"mkdir", layoutFromRow(row("mkdir")), argLayout{path: A0}}, // its mode is not a mode change
		{"getcwd", layoutFromRow(row("getcwd")), argLayout{path: A0}},
		{"fcntl", layoutFromRow(row("fcntl")), argLayout{fd: A0, flags: A1}},
		{"close_range", layoutFromRow(row("close_range")), argLayout{fd: A0, fd2: A1, flags: A2}},
		{"signalfd4", layoutFromRow(row("signalfd4")), argLayout{fd: A0, flags: A3}},
		{"accept4", layoutFromRow(row("accept4")), argLayout{flags: A3}}, // the listening fd is not the new one
		{"socketpair", layoutFromRow(row("socketpair")), argLayout{fds: A3, flags: A1}},
		{"writev", layoutFromRow(row("writev")), argLayout{fd: A0, data: A1}},
		{"clone", layoutFromRow(row("clone")), argLayout{flags: A0, flagsName: "flags"}},
		{"openat2", layoutFromRow(row("openat2")), argLayout{dir: A0, path: A1, flags: A2}},
	} {
		if c.got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, c.got, c.want)
		}
	}
}

func layoutFromRow(r *syscallRow) argLayout {
	return argLayout{r.dir, r.path, r.dir2, r.path2, r.fd, r.fd2, r.fds, r.data, r.flags, r.mode, r.flagsName}
}

// cutTestMarker is testMarker that takes every cut write for a lost marker.
type cutTestMarker struct{ testMarker }

func (cutTestMarker) CutMark(string) bool { return true }

// TestCutMarksByMarkerWriters: a cut write to fd 1 counts as a possibly lost
// marker (MarkerCutMarks) only when its process had written a marker;
// another process's cut output (a command's table or archive) is only
// counted among CutMarks.
func TestCutMarksByMarkerWriters(t *testing.T) {
	l := NewLowerer(cutTestMarker{})
	lower := func(pid int, data tracer.Arg) {
		ev := call("write", 30, num(1), data, num(30))
		ev.Pid = pid
		l.Lower(&ev, nil)
	}
	lower(200, truncated("Architecture: x86_64\nCPU op-mode"))
	if l.Stats.CutMarks != 1 || l.Stats.MarkerCutMarks != 0 {
		t.Errorf("a command's cut output: CutMarks %d, MarkerCutMarks %d; want 1, 0", l.Stats.CutMarks, l.Stats.MarkerCutMarks)
	}
	lower(100, str("BEGIN Exec[a]\n"))
	lower(100, truncated("Info: a long li"))
	lower(200, truncated("more of the table"))
	if l.Stats.CutMarks != 3 || l.Stats.MarkerCutMarks != 1 {
		t.Errorf("after pid 100's marker: CutMarks %d, MarkerCutMarks %d; want 3, 1", l.Stats.CutMarks, l.Stats.MarkerCutMarks)
	}
}

// programTestMarker is testMarker written by the program /usr/bin/marker.
type programTestMarker struct{ testMarker }

func (programTestMarker) MarkerProgram(path string) bool { return path == "/usr/bin/marker" }

// TestMarksOnlyFromMarkingProcess: once a process execs the marking program,
// only its thread group's markers count (any of its threads may write
// them); a child that prints a fake end of its block and a fake start of
// another's is ignored and counted (ForeignMarks), and so is everything
// after the marking process's pid was reused by a new process.
func TestMarksOnlyFromMarkingProcess(t *testing.T) {
	l := NewLowerer(programTestMarker{})
	var out []Statement
	lower := func(pid int, line int64, name string, ret int64, args ...tracer.Arg) {
		ev := call(name, ret, args...)
		ev.Pid, ev.Line = pid, line
		out = l.Lower(&ev, out)
	}
	write := func(pid int, line int64, data string) {
		lower(pid, line, "write", int64(len(data)), num(1), str(data), num(int64(len(data))))
	}
	lower(100, 1, "execve", 0, str("/usr/bin/marker"), tracer.Arg{Kind: tracer.ArgArray}, ptr())
	lower(100, 2, "clone", 101, named("child_stack", 0x7f00), named("flags", cloneThreadFlags))
	lower(100, 3, "clone", 200, named("child_stack", 0), named("flags", 17)) // a command, a process of its own
	write(101, 4, "BEGIN Exec[a]\n")                                         // Puppet's other thread
	write(200, 5, "END Exec[a]\nBEGIN File[/b]\n")                           // the command's fake markers
	write(100, 6, "END Exec[a]\n")
	lower(200, 7, "clone", 300, named("child_stack", 0x7f00), named("flags", cloneThreadFlags))
	write(300, 8, "FAIL Exec[a]: forged\n") // a thread of the command
	var got []string
	for _, s := range out {
		if s.Op == OpBegin || s.Op == OpEnd || s.Op == OpFail {
			got = append(got, fmt.Sprintf("%d %s %s", s.Pid, s.Op, s.Block))
		}
	}
	if want := "101 begin Exec[a]|100 end Exec[a]"; strings.Join(got, "|") != want {
		t.Errorf("markers %q, want %q", got, want)
	}
	if l.Stats.ForeignMarks != 3 || l.Stats.ForeignMarkLine != 5 {
		t.Errorf("ForeignMarks %d (first on line %d), want 3 (line 5)", l.Stats.ForeignMarks, l.Stats.ForeignMarkLine)
	}

	// The marking process is gone once its leader exits: a new process
	// with its pid is another.
	out = l.Lower(&tracer.Event{Kind: tracer.KindExit, Pid: 100, Line: 9}, out)
	lower(1, 10, "clone", 100, named("child_stack", 0), named("flags", 17))
	write(100, 11, "BEGIN File[/c]\n")
	if l.Stats.ForeignMarks != 4 {
		t.Errorf("a marker by a new process with the marking pid: ForeignMarks %d, want 4", l.Stats.ForeignMarks)
	}
}

// TestMarkingProcessBeforeItsCreation: an eBPF trace may show a vfork's
// return after the child's exec of the marking program; the child stays
// the marking process.
func TestMarkingProcessBeforeItsCreation(t *testing.T) {
	l := NewLowerer(programTestMarker{})
	for _, ev := range []tracer.Event{
		{Kind: tracer.KindSyscall, Pid: 64, Syscall: "execve", Args: []tracer.Arg{str("/usr/bin/marker"), null(), null()}, Line: 1},
		{Kind: tracer.KindSyscall, Pid: 57, Syscall: "vfork", Ret: 64, Line: 2},
		{Kind: tracer.KindSyscall, Pid: 64, Syscall: "write", Args: []tracer.Arg{num(1), str("BEGIN Exec[a]\n"), num(14)}, Ret: 14, Line: 3},
	} {
		l.Lower(&ev, nil)
	}
	if l.Stats.ForeignMarks != 0 {
		t.Errorf("ForeignMarks %d, want 0", l.Stats.ForeignMarks)
	}
}

// TestMarksFromFirstWriterWithoutExec: when no process execs the marking
// program before the first marker (the trace began later), the first
// process to write one is the marking process.
func TestMarksFromFirstWriterWithoutExec(t *testing.T) {
	l := NewLowerer(programTestMarker{})
	for _, pid := range []int{100, 200, 100} {
		ev := call("write", 14, num(2), str("BEGIN Exec[a]\n"), num(14))
		ev.Pid = pid
		l.Lower(&ev, nil)
	}
	if l.Stats.ForeignMarks != 1 {
		t.Errorf("ForeignMarks %d, want 1 (pid 200's)", l.Stats.ForeignMarks)
	}
}
