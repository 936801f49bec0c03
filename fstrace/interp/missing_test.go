package interp

import (
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

// M is a failed lookup (ENOENT, ENOTDIR).
const M = fstrace.Missing

// failBlock is the program's report that block failed.
func failBlock(pid int32, block, msg string) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpFail, Pid: pid, Block: block, Path: msg, Syscall: "write"})
}

// A failed lookup records Missing for the block without creating the
// path, or its missing directories, in the model.
func TestMissingRecordedWithoutCreatingThePath(t *testing.T) {
	in, res := run(
		begin(puppet, "Exec[use]"),
		hp(puppet, M, "/usr/local/bin/made-later"),
		hpsym(puppet, M, "/opt/app/etc/app.conf"), // /opt/app does not exist either
		end(puppet, "Exec[use]"),
	)
	wantEffects(t, res, "/usr/local/bin/made-later", "Exec[use]", "missing")
	wantEffects(t, res, "/opt/app/etc/app.conf", "Exec[use]", "missing")
	for _, p := range []string{"/usr", "/usr/local", "/usr/local/bin", "/opt", "/opt/app"} {
		if findPath(res, p) != nil {
			t.Errorf("%s has accesses: a failed lookup charges only its own path", p)
		}
	}
	if len(in.m.entries) != 1 || len(in.m.inodes) != int(rootInode)+1 {
		t.Errorf("the model grew: %d entries, %d inodes", len(in.m.entries), len(in.m.inodes))
	}
	a := access(res, "/usr/local/bin/made-later", "Exec[use]")
	if a == nil || !a.Has(M) || a.By(M).Line == 0 || a.MissingBy.Syscall() != "test" || a.Consumed || a.Produced || a.Expunged {
		t.Errorf("access %+v", a)
	}
	if res.Stats.MissingLookups != 2 || res.Stats.UnresolvedPaths != 0 {
		t.Errorf("stats %+v", res.Stats)
	}
}

// A later successful call of the same path resolves as if the failed lookup
// had not happened: the path is created by whoever creates it, and a
// directory of a missing path is not presumed to be one.
func TestMissingThenCreatedLater(t *testing.T) {
	_, res := run(
		begin(puppet, "Exec[use]"),
		hp(puppet, M, "/usr/local/bin/x"),
		hp(puppet, M, "/srv/f/g"), // /srv/f is a file below: the model must not make it a directory
		end(puppet, "Exec[use]"),
		begin(puppet, "File[/usr/local/bin/x]"),
		hp(puppet, P, "/usr/local/bin/x"),
		hp(puppet, P, "/srv/f"),
		end(puppet, "File[/usr/local/bin/x]"),
		begin(puppet, "Exec[again]"),
		hp(puppet, C, "/usr/local/bin/x"),
		hp(puppet, M, "/usr/local/bin/x/y"), // ENOTDIR: x is a file
		end(puppet, "Exec[again]"),
	)
	wantEffects(t, res, "/usr/local/bin/x", "Exec[use]", "missing")
	wantEffects(t, res, "/usr/local/bin/x", "File[/usr/local/bin/x]", "produced")
	wantEffects(t, res, "/usr/local/bin/x", "Exec[again]", "consumed")
	wantEffects(t, res, "/usr/local/bin/x/y", "Exec[again]", "missing")
	// Producing a new name consumes its directory (the model's rule): the
	// failed lookup before did not make the directory exist for Exec[use].
	wantEffects(t, res, "/usr/local/bin", "File[/usr/local/bin/x]", "consumed")
	wantEffects(t, res, "/usr/local/bin", "Exec[use]", "")
	if pa := findPath(res, "/srv/f"); pa == nil || pa.IsDir {
		t.Errorf("/srv/f: %+v", pa)
	}
}

// A path the block consumed and failed to find (a file removed by another
// process between the two) has both flags; a failed lookup outside every
// block is not recorded; evidence is the first failed lookup's.
func TestMissingUnionAndOutsideBlocks(t *testing.T) {
	_, res := run(
		hp(puppet, M, "/etc/startup"), // Puppet's start-up
		begin(puppet, "B"),
		hp(puppet, C, "/etc/x"),
		hp(puppet, M, "/etc/x"),
		hp(puppet, M, "/etc/x"),
		end(puppet, "B"),
	)
	if findPath(res, "/etc/startup") != nil {
		t.Error("a failed lookup outside blocks was recorded")
	}
	a := access(res, "/etc/x", "B")
	if a == nil || !a.Consumed || !a.Missing || a.MissingBy.Line != a.ConsumedBy.Line+1 {
		t.Errorf("access %+v", a)
	}
	if res.Stats.MissingLookups != 2 {
		t.Errorf("MissingLookups = %d", res.Stats.MissingLookups)
	}
}

// Relative paths resolve against the cwd or the dirfd; ".." after a missing
// component is lexical; symlinks the model knows are followed (a dangling
// link names its target) unless the call does not follow.
func TestMissingResolution(t *testing.T) {
	_, res := run(
		chdir(puppet, "/srv/app"),
		open(puppet, "/etc", 3),
		symlink(puppet, "/opt/real/bin", "/usr/local/bin"),
		symlink(puppet, "../conf.d/site", "/etc/apache2/sites/site"),
		begin(puppet, "B"),
		hp(puppet, M, "config/../x.yaml"),
		hpAt(puppet, 3, "missing/./y/../z", M),
		hp(puppet, M, "/usr/local/bin/tool"),        // through the symlinked directory
		hp(puppet, M, "/etc/apache2/sites/site"),    // dangling link, followed: its target
		hpsym(puppet, M, "/etc/apache2/sites/site"), // not followed: the link itself
		hp(puppet, M, "/a/../.."),
		end(puppet, "B"),
	)
	for _, p := range []string{"/srv/app/x.yaml", "/etc/missing/z", "/opt/real/bin/tool",
		"/etc/apache2/conf.d/site", "/etc/apache2/sites/site", "/"} {
		wantEffects(t, res, p, "B", "missing")
	}
	checkResult(t, res)
}

