package ptrace

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/fsmove/fsmove/tracer"
	"golang.org/x/sys/unix"
)

// Predictions: the tracer makes a call itself at the seccomp stop and lets
// the tracee's run without its exit stop (one stop instead of two) when
// its answer is the tracee's: a readlink's failure (Stats.Predicted), a
// stat's outcome (Stats.PredictedStats), an open's failed lookup
// (Stats.PredictedOpens), a close's success (Stats.PredictedCloses).

// predicting reports whether predictions are made at all: not after a
// chroot, a mount or a new mount namespace anywhere in the trace (the
// tracee may see other files than the tracer at the same path), nor when
// asked to stop every call twice or to decode every failure.
func (l *loop) predicting() bool {
	return !l.viewChanged && !l.opts.NoPredict && l.opts.Failed != tracer.FailedAll
}

// predictFailure tries a readlink call's path in the tracer (see
// Stats.Predicted) and reports whether it fails in a way the tracee's call
// will fail too, and with which errno.
func (l *loop) predictFailure(tk *task) (syscall.Errno, bool) {
	if !l.predicting() {
		return 0, false
	}
	path, truncated, ok := l.mem.str(tk.tid, tk.regs.Rdi, pathMax)
	if !ok || truncated || !strings.HasPrefix(path, "/") || callerRelative(path) {
		return 0, false
	}
	_, err := unix.Readlink(path, l.linkBuf[:])
	switch err {
	case unix.ENOENT, unix.EINVAL, unix.ENOTDIR:
		return err.(syscall.Errno), true
	}
	return 0, false
}

// Predicted stats.
//
// After Puppet's realpath lookups (inject.go), three events in four of a
// Puppet apply are newfstatat (62k of 83k in the bench fixture's apply):
// Ruby looking for files on its load path, Puppet checking the files it
// manages. Only the call's outcome is recorded (its path, flags and
// result; never the struct it fills), and the tracer can learn it without
// the exit stop by making the same call itself at the seccomp stop, while
// the tracee waits: the event is emitted there and the call let run.
// (predictFailure does the same for readlink's failures only, whatever
// the thread's rights: a path the tracer cannot find is not there for the
// tracee either, though a tracee without search rights would have got
// EACCES first.)
//
// The tracer's call answers for the tracee's when both look up the same
// name in the same files with the same rights:
//   - the same files: no chroot, mount or new mount namespace anywhere in
//     the trace (loop.viewChanged), and no path under /proc or /dev, whose
//     names (self, fd/N, stdin) mean the caller's own process;
//   - the same name: an absolute path as it is; a relative one through the
//     tracee's own directory, /proc/TID/cwd or /proc/TID/fd/N, which the
//     kernel follows to the very directory the tracee's call starts from;
//   - the same rights: the thread's user and group ids, groups and
//     effective capabilities are the tracer's (read from /proc once, and
//     again after it executes a program or makes a credential call, which
//     the filter stops for that: credCalls).
// Only success, ENOENT and ENOTDIR are predicted (the outcomes the
// analysis reads); anything else stops at the exit as before. A file
// created or removed by another process in the microseconds between the
// two calls would be mispredicted, as with readlink (Stats.Predicted).

// credCalls are the calls that change a thread's credentials: the filter
// stops them (they are not in linux.Syscalls: nothing is recorded), so that
// the thread's rights are read again before its next prediction.
var credCalls = []string{"setuid", "setgid", "setreuid", "setregid", "setgroups",
	"setresuid", "setresgid", "setfsuid", "setfsgid", "capset"}

// credNumbers are credCalls' x86_64 numbers (the filter's own table, by
// which it stops them).
var credNumbers = func() map[uint64]bool {
	m := map[uint64]bool{}
	for _, name := range credCalls {
		nr, ok := arch.X86_64.SyscallNames[name]
		if !ok {
			panic("ptrace: no system call " + name) // a constant list: a bug
		}
		m[uint64(nr)] = true
	}
	return m
}()

