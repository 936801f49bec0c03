package gen

// Most of a real Puppet trace is Ruby at work: loading and stat-ing its own
// files, looking for files along the load path, mapping memory, waking
// threads, logging Debug lines. None of it produces a file, so none of it can
// make a conflict; it is what the analysis must get through fast.

// mainFd is the fd Ruby's file loads use in the generated trace. It is kept
// apart from the fds of the resources' own work (7, 8 for pipes, 9 for File
// temporaries) so that every fd is opened before it is used.
const mainFd = "12"

// noiseKind is one kind of background work, with its share of the events.
type noiseKind struct {
	name   string
	weight int // out of noiseWeights
	emit   func(g *traceGen)
}

// noiseKinds is the mix of background events: one row per kind.
var noiseKinds = []noiseKind{
	// Ruby 3.1's realpath readlinks every component of every path it
	// loads, and each fails with EINVAL (not a link): three quarters of a
	// real Puppet 7 trace (testdata/runs: 334,090 EINVAL against 256
	// ENOENT, the features it first looks for in the cwd).
	{"readlink a path component", 60, (*traceGen).readlinkSys},
	{"readlink a feature in the cwd", 1, (*traceGen).readlinkFeature},
	{"require a Ruby file", 8, (*traceGen).requireFile},
	{"stat a loaded file", 12, (*traceGen).statLoaded},
	{"stat along the load path", 5, (*traceGen).statMiss},
	{"statx a system file", 2, (*traceGen).statxSys},
	{"access a system file", 2, (*traceGen).accessSys},
	{"read a system file", 2, (*traceGen).readSys},
	{"list a directory", 1, (*traceGen).listDir},
	{"getcwd", 2, (*traceGen).getcwd},
	{"map memory", 4, (*traceGen).mapMemory},
	{"move the break", 2, (*traceGen).moveBreak},
	{"wake a thread", 4, (*traceGen).wakeThread},
	{"thread work", 6, (*traceGen).threadWork},
	{"stat interrupted by a thread", 2, (*traceGen).splitStat},
	{"Debug line", 3, (*traceGen).debugLine},
	{"signals, ioctl, fcntl", 4, (*traceGen).misc},
	{"daemon work", 1, (*traceGen).daemonWork},
}

// noiseWeights is the sum of the weights; noisePick maps 0..noiseWeights-1
// to a row.
var noiseWeights, noisePick = func() (int, []uint8) {
	var pick []uint8
	for i, k := range noiseKinds {
		for j := 0; j < k.weight; j++ {
			pick = append(pick, uint8(i))
		}
	}
	return len(pick), pick
}()

// noiseUntil writes background events until the trace reaches target bytes.
func (g *traceGen) noiseUntil(target int64) {
	for g.lw.n < target && g.lw.err == nil {
		noiseKinds[noisePick[g.rng.IntN(noiseWeights)]].emit(g)
	}
}

// loadedRel returns a Ruby file already loaded, hot files more often.
func (g *traceGen) loadedRel() string {
	n := g.loadCursor
	if n == 0 {
		return g.rel[0]
	}
	i := g.rng.IntN(n)
	if i&1 == 0 {
		i %= 256 // half of the stats go to a hot set
	}
	return g.rel[i%n]
}

// requireFile loads the next Ruby file: misses along the load path, then
// open, fstat, read, close. Once every file is loaded, it re-reads one.
func (g *traceGen) requireFile() {
	lw := &g.lw
	pid := g.mainPid
	var rel string
	misses := 0
	if g.loadCursor < len(g.rel) {
		rel = g.rel[g.loadCursor]
		misses = g.loadCursor % 3
		g.loadCursor++
	} else {
		rel = g.rel[g.rng.IntN(len(g.rel))]
	}
	for m := 0; m < misses; m++ {
		lw.start(pid)
		lw.s("openat(AT_FDCWD, ")
		lw.path(loadPathMisses[m], rel)
		lw.s(", O_RDONLY|O_NONBLOCK|O_CLOEXEC")
		lw.enoent()
		lw.end()
	}
	lw.start(pid)
	lw.s("openat(AT_FDCWD, ")
	lw.path(rubyLib, rel)
	lw.s(", O_RDONLY|O_NONBLOCK|O_CLOEXEC")
	lw.retText(mainFd)
	lw.end()
	size := int64(1000 + len(rel)*97)
	lw.start(pid)
	lw.s("newfstatat(" + mainFd + `, "", {st_mode=S_IFREG|0644, st_size=`)
	lw.i(size)
	lw.s(", ...}, AT_EMPTY_PATH")
	lw.ret(0)
	lw.end()
	lw.start(pid)
	lw.s("read(" + mainFd + ", ")
	lw.quotedConst(rubySnippet)
	lw.s(", 8192")
	lw.ret(size)
	lw.end()
	lw.start(pid)
	lw.s("read(" + mainFd + `, "", 8192`)
	lw.ret(0)
	lw.end()
	lw.start(pid)
	lw.s("close(" + mainFd)
	lw.ret(0)
	lw.end()
}

