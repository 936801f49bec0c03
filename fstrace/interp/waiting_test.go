package interp

import (
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

// A thread that strace shows before its creator's clone3 returns opens a
// file by a relative name: it is the file in the creator's cwd, not in
// "/". (tracer/ptrace's TestProcessesMatchStrace met this when the thread
// ran on the other CPU.)
func TestWaitingThreadResolvesFromCreatorsCwd(t *testing.T) {
	const thread = 101
	flags := fstrace.ShareFiles | fstrace.ShareFS | fstrace.ShareThread
	_, res := run(
		chdir(puppet, "/srv/app"),
		begin(puppet, "Exec[build]"),
		hp(thread, P, "thread-made"),
		hp(thread, C, "/etc/hosts"), // absolute, but after a wait: it keeps its place
		newProc(puppet, thread, flags),
		hp(puppet, C, "thread-made"),
		end(puppet, "Exec[build]"),
	)
	wantEffects(t, res, "/srv/app/thread-made", "Exec[build]", "consumed+produced")
	wantEffects(t, res, "/etc/hosts", "Exec[build]", "consumed")
	if p := findPath(res, "/thread-made"); p != nil {
		t.Errorf("a path made up from /: %+v", p)
	}
	if s := res.Stats; s.WaitedStatements != 2 || s.CwdGuesses != 0 || s.UnknownPids != 0 {
		t.Errorf("stats: waited %d, guesses %d, unknown pids %d; want 2, 0, 0", s.WaitedStatements, s.CwdGuesses, s.UnknownPids)
	}
}

// A forked child that ran its whole life (a relative chdir, a file made,
// its exit) before its parent's fork returned: its chdir starts from the
// parent's cwd and changes only its own, and its exit comes after.
func TestWaitingChildKeepsItsOrderAndExits(t *testing.T) {
	const child = 200
	_, res := run(
		chdir(puppet, "/srv"),
		begin(puppet, "Exec[x]"),
		chdir(child, "sub"),
		hp(child, P, "out"),
		exit(child),
		newProc(puppet, child, 0),
		hp(puppet, C, "rel"),
		end(puppet, "Exec[x]"),
	)
	wantEffects(t, res, "/srv/sub/out", "Exec[x]", "produced")
	wantEffects(t, res, "/srv/rel", "Exec[x]", "consumed")
	if len(res.Paths) != 3 { // /srv/sub (the chdir), /srv/sub/out, /srv/rel
		t.Errorf("paths %v", pathNames(res))
	}
}

// Near miss: a child that set its cwd itself (an absolute chdir) before
// its creation was seen does not wait; nor does one that names only
// absolute paths.
func TestNoWaitWhenTheCwdIsKnown(t *testing.T) {
	_, res := run(
		chdir(puppet, "/srv"),
		begin(puppet, "B"),
		chdir(200, "/opt"),
		hp(200, C, "own"),
		hp(201, C, "/etc/abs"),
		newProc(puppet, 200, 0),
		newProc(puppet, 201, 0),
		end(puppet, "B"),
	)
	wantEffects(t, res, "/opt/own", "B", "consumed")
	wantEffects(t, res, "/etc/abs", "B", "consumed")
	if res.Stats.WaitedStatements != 0 {
		t.Errorf("WaitedStatements = %d, want 0", res.Stats.WaitedStatements)
	}
}

// A process never created in the trace (running when it began) waits at
// most maxWait statements: then its paths resolve from "/" as before, for
// the block open when the trace showed them, and it is counted.
func TestWaitEndsWithoutCreation(t *testing.T) {
	stmts := []fstrace.Statement{
		begin(puppet, "A"),
		hp(300, C, "rel"),
		end(puppet, "A"),
		begin(puppet, "B"),
	}
	for range maxWait + 1 {
		stmts = append(stmts, hp(puppet, C, "/etc/hosts"))
	}
	stmts = append(stmts, hp(300, C, "later"), end(puppet, "B"))
	_, res := run(stmts...)
	wantEffects(t, res, "/rel", "A", "consumed")
	wantEffects(t, res, "/later", "B", "consumed")
	if s := res.Stats; s.CwdGuesses != 1 || s.WaitedStatements != 1 {
		t.Errorf("guesses %d, waited %d; want 1, 1", s.CwdGuesses, s.WaitedStatements)
	}
}