// A thread's rights against the tracer's, as far as the tracer knows.
const (
	credsUnknown int8 = iota // to be read from /proc before a prediction
	credsSame
	credsOther
)

// credLines are the lines of /proc/PID/status that make a thread's rights.
var credLines = []string{"Uid:", "Gid:", "Groups:", "CapEff:"}

// readCreds returns the credLines of /proc/PATH/status, or "" when it
// cannot be read.
func readCreds(proc string) string {
	b, err := os.ReadFile("/proc/" + proc + "/status")
	if err != nil {
		return ""
	}
	var out []byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		for _, key := range credLines {
			if bytes.HasPrefix(line, []byte(key)) {
				out = append(append(out, line...), '\n')
			}
		}
	}
	return string(out)
}

// sameCreds reports whether tk has the tracer's rights.
func (l *loop) sameCreds(tk *task) bool {
	if tk.creds == credsUnknown {
		if l.myCreds == "" {
			l.myCreds = readCreds("thread-self")
		}
		tk.creds = credsOther
		if c := readCreds(strconv.Itoa(tk.tid)); c != "" && c == l.myCreds {
			tk.creds = credsSame
		}
	}
	return tk.creds == credsSame
}

// predictStat makes tk's newfstatat (its registers in tk.regs) in the
// tracer and reports its outcome (errno 0: success) when it answers for
// the tracee's.
func (l *loop) predictStat(tk *task) (syscall.Errno, bool) {
	if !l.predicting() {
		return 0, false
	}
	dirfd := int(int32(uint32(tk.regs.Rdi)))
	flags := int(uint32(tk.regs.R10))
	path, truncated, ok := l.mem.str(tk.tid, tk.regs.Rsi, pathMax)
	if !ok || truncated {
		return 0, false
	}
	var name string
	onlySuccess := false
	switch {
	case path == "" && flags&unix.AT_EMPTY_PATH != 0:
		if !l.sameCreds(tk) {
			return 0, false
		}
		name = l.procDir(tk.tid, dirfd)
		flags = 0 // the magic link is followed to the open file itself
		onlySuccess = true
	case path == "":
		return 0, false // ENOENT, but rare: not worth a rule
	default:
		if name, onlySuccess, ok = l.sameName(tk, dirfd, path); !ok {
			return 0, false
		}
	}
	var st unix.Stat_t
	err := unix.Fstatat(unix.AT_FDCWD, name, &st, flags&(unix.AT_SYMLINK_NOFOLLOW|unix.AT_NO_AUTOMOUNT))
	switch {
	case err == nil:
		return 0, true
	case onlySuccess:
	case err == unix.ENOENT, err == unix.ENOTDIR:
		return err.(syscall.Errno), true
	}
	return 0, false
}

// Predicted opens.
//
// After the stats, the most frequent calls are opens (11k in the bench
// fixture's apply on trixie, 6k of them failing: Ruby trying each
// directory of its load path). An open or openat that creates nothing (no
// O_CREAT, no O_TMPFILE) walks its name as a stat does, following the last
// link unless O_NOFOLLOW, so it fails with ENOENT or ENOTDIR exactly when
// the stat does (under the guards of the predicted stats above); any other
// outcome (success, EACCES, ELOOP, EISDIR, ENOTDIR of O_DIRECTORY on a
// file...) needs the call's own exit, as before. Only those two failures
// are predicted: the failed lookups the analysis reads.

