package interp

import (
	"strings"
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

func chroot(pid int32, path string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpHpath, Pid: pid, Dir: fstrace.AtFdcwd, Path: path,
		Effect: C, Flags: fstrace.Roots, Syscall: "chroot"})
}

// TestProcLinksResolveFromTheModel: /proc/<pid>/fd/N, cwd and root lead
// where the model's fd tables and cwds say, not to a name under /proc; an
// fd the model does not know leaves the path unresolved, and a change
// through it inside a block is unplaced (a read is only unresolved).
func TestProcLinksResolveFromTheModel(t *testing.T) {
	_, res := run(
		chdir(puppet, "/work"),
		open(puppet, "/etc/app", 3),
		hp(puppet, P, "/proc/self/fd/9/early"), // outside blocks: only unresolved
		begin(puppet, "B"),
		hp(puppet, P, "/proc/self/fd/3/conf"),
		hp(puppet, P, "/proc/100/cwd/out"),
		hp(puppet, C, "/proc/thread-self/root/etc/hosts"),
		hp(puppet, P, "/proc/self/fd/3"), // the fd's own file
		hp(puppet, C, "/proc/self/status"),
		hp(puppet, C, "/proc/self/fd"),
		hp(puppet, C, "/proc/self/fd/9/read"),  // an unknown fd: a read stays a warning
		hp(puppet, P, "/proc/self/fd/9/write"), // a change is unplaced
		hp(puppet, P, "/proc/4242/cwd/x"),      // a pid never seen
		end(puppet, "B"),
	)
	wantEffects(t, res, "/etc/app/conf", "B", "produced")
	wantEffects(t, res, "/work/out", "B", "produced")
	wantEffects(t, res, "/etc/hosts", "B", "consumed")
	wantEffects(t, res, "/etc/app", "B", "consumed+produced") // consumed: conf was made in it
	wantEffects(t, res, "/proc/self/status", "B", "consumed")
	wantEffects(t, res, "/proc/self/fd", "B", "consumed")
	for _, p := range res.Paths {
		if strings.HasPrefix(p.Path, "/proc/self/fd/") {
			t.Errorf("a path through an fd kept its /proc name: %s", p.Path)
		}
	}
	if res.Stats.UnplacedChanges != 2 || res.Stats.FirstUnplacedChange.Path != "/proc/self/fd/9/write" {
		t.Errorf("unplaced changes %d (first %+v), want 2 (first /proc/self/fd/9/write)",
			res.Stats.UnplacedChanges, res.Stats.FirstUnplacedChange)
	}
	if res.Stats.UnresolvedPaths != 4 {
		t.Errorf("unresolved paths %d, want 4", res.Stats.UnresolvedPaths)
	}
}

// TestChrootMakesNamesUnresolved: after a chroot to another directory, the
// process and the children it makes resolve no name (the model has one
// root), so what they change inside a block is unplaced; chroot("/")
// changes nothing, and a change through an fd opened before still resolves.
func TestChrootMakesNamesUnresolved(t *testing.T) {
	_, res := run(
		open(puppet, "/srv/jail/etc", 3),
		begin(puppet, "B"),
		newProc(puppet, 200, 0),
		chroot(200, "/srv/jail"),
		chdir(200, "/"),
		hp(200, P, "etc/x"), // /srv/jail/etc/x: not /etc/x
		newProc(200, 201, 0),
		hp(201, P, "/etc/y"),
		hpAt(200, 3, "", P), // fchmod of an fd opened before
		newProc(puppet, 300, 0),
		chroot(300, "/"),
		hp(300, P, "/etc/z"),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/etc/x", "B", "")
	wantEffects(t, res, "/etc/y", "B", "")
	wantEffects(t, res, "/srv/jail", "B", "consumed")
	wantEffects(t, res, "/srv/jail/etc", "B", "produced")
	wantEffects(t, res, "/etc/z", "B", "produced")
	if res.Stats.UnplacedChanges != 2 || res.Stats.FirstUnplacedChange.Path != "etc/x" {
		t.Errorf("unplaced changes %d (first %+v), want 2 (first etc/x)", res.Stats.UnplacedChanges, res.Stats.FirstUnplacedChange)
	}
}

func bind(pid int32, src, dst string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpBind, Pid: pid, Dir: fstrace.AtFdcwd, Path: src,
		Dir2: fstrace.AtFdcwd, Path2: dst, Syscall: "mount"})
}