// features are the names Ruby looks for in the cwd (its realpath of
// required features).
var features = func() []string {
	var f []string
	for i, w := range words {
		ext := ".rb"
		if i%4 == 0 {
			ext = ".so"
		}
		f = append(f, w+ext)
	}
	return f
}()

func (g *traceGen) readlinkFeature() {
	lw := &g.lw
	lw.start(g.mainPid)
	lw.s("readlink(")
	lw.path("/root/", features[g.rng.IntN(len(features))])
	lw.s(", 0x7ffdc03a25d0, 1023")
	lw.enoent()
	lw.end()
}

func (g *traceGen) getcwd() {
	lw := &g.lw
	lw.start(g.mainPid)
	lw.s(`getcwd("/root", 1024`)
	lw.ret(6)
	lw.end()
}

func (g *traceGen) statLoaded() {
	lw := &g.lw
	rel := g.loadedRel()
	lw.start(g.mainPid)
	lw.s("newfstatat(AT_FDCWD, ")
	lw.path(rubyLib, rel)
	lw.s(", {st_mode=S_IFREG|0644, st_size=")
	lw.i(int64(1000 + len(rel)*97))
	lw.s(", ...}, 0")
	lw.ret(0)
	lw.end()
}

func (g *traceGen) statMiss() {
	lw := &g.lw
	lw.start(g.mainPid)
	lw.s("newfstatat(AT_FDCWD, ")
	lw.path(loadPathMisses[0], g.loadedRel())
	lw.s(", 0x7ffd3c1e8a40, 0")
	lw.enoent()
	lw.end()
}

func (g *traceGen) sysPath() string { return g.sysPaths[g.rng.IntN(len(g.sysPaths))] }

func (g *traceGen) statxSys() {
	lw := &g.lw
	lw.start(g.mainPid)
	lw.s("statx(AT_FDCWD, ")
	lw.s(g.sysPath())
	lw.s(", AT_STATX_SYNC_AS_STAT, STATX_ALL, {stx_mask=STATX_BASIC_STATS|STATX_MNT_ID, stx_attributes=0, stx_mode=S_IFREG|0644, stx_size=")
	lw.i(int64(g.rng.IntN(100000)))
	lw.s(", ...}")
	lw.ret(0)
	lw.end()
}

func (g *traceGen) accessSys() {
	lw := &g.lw
	lw.start(g.mainPid)
	lw.s("access(")
	lw.s(g.sysPath())
	lw.s(", R_OK")
	lw.ret(0)
	lw.end()
}

func (g *traceGen) readlinkSys() {
	lw := &g.lw
	lw.start(g.mainPid)
	lw.s("readlink(")
	lw.s(g.sysPath())
	lw.s(", 0x7ffd3c1e7a30, 4095")
	lw.retText("-1 EINVAL (Invalid argument)")
	lw.end()
}

func (g *traceGen) readSys() {
	g.readFile(g.mainPid, 12, g.sysPath(), "# generated\nkey = value\n")
}

func (g *traceGen) listDir() {
	lw := &g.lw
	pid := g.mainPid
	w := words[g.rng.IntN(len(words))]
	lw.start(pid)
	lw.s("openat(AT_FDCWD, ")
	lw.path(rubyLib+"puppet/", w)
	lw.s(", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY")
	lw.retText(mainFd)
	lw.end()
	lw.start(pid)
	lw.s("newfstatat(" + mainFd + `, "", {st_mode=S_IFDIR|0755, st_size=4096, ...}, AT_EMPTY_PATH`)
	lw.ret(0)
	lw.end()
	lw.start(pid)
	lw.s("getdents64(" + mainFd + ", 0x55d0c9a3b2c0 /* 42 entries */, 32768")
	lw.ret(1384)
	lw.end()
	lw.start(pid)
	lw.s("getdents64(" + mainFd + ", 0x55d0c9a3b2c0 /* 0 entries */, 32768")
	lw.ret(0)
	lw.end()
	lw.start(pid)
	lw.s("close(" + mainFd)
	lw.ret(0)
	lw.end()
}

func (g *traceGen) mapMemory() {
	lw := &g.lw
	addr := 0x7f3c20000000 + uint64(g.rng.IntN(1<<16))<<12
	lw.start(g.mainPid)
	lw.s("mmap(NULL, 262144, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0")
	lw.retText("")
	lw.hex(addr)
	lw.end()
	if g.rng.IntN(2) == 0 {
		lw.start(g.mainPid)
		lw.s("munmap(")
		lw.hex(addr)
		lw.s(", 262144")
		lw.ret(0)
		lw.end()
	}
}

func (g *traceGen) moveBreak() {
	lw := &g.lw
	addr := 0x55d0c8a1e000 + uint64(g.rng.IntN(1<<20))<<12
	lw.start(g.mainPid)
	lw.s("brk(")
	lw.hex(addr)
	lw.retText("")
	lw.hex(addr)
	lw.end()
}

