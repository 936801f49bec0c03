package interp

import (
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

// runs is the Hpath an exec makes of its program (the lowering's).
func runs(pid int32, path string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpHpath, Pid: pid, Dir: fstrace.AtFdcwd, Path: path,
		Effect: fstrace.Consumed, Flags: fstrace.Runs, Syscall: "execve"})
}

// dpkg installs rsync within Package[ftpsync]'s block (a dependency): it
// writes rsync's file list, then runs rsync.postinst, whose update-rc.d
// child makes the rc links. What the script's processes make is rsync's.
func TestMaintainerScriptMakesItsPackages(t *testing.T) {
	_, res := run(
		begin(puppet, "Package[ftpsync]"),
		newProc(puppet, 300, 0), // dpkg
		hp(300, P, "/var/lib/dpkg/info/rsync.list"),
		hp(300, P, "/var/lib/dpkg/info/ftpsync.list"),
		newProc(300, 301, 0),
		runs(301, "/var/lib/dpkg/info/rsync.postinst"),
		execve(301),
		newProc(301, 302, 0),
		runs(302, "/usr/sbin/update-rc.d"),
		execve(302),
		symlink(302, "../init.d/rsync", "/etc/rc2.d/S01rsync"),
		// made by dpkg and by the script, in either order: not only the
		// script's
		hp(300, P, "/etc/rsyncd.conf"),
		hp(302, P, "/etc/rsyncd.conf"),
		hp(302, P, "/etc/default/rsync"),
		hp(300, P, "/etc/default/rsync"),
		// a script of a package whose list this block did not write: a
		// trigger's run for an earlier install
		newProc(300, 303, 0),
		runs(303, "/var/lib/dpkg/info/man-db.postinst"),
		execve(303),
		hp(303, P, "/var/cache/man/index.db"),
		// a script of that name outside dpkg's info directory
		hp(300, P, "/tmp/info/ftpsync.list"),
		newProc(300, 304, 0),
		runs(304, "/tmp/info/ftpsync.postinst"),
		execve(304),
		hp(304, P, "/etc/ftpsync.conf"),
		// dpkg's own work
		hp(300, P, "/usr/bin/ftpsync"),
		end(puppet, "Package[ftpsync]"),
		begin(puppet, "Exec[later]"),
		hp(puppet, P, "/etc/rc3.d/S01rsync"),
		end(puppet, "Exec[later]"),
	)
	for _, c := range []struct{ path, block, want string }{
		{"/etc/rc2.d/S01rsync", "Package[ftpsync]", "rsync"},
		{"/etc/rsyncd.conf", "Package[ftpsync]", ""},
		{"/etc/default/rsync", "Package[ftpsync]", ""},
		{"/var/cache/man/index.db", "Package[ftpsync]", ""},
		{"/etc/ftpsync.conf", "Package[ftpsync]", ""},
		{"/usr/bin/ftpsync", "Package[ftpsync]", ""},
		{"/etc/rc3.d/S01rsync", "Exec[later]", ""},
	} {
		a := access(res, c.path, c.block)
		if a == nil {
			t.Errorf("%s: no access of %s", c.path, c.block)
			continue
		}
		if got := a.Script(); got != c.want {
			t.Errorf("%s by %s: Script() = %q, want %q", c.path, c.block, got, c.want)
		}
	}
}
