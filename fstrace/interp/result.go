// Package interp interprets FStrace programs over the model of the paper
// (§3.3): inode table, per-process fd and cwd tables shared or copied by clone
// flags, process table, symlink table. It turns path-level statements into
// Accesses: which block did what to which absolute path.
package interp

import (
	"strings"
	"sync"

	"github.com/fsmove/fsmove/fstrace"
)

// BlockID indexes Result.Blocks: the interpreter numbers blocks for its
// fstrace.Attribution in the order it first meets their names. NoBlock is
// work done outside every block (a program's start-up): it belongs to no
// resource.
type BlockID = fstrace.Block

const NoBlock = fstrace.NoBlock

// Evidence is the statement that caused an effect: its system call and
// its position in the trace. The name is kept as an index into a table of
// the names seen (a few dozen): an Access holds five Evidences and there is
// one Access per block and path, so 16 bytes instead of 24 each is what
// keeps memory bounded on long traces.
type Evidence struct {
	Line int64
	name uint32 // index in syscallNames.list; 0 is ""
	prog uint32 // index in programNames.list; 0 is ""
}

// NewEvidence returns the evidence of a call named syscall at line.
func NewEvidence(syscall string, line int64) Evidence {
	return Evidence{Line: line, name: syscallNames.id(syscall)}
}

// NewEvidenceBy returns the evidence of a call named syscall at line, made
// by a process running program.
func NewEvidenceBy(syscall string, line int64, program string) Evidence {
	return Evidence{Line: line, name: syscallNames.id(syscall), prog: programNames.id(program)}
}

// Syscall is the name of the evidence's system call ("" when unknown).
func (e Evidence) Syscall() string { return syscallNames.name(e.name) }

// Program is the program the calling process ran, as its execve named it
// ("/usr/bin/mariadb", "/etc/mysql/debian-start"); "" when the trace does
// not show the process's exec (Puppet itself, a process of a trace begun
// mid-run). It says at once whether a daemon or a helper of its unit read
// a file, which the trace line alone, with its pid, does not.
func (e Evidence) Program() string { return programNames.name(e.prog) }

// syscallNames interns the names of evidences. Analyses may run in
// parallel (tests, bench), so it is locked; the interpreter asks it through
// a one-name cache (pathTable.evidence), since statements come in runs of
// one call.
var syscallNames = nameTable{ids: map[string]uint32{"": 0}, list: []string{""}}

// programNames interns the programs of evidences (Evidence.Program): few,
// and asked for once per exec.
var programNames = nameTable{ids: map[string]uint32{"": 0}, list: []string{""}}

type nameTable struct {
	mu   sync.RWMutex
	ids  map[string]uint32
	list []string
}

// maxSyscallNames bounds each table (a fuzzed program may name anything):
// later names read as "?".
const maxSyscallNames = 1 << 16

func (t *nameTable) id(name string) uint32 {
	t.mu.RLock()
	id, ok := t.ids[name]
	t.mu.RUnlock()
	if ok {
		return id
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.ids[name]; ok {
		return id
	}
	if len(t.list) >= maxSyscallNames {
		return t.overflow()
	}
	id = uint32(len(t.list))
	name = strings.Clone(name)
	t.list = append(t.list, name)
	t.ids[name] = id
	return id
}

// overflow is the id of "?", added once (t.mu held).
func (t *nameTable) overflow() uint32 {
	if id, ok := t.ids["?"]; ok {
		return id
	}
	t.list = append(t.list, "?")
	t.ids["?"] = uint32(len(t.list) - 1)
	return uint32(len(t.list) - 1)
}

func (t *nameTable) name(id uint32) string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if int(id) < len(t.list) {
		return t.list[id]
	}
	return ""
}

// Access is what one block did to one path: the union of its effects, with
// the first evidence of each. Temporaries (created then removed within the
// block) leave no Access, whatever else the block did to the path.
//
// Missing is not one of the paper's effects: the block looked the path up
// (to read, stat or execute it) and it was not there (ENOENT, ENOTDIR). An
// Access may hold Missing alone: a block that only failed to find the path.
type Access struct {
	Block    BlockID
	Produced bool
	Consumed bool
	Expunged bool
	Missing  bool
	// Replaced: some production replaced the content or made the name
	// (create, truncate, rename or link onto, mkdir), not only kept it (a
	// metadata change, an append); ReplacedBy is the first such.
	Replaced bool
	// What the effects were about (docs/DESIGN.md, "What changed"):
	// ContentProduced: some production changed more than metadata (its
	// content, its name: Produced without fstrace.Meta). ContentConsumed:
	// some consumption looked at more than metadata or existence (read,
	// listed, executed, an entry made in the directory: Consumed without
	// fstrace.Probe). Executed: the block executed the path. NoExec: a
	// mode change of the block left no execute bit; a later one that
	// gives them back does not clear it (the safe side: rule 12 then
	// holds nothing back).
	ContentProduced bool
	ContentConsumed bool
	Executed        bool
	NoExec          bool
	// EntryMade: the block made a name in the directory (created,
	// linked, renamed into it): it writes in the directory, not only reads
	// it. Removals are not counted.
	EntryMade bool
	// Listed: the block read the directory's entries (getdents): the
	// set of names in it then. ListedBy is the first listing, LastListedBy
	// the last.
	Listed       bool
	ListedBy     Evidence
	LastListedBy Evidence
	// reader2 is the program of the first consumption by another program
	// than ConsumedBy's (0 none); readersMore: a third program, or one
	// the trace does not name, consumed it too (ReadOnlyBy).
	reader2     uint32
	readersMore bool
	// script: the maintainer script whose processes made every production
	// (an id in scriptPackages; 0 none, mixedScripts more than one or
	// not only them). Script gives its package.
	script uint16
	// Evidence per effect, valid when the matching flag is set.
	ProducedBy Evidence
	ConsumedBy Evidence
	ExpungedBy Evidence
	MissingBy  Evidence
	ReplacedBy Evidence
}