// A failed lookup through an unknown fd is counted, not recorded.
func TestMissingUnknownFd(t *testing.T) {
	_, res := run(
		begin(puppet, "B"),
		hpAt(puppet, 9, "x", M),
		end(puppet, "B"),
	)
	if len(res.Paths) != 0 || res.Stats.UnknownFds != 1 || res.Stats.UnresolvedPaths != 1 || res.Stats.MissingLookups != 0 {
		t.Errorf("paths %v, stats %+v", pathNames(res), res.Stats)
	}
}

// The temporary rule is unaffected: a path the block created and removed
// leaves no access, even if the block first failed to find it.
func TestMissingThenTemporary(t *testing.T) {
	_, res := run(
		begin(puppet, "B"),
		hp(puppet, M, "/tmp/lock"),
		hp(puppet, P, "/tmp/lock"),
		hp(puppet, E, "/tmp/lock"),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/tmp/lock", "B", "")
}

// A failed resource is recorded by name with its first message, whether
// its block is open, closed, or never began; Missing in a failed block is
// what the detector combines with it.
func TestFailures(t *testing.T) {
	_, res := run(
		begin(puppet, "Exec[use]"),
		hp(puppet, M, "/usr/local/bin/x"),
		failBlock(puppet, "Exec[use]", "Error: /Stage[main]/Main/Exec[use]/returns: change from 'notrun' to ['0'] failed: Could not find command '/usr/local/bin/x'"),
		failBlock(puppet, "Exec[use]", "Error: second"),
		end(puppet, "Exec[use]"),
		begin(puppet, "File[/usr/local/bin/x]"),
		hp(puppet, P, "/usr/local/bin/x"),
		end(puppet, "File[/usr/local/bin/x]"),
		failBlock(puppet, "Service[app]", "Error: /Stage[main]/Main/Service[app]: Failed to call refresh: boom"),
		begin(puppet, "Service[app]"),
		hp(puppet, C, "/usr/local/bin/x"),
		end(puppet, "Service[app]"),
	)
	if len(res.Failures) != 2 || res.Stats.FailedBlocks != 2 {
		t.Fatalf("failures %+v", res.Failures)
	}
	f := res.Failures[0]
	if res.Blocks[f.Block] != "Exec[use]" || f.Message[:7] != "Error: " || f.By.Syscall() != "write" || f.By.Line == 0 {
		t.Errorf("failure %+v", f)
	}
	if got := res.Failure(f.Block); got == nil || got.Message != f.Message {
		t.Errorf("Failure(%d) = %+v", f.Block, got)
	}
	svc := res.Failures[1].Block
	if res.Blocks[svc] != "Service[app]" {
		t.Errorf("second failure names %s", res.Blocks[svc])
	}
	// The block reported before it began keeps its id when it begins.
	wantEffects(t, res, "/usr/local/bin/x", "Service[app]", "consumed")
	wantEffects(t, res, "/usr/local/bin/x", "Exec[use]", "missing")
	if len(res.Blocks) != 3 || res.Stats.UnmatchedEnds != 0 {
		t.Errorf("blocks %v, stats %+v", res.Blocks, res.Stats)
	}
	for b := range res.Blocks {
		if res.Blocks[b] == "File[/usr/local/bin/x]" && res.Failure(BlockID(b)) != nil {
			t.Error("a block without a report failed")
		}
	}
}

// A failure report names its block without opening or closing it.
func TestFailureDoesNotTouchTheOpenBlock(t *testing.T) {
	_, res := run(
		begin(puppet, "A"),
		failBlock(puppet, "B", "Error: B"),
		hp(puppet, C, "/x"),
		end(puppet, "A"),
	)
	wantEffects(t, res, "/x", "A", "consumed")
	if res.Stats.UnmatchedEnds != 0 || res.Stats.UnclosedBlocks != 0 || len(res.Failures) != 1 {
		t.Errorf("stats %+v, failures %+v", res.Stats, res.Failures)
	}
}

// The cache of failed lookups of absolute paths follows the model: a
// symlink made, a directory renamed or removed later changes the path the
// same lookup names.
func TestMissingCacheFollowsTheModel(t *testing.T) {
	_, res := run(
		mkdir(puppet, "/x"),
		begin(puppet, "A"),
		hp(puppet, M, "/x/l/y"),
		end(puppet, "A"),
		symlink(puppet, "/z", "/x/l"),
		begin(puppet, "B"),
		hp(puppet, M, "/x/l/y"),    // through the new link: /z/y
		hpsym(puppet, M, "/x/l/y"), // not the final component: followed too
		hpsym(puppet, M, "/x/l"),   // the link itself
		hp(puppet, M, "/x/l"),      // its target
		end(puppet, "B"),
		rename(puppet, "/x", "/w", 0),
		mkdir(puppet, "/x"),
		begin(puppet, "C"),
		hp(puppet, M, "/x/l/y"), // /x is a new, empty directory
		hp(puppet, M, "/w/l/y"),
		end(puppet, "C"),
	)
	wantEffects(t, res, "/x/l/y", "A", "missing")
	wantEffects(t, res, "/z/y", "B", "missing")
	wantEffects(t, res, "/x/l", "B", "missing")
	wantEffects(t, res, "/z", "B", "missing")
	wantEffects(t, res, "/x/l/y", "C", "missing")
	wantEffects(t, res, "/z/y", "C", "missing")
	wantEffects(t, res, "/x/l/y", "B", "")
}
