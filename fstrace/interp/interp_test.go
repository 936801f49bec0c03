package interp

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

const (
	C = fstrace.Consumed
	P = fstrace.Produced
	E = fstrace.Expunged
)

// Bug 1: the original maps vfork to Nop, so the child is unknown and its
// relative and fd-relative paths are lost.
func TestVforkChildIsRegistered(t *testing.T) {
	in, res := run(
		chdir(puppet, "/srv"),
		open(puppet, "/etc", 3),
		begin(puppet, "Exec[x]"),
		newProc(puppet, 200, 0), // vfork: no sharing flags, copies
		hp(200, C, "conf"),
		hpAt(200, 3, "hosts", C),
		end(puppet, "Exec[x]"),
	)
	wantEffects(t, res, "/srv/conf", "Exec[x]", "consumed")
	wantEffects(t, res, "/etc/hosts", "Exec[x]", "consumed")
	if res.Stats.UnknownPids != 0 || res.Stats.UnknownFds != 0 {
		t.Errorf("stats: %+v", res.Stats)
	}
	if res.Stats.Processes != 2 {
		t.Errorf("Processes = %d, want 2", res.Stats.Processes)
	}
	_ = in
}

// Bug 2: clone3 threads were unregistered. A thread shares the fd table and
// the cwd, and acts for the block its process acts for.
func TestClone3ThreadSharesFilesCwdAndBlock(t *testing.T) {
	_, res := run(
		newProc(puppet, 101, fstrace.ShareFiles|fstrace.ShareFS|fstrace.ShareThread),
		begin(puppet, "File[a]"),
		open(101, "/opt", 5), // the thread opens, the process uses it
		hpAt(puppet, 5, "x", C),
		chdir(101, "/var"),
		hp(puppet, C, "log"),
		hp(101, P, "/tmp/out"),
		end(puppet, "File[a]"),
	)
	wantEffects(t, res, "/opt/x", "File[a]", "consumed")
	wantEffects(t, res, "/var/log", "File[a]", "consumed")
	wantEffects(t, res, "/tmp/out", "File[a]", "produced")
	if res.Stats.UnknownPids != 0 {
		t.Errorf("UnknownPids = %d", res.Stats.UnknownPids)
	}
}

// A CLONE_FILES child without CLONE_FS shares fds but not the cwd.
func TestNewProcFlagsShareOrCopy(t *testing.T) {
	_, res := run(
		begin(puppet, "B"),
		newProc(puppet, 200, fstrace.ShareFiles),
		newProc(puppet, 201, fstrace.ShareFS),
		chdir(200, "/a"),     // not seen by puppet
		chdir(201, "/b"),     // seen by puppet
		open(200, "/etc", 7), // seen by puppet
		open(201, "/usr", 8), // not seen by puppet
		hp(puppet, C, "rel"), // /b/rel
		hpAt(puppet, 7, "f", C),
		hpAt(puppet, 8, "g", C), // unknown fd
		end(puppet, "B"),
	)
	wantEffects(t, res, "/b/rel", "B", "consumed")
	wantEffects(t, res, "/etc/f", "B", "consumed")
	if findPath(res, "/a/rel") != nil || findPath(res, "/usr/g") != nil {
		t.Errorf("unshared state leaked: %v", pathNames(res))
	}
	if res.Stats.UnknownFds != 1 {
		t.Errorf("UnknownFds = %d, want 1", res.Stats.UnknownFds)
	}
}

// Bug 3: symlinks were followed one level at most, and relative targets
// against the cwd. Here: an absolute link in an intermediate component,
// then a relative one resolved against its own directory.
func TestSymlinksFollowedAtAnyDepthAndRelative(t *testing.T) {
	_, res := run(
		chdir(puppet, "/home"),
		mkdir(puppet, "/b/sub"),
		symlink(puppet, "/b", "/a"),            // /a -> /b
		symlink(puppet, "../real", "/b/sub/c"), // relative to /b/sub: /b/real
		symlink(puppet, "c", "/b/sub/cc"),      // a chain: cc -> c -> ../real
		begin(puppet, "B"),
		hp(puppet, C, "/a/sub/cc/file"),
		hp(puppet, C, "/a/sub/cc"),    // final link followed
		hpsym(puppet, C, "/a/sub/cc"), // final link not followed: the link itself, under its real directory
		end(puppet, "B"),
	)
	wantEffects(t, res, "/b/real/file", "B", "consumed")
	wantEffects(t, res, "/b/real", "B", "consumed")
	wantEffects(t, res, "/b/sub/cc", "B", "consumed")
	for _, wrong := range []string{"/real/file", "/home/real/file", "/a/sub/cc/file", "/b/sub/cc/file"} {
		if findPath(res, wrong) != nil {
			t.Errorf("link resolved lexically or against the cwd: %v", pathNames(res))
		}
	}
}