// ReadOnlyBy reports whether the block consumed the path and every
// consumption was made by a process running a program for which covers is
// true: a fact about those programs (a program model) is then all the
// block did with it. False when a consumption's program is unknown or more
// than two programs consumed it.
func (a *Access) ReadOnlyBy(covers func(program string) bool) bool {
	if !a.Consumed || a.readersMore || !covers(a.ConsumedBy.Program()) {
		return false
	}
	return a.reader2 == 0 || covers(programNames.name(a.reader2))
}

// Script returns the Debian package whose postinst (and what it ran) made
// every production of the access, when the block had installed that
// package (its file list written): what a postinst makes, such as
// update-rc.d's links, is there after the package's install whichever
// Package resource installs it. "" when the access produced nothing, or not
// only through one such package.
func (a *Access) Script() string {
	if a.script == 0 || a.script == mixedScripts {
		return ""
	}
	return scriptPackages.name(uint32(a.script))
}

// scriptPackages interns the package names of Access.Script; ids fit a
// uint16 below mixedScripts, and a name past them is not kept (the
// access reads as no script's, which holds nothing back).
var scriptPackages = nameTable{ids: map[string]uint32{"": 0}, list: []string{""}}

const mixedScripts = 1<<16 - 1

func scriptID(pkg string) uint16 {
	id := scriptPackages.id(pkg)
	if id >= mixedScripts || scriptPackages.name(id) != pkg {
		return 0
	}
	return uint16(id)
}

// BlockFailure is a block that the traced program reported as failed
// (Puppet: an "Error: …" line whose source is the resource), with the
// first such report.
type BlockFailure struct {
	Block   BlockID
	Message string   // the program's line, without colour, bounded by the marker (~300 bytes)
	By      Evidence // the write that carried it
}

// PathAccesses is every block's access to one absolute path, in block order.
type PathAccesses struct {
	Path     string
	IsDir    bool // the path was a directory when last seen (mkdir, opened O_DIRECTORY, chdir); a failed lookup leaves it as it was
	Accesses []Access
}

// Stats counts what the interpreter saw and what it could not resolve.
type Stats struct {
	Statements      int64
	Processes       int64
	UnknownPids     int64 // statements from processes never created in the trace
	UnknownFds      int64 // fds used but never opened in the trace
	UnresolvedPaths int64 // paths that could not be resolved (unknown dirfd, loops)
	SymlinkLoops    int64
	Blocks          int64
	UnmatchedEnds   int64 // end without a begin
	UnclosedBlocks  int64 // begin never ended (truncated trace)
	DistinctPaths   int64
	MissingLookups  int64 // Missing statements interpreted inside blocks (the lowering leaves repeats out)
	FailedBlocks    int64 // blocks reported as failed (len(Result.Failures))
	UnitMoves       int64 // processes moved into a systemd unit's cgroup (attributed by unit from then on)
	UnitReads       int64 // reads systemd (init) made for a unit: its unit files, drop-ins, and what it read just before starting its process
	HeldAccesses    int64 // accesses of processes seen before their creation, charged once it was seen (or at the end)
	BootAccesses    int64 // of those, the accesses of processes never created in a trace that follows init: daemons of the boot (journald), charged to no block
	// WaitedStatements counts the statements of processes seen before
	// their creation that waited for it, from the first that named a path
	// from the process's cwd (unknown until then); CwdGuesses the
	// processes whose creation did not come in time, whose paths were
	// resolved from "/".
	WaitedStatements int64
	CwdGuesses       int64
	// RootBinds counts the chroots into a directory where the process
	// had bind-mounted "/" (a unit sandboxed by systemd): its names stay
	// resolved (Interp.chroot).
	RootBinds int64
	// UnplacedChanges counts the changes inside blocks (a create, an open
	// for writing, a removal, a rename, a link) whose path the model could
	// not resolve: a file changed and the model cannot say which.
	// FirstUnplacedChange is the first of them.
	UnplacedChanges     int64
	FirstUnplacedChange fstrace.Statement
}

// Result is the outcome of interpreting one program.
type Result struct {
	// Blocks holds block names by BlockID. A name that begins and ends twice
	// (Puppet's class whits) has one BlockID.
	Blocks []string
	// Paths holds, in byte order of Path, every path that some block
	// accessed or failed to find (an Access with Missing only). Paths
	// touched only outside blocks are left out.
	Paths []PathAccesses
	// Failures holds the blocks reported as failed, in the order of their
	// first report, one per block. A failed block may have no accesses, and
	// may never have begun (its BlockID is then created for the report).
	Failures []BlockFailure
	Stats    Stats
}
