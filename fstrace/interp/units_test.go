package interp

import (
	"fmt"
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

func writePid(pid, fd, child int32) fstrace.Statement {
	return ev(fstrace.Statement{Op: fstrace.OpWritePid, Pid: pid, Fd: fd, Child: child, Syscall: "write"})
}

const unitProcs = "/sys/fs/cgroup/unified/docker/abc/system.slice/demo.service/cgroup.procs"

// systemd (pid 1) forks a service process during Service[demo]'s block and
// both move it into demo.service's cgroup; long after the block, the
// daemon reads its config and forks a helper: all of it is the unit's.
func TestServiceProcessActsForItsUnit(t *testing.T) {
	_, res := run(
		begin(puppet, "Service[demo]"),
		hp(1, C, "/etc/systemd/system/demo.service"),
		newProc(1, 86, 0),
		open(1, unitProcs, 25),
		writePid(1, 25, 86),
		open(86, unitProcs, 3),
		writePid(86, 3, 86),
		end(puppet, "Service[demo]"),
		begin(puppet, "File[/etc/other]"),
		hp(puppet, P, "/etc/other"),
		hp(86, C, "/etc/demo.conf"),
		newProc(86, 87, 0),
		hp(87, C, "/etc/demo.d/x"),
		end(puppet, "File[/etc/other]"),
	)
	wantEffects(t, res, "/etc/demo.conf", UnitBlock("demo.service"), "consumed")
	wantEffects(t, res, "/etc/demo.d/x", UnitBlock("demo.service"), "consumed")
	wantEffects(t, res, "/etc/demo.conf", "File[/etc/other]", "")
	// init's own work is no block's, even inside one; but a unit file
	// it reads is its unit's.
	wantEffects(t, res, "/etc/systemd/system/demo.service", UnitBlock("demo.service"), "consumed")
	wantEffects(t, res, "/etc/systemd/system/demo.service", "Service[demo]", "")
	if res.Stats.UnitMoves != 1 {
		t.Errorf("UnitMoves = %d, want 1 (two writes, one move)", res.Stats.UnitMoves)
	}
	if res.Stats.UnknownPids != 0 {
		t.Errorf("UnknownPids = %d: pid 1 and its children are not unknown", res.Stats.UnknownPids)
	}
}

// Near misses: a pid file holds a pid but moves nothing; a scope (init's)
// is no Service's; a cgroup.procs outside /sys/fs/cgroup is an ordinary
// file; a controller's root cgroup is not a unit.
func TestWritePidNearMisses(t *testing.T) {
	_, res := run(
		begin(puppet, "Exec[start]"),
		newProc(puppet, 200, 0),
		open(200, "/run/demo.pid", 3),
		writePid(200, 3, 200),
		open(200, "/tmp/x.service/cgroup.procs", 4),
		writePid(200, 4, 200),
		open(200, "/sys/fs/cgroup/cpu/docker/abc/cgroup.procs", 5),
		writePid(200, 5, 200),
		hp(200, C, "/etc/a"),
		open(200, "/sys/fs/cgroup/systemd/docker/abc/init.scope/cgroup.procs", 6),
		writePid(200, 6, 0),
		hp(200, C, "/etc/b"),
		end(puppet, "Exec[start]"),
	)
	wantEffects(t, res, "/etc/a", "Exec[start]", "consumed")
	if pa := findPath(res, "/etc/b"); pa != nil {
		t.Errorf("a process moved into init.scope still acts for a block: %v", pa.Accesses)
	}
	for _, b := range res.Blocks {
		if _, ok := BlockUnit(b); ok {
			t.Errorf("unit block %q made by a near miss", b)
		}
	}
}

// What systemd reads for a unit is the unit's: its drop-ins by name, and
// the files it reads just before it starts the unit's process (its
// EnvironmentFile=), which the child takes along into the unit's cgroup.
// Near misses: what init only looked up, what it read before starting a
// process that never joined a unit, and a cgroup directory named after a
// unit.
func TestInitReadsForUnits(t *testing.T) {
	probe := hp(1, C, "/etc/default/probed")
	probe.Flags = fstrace.Probe
	_, res := run(
		begin(puppet, "Service[demo]"),
		hp(1, C, "/etc/systemd/system/demo.service.d/override.conf"),
		hp(1, C, "/etc/default/helper"),
		newProc(1, 85, 0),
		execve(85),
		hp(85, C, "/etc/helper.conf"),
		hp(1, C, "/etc/default/demo"),
		probe,
		newProc(1, 86, 0),
		open(86, unitProcs, 3),
		writePid(86, 3, 0),
		mkdir(1, "/sys/fs/cgroup/unified/x/other.service"),
		hp(1, C, "/sys/fs/cgroup/unified/x/other.service"),
		end(puppet, "Service[demo]"),
	)
	wantEffects(t, res, "/etc/systemd/system/demo.service.d/override.conf", UnitBlock("demo.service"), "consumed")
	wantEffects(t, res, "/etc/default/demo", UnitBlock("demo.service"), "consumed")
	for _, p := range []string{"/etc/default/helper", "/etc/default/probed", "/etc/helper.conf", "/sys/fs/cgroup/unified/x/other.service"} {
		if pa := findPath(res, p); pa != nil {
			t.Errorf("%s charged to %v", p, pa.Accesses)
		}
	}
	if res.Stats.UnitReads != 2 {
		t.Errorf("UnitReads = %d, want 2", res.Stats.UnitReads)
	}
	// Both are init's reads, in evidence too.
	for _, p := range []string{"/etc/systemd/system/demo.service.d/override.conf", "/etc/default/demo"} {
		if a := access(res, p, UnitBlock("demo.service")); a == nil || a.ConsumedBy.Program() != initProgram {
			t.Errorf("%s: evidence not PID 1's: %+v", p, a)
		}
	}
}

// The child's move into its unit can come before init's clone returns (an
// eBPF trace orders calls by their end): the child still acts for the
// unit, and what init read just before is the unit's.
func TestChildJoinsUnitBeforeCloneReturns(t *testing.T) {
	_, res := run(
		begin(puppet, "Service[demo]"),
		hp(1, C, "/etc/default/demo"),
		open(86, unitProcs, 3),
		writePid(86, 3, 0),
		newProc(1, 86, 0),
		hp(86, C, "/etc/demo.conf"),
		end(puppet, "Service[demo]"),
	)
	wantEffects(t, res, "/etc/default/demo", UnitBlock("demo.service"), "consumed")
	wantEffects(t, res, "/etc/demo.conf", UnitBlock("demo.service"), "consumed")
}

// systemd 256 and later (Debian 13's 257) start a unit's process as
// systemd-executor: init reads the EnvironmentFile=, clones, the child
// execs the executor, which loads its libraries and only then writes its
// pid to the unit's cgroup.procs. The EnvironmentFile= is still the
// unit's; what the executor itself reads is the unit's as well, after the
// move. Near miss: a child of init that execs and never joins a unit.
func TestInitReadsForExecutorUnits(t *testing.T) {
	_, res := run(
		begin(puppet, "Service[demo]"),
		hp(1, C, "/etc/default/helper"),
		newProc(1, 85, 0),
		execve(85),
		hp(85, C, "/etc/helper.conf"),
		hp(1, C, "/etc/default/demo"),
		newProc(1, 86, 0),
		execve(86),
		hp(86, C, "/usr/lib/x86_64-linux-gnu/systemd/libsystemd-core-257.so"),
		open(86, unitProcs, 3),
		writePid(86, 3, 0),
		hp(86, C, "/etc/demo.conf"),
		end(puppet, "Service[demo]"),
	)
	wantEffects(t, res, "/etc/default/demo", UnitBlock("demo.service"), "consumed")
	wantEffects(t, res, "/etc/demo.conf", UnitBlock("demo.service"), "consumed")
	for _, p := range []string{"/etc/default/helper", "/etc/helper.conf", "/usr/lib/x86_64-linux-gnu/systemd/libsystemd-core-257.so"} {
		if pa := findPath(res, p); pa != nil {
			t.Errorf("%s charged to %v", p, pa.Accesses)
		}
	}
}

// init reads far more than maxPending files between two starts (a
// reload): the ones just before the start are kept.
func TestInitKeepsItsLastReads(t *testing.T) {
	stmts := []fstrace.Statement{begin(puppet, "Service[demo]")}
	for i := range 3 * maxPending {
		stmts = append(stmts, hp(1, C, fmt.Sprintf("/etc/reload/%d", i)))
	}
	stmts = append(stmts, hp(1, C, "/etc/default/demo"), newProc(1, 86, 0), open(86, unitProcs, 3), writePid(86, 3, 0), end(puppet, "Service[demo]"))
	_, res := run(stmts...)
	wantEffects(t, res, "/etc/default/demo", UnitBlock("demo.service"), "consumed")
	if pa := findPath(res, "/etc/reload/0"); pa != nil {
		t.Errorf("an old read was charged: %v", pa.Accesses)
	}
	// What init read before it wrote its own state for the start is not
	// the unit's.
	_, res = run(begin(puppet, "Service[demo]"), hp(1, C, "/etc/systemd/journald.conf"), mkdir(1, "/run/systemd/units/x"),
		hp(1, C, "/etc/default/demo"), newProc(1, 86, 0), open(86, unitProcs, 3), writePid(86, 3, 0), end(puppet, "Service[demo]"))
	wantEffects(t, res, "/etc/default/demo", UnitBlock("demo.service"), "consumed")
	if pa := findPath(res, "/etc/systemd/journald.conf"); pa != nil {
		t.Errorf("a read before init's own write was charged: %v", pa.Accesses)
	}
}

// A Service may manage a timer, a socket or a path unit: systemd's reads
// of those unit files and their drop-ins are the unit's, as a service's
// are. Near misses: a file named like a unit type without a stem, a
// scope (no unit file), a directory of wants links.
func TestInitReadsForUnitsOfEveryType(t *testing.T) {
	_, res := run(
		begin(puppet, "Service[tick.timer]"),
		hp(1, C, "/etc/systemd/system/tick.timer"),
		hp(1, C, "/etc/systemd/system/tick.timer.d/override.conf"),
		hp(1, C, "/etc/systemd/system/listen.socket"),
		hp(1, C, "/etc/systemd/system/.timer"),
		hp(1, C, "/etc/systemd/system/session-1.scope"),
		hp(1, C, "/etc/systemd/system/timers.target.wants"),
		end(puppet, "Service[tick.timer]"),
	)
	wantEffects(t, res, "/etc/systemd/system/tick.timer", UnitBlock("tick.timer"), "consumed")
	wantEffects(t, res, "/etc/systemd/system/tick.timer.d/override.conf", UnitBlock("tick.timer"), "consumed")
	wantEffects(t, res, "/etc/systemd/system/listen.socket", UnitBlock("listen.socket"), "consumed")
	for _, p := range []string{"/etc/systemd/system/.timer", "/etc/systemd/system/session-1.scope", "/etc/systemd/system/timers.target.wants"} {
		if pa := findPath(res, p); pa != nil {
			t.Errorf("%s charged to %v", p, pa.Accesses)
		}
	}
	if res.Stats.UnitReads != 3 {
		t.Errorf("UnitReads = %d, want 3", res.Stats.UnitReads)
	}
}

func TestBlockUnitRoundTrip(t *testing.T) {
	if u, ok := BlockUnit(UnitBlock("foo.service")); !ok || u != "foo.service" {
		t.Errorf("BlockUnit(UnitBlock) = %q, %v", u, ok)
	}
	for _, b := range []string{"Service[foo]", "Unit[foo", "File[Unit[x]]"} {
		if _, ok := BlockUnit(b); ok {
			t.Errorf("BlockUnit(%q) = ok", b)
		}
	}
}

// A daemon of a unit vforks a helper that reads the unit's configuration
// before the vfork returns in the trace (eBPF writes a call at its end),
// while Puppet evaluates another resource: the helper, and the process it
// made meanwhile, act for the unit, not for the open block. Near miss: a
// process whose creator acts for the open block. (A process the trace
// never shows being made acts for no block here, init being traced:
// TestBootDaemonActsForNone.)
func TestHeldUntilCreationSeen(t *testing.T) {
	stmts := []fstrace.Statement{
		begin(puppet, "Service[demo]"),
		newProc(1, 86, 0),
		open(86, unitProcs, 3),
		writePid(86, 3, 86),
		end(puppet, "Service[demo]"),
		begin(puppet, "File[/etc/other]"),
		hp(131, C, "/etc/demo.conf"), // 131: seen before its creation
		newProc(131, 132, 0),         // made by it meanwhile
		hp(132, C, "/etc/demo.d/x"),
		hp(131, P, "/var/lib/demo/state"),
		hp(86, C, "/etc/demo.conf"),      // the daemon itself, later
		hp(300, C, "/etc/never-created"), // 300: never created in the trace
		newProc(86, 131, 0),              // the daemon's vfork returns
		hp(131, C, "/etc/demo.d/y"),      // after: acts for the unit too
		hp(puppet, P, "/etc/other"),
		begin(puppet, "Exec[run]"),
		hp(400, C, "/etc/run.conf"), // 400: seen before its creation
		newProc(puppet, 400, 0),     // by Puppet, in Exec[run]
		end(puppet, "Exec[run]"),
	}
	heldRead := stmts[6].Line // 131's read of /etc/demo.conf
	_, res := run(stmts...)
	unit := UnitBlock("demo.service")
	for _, p := range []string{"/etc/demo.conf", "/etc/demo.d/x", "/etc/demo.d/y"} {
		wantEffects(t, res, p, unit, "consumed")
		wantEffects(t, res, p, "File[/etc/other]", "")
	}
	wantEffects(t, res, "/var/lib/demo/state", unit, "produced")
	wantEffects(t, res, "/etc/never-created", "File[/etc/other]", "")
	wantEffects(t, res, "/etc/run.conf", "Exec[run]", "consumed")
	if res.Stats.HeldAccesses != 6 || res.Stats.BootAccesses != 1 {
		t.Errorf("HeldAccesses = %d, BootAccesses = %d, want 6 and 1", res.Stats.HeldAccesses, res.Stats.BootAccesses)
	}
	// The evidence of an effect is its first, though the held access is
	// charged after the daemon's own later read.
	pa := findPath(res, "/etc/demo.conf")
	for _, a := range pa.Accesses {
		if res.Blocks[a.Block] == unit && a.ConsumedBy.Line != heldRead {
			t.Errorf("/etc/demo.conf first consumed at line %d, want %d (the held read, before the daemon's)", a.ConsumedBy.Line, heldRead)
		}
	}
}

// TestBootDaemonActsForNone: in a container booted with systemd, journald
// runs before the trace begins. It makes a stream's file when a unit's
// process connects to it and removes the file when the process exits; on
// a busy machine the removal comes in the next resource's block. In a
// trace that follows init, a process never created in it is such a daemon
// of the boot and acts for no block: no relation between the two
// Services. Near miss: the same calls in a trace without init (a tracer
// attached to a running program) go, as ever, to the blocks open then.
func TestBootDaemonActsForNone(t *testing.T) {
	const journald int32 = 65
	const stream = "/run/systemd/journal/streams/9:5345704"
	calls := func(withInit bool) []fstrace.Statement {
		var stmts []fstrace.Statement
		if withInit {
			stmts = append(stmts, newProc(1, 86, 0))
		}
		return append(stmts,
			begin(puppet, "Service[a]"),
			hp(journald, P, stream),
			end(puppet, "Service[a]"),
			begin(puppet, "Service[b]"),
			hp(journald, E, stream),
			hp(puppet, C, "/etc/b.conf"),
			end(puppet, "Service[b]"),
		)
	}
	_, res := run(calls(true)...)
	wantEffects(t, res, stream, "Service[a]", "")
	wantEffects(t, res, stream, "Service[b]", "")
	wantEffects(t, res, "/etc/b.conf", "Service[b]", "consumed")
	if st := res.Stats; st.BootAccesses == 0 || st.BootAccesses != st.HeldAccesses {
		t.Errorf("with init: BootAccesses = %d, want all %d held, journald's", st.BootAccesses, st.HeldAccesses)
	}

	_, res = run(calls(false)...)
	wantEffects(t, res, stream, "Service[a]", "produced")
	wantEffects(t, res, stream, "Service[b]", "expunged")
	if res.Stats.BootAccesses != 0 {
		t.Errorf("without init: BootAccesses = %d, want 0", res.Stats.BootAccesses)
	}
}

// TestEvidenceProgram: an access's evidence names the program its process
// ran, from its exec in the trace: a child runs its parent's until it
// execs itself, the exec's own read is the caller's, a held access keeps
// the program of its time, and init's reads for a unit are "PID 1"'s.
func TestEvidenceProgram(t *testing.T) {
	runs := func(pid int32, path string) []fstrace.Statement {
		return []fstrace.Statement{
			ev(fstrace.Statement{Op: fstrace.OpHpath, Pid: pid, Dir: fstrace.AtFdcwd, Path: path,
				Effect: fstrace.Consumed, Flags: fstrace.Runs, Syscall: "execve"}),
			execve(pid),
		}
	}
	stmts := []fstrace.Statement{begin(puppet, "Exec[a]"), hp(puppet, P, "/etc/by-puppet")}
	stmts = append(stmts, runs(puppet, "/bin/sh")...)
	stmts = append(stmts, newProc(puppet, 201, 0), hp(201, C, "/etc/by-child"))
	stmts = append(stmts, runs(201, "/usr/bin/cat")...)
	stmts = append(stmts, hp(201, C, "/etc/by-cat"),
		hp(202, C, "/etc/held"), // seen before its creation
		newProc(201, 202, 0),
		end(puppet, "Exec[a]"))
	_, res := run(stmts...)
	for path, want := range map[string]string{
		"/etc/by-puppet": "",        // no exec of it in the trace
		"/bin/sh":        "",        // the exec's own read: the caller's
		"/etc/by-child":  "/bin/sh", // the parent's program
		"/usr/bin/cat":   "/bin/sh",
		"/etc/by-cat":    "/usr/bin/cat",
		"/etc/held":      "", // 202 ran nothing before its creation was seen
	} {
		a := access(res, path, "Exec[a]")
		if a == nil {
			t.Errorf("%s: no access", path)
			continue
		}
		ev := a.ConsumedBy
		if a.Produced {
			ev = a.ProducedBy
		}
		if got := ev.Program(); got != want {
			t.Errorf("%s: program %q, want %q", path, got, want)
		}
	}
	if got := NewEvidenceBy("openat", 3, "/usr/sbin/cron").Program(); got != "/usr/sbin/cron" {
		t.Errorf("NewEvidenceBy: %q", got)
	}
}

// TestReadOnlyBy: an access knows the programs that consumed the path, up
// to two, so that a fact about those programs (a program model) can be
// all the block did with it.
func TestReadOnlyBy(t *testing.T) {
	exec := func(pid int32, path string) []fstrace.Statement {
		return []fstrace.Statement{runs(pid, path), execve(pid)}
	}
	apt := func(prog string) bool { return prog == "/usr/bin/apt-get" || prog == "/usr/bin/apt-mark" }
	stmts := []fstrace.Statement{begin(puppet, "Package[a]")}
	stmts = append(stmts, newProc(puppet, 301, 0))
	stmts = append(stmts, exec(301, "/usr/bin/apt-mark")...)
	stmts = append(stmts, hp(301, C, "/etc/apt/one"), hp(301, C, "/etc/apt/two"), hp(301, C, "/etc/apt/three"), hp(301, C, "/etc/apt/four"))
	stmts = append(stmts, newProc(puppet, 302, 0))
	stmts = append(stmts, exec(302, "/usr/bin/apt-get")...)
	stmts = append(stmts, hp(302, C, "/etc/apt/one"), hp(302, C, "/etc/apt/two"), hp(302, C, "/etc/apt/three"))
	stmts = append(stmts, newProc(puppet, 303, 0))
	stmts = append(stmts, exec(303, "/usr/bin/cat")...)
	stmts = append(stmts, hp(303, C, "/etc/apt/two"), hp(303, C, "/etc/apt/three"))
	stmts = append(stmts, hp(puppet, C, "/etc/apt/three"), end(puppet, "Package[a]"))
	_, res := run(stmts...)
	for path, want := range map[string]bool{
		"/etc/apt/four":  true,  // apt-mark alone
		"/etc/apt/one":   true,  // apt-mark and apt-get
		"/etc/apt/two":   false, // and cat
		"/etc/apt/three": false, // and cat, and Puppet (no exec in the trace)
	} {
		a := access(res, path, "Package[a]")
		if a == nil {
			t.Fatalf("%s: no access", path)
		}
		if got := a.ReadOnlyBy(apt); got != want {
			t.Errorf("%s: ReadOnlyBy = %v, want %v", path, got, want)
		}
	}
	if a := access(res, "/etc/apt/one", "Package[a]"); a.ReadOnlyBy(func(p string) bool { return p == "/usr/bin/apt-mark" }) {
		t.Error("/etc/apt/one: read by apt-get too, but ReadOnlyBy(apt-mark) is true")
	}
}