// TestChrootIntoABindOfTheRoot: systemd sandboxes a unit (ProtectSystem=,
// PrivateTmp=…) by bind-mounting "/" at /run/systemd/unit-root in the
// child it forked, then chdir into it and chroot("."): the daemon's names
// are the host's, and so is its cwd. Near misses: a chroot into a bind of
// another directory, into the bind's target by another process that did
// not see the bind, and into a directory of the bind, stay unresolved.
func TestChrootIntoABindOfTheRoot(t *testing.T) {
	_, res := run(
		mkdir(puppet, "/run/systemd/unit-root"),
		mkdir(puppet, "/srv/jail"),
		begin(puppet, "B"),
		newProc(puppet, 200, 0),
		bind(200, "/", "/run/systemd/unit-root"),
		newProc(puppet, 300, 0), // not 200's child: it did not see the bind
		chdir(200, "/run/systemd/unit-root"),
		chroot(200, "."),
		hp(200, P, "etc/cwd-was-root"), // relative: the cwd became "/"
		chdir(200, "/"),
		newProc(200, 201, 0),
		hp(201, C, "/etc/daemon.conf"),
		chroot(300, "/run/systemd/unit-root"), // 300 never bound it
		hp(300, P, "/etc/unseen"),
		newProc(puppet, 400, 0),
		bind(400, "/srv/jail", "/run/systemd/unit-root"),
		chroot(400, "/run/systemd/unit-root"),
		hp(400, P, "/etc/jailed"),
		newProc(puppet, 500, 0),
		bind(500, "/", "/run/systemd/unit-root"),
		chroot(500, "/run/systemd/unit-root/srv"),
		hp(500, P, "/etc/under"),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/etc/cwd-was-root", "B", "produced")
	wantEffects(t, res, "/etc/daemon.conf", "B", "consumed")
	wantEffects(t, res, "/etc/unseen", "B", "")
	wantEffects(t, res, "/etc/jailed", "B", "")
	wantEffects(t, res, "/etc/under", "B", "")
	if res.Stats.RootBinds != 1 {
		t.Errorf("root binds %d, want 1", res.Stats.RootBinds)
	}
	if res.Stats.UnplacedChanges != 3 {
		t.Errorf("unplaced changes %d, want 3 (/etc/unseen, /etc/jailed, /etc/under)", res.Stats.UnplacedChanges)
	}
}

// TestUnplacedChangesOnlyInBlocks: an unknown directory fd (received over a
// socket, inherited) makes a change inside a block unplaced, whatever the
// call (create, rename, link, symlink); outside blocks it is only counted
// as unresolved.
func TestUnplacedChangesOnlyInBlocks(t *testing.T) {
	renameAt := func(pid, dir int32, old, nu string) fstrace.Statement {
		return ev(fstrace.Statement{Op: fstrace.OpRename, Pid: pid, Dir: dir, Path: old, Dir2: fstrace.AtFdcwd, Path2: nu, Syscall: "renameat"})
	}
	_, res := run(
		hpAt(puppet, 7, "before", P),
		renameAt(puppet, 7, "a", "/tmp/b"),
		begin(puppet, "B"),
		hpAt(puppet, 7, "x", C),
		hpAt(puppet, 7, "x", P),
		renameAt(puppet, 7, "a", "/tmp/b"),
		ev(fstrace.Statement{Op: fstrace.OpLink, Pid: puppet, Dir: fstrace.AtFdcwd, Path: "/tmp/c", Dir2: 7, Path2: "d", Syscall: "linkat"}),
		ev(fstrace.Statement{Op: fstrace.OpSymlink, Pid: puppet, Path: "/tmp/c", Dir2: 7, Path2: "e", Syscall: "symlinkat"}),
		end(puppet, "B"),
	)
	if res.Stats.UnplacedChanges != 4 || res.Stats.FirstUnplacedChange.Path != "x" {
		t.Errorf("unplaced changes %d (first %+v), want 4 (first x)", res.Stats.UnplacedChanges, res.Stats.FirstUnplacedChange)
	}
}

// TestUnplacedChangesNotThroughPreExistingFds: a change through an unknown
// fd of a process the trace never showed being made (journald, started
// at boot, growing its journal with ftruncate while a block is open) is
// only unresolved; the same from a process made in the trace is unplaced,
// and so is a path the provisional process cannot place for another reason.
func TestUnplacedChangesNotThroughPreExistingFds(t *testing.T) {
	const journald = 26
	const journaldProcs = "/sys/fs/cgroup/unified/docker/abc/system.slice/systemd-journald.service/cgroup.procs"
	_, res := run(
		open(puppet, "/srv/jail/etc", 3),
		open(journald, journaldProcs, 30), // journald acts for its unit (eBPF: its cgroup)
		writePid(journald, 30, journald),
		begin(puppet, "B"),
		hpAt(journald, 19, "", P), // ftruncate(19): an fd from before the trace
		hpAt(journald, 19, "x", P),
		newProc(puppet, 200, 0),
		hpAt(200, 19, "", P), // made in the trace: unplaced
		chroot(journald, "/srv/jail"),
		hp(journald, P, "etc/y"), // after a chroot: unplaced
		end(puppet, "B"),
	)
	if res.Stats.UnplacedChanges != 2 || res.Stats.FirstUnplacedChange.Pid != 200 {
		t.Errorf("unplaced changes %d (first %+v), want 2 (first by pid 200)", res.Stats.UnplacedChanges, res.Stats.FirstUnplacedChange)
	}
}

// TestForeignFdChangeUnplaced: pidfd_getfd's fd is another process's file,
// which the lowering leaves unknown (delfd): a change through it inside a
// block is unplaced. Made anonymous instead (a pipe's newfd), the same
// change would pass unseen.
func TestForeignFdChangeUnplaced(t *testing.T) {
	for _, tc := range []struct {
		name   string
		getfd  fstrace.Statement
		wantUn int64
	}{
		{"unknown", ev(fstrace.Statement{Op: fstrace.OpDelFd, Pid: 200, Fd: 9, Fd2: 9, Syscall: "pidfd_getfd"}), 1},
		{"anonymous", ev(fstrace.Statement{Op: fstrace.OpNewFd, Pid: 200, Fd: 9, Flags: fstrace.FdAnon, Syscall: "pidfd_getfd"}), 0},
	} {
		_, res := run(
			begin(puppet, "B"),
			newProc(puppet, 200, 0),
			tc.getfd,
			hpAt(200, 9, "", P), // ftruncate(9)
			end(puppet, "B"),
		)
		if res.Stats.UnplacedChanges != tc.wantUn {
			t.Errorf("%s fd: %d unplaced changes, want %d", tc.name, res.Stats.UnplacedChanges, tc.wantUn)
		}
	}
}