func TestSymlinkLoopIsBoundedAndCounted(t *testing.T) {
	_, res := run(
		symlink(puppet, "/y", "/x"),
		symlink(puppet, "x", "/y"),
		begin(puppet, "B"),
		hp(puppet, C, "/x/f"),
		hp(puppet, C, "/ok"),
		end(puppet, "B"),
	)
	if res.Stats.SymlinkLoops != 1 || res.Stats.UnresolvedPaths != 1 {
		t.Errorf("stats: %+v", res.Stats)
	}
	if findPath(res, "/x/f") != nil || findPath(res, "/y/f") != nil {
		t.Errorf("looping path recorded: %v", pathNames(res))
	}
	wantEffects(t, res, "/ok", "B", "consumed")
}

// Bug 4: the original charges effects seen outside any block to the next
// block that ends.
func TestEffectsOutsideBlocksNotCharged(t *testing.T) {
	_, res := run(
		hp(puppet, C, "/etc/startup"),
		begin(puppet, "File[b]"),
		hp(puppet, C, "/etc/b"),
		end(puppet, "File[b]"),
		hp(puppet, P, "/etc/after"),
	)
	if findPath(res, "/etc/startup") != nil || findPath(res, "/etc/after") != nil {
		t.Errorf("work outside blocks recorded: %v", pathNames(res))
	}
	wantEffects(t, res, "/etc/b", "File[b]", "consumed")
}

// Bug 5: ".." was joined lexically, and paths with spaces were taken as
// relative.
func TestDotDotAfterSymlinkedDirAndSpaces(t *testing.T) {
	_, res := run(
		chdir(puppet, "/srv"),
		mkdir(puppet, "/usr/share/doc"),
		symlink(puppet, "/usr/share/doc", "/link"),
		begin(puppet, "B"),
		hp(puppet, C, "/link/../x"),      // parent of /usr/share/doc, not of /link
		hp(puppet, C, "/etc/a b"),        // absolute despite the space
		hp(puppet, C, "sub/../y"),        // relative with ..
		hp(puppet, C, "/../../etc/z/.."), // .. above / stays at /
		end(puppet, "B"),
	)
	wantEffects(t, res, "/usr/share/x", "B", "consumed")
	wantEffects(t, res, "/etc/a b", "B", "consumed")
	wantEffects(t, res, "/srv/y", "B", "consumed")
	wantEffects(t, res, "/etc", "B", "consumed")
	if findPath(res, "/x") != nil || findPath(res, "/srv/etc/a b") != nil {
		t.Errorf("lexical or space bug: %v", pathNames(res))
	}
}