// predictOpen makes the lookup of tk's open or openat (its registers in
// tk.regs) in the tracer and reports the call's failure when the lookup
// answers for it.
func (l *loop) predictOpen(tk *task) (syscall.Errno, bool) {
	if !l.predicting() {
		return 0, false
	}
	dirfd, pathAddr, flags := unix.AT_FDCWD, tk.regs.Rdi, int(uint32(tk.regs.Rsi))
	if tk.row.name == "openat" {
		dirfd, pathAddr, flags = int(int32(uint32(tk.regs.Rdi))), tk.regs.Rsi, int(uint32(tk.regs.Rdx))
	}
	if flags&unix.O_CREAT != 0 || flags&unix.O_TMPFILE == unix.O_TMPFILE {
		return 0, false
	}
	path, truncated, ok := l.mem.str(tk.tid, pathAddr, pathMax)
	if !ok || truncated || path == "" {
		return 0, false
	}
	name, onlySuccess, ok := l.sameName(tk, dirfd, path)
	if !ok || onlySuccess {
		return 0, false
	}
	statFlags := 0
	if flags&unix.O_NOFOLLOW != 0 {
		statFlags = unix.AT_SYMLINK_NOFOLLOW
	}
	var st unix.Stat_t
	switch err := unix.Fstatat(unix.AT_FDCWD, name, &st, statFlags); err {
	case unix.ENOENT, unix.ENOTDIR:
		return err.(syscall.Errno), true
	}
	return 0, false
}

// Predicted closes.
//
// close releases its fd whatever it returns (close(2): also after EINTR
// or EIO), and fails only with EBADF when the fd was not open. So when
// the fd is open in the tracee at the seccomp stop (the tracer finds
// /proc/TID/fd/N, the thread's own table), the call is emitted there as a
// success and runs on without its exit stop: its effect on the model (the
// fd is gone) is the call's. 5k calls of the bench fixture's apply. If
// another thread sharing the table closes the same fd first, the tracee's
// call fails and the trace has the fd released twice, which changes
// nothing. An fd that is not open stops at the exit as before (its
// EBADF is emitted with tracer.FailedAll only). Unlike the lookups, this
// holds after a chroot or a mount too: the tracer reads the table through
// its own /proc, by the thread id ptrace gives it.

// predictClose reports whether tk's close (its registers in tk.regs) will
// release an open fd.
func (l *loop) predictClose(tk *task) bool {
	if l.opts.NoPredict || l.opts.Failed == tracer.FailedAll {
		return false
	}
	fd := int(int32(uint32(tk.regs.Rdi)))
	if fd < 0 {
		return false
	}
	var st unix.Stat_t
	return unix.Fstatat(unix.AT_FDCWD, l.procDir(tk.tid, fd), &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// sameName is the name by which the tracer finds what tk's call of path
// from dirfd finds, when the tracer's lookup of it answers for the
// tracee's (see "Predicted stats": the same name, the same rights);
// onlySuccess when only its success does: through /proc/TID/fd/N, a
// failure may be the tracee's EBADF (no such fd) that the tracer sees as
// ENOENT. path is not "".
func (l *loop) sameName(tk *task, dirfd int, path string) (name string, onlySuccess, ok bool) {
	switch {
	case strings.HasPrefix(path, "/"):
		if callerRelative(path) {
			return "", false, false
		}
		name = path
	default:
		// A relative name may be under /proc or /dev from / (or through
		// ..) as much as anywhere.
		if callerRelative("/"+path) || strings.Contains(path, "..") {
			return "", false, false
		}
		name = l.procDir(tk.tid, dirfd) + "/" + path
		onlySuccess = dirfd != unix.AT_FDCWD
	}
	if !l.sameCreds(tk) {
		return "", false, false
	}
	return name, onlySuccess, true
}

// procDir names, for the tracer, the directory a call of tid with dirfd
// starts from.
func (l *loop) procDir(tid, dirfd int) string {
	if dirfd == unix.AT_FDCWD {
		return "/proc/" + strconv.Itoa(tid) + "/cwd"
	}
	return "/proc/" + strconv.Itoa(tid) + "/fd/" + strconv.Itoa(dirfd)
}

// callerRelative tells the absolute paths whose meaning depends on the
// process that looks them up.
func callerRelative(path string) bool {
	return path == "/proc" || strings.HasPrefix(path, "/proc/") || path == "/dev" || strings.HasPrefix(path, "/dev/")
}
