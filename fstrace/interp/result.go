// Package interp interprets FStrace programs over the model of the paper
// (§3.3): inode table, per-process fd and cwd tables shared or copied by clone
// flags, process table, symlink table. It turns path-level statements into
// Accesses: which block did what to which absolute path.
package interp

import "github.com/fsmove/fsmove/fstrace"

// BlockID indexes Result.Blocks. NoBlock is work done outside every block
// (a program's start-up): it belongs to no resource.
type BlockID int32

const NoBlock BlockID = -1

// Evidence is the statement that caused an effect.
type Evidence struct {
	Syscall string
	Line    int64
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
	// Evidence per effect, valid when the matching flag is set.
	ProducedBy Evidence
	ConsumedBy Evidence
	ExpungedBy Evidence
	MissingBy  Evidence
	ReplacedBy Evidence
}

// Has reports whether the access includes effect e.
func (a *Access) Has(e fstrace.Effect) bool {
	switch e {
	case fstrace.Produced:
		return a.Produced
	case fstrace.Consumed:
		return a.Consumed
	case fstrace.Expunged:
		return a.Expunged
	case fstrace.Missing:
		return a.Missing
	}
	return false
}

// By returns the evidence of effect e.
func (a *Access) By(e fstrace.Effect) Evidence {
	switch e {
	case fstrace.Produced:
		return a.ProducedBy
	case fstrace.Consumed:
		return a.ConsumedBy
	case fstrace.Missing:
		return a.MissingBy
	}
	return a.ExpungedBy
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

// Failure returns block b's failure report, or nil when b did not fail.
func (r *Result) Failure(b BlockID) *BlockFailure {
	for i := range r.Failures {
		if r.Failures[i].Block == b {
			return &r.Failures[i]
		}
	}
	return nil
}