func TestRepeatedAndTrailingSlashesAndDot(t *testing.T) {
	_, res := run(
		begin(puppet, "B"),
		hp(puppet, C, "//etc///./passwd"),
		mkdir(puppet, "/var/new/"),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/etc/passwd", "B", "consumed")
	wantEffects(t, res, "/var/new", "B", "produced")
	if pa := findPath(res, "/var/new"); pa == nil || !pa.IsDir {
		t.Errorf("/var/new not a directory: %+v", pa)
	}
}

// Bug 6: empty paths and unknown fds were fatal.
func TestEmptyPathAndUnknownFdDoNotCrash(t *testing.T) {
	_, res := run(
		chdir(puppet, "/work"),
		open(puppet, "/etc/f", 3),
		begin(puppet, "B"),
		hpAt(puppet, fstrace.AtFdcwd, "", C), // the cwd itself
		hpAt(puppet, 3, "", P),               // fchmod(3)
		hpAt(puppet, 42, "x", C),             // never opened
		hpAt(puppet, 43, "", C),
		dup2(puppet, 44, 5),
		hpAt(puppet, 5, "y", C), // a copy of an unknown fd is unknown too
		closeFd(puppet, 99),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/work", "B", "consumed")
	wantEffects(t, res, "/etc/f", "B", "produced")
	if res.Stats.UnknownFds != 4 || res.Stats.UnresolvedPaths != 3 {
		t.Errorf("stats: %+v", res.Stats)
	}
}

// Bug 7: the original's root process has cwd /UNKNOWN until it calls
// getcwd, and only the pid of line 1 is registered.
func TestRootProcessCwdAndUnknownPids(t *testing.T) {
	_, res := run(
		begin(puppet, "B"),
		hp(puppet, C, "etc/hosts"),
		hp(300, C, "a"), // a pid never created: counted once
		hp(300, C, "b"),
		hp(301, C, "c"),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/etc/hosts", "B", "consumed")
	wantEffects(t, res, "/a", "B", "consumed")
	if res.Stats.UnknownPids != 2 {
		t.Errorf("UnknownPids = %d, want 2", res.Stats.UnknownPids)
	}
}

// A child whose first statement precedes its parent's clone in the trace
// is adopted by the NewProc, not counted as unknown.
func TestChildSeenBeforeItsCloneIsAdopted(t *testing.T) {
	_, res := run(
		open(puppet, "/etc", 3),
		begin(puppet, "Service[x]"),
		open(200, "/var", 4),
		newProc(puppet, 200, 0),
		hpAt(200, 3, "inherited", C),
		hpAt(200, 4, "own", C),
		end(puppet, "Service[x]"),
	)
	wantEffects(t, res, "/etc/inherited", "Service[x]", "consumed")
	wantEffects(t, res, "/var/own", "Service[x]", "consumed")
	if res.Stats.UnknownPids != 0 || res.Stats.Processes != 2 {
		t.Errorf("stats: %+v", res.Stats)
	}
}

// strace printed the child's whole life before its parent's clone
// returned: the child is not an unknown pid.
func TestChildExitedBeforeItsCloneIsNotUnknown(t *testing.T) {
	_, res := run(
		begin(puppet, "Exec[x]"),
		closeFd(200, 17),
		exit(200),
		newProc(puppet, 200, 0),
		end(puppet, "Exec[x]"),
	)
	if res.Stats.UnknownPids != 0 || res.Stats.Processes != 2 {
		t.Errorf("stats: %+v", res.Stats)
	}
}

// A process cannot be its own child: a NewProc naming the creator's own
// pid (a corrupt trace; found by FuzzInterp) is counted and ignored. It
// used to end the creator (pid reuse) or, for a provisional creator with
// CLONE_FILES, merge its fd table into itself, which freed an unlinked
// open file that the table still named.
func TestSelfCloneIsIgnored(t *testing.T) {
	in := New(Options{})
	in.Run([]fstrace.Statement{
		open(puppet, "/etc", 3),
		// 200 is provisional; the file it opens as fd 7 is then unlinked.
		openAt(200, fstrace.AtFdcwd, "/b", 7, fstrace.FdCloexec),
		symlink(puppet, "a", "/b"),
		newProc(200, 200, fstrace.ShareFiles),
		newProc(puppet, puppet, 0),
		symlink(puppet, "a", "/c"), // a new inode: must not reuse the open one
	})
	checkModel(t, in)
	in.Run([]fstrace.Statement{
		begin(puppet, "B"),
		hpAt(puppet, 3, "hosts", C), // puppet's fds are still its own
		end(puppet, "B"),
	})
	res := in.Result()
	wantEffects(t, res, "/etc/hosts", "B", "consumed")
	if w := in.Warnings(); w.SelfClones != 2 {
		t.Errorf("SelfClones = %d, want 2", w.SelfClones)
	}
	if res.Stats.Processes != 2 || res.Stats.UnknownPids != 1 {
		t.Errorf("stats: %+v", res.Stats)
	}
}

// A thread of a provisional process clones that process (the trace showed
// the child's thread before the clone that made the child): the adopted
// child's fd table is already the creator's. Nothing is merged, and an
// unlinked file open in the table stays open.
func TestProvisionalAdoptedByItsOwnThread(t *testing.T) {
	in := New(Options{})
	in.Run([]fstrace.Statement{
		open(puppet, "/etc", 3),
		openAt(200, fstrace.AtFdcwd, "/b", 7, 0), // 200: provisional
		newProc(200, 201, fstrace.ShareFiles|fstrace.ShareFS|fstrace.ShareThread),
		symlink(puppet, "a", "/b"), // unlinks the open file
		newProc(201, 200, fstrace.ShareFiles),
		symlink(puppet, "a", "/c"),
	})
	checkModel(t, in)
	if in.procs[200].files != in.procs[201].files || in.procs[200].files.users != 2 {
		t.Errorf("200 and 201 should share one table with 2 users")
	}
	if ino := in.fd(in.procs[200].files, 7); !ino.hasPath() || in.m.inodes[ino].free || in.m.inodes[ino].isLink {
		t.Errorf("fd 7 names inode %d (%+v), want the unlinked file", ino, in.m.inodes[max(ino, 0)])
	}
}

// A daemon started by Service[cron] keeps acting for Service[cron] after
// the block ended, and so do its descendants; the Puppet process moves on.
func TestDaemonPinnedToItsBlock(t *testing.T) {
	_, res := run(
		newProc(puppet, 150, 0), // start-up helper: dynamic
		begin(puppet, "Service[cron]"),
		newProc(puppet, 200, 0),
		newProc(200, 201, 0), // the daemon double-forks
		exit(200),
		end(puppet, "Service[cron]"),
		begin(puppet, "File[/etc/cron.d/job]"),
		hp(puppet, P, "/etc/cron.d/job"),
		hp(201, C, "/etc/cron.d/job"),
		newProc(201, 202, fstrace.ShareThread|fstrace.ShareFiles|fstrace.ShareFS),
		hp(202, C, "/etc/crontab"),
		hp(150, C, "/etc/helper"),
		end(puppet, "File[/etc/cron.d/job]"),
		hp(201, C, "/etc/later"), // after every block: still the daemon's block
	)
	wantEffects(t, res, "/etc/cron.d/job", "File[/etc/cron.d/job]", "produced")
	wantEffects(t, res, "/etc/cron.d/job", "Service[cron]", "consumed")
	wantEffects(t, res, "/etc/crontab", "Service[cron]", "consumed")
	wantEffects(t, res, "/etc/later", "Service[cron]", "consumed")
	wantEffects(t, res, "/etc/helper", "File[/etc/cron.d/job]", "consumed")
}

func TestDup2OverOpenFdClosesIt(t *testing.T) {
	in, res := run(
		open(puppet, "/a", 3),
		open(puppet, "/b", 4),
		begin(puppet, "B"),
		dup2(puppet, 3, 4),
		hpAt(puppet, 4, "", C), // fd 4 is /a now
		end(puppet, "B"),
	)
	wantEffects(t, res, "/a", "B", "consumed")
	if findPath(res, "/b") != nil {
		t.Errorf("fd 4 still /b")
	}
	b, _ := in.m.resolve(rootInode, "/b", true, new(int))
	if got := in.m.inodes[b.ino].opens; got != 0 {
		t.Errorf("/b opens = %d after dup2 over it, want 0", got)
	}
}

func TestCloexecClosedAtExec(t *testing.T) {
	_, res := run(
		openAt(puppet, fstrace.AtFdcwd, "/etc", 3, fstrace.FdCloexec),
		open(puppet, "/srv", 4),
		newProc(puppet, 200, fstrace.ShareFiles), // shares the table
		begin(puppet, "B"),
		execve(200), // unshares, then closes its own fd 3
		hpAt(200, 3, "x", C),
		hpAt(200, 4, "y", C),
		hpAt(puppet, 3, "z", C), // puppet's fd 3 is still open
		end(puppet, "B"),
	)
	if findPath(res, "/etc/x") != nil {
		t.Errorf("O_CLOEXEC fd survived exec")
	}
	wantEffects(t, res, "/srv/y", "B", "consumed")
	wantEffects(t, res, "/etc/z", "B", "consumed")
	if res.Stats.UnknownFds != 1 {
		t.Errorf("UnknownFds = %d, want 1", res.Stats.UnknownFds)
	}
}

func TestCloseRangeClosesOrMarks(t *testing.T) {
	_, res := run(
		open(puppet, "/d3", 3),
		open(puppet, "/d4", 4),
		open(puppet, "/d5", 5),
		open(puppet, "/d6", 6),
		ev(fstrace.Statement{Op: fstrace.OpDelFd, Pid: puppet, Fd: 5, Fd2: math.MaxInt32, Syscall: "close_range"}),
		ev(fstrace.Statement{Op: fstrace.OpDelFd, Pid: puppet, Fd: 4, Fd2: 4, Flags: fstrace.FdCloexec, Syscall: "close_range"}),
		begin(puppet, "B"),
		hpAt(puppet, 3, "a", C),
		hpAt(puppet, 4, "a", C),
		hpAt(puppet, 5, "a", C),
		hpAt(puppet, 6, "a", C),
		execve(puppet),
		hpAt(puppet, 4, "b", C),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/d3/a", "B", "consumed")
	wantEffects(t, res, "/d4/a", "B", "consumed")
	if findPath(res, "/d5/a") != nil || findPath(res, "/d6/a") != nil || findPath(res, "/d4/b") != nil {
		t.Errorf("closed fds still resolve: %v", pathNames(res))
	}
	if res.Stats.UnknownFds != 3 {
		t.Errorf("UnknownFds = %d, want 3", res.Stats.UnknownFds)
	}
}

// An unlinked open file keeps its inode until the last close; reopening
// the name creates a new file (the original revived the old inode).
func TestUnlinkWhileOpenThenReopen(t *testing.T) {
	in := New(Options{})
	in.Run([]fstrace.Statement{
		hp(puppet, P, "/tmp/f"),
		open(puppet, "/tmp/f", 3),
		begin(puppet, "Remove"),
		hpsym(puppet, E, "/tmp/f"),
		end(puppet, "Remove"),
		begin(puppet, "Create"),
		hp(puppet, P, "/tmp/f"),
		open(puppet, "/tmp/f", 4),
		hpAt(puppet, 3, "", C), // still the old, unlinked file
		end(puppet, "Create"),
	})
	old, nu := in.procs[puppet].files.fds[3].ino, in.procs[puppet].files.fds[4].ino
	if old == nu {
		t.Fatalf("reopen after unlink revived the old inode %d", old)
	}
	if n := in.m.inodes[old]; n.nlink != 0 || n.opens != 1 || n.free {
		t.Errorf("unlinked open inode: %+v", n)
	}
	in.Step(&fstrace.Statement{Op: fstrace.OpDelFd, Pid: puppet, Fd: 3, Fd2: 3})
	if !in.m.inodes[old].free {
		t.Errorf("inode not released at last close: %+v", in.m.inodes[old])
	}
	res := in.Result()
	wantEffects(t, res, "/tmp/f", "Remove", "expunged")
	wantEffects(t, res, "/tmp/f", "Create", "consumed+produced")
	wantEffects(t, res, "/tmp", "Create", "consumed") // a new name in /tmp
}

func TestRenameOfDirectoryKeepsChildrenReachable(t *testing.T) {
	_, res := run(
		begin(puppet, "B"),
		mkdir(puppet, "/srv/a"),
		hp(puppet, P, "/srv/a/f"),
		open(puppet, "/srv/a", 3),
		chdir(puppet, "/srv/a/sub"),
		rename(puppet, "/srv/a", "/srv/b", 0),
		end(puppet, "B"),
		begin(puppet, "C"),
		hp(puppet, C, "../f"), // cwd moved with the directory
		hpAt(puppet, 3, "g", P),
		hp(puppet, C, "/srv/b/f"),
		end(puppet, "C"),
	)
	wantEffects(t, res, "/srv/b/f", "C", "consumed")
	wantEffects(t, res, "/srv/b/g", "C", "produced")
	wantEffects(t, res, "/srv/b", "B", "produced")
	// Accesses before the rename keep the name of their time.
	wantEffects(t, res, "/srv/a/f", "B", "produced")
	if findPath(res, "/srv/a/g") != nil {
		t.Errorf("old name used after rename: %v", pathNames(res))
	}
}

func TestRenameExchangeSwapsNames(t *testing.T) {
	in, res := run(
		hp(puppet, P, "/x"),
		hp(puppet, P, "/y"),
		open(puppet, "/x", 3),
		begin(puppet, "B"),
		rename(puppet, "/x", "/y", fstrace.RenameExchange),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/x", "B", "produced")
	wantEffects(t, res, "/y", "B", "produced")
	y, _ := in.m.resolve(rootInode, "/y", false, new(int))
	if y.ino != in.procs[puppet].files.fds[3].ino {
		t.Errorf("/y does not name the old /x inode")
	}
}

// Rename onto an existing name: the old name is expunged, the new one
// produced, and a temp file renamed into place leaves no trace of itself.
func TestRenameTempIntoPlace(t *testing.T) {
	_, res := run(
		begin(puppet, "File[/etc/x]"),
		hp(puppet, P, "/etc/x.tmp1"),
		rename(puppet, "/etc/x.tmp1", "/etc/x", 0),
		end(puppet, "File[/etc/x]"),
	)
	wantEffects(t, res, "/etc/x.tmp1", "File[/etc/x]", "")
	wantEffects(t, res, "/etc/x", "File[/etc/x]", "produced")
	wantEffects(t, res, "/etc", "File[/etc/x]", "consumed")
}

func TestHardLinksShareOneInode(t *testing.T) {
	in, res := run(
		hp(puppet, P, "/a/x"),
		begin(puppet, "B"),
		link(puppet, "/a/x", "/b/y"),
		hpsym(puppet, E, "/a/x"),
		hp(puppet, P, "/b/y"), // the name used
		end(puppet, "B"),
	)
	wantEffects(t, res, "/a/x", "B", "consumed+expunged")
	wantEffects(t, res, "/b/y", "B", "produced")
	wantEffects(t, res, "/b", "B", "consumed")
	y, _ := in.m.resolve(rootInode, "/b/y", false, new(int))
	if n := in.m.inodes[y.ino]; n.free || n.nlink != 1 {
		t.Errorf("inode after unlinking one of two names: %+v", n)
	}
}

func TestTemporaryLeavesNoEffect(t *testing.T) {
	_, res := run(
		begin(puppet, "Exec[t]"),
		hp(puppet, P, "/tmp/t"),
		hp(puppet, C, "/tmp/t"),
		hpsym(puppet, E, "/tmp/t"),
		end(puppet, "Exec[t]"),
		begin(puppet, "Other"),
		hp(puppet, P, "/tmp/u"), // produced in one block,
		end(puppet, "Other"),
		begin(puppet, "Exec[t]"),
		hpsym(puppet, E, "/tmp/u"), // removed in another: both kept
		end(puppet, "Exec[t]"),
	)
	wantEffects(t, res, "/tmp/t", "Exec[t]", "")
	wantEffects(t, res, "/tmp", "Exec[t]", "consumed")
	wantEffects(t, res, "/tmp/u", "Other", "produced")
	wantEffects(t, res, "/tmp/u", "Exec[t]", "expunged")
}

// The original drops read-then-delete like a temporary.
func TestConsumedThenExpungedIsKept(t *testing.T) {
	_, res := run(
		begin(puppet, "B"),
		hp(puppet, C, "/etc/old"),
		hpsym(puppet, E, "/etc/old"),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/etc/old", "B", "consumed+expunged")
}

func TestPidReuseAfterExit(t *testing.T) {
	_, res := run(
		open(puppet, "/etc", 3),
		newProc(puppet, 200, 0),
		chdir(200, "/srv"),
		open(200, "/opt", 4),
		exit(200),
		newProc(puppet, 200, 0), // a new process with the old pid
		begin(puppet, "B"),
		hp(200, C, "x"),
		hpAt(200, 3, "y", C),
		hpAt(200, 4, "z", C),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/x", "B", "consumed")
	wantEffects(t, res, "/etc/y", "B", "consumed")
	if findPath(res, "/srv/x") != nil || findPath(res, "/opt/z") != nil {
		t.Errorf("state of the dead process reused: %v", pathNames(res))
	}
	if res.Stats.Processes != 3 || res.Stats.UnknownPids != 0 || res.Stats.UnknownFds != 1 {
		t.Errorf("stats: %+v", res.Stats)
	}
}

func TestSetCwdFromFd(t *testing.T) {
	_, res := run(
		open(puppet, "/var/lib", 3),
		ev(fstrace.Statement{Op: fstrace.OpSetCwd, Pid: puppet, Dir: 3, Path: "", Syscall: "fchdir"}),
		begin(puppet, "B"),
		hp(puppet, C, "dpkg"),
		end(puppet, "B"),
		ev(fstrace.Statement{Op: fstrace.OpSetCwd, Pid: puppet, Dir: 3, Path: ".", Syscall: "fchdir"}),
	)
	wantEffects(t, res, "/var/lib/dpkg", "B", "consumed")
	if pa := findPath(res, "/var/lib/dpkg"); pa == nil || pa.IsDir {
		t.Errorf("/var/lib/dpkg marked as directory: %+v", pa)
	}
}

func TestAnonymousFdsHaveNoPath(t *testing.T) {
	_, res := run(
		ev(fstrace.Statement{Op: fstrace.OpNewFd, Pid: puppet, Fd: 3, Flags: fstrace.FdAnon, Syscall: "pipe2"}),
		begin(puppet, "B"),
		dup2(puppet, 3, 1),
		hpAt(puppet, 1, "", C),  // fstat on the pipe: no path, no failure
		hpAt(puppet, 1, "x", C), // a path relative to a pipe: unresolved
		end(puppet, "B"),
	)
	if len(res.Paths) != 0 {
		t.Errorf("pipe got a path: %v", pathNames(res))
	}
	if res.Stats.UnknownFds != 0 || res.Stats.UnresolvedPaths != 1 {
		t.Errorf("stats: %+v", res.Stats)
	}
}

func TestSameBlockNameSharesID(t *testing.T) {
	_, res := run(
		begin(puppet, "Class[Main]"),
		hp(puppet, C, "/a"),
		end(puppet, "Class[Main]"),
		begin(puppet, "File[x]"),
		hp(puppet, C, "/a"),
		end(puppet, "File[x]"),
		begin(puppet, "Class[Main]"),
		hp(puppet, P, "/a"),
		end(puppet, "Class[Main]"),
	)
	if len(res.Blocks) != 2 || res.Stats.Blocks != 2 {
		t.Fatalf("blocks: %v", res.Blocks)
	}
	pa := findPath(res, "/a")
	if pa == nil || len(pa.Accesses) != 2 || pa.Accesses[0].Block != 0 || pa.Accesses[1].Block != 1 {
		t.Fatalf("accesses to /a: %+v", pa)
	}
	wantEffects(t, res, "/a", "Class[Main]", "consumed+produced")
}

func TestBlocksDoNotNest(t *testing.T) {
	in, res := run(
		begin(puppet, "A"),
		begin(puppet, "B"), // closes A
		hp(puppet, C, "/f"),
		end(puppet, "A"), // unmatched: B is open
		end(puppet, "B"),
		end(puppet, "B"), // unmatched: nothing open
		begin(puppet, "C"),
	)
	wantEffects(t, res, "/f", "B", "consumed")
	wantEffects(t, res, "/f", "A", "")
	if w := in.Warnings(); w.ImplicitEnds != 1 {
		t.Errorf("ImplicitEnds = %d", w.ImplicitEnds)
	}
	if res.Stats.UnmatchedEnds != 2 || res.Stats.UnclosedBlocks != 1 || res.Stats.Blocks != 3 {
		t.Errorf("stats: %+v", res.Stats)
	}
}

func TestEvidenceIsFirstPerEffect(t *testing.T) {
	first := ev(fstrace.Statement{Op: fstrace.OpHpath, Pid: puppet, Dir: fstrace.AtFdcwd, Path: "/f", Effect: C, Syscall: "stat"})
	_, res := run(
		begin(puppet, "B"),
		first,
		ev(fstrace.Statement{Op: fstrace.OpHpath, Pid: puppet, Dir: fstrace.AtFdcwd, Path: "/f", Effect: C, Syscall: "openat"}),
		ev(fstrace.Statement{Op: fstrace.OpHpath, Pid: puppet, Dir: fstrace.AtFdcwd, Path: "/f", Effect: P, Syscall: "truncate"}),
		end(puppet, "B"),
	)
	a := access(res, "/f", "B")
	if a == nil {
		t.Fatal("no access")
	}
	if a.ConsumedBy != (NewEvidence("stat", first.Line)) || a.ProducedBy.Syscall() != "truncate" {
		t.Errorf("evidence: %+v", a)
	}
}

func TestIsDirMarked(t *testing.T) {
	_, res := run(
		chdir(puppet, "/opt/app"),
		begin(puppet, "B"),
		hp(puppet, C, "/opt/app"),
		hp(puppet, C, "/etc"),        // seen as a plain name…
		hp(puppet, C, "/etc/passwd"), // …then given a child
		hp(puppet, C, "/etc"),
		mkdir(puppet, "/srv/d"),
		hp(puppet, C, "/bin/sh"),
		hp(puppet, C, "/usr/lib/"), // a trailing slash names a directory
		end(puppet, "B"),
	)
	for path, want := range map[string]bool{"/usr/lib": true, "/opt/app": true, "/etc": true, "/srv/d": true, "/srv": true, "/bin/sh": false} {
		if pa := findPath(res, path); pa == nil || pa.IsDir != want {
			t.Errorf("%s: %+v, want IsDir %v", path, pa, want)
		}
	}
}

func TestResultSortedByPath(t *testing.T) {
	_, res := run(
		begin(puppet, "B"),
		hp(puppet, C, "/z"),
		hp(puppet, C, "/a/b"),
		hp(puppet, C, "/a"),
		hp(puppet, C, "/a b"),
		end(puppet, "B"),
	)
	got := pathNames(res)
	want := []string{"/a", "/a b", "/a/b", "/z"}
	if len(got) != len(want) {
		t.Fatalf("paths %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("paths %v, want %v", got, want)
		}
	}
	if res.Stats.DistinctPaths != 4 || res.Stats.Statements != 6 {
		t.Errorf("stats: %+v", res.Stats)
	}
}

// Recreating the same name many times must not grow the model.
func TestModelMemoryBoundedByDistinctPaths(t *testing.T) {
	in := New(Options{})
	prog := []fstrace.Statement{
		hp(puppet, P, "/run/lock"),
		open(puppet, "/run/lock", 3),
		closeFd(puppet, 3),
		hpsym(puppet, E, "/run/lock"),
	}
	in.Run(prog)
	inodes, entries := len(in.m.inodes), len(in.m.entries)
	for range 1000 {
		in.Run(prog)
	}
	if len(in.m.inodes) != inodes || len(in.m.entries) != entries {
		t.Errorf("model grew: inodes %d -> %d, entries %d -> %d", inodes, len(in.m.inodes), entries, len(in.m.entries))
	}
}

// The absolute-path cache must follow the model: directories renamed,
// files replaced, symlinks re-pointed.
func TestPathCacheSeesModelChanges(t *testing.T) {
	in, res := run(
		hp(puppet, C, "/d/sub/f"), // first sight: not cached yet
		open(puppet, "/d/sub/f", 3),
		rename(puppet, "/d/sub", "/d/moved", 0),
		open(puppet, "/d/sub/f", 4), // a new, pre-existing /d/sub
		hp(puppet, C, "/e/f"),
		open(puppet, "/e/f", 5),
		hp(puppet, P, "/e/g"),
		rename(puppet, "/e/g", "/e/f", 0),
		open(puppet, "/e/f", 6),
		symlink(puppet, "/t1", "/l"),
		hp(puppet, C, "/l/x"),
		hp(puppet, C, "/l/x"),
		hpsym(puppet, E, "/l"),
		symlink(puppet, "/t2", "/l"),
		hp(puppet, C, "/v/b"),
		hp(puppet, C, "/v/b"),
		rename(puppet, "/v/b", "/v/c", 0), // frees the entry slot of /v/b…
		hp(puppet, P, "/v/z"),             // …which the new name reuses
		begin(puppet, "B"),
		hp(puppet, C, "/l/x"),
		hpAt(puppet, 3, "", C),
		hp(puppet, C, "/v/b"),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/v/b", "B", "consumed")
	wantEffects(t, res, "/v/z", "B", "")
	fds := in.procs[puppet].files.fds
	if fds[3].ino == fds[4].ino {
		t.Errorf("/d/sub/f after renaming /d/sub resolved to the moved file")
	}
	if fds[5].ino == fds[6].ino {
		t.Errorf("/e/f after rename onto it resolved to the replaced file")
	}
	wantEffects(t, res, "/t2/x", "B", "consumed")
	wantEffects(t, res, "/t1/x", "B", "")
	wantEffects(t, res, "/d/moved/f", "B", "consumed")
}

// Result lists the two halves of a large path table side by side on two
// cores: the paths, their order and their accesses must be those listed on
// one. Names are chosen so that table order, tree order and byte order
// differ ("/a-b" sorts before "/a/b", and later paths join earlier
// directories).
func TestResultHalvesMerged(t *testing.T) {
	in := New(Options{})
	var prog []fstrace.Statement
	names := []string{"a", "a-b", "a.b", "b", "A", "z", "a0"}
	for i := range 3 * minParallelResult {
		if i%500 == 0 {
			prog = append(prog, begin(puppet, fmt.Sprint("B", i/500)))
		}
		dir := "/" + names[i%len(names)]
		path := fmt.Sprintf("%s/%s%d", dir, names[(i/7)%len(names)], i%(minParallelResult+13))
		eff := []fstrace.Effect{P, C, E}[i%3]
		prog = append(prog, hp(puppet, eff, path))
		if i%500 == 499 {
			prog = append(prog, end(puppet, fmt.Sprint("B", i/500)))
		}
	}
	in.Run(prog)
	if n := len(in.m.paths.nodes); n < minParallelResult {
		t.Fatalf("%d paths: too few for a parallel Result", n)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := in.Result()
	runtime.GOMAXPROCS(2)
	two := in.Result()
	if !slices.IsSortedFunc(two.Paths, func(a, b PathAccesses) int { return strings.Compare(a.Path, b.Path) }) {
		t.Error("paths not sorted")
	}
	if !reflect.DeepEqual(one, two) {
		t.Errorf("results differ: %d paths on one core, %d on two", len(one.Paths), len(two.Paths))
	}
}

// A block that makes a name in a directory writes in it (EntryMade, besides
// consuming it); one that only lists it or looks up a name in it does not.
func TestEntryMadeInDirectory(t *testing.T) {
	_, res := run(
		mkdir(puppet, "/etc/app.d"),
		begin(puppet, "Service[app]"),
		openAt(puppet, fstrace.AtFdcwd, "/etc/app.d", 3, 0),
		listing(hpAt(puppet, 3, "", C)), // getdents
		hp(puppet, C, "/etc/app.d/a.conf"),
		listing(hpAt(puppet, 3, "", C)), // and again
		end(puppet, "Service[app]"),
		begin(puppet, "Exec[make]"),
		hp(puppet, P, "/etc/app.d/b.conf"),
		mkdir(puppet, "/etc/app.d/sub"),
		end(puppet, "Exec[make]"),
		begin(puppet, "Exec[link]"),
		symlink(puppet, "/etc/app.d/b.conf", "/var/c.conf"),
		end(puppet, "Exec[link]"),
	)
	for _, c := range []struct {
		path, block string
		made        bool
	}{
		{"/etc/app.d", "Service[app]", false},
		{"/etc/app.d", "Exec[make]", true},
		{"/var", "Exec[link]", true},
	} {
		a := access(res, c.path, c.block)
		if a == nil || !a.Consumed {
			t.Errorf("%s on %s: %+v, want a consumption", c.block, c.path, a)
			continue
		}
		if a.EntryMade != c.made {
			t.Errorf("%s on %s: EntryMade %v, want %v", c.block, c.path, a.EntryMade, c.made)
		}
	}
	// The listings are marked, first and last; a lookup is no listing.
	if a := access(res, "/etc/app.d", "Service[app]"); !a.Listed || a.ListedBy.Line == 0 || a.LastListedBy.Line <= a.ListedBy.Line {
		t.Errorf("Service[app] on /etc/app.d: listed %v, first %d, last %d", a.Listed, a.ListedBy.Line, a.LastListedBy.Line)
	}
	if a := access(res, "/etc/app.d", "Exec[make]"); a.Listed {
		t.Errorf("Exec[make] made names in /etc/app.d, and is said to have listed it")
	}
}

// listing marks st as a getdents (fstrace.Lists).
func listing(st fstrace.Statement) fstrace.Statement {
	st.Flags |= fstrace.Lists
	return st
}

// TestSeededLinks: a link the node had before the trace (Options.Links,
// the image's /var/run → /run) is followed from the start, so a write
// through it and a read of the path it names meet on one file. Near
// misses: a relative or unclean path, or a name the model has, is not
// seeded.
func TestSeededLinks(t *testing.T) {
	in := New(Options{Links: map[string]string{
		"/var/run":   "/run",
		"/var/lock":  "/run/lock",
		"var/tmp":    "/tmp",       // not absolute
		"/srv/../x":  "/tmp",       // not clean
		"/var/run/y": "/elsewhere", // under a seeded link: resolved through it, /run/y
	}})
	in.Run([]fstrace.Statement{
		begin(puppet, "W"),
		hp(puppet, P, "/var/run/daemon.pid"),
		hp(puppet, P, "/var/lock/daemon.lock"),
		end(puppet, "W"),
		begin(puppet, "R"),
		hp(puppet, C, "/run/daemon.pid"),
		hp(puppet, C, "/run/lock/daemon.lock"),
		hp(puppet, C, "/var/tmp/t"),
		end(puppet, "R"),
	})
	res := in.Result()
	for _, path := range []string{"/run/daemon.pid", "/run/lock/daemon.lock"} {
		wantEffects(t, res, path, "W", "produced")
		wantEffects(t, res, path, "R", "consumed")
	}
	if findPath(res, "/var/run/daemon.pid") != nil || findPath(res, "/tmp/t") != nil || findPath(res, "/x") != nil {
		t.Errorf("a link seeded that should not be, or not followed: %v", pathNames(res))
	}
}
