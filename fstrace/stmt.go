// Package fstrace owns the FStrace language of the paper (ICSE 2020, Fig. 5):
// its statements, grouped in begin … end blocks, its textual syntax (Fig. 6),
// and the lowering of tracer events to statements.
//
// FStrace knows nothing about Puppet: blocks are named by whatever recognises
// the markers (see BlockMarker), so the model could serve Make or Gradle too.
// The interpreter lives in fstrace/interp.
package fstrace

// Effect is what a statement does to a path.
type Effect uint8

const (
	NoEffect Effect = iota
	Consumed        // read, stat-ed, executed, listed
	Produced        // created, written, truncated, renamed onto, metadata changed
	Expunged        // unlinked, removed, renamed away
	// Missing is not one of the paper's three effects: a failed lookup. A
	// call that looks a path up to read or execute it failed with ENOENT or
	// ENOTDIR: the path (or one of its directories) did not exist. It has no
	// effect on the model; the interpreter records that the block looked for
	// the path and did not find it.
	Missing
)

func (e Effect) String() string {
	switch e {
	case Consumed:
		return "consumed"
	case Produced:
		return "produced"
	case Expunged:
		return "expunged"
	case Missing:
		return "missing"
	}
	return "none"
}

// Op is a statement kind.
type Op uint8

const (
	OpNop      Op = iota
	OpNewFd       // Fd = open(Dir, Path); Flags: FdCloexec, FdAnon (pipe, socket: no path)
	OpDelFd       // close fds Fd..Fd2 (Fd2 == Fd for close); with FdCloexec: mark them close-on-exec instead
	OpDupFd       // Fd2 = dup(Fd); Flags: FdCloexec
	OpHpath       // access Dir/Path with Effect, following a final symlink; Path "" means the fd Dir itself (AT_EMPTY_PATH, fchmod, fchdir); Effect Missing: a failed lookup
	OpHpathSym    // access Dir/Path with Effect, not following a final symlink
	OpLink        // hard link Dir/Path -> Dir2/Path2 (Path2 is the new name)
	OpSymlink     // symlink at Dir2/Path2 whose target text is Path
	OpRename      // rename Dir/Path -> Dir2/Path2; Flags: RenameExchange
	OpNewProc     // Pid creates Child; Flags: ShareFiles, ShareFS, ShareThread
	OpSetCwd      // chdir(Dir/Path); fchdir(fd) is SetCwd with Dir=fd, Path="."
	OpExec        // Pid executes a program: close its FdCloexec fds
	OpExit        // Pid is gone
	OpBegin       // block Block starts (Pid wrote the marker)
	OpEnd         // block Block ends
	OpFail        // the program reported block Block as failed; Path holds its message (Pid wrote it)
	// OpWritePid: Pid wrote the decimal number Child to Fd (0 means the
	// writer itself, as the kernel reads it). Writing a pid to a cgroup's
	// cgroup.procs (or tasks) file moves that process into the cgroup: this
	// is how systemd puts a service's processes into its unit's cgroup.
	OpWritePid
	// OpBind: a bind mount of Dir/Path at Dir2/Path2 (mount with MS_BIND):
	// the tree at Path is seen at Path2 too. The interpreter follows only
	// a bind of the root, which makes Path2 an alias of "/" for a later
	// chroot (systemd's sandboxing of a unit); it records no access.
	OpBind
)

// AtFdcwd is the dirfd meaning "relative to the process's cwd" (Linux value).
const AtFdcwd int32 = -100

// Flags for statements.
const (
	FdCloexec      uint32 = 1 << iota // NewFd/DupFd: the fd closes at exec
	ShareFiles                        // NewProc: CLONE_FILES, child shares the fd table
	ShareFS                           // NewProc: CLONE_FS, child shares the cwd
	ShareThread                       // NewProc: CLONE_THREAD, a thread of the same process
	RenameExchange                    // Rename: RENAME_EXCHANGE, both names swap
	FdAnon                            // NewFd: an fd that is not a file (pipe, socket, eventfd): Path is empty
	MakeDir                           // Hpath/HpathSym with Produced: the path is created as a directory (mkdir)
	Keeps                             // Hpath/HpathSym with Produced: the content is kept (a metadata change, an O_APPEND open): not a replacement
	// Meta: Hpath/HpathSym with Produced changes only metadata (mode,
	// owner, times, extended attributes): content and name are kept. It
	// comes with Keeps.
	Meta
	// NoExec: with Meta, a mode change that leaves no execute bit (the new
	// mode is in the call's arguments).
	NoExec
	// Probe: Hpath/HpathSym with Consumed looked only at the path's
	// metadata or existence (stat, access, statfs, reading an extended
	// attribute), not at its content.
	Probe
	// Runs: Hpath/HpathSym with Consumed executed the path (exec).
	Runs
	// Roots: Hpath with Consumed made the path the process's root
	// directory (chroot).
	Roots
	// Lists: Hpath with Consumed read the directory's entries (getdents):
	// the set of names in it, which a name made later changes.
	Lists
)

// Statement is one FStrace statement executed by process Pid.
//
// It is a flat value so that lowered programs travel in slices without an
// allocation per statement. Which fields are meaningful depends on Op (see
// the comments on the Op constants).
type Statement struct {
	Op     Op
	Effect Effect
	Pid    int32
	Dir    int32 // dirfd for Path, AtFdcwd for the cwd
	Dir2   int32 // dirfd for Path2
	Fd     int32
	Fd2    int32
	Child  int32
	Flags  uint32
	Path   string
	Path2  string
	Block  string // OpBegin/OpEnd/OpFail: the block's name
	// Evidence: the system call that caused the statement and its source position.
	Syscall string
	Line    int64
}

// BlockMarker recognises the lines a traced program writes to mark the start
// and end of a block (Puppet's evaltrace lines, in package puppet), and the
// lines that report a block as failed (Puppet's "Error: …" lines).
//
// NextMark is called with the bytes written to fd 1 or 2. It returns the
// first marker in data (OpBegin, OpEnd or OpFail, and the block name; for
// OpFail also msg, the program's message, bounded to a few hundred bytes)
// and the data after it, or OpNop when data holds no marker. A buffered write
// may hold several markers, even a whole block's Begin and End, so the caller
// loops on rest. It must not keep data; names and messages must be copies. (A
// scanner method rather than an iterator: it is called for every write to fd
// 1 and must not allocate.)
type BlockMarker interface {
	NextMark(data string) (op Op, name, msg, rest string)
}

// CutMarker is a BlockMarker that can tell whether data the tracer cut
// short may have held a marker, so that a lost block is counted.
type CutMarker interface {
	CutMark(data string) bool
}

// ProgramMarker is a BlockMarker that knows which program writes the
// markers (Puppet, in package puppet): MarkerProgram reports whether a
// successful exec of path starts it. The traced program runs other
// programs (a resource's commands) whose output may look like markers; only
// the marking program's process may open and close blocks (see
// Lowerer.Stats.ForeignMarks).
type ProgramMarker interface {
	MarkerProgram(path string) bool
}