func (g *traceGen) wakeThread() {
	lw := &g.lw
	lw.start(g.mainPid)
	lw.s("futex(0x55d0c8a1e0b0, FUTEX_WAKE_PRIVATE, 1")
	lw.ret(int64(g.rng.IntN(2)))
	lw.end()
}

// Calls a thread leaves <unfinished ...>.
const (
	pendingNone uint8 = iota
	pendingFutex
	pendingPoll
)

// threadWork has a Ruby thread start a blocking call, finish the one it
// left unfinished, or do a short call.
func (g *traceGen) threadWork() {
	lw := &g.lw
	t := g.rng.IntN(len(g.threads))
	tid := g.threads[t]
	if g.pending[t] != pendingNone {
		g.finishPending(tid)
		return
	}
	lw.start(tid)
	switch g.rng.IntN(3) {
	case 0:
		lw.s("futex(0x55d0c8a1e0b4, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 0, {tv_sec=1700000123, tv_nsec=")
		lw.i(int64(g.rng.IntN(1000000000)))
		lw.s("}, FUTEX_BITSET_MATCH_ANY <unfinished ...>")
		g.pending[t] = pendingFutex
	case 1:
		lw.s("ppoll([{fd=3, events=POLLIN}], 1, NULL, NULL, 8 <unfinished ...>")
		g.pending[t] = pendingPoll
	default:
		lw.s(`read(3, "!", 1024`)
		lw.ret(1)
	}
	lw.end()
}

// finishPending writes the <... resumed> line of tid's unfinished call.
func (g *traceGen) finishPending(tid int) {
	lw := &g.lw
	for t, id := range g.threads {
		if id != tid {
			continue
		}
		switch g.pending[t] {
		case pendingFutex:
			lw.start(tid)
			lw.s("<... futex resumed>")
			lw.retText("-1 ETIMEDOUT (Connection timed out)")
			lw.end()
		case pendingPoll:
			lw.start(tid)
			lw.s("<... ppoll resumed>")
			lw.retText("1 ([{fd=3, revents=POLLIN}])")
			lw.end()
		}
		g.pending[t] = pendingNone
	}
}

// splitStat is a main-thread stat that strace shows in two parts because a
// thread's call completed in between.
func (g *traceGen) splitStat() {
	lw := &g.lw
	rel := g.loadedRel()
	lw.start(g.mainPid)
	lw.s("newfstatat(AT_FDCWD, ")
	lw.path(rubyLib, rel)
	lw.s(",  <unfinished ...>")
	lw.end()
	g.threadWork()
	lw.start(g.mainPid)
	lw.s("<... newfstatat resumed>{st_mode=S_IFREG|0644, st_size=")
	lw.i(int64(1000 + len(rel)*97))
	lw.s(", ...}, 0")
	lw.ret(0)
	lw.end()
}

func (g *traceGen) debugLine() {
	switch g.rng.IntN(3) {
	case 0:
		g.debug("Loading " + g.loadedRel())
	case 1:
		g.debug("Adding relationship from Class[Settings] to Class[Main] with 'before'")
	default:
		g.debug("Executing: '/usr/bin/dpkg-query -W --showformat ${Status} ${Package} ${Version}\\n'")
	}
}

func (g *traceGen) misc() {
	lw := &g.lw
	lw.start(g.mainPid)
	switch g.rng.IntN(6) {
	case 5:
		lw.s("fcntl(2, F_GETFD")
		lw.retText("0x1 (flags FD_CLOEXEC)")
	case 0:
		lw.s("rt_sigprocmask(SIG_BLOCK, [CHLD], [], 8")
		lw.ret(0)
	case 1:
		lw.s("getpid(")
		lw.ret(int64(g.mainPid))
	case 2:
		lw.s("ioctl(1, TCGETS, 0x7ffd3c1e8b40")
		lw.retText("-1 ENOTTY (Inappropriate ioctl for device)")
	case 3:
		lw.s("lseek(0, 0, SEEK_CUR")
		lw.retText("-1 ESPIPE (Illegal seek)")
	default:
		lw.s("fcntl(1, F_GETFL")
		lw.retText("0x8001 (flags O_WRONLY|O_LARGEFILE)")
	}
	lw.end()
}

// daemonWork has a running daemon log a line or re-read its configuration:
// work that belongs to the Service that started it, long after its block.
func (g *traceGen) daemonWork() {
	if len(g.daemons) == 0 {
		return
	}
	lw := &g.lw
	d := g.daemons[g.rng.IntN(len(g.daemons))]
	lw.start(d.pid)
	if g.rng.IntN(2) == 0 {
		lw.s(`write(3, "tick\n", 5`)
		lw.ret(5)
	} else {
		lw.s("newfstatat(AT_FDCWD, ")
		lw.path("/etc/"+d.name+"/"+d.name, ".conf")
		lw.s(", {st_mode=S_IFREG|0644, st_size=20, ...}, 0")
		lw.ret(0)
	}
	lw.end()
}
