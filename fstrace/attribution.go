package fstrace

// Attribution: which block a process acts for (docs/DESIGN.md, "The
// model", Blocks). It is written once, here, and driven by both the
// interpreter (fstrace/interp, which records each access for the block its
// process acts for) and the lowering (Lowerer.NeedsFailedArgs, which asks
// whether a failed lookup can be recorded at all), so that the two cannot
// disagree on which lookups matter.
//
// The rules:
//   - A process first seen without its creation (the program itself, or a
//     trace begun mid-run) acts for the open block: it is dynamic. (The
//     interpreter holds what such a process does until its creation is
//     seen, and then charges it to the block its creator makes it act
//     for; never created in a trace that follows init, it is a daemon of
//     the container's boot and acts for none: fstrace/interp's held.go.)
//   - A process that writes a Begin acts for the open block from then on,
//     and so do its threads (they share its Acting).
//   - A thread (ShareThread) shares its creator's Acting.
//   - Any other new process is pinned for life: to its creator's block when
//     the creator is pinned, else to the open block when one is open; made
//     outside every block by a dynamic creator, it is dynamic too
//     (Puppet's start-up children).
//   - Moving a process to a systemd unit's cgroup pins it and its threads to
//     the unit's block (Join; only the interpreter sees cgroups).
//   - An exiting process is simply forgotten by its driver; its threads keep
//     the Acting they share.

// Block numbers a block for an Attribution. NoBlock is work done outside
// every block (a program's start-up): it belongs to no resource.
type Block int32

// NoBlock is the block of work outside every block.
const NoBlock Block = -1

// Acting is the block one process acts for; threads share one.
type Acting struct {
	// dynamic: the process acts for whatever block is open.
	dynamic bool
	// block is the block a process that is not dynamic is pinned to
	// (NoBlock for init, which acts for none).
	block Block
}

// Dynamic returns the Acting of a process first seen without its creation:
// it acts for the open block.
func Dynamic() *Acting { return &Acting{dynamic: true, block: NoBlock} }

// Pinned returns the Acting of a process that acts for block b for life
// (NoBlock: for none, as init).
func Pinned(b Block) *Acting { return &Acting{block: b} }

// IsDynamic reports whether the process acts for the open block.
func (a *Acting) IsDynamic() bool { return a.dynamic }

// Attribution is the open block; with the Acting of each process it says
// which block the process acts for. The zero value has no block open.
type Attribution struct {
	// openPlus1 is the open block plus one, so that the zero value is
	// NoBlock's.
	openPlus1 Block
}

// Open returns the open block, NoBlock between blocks.
func (at *Attribution) Open() Block { return at.openPlus1 - 1 }

// Reopen makes b the open block without a marker: an interpreter that
// interprets a statement later than the trace showed it (fstrace/interp's
// waiting.go) puts back the block open then, and its own after.
func (at *Attribution) Reopen(b Block) { at.openPlus1 = b + 1 }

// For returns the block a process with Acting a acts for now.
func (at *Attribution) For(a *Acting) Block {
	if a.dynamic {
		return at.Open()
	}
	return a.block
}

// Begin opens block b, whose marker a process with Acting a wrote: that
// process (and its threads) acts for the open block from now on. implicit
// reports that another block was still open (its End never came).
func (at *Attribution) Begin(a *Acting, b Block) (implicit bool) {
	a.dynamic = true
	implicit = at.Open() != NoBlock
	at.openPlus1 = b + 1
	return implicit
}

// End closes block b when it is the open one; matched is false otherwise
// (an End without its Begin), and nothing changes.
func (at *Attribution) End(b Block) (matched bool) {
	if open := at.Open(); open == NoBlock || open != b {
		return false
	}
	at.openPlus1 = 0
	return true
}

// NewProc returns the Acting of a process that a process with Acting parent
// creates with flags (ShareThread: a thread, which shares parent's).
func (at *Attribution) NewProc(parent *Acting, flags uint32) *Acting {
	switch {
	case flags&ShareThread != 0:
		return parent
	case !parent.dynamic:
		return Pinned(parent.block)
	case at.Open() != NoBlock:
		return Pinned(at.Open())
	default:
		return Dynamic()
	}
}

// Join pins a process with Acting a, and its threads, to block b: it moved
// to the cgroup of b's systemd unit (NoBlock: a cgroup of no service).
// moved reports whether that changed what it acts for.
func (at *Attribution) Join(a *Acting, b Block) (moved bool) {
	moved = a.dynamic || a.block != b
	*a = Acting{block: b}
	return moved
}
