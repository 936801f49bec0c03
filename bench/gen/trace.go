package gen

import (
	"bufio"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Generate writes the strace log of the run p describes to w.
func Generate(w io.Writer, p Params) error {
	p, err := p.withDefaults()
	if err != nil {
		return err
	}
	g := newTraceGen(w, p, newPlan(p))
	g.run()
	if g.lw.err != nil {
		return g.lw.err
	}
	return g.lw.w.Flush()
}

// Where things are on the generated machine.
const (
	rubyLib     = "/usr/lib/ruby/vendor_ruby/"
	manifestDir = "/etc/puppet/code/environments/production/modules/gen/manifests/"
)

// loadPathMisses are the load-path directories Ruby tries, and fails to
// open, before it finds a file under rubyLib.
var loadPathMisses = []string{
	"/usr/local/lib/site_ruby/3.1.0/",
	"/usr/lib/x86_64-linux-gnu/ruby/vendor_ruby/3.1.0/",
}

// sharedLibs are the libraries every exec'd child maps.
var sharedLibs = []string{
	"/lib/x86_64-linux-gnu/libc.so.6",
	"/lib/x86_64-linux-gnu/libselinux.so.1",
	"/lib/x86_64-linux-gnu/libpcre2-8.so.0",
	"/lib/x86_64-linux-gnu/libz.so.1",
}

// rubySnippet is what read(2) of a Ruby file shows (cut at -s).
const rubySnippet = "# frozen_string_literal: true\n\nrequire_relative '../../puppet/parameter'\nrequire_relative '../../puppet/util/checksums'\n\n" +
	"module Puppet\n  # The base class for every resource type.\n  class Type\n    include Puppet::Util\n    include Puppet::Util::Errors\n" +
	"    include Puppet::Util::Logging\n\n    # Return the list of properties.\n    def self.properties\n      @properties ||= []\n    end\n  end\nend\n"

// elfHeader is the start of a shared object, as ld.so reads it.
const elfHeader = "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00@\x00\x00\x00\x00\x00\x00\x00"

// traceGen writes one run. Its random source is separate from the plan's, so
// the catalog does not depend on Size.
type traceGen struct {
	p   Params
	pl  *plan
	lw  lineWriter
	rng *rand.Rand

	mainPid int
	threads []int
	// pending is the call each thread left <unfinished ...> (pendingNone when none).
	pending []uint8
	nextPid int

	// Ruby files: rel[i] is a path under rubyLib; the first loadCursor of
	// them have been loaded. sysPaths are quoted paths of other files.
	rel        []string
	loadCursor int
	sysPaths   []string

	daemons []daemon

	// Evaltrace counter: position and total number of evaluated resources.
	evalN, evalTotal int
	source           string // log source of the open block, for Debug lines
}

// daemon is a process a Service started; it keeps working after the block.
type daemon struct {
	pid  int
	name string
}

func newTraceGen(w io.Writer, p Params, pl *plan) *traceGen {
	g := &traceGen{
		p:   p,
		pl:  pl,
		lw:  lineWriter{w: bufio.NewWriterSize(w, 1<<20), b: make([]byte, 0, 4096), limit: p.StringLimit},
		rng: rand.New(rand.NewPCG(uint64(p.Seed), 0x7472616365)), // "trace"
	}
	g.mainPid = 20000 + int(uint64(p.Seed)%20000)
	g.nextPid = g.mainPid + 1
	// Distinct paths: each Ruby file is looked for in 0, 1 or 2 load-path
	// directories first (one miss on average), so a rel gives two paths.
	// A fifth of the budget goes to other files, and the resources'
	// own paths are few.
	own := 6 * len(pl.resources)
	nSys := max(16, p.Paths/5)
	nRel := max(16, (p.Paths-nSys-own)/2)
	g.rel = make([]string, nRel)
	for i := range g.rel {
		a, b := words[i%len(words)], words[(i/len(words))%len(words)]
		g.rel[i] = "puppet/" + a + "/" + b + "_" + strconv.Itoa(i) + ".rb"
	}
	g.sysPaths = make([]string, nSys)
	for i := range g.sysPaths {
		w := words[i%len(words)]
		n := strconv.Itoa(i)
		var raw string
		switch {
		case i%97 == 13:
			raw = "/usr/share/gen doc/" + w + " notes " + n + ".txt" // spaces need no escape
		case i%101 == 7:
			raw = "/usr/share/gen/caf\u00e9-" + n // printed in octal
		case i%3 == 0:
			raw = "/usr/share/zoneinfo/" + w + "/" + n
		case i%3 == 1:
			raw = "/etc/gen/sys/" + w + "-" + n + ".conf"
		default:
			raw = "/usr/share/gen/" + w + "/" + n + ".dat"
		}
		g.sysPaths[i] = string(appendQuoted(nil, raw, 1<<20))
	}
	g.evalTotal = len(pl.resources) + 2*pl.classes + len(schedules) + 6
	return g
}

// schedules are the resources Puppet adds to every apply (not in the
// compiled catalog).
var schedules = []string{"Schedule[puppet]", "Schedule[hourly]", "Schedule[daily]", "Schedule[weekly]", "Schedule[monthly]", "Schedule[never]", "Filebucket[puppet]"}

// run writes the whole trace: start-up, the blocks, the end.
func (g *traceGen) run() {
	// Tail written after the last block; small and fixed.
	const tail = 1024
	size := g.p.Size

	g.startup(size / 4)

	// Blocks share what remains in proportion to their weight; each
	// block's share is recomputed from what is left, so over- or
	// under-shooting one block is absorbed by the next ones.
	weights := make([]float64, len(g.pl.resources))
	var total float64
	for i, r := range g.pl.resources {
		weights[i] = blockWeight[r.kind]
		total += weights[i]
	}
	const whitWeight = 0.05 // whits do almost nothing
	whits := float64(len(schedules)+6+2*g.pl.classes) * whitWeight
	total += whits
	share := func(w float64) int64 {
		left := size - tail - g.lw.n
		if left <= 0 || total <= 0 {
			return 0
		}
		s := int64(float64(left) * w / total)
		total -= w
		return s
	}

	// The order of a real Puppet 7 run (testdata/runs): the admissible and
	// completed whits of Stage[main], Class[Settings] and Class[Main], each
	// class's admissible whit, its resources and its completed whit, then
	// Stage[main] completed, the default schedules and the filebucket.
	g.whit("Stage[main]", share(whitWeight))
	g.whit("Class[Settings]", share(whitWeight))
	g.whit("Class[Settings]", share(whitWeight))
	g.whit("Class[Main]", share(whitWeight))
	g.whit("Class[Main]", share(whitWeight))
	for i := range g.pl.resources {
		r := &g.pl.resources[i]
		if i == 0 || g.pl.resources[i-1].class != r.class {
			g.whit("Class["+className(r.class)+"]", share(whitWeight))
		}
		g.block(r, share(weights[i]))
		if i == len(g.pl.resources)-1 || g.pl.resources[i+1].class != r.class {
			g.whit("Class["+className(r.class)+"]", share(whitWeight))
		}
	}
	g.whit("Stage[main]", share(whitWeight))
	for _, ref := range schedules {
		g.whit("/"+ref, share(whitWeight))
	}
	// The rest of the budget is Puppet's end of run: reports, state files.
	g.source = ""
	g.noiseUntil(g.lw.n + max(0, size-tail-g.lw.n))
	g.shutdown()
}

// ---------------------------------------------------------------------------
// Start-up and shutdown of Puppet's Ruby process.

func (g *traceGen) startup(budget int64) {
	lw := &g.lw
	pid := g.mainPid
	lw.start(pid)
	lw.s(`execve("/usr/bin/puppet", ["/usr/bin/puppet", "apply", "--debug", "--evaltrace", "--graph", "--catalog_cache_terminus", "json", "/etc/puppet/code/environments/production/manifests/site.pp"], 0x7ffd3c1e9f48 /* 18 vars */`)
	lw.ret(0)
	lw.end()
	g.loadLibs(pid)
	lw.start(pid)
	lw.s(`readlink("/proc/self/exe", "/usr/bin/ruby3.1", 4096`)
	lw.ret(16)
	lw.end()
	lw.start(pid)
	lw.s(`getcwd("/root", 1024`)
	lw.ret(6)
	lw.end()
	// Ruby's timer thread and two worker threads (glibc ≥ 2.34 uses clone3).
	for t := 0; t < 3; t++ {
		tid := g.newPid()
		lw.start(pid)
		lw.s("clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=")
		lw.hex(0x7f3c2a1ff910 - uint64(t)<<21)
		lw.s(", parent_tid=")
		lw.hex(0x7f3c2a1ff910 - uint64(t)<<21)
		lw.s(", exit_signal=0, stack=")
		lw.hex(0x7f3c2a000000 - uint64(t)<<21)
		lw.s(", stack_size=0x1fff00, tls=")
		lw.hex(0x7f3c2a1ff640 - uint64(t)<<21)
		lw.s("} => {parent_tid=[")
		lw.i(int64(tid))
		lw.s("]}, 88")
		lw.ret(int64(tid))
		lw.end()
		g.threads = append(g.threads, tid)
		g.pending = append(g.pending, pendingNone)
		lw.start(tid)
		lw.s("rt_sigprocmask(SIG_SETMASK, [], NULL, 8")
		lw.ret(0)
		lw.end()
	}
	g.debug("Runtime environment: puppet_version=7.23.0, ruby_version=3.1.2, run_mode=user, default_encoding=UTF-8")
	g.noiseUntil(g.lw.n + budget)
	g.debug("Loaded state in 0.00 seconds")
	g.info("Applying configuration version '1700000000'")
}

func (g *traceGen) shutdown() {
	lw := &g.lw
	g.notice("Applied catalog in 12.34 seconds")
	for _, tid := range g.threads {
		g.finishPending(tid)
		lw.start(tid)
		lw.s("exit(0")
		lw.retText("?")
		lw.end()
		lw.start(tid)
		lw.s("+++ exited with 0 +++")
		lw.end()
	}
	lw.start(g.mainPid)
	lw.s("exit_group(0")
	lw.retText("?")
	lw.end()
	lw.start(g.mainPid)
	lw.s("+++ exited with 0 +++")
	lw.end()
}

func (g *traceGen) newPid() int {
	pid := g.nextPid
	g.nextPid += 1 + g.rng.IntN(3)
	return pid
}

// ---------------------------------------------------------------------------
// Blocks.

// whit writes a block with (almost) no work: Stage, Class, Schedule.
func (g *traceGen) whit(source string, budget int64) {
	g.marker(source, true)
	g.noiseUntil(g.lw.n + budget)
	g.marker(source, false)
}

// block writes one resource's block: its markers, its own work, and Ruby's
// work around it up to budget bytes.
func (g *traceGen) block(r *resource, budget int64) {
	start := g.lw.n
	source := "/Stage[main]/" + className(r.class) + "/" + r.ref()
	g.marker(source, true)
	g.source = source
	switch r.kind {
	case kindFile:
		g.fileBody(r)
	case kindExec:
		g.execBody(r)
	case kindPackage:
		g.packageBody(r)
	case kindService:
		g.serviceBody(r)
	}
	g.noiseUntil(start + budget)
	g.source = ""
	g.marker(source, false)
}

// marker writes an evaltrace line as Ruby 3.1 does: writev of the coloured
// message and a newline.
func (g *traceGen) marker(source string, begin bool) {
	msg := "Info: " + source + ": "
	if begin {
		g.evalN++
		msg += "Starting to evaluate the resource (" + strconv.Itoa(g.evalN) + " of " + strconv.Itoa(g.evalTotal) + ")"
	} else {
		ms := 1 + g.rng.IntN(400)
		msg += "Evaluated in " + strconv.Itoa(ms/100) + "." + strconv.Itoa(ms/10%10) + strconv.Itoa(ms%10) + " seconds"
	}
	g.writevLine(g.mainPid, "\x1b[0;32m"+msg+"\x1b[0m")
}

func (g *traceGen) debug(msg string) {
	if g.source != "" {
		msg = g.source + ": " + msg
	}
	g.writevLine(g.mainPid, "\x1b[0;36mDebug: "+msg+"\x1b[0m")
}

func (g *traceGen) info(msg string)   { g.writevLine(g.mainPid, "\x1b[0;32mInfo: "+msg+"\x1b[0m") }
func (g *traceGen) notice(msg string) { g.writevLine(g.mainPid, "\x1b[mNotice: "+msg+"\x1b[0m") }

// writevLine writes text and a newline to fd 1 the way Ruby 3.1's puts does.
func (g *traceGen) writevLine(pid int, text string) {
	lw := &g.lw
	lw.start(pid)
	lw.s("writev(1, [{iov_base=")
	lw.quoted(text)
	lw.s(", iov_len=")
	lw.i(int64(len(text)))
	lw.s(`}, {iov_base="\n", iov_len=1}], 2`)
	lw.ret(int64(len(text) + 1))
	lw.end()
}

// fileBody is Puppet's File provider: stat the target, write a temporary
// file next to it, rename it onto the target, checksum the result. A
// directory is a mkdir.
func (g *traceGen) fileBody(r *resource) {
	lw := &g.lw
	pid := g.mainPid
	lw.start(pid)
	lw.s("newfstatat(AT_FDCWD, ")
	lw.path(r.title, "")
	lw.s(", 0x7ffd3c1e8a40, AT_SYMLINK_NOFOLLOW")
	lw.enoent()
	lw.end()
	dir := r.title[:strings.LastIndexByte(r.title, '/')]
	lw.start(pid)
	lw.s("newfstatat(AT_FDCWD, ")
	lw.path(dir, "")
	lw.s(", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0")
	lw.ret(0)
	lw.end()
	if r.dir {
		lw.start(pid)
		lw.s("mkdir(")
		lw.path(r.title, "")
		lw.s(", 0755")
		lw.ret(0)
		lw.end()
		g.notice(g.source + "/ensure: created")
		return
	}
	tmp := r.title + "20261122-" + strconv.Itoa(pid) + "-" + strconv.FormatInt(int64(g.rng.Uint32()), 36)
	lw.start(pid)
	lw.s("openat(AT_FDCWD, ")
	lw.path(tmp, "")
	lw.s(", O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0600")
	lw.ret(9)
	lw.end()
	content := "# Managed by Puppet\n" + r.title + " = " + strconv.Itoa(r.index) + "\n"
	lw.start(pid)
	lw.s("write(9, ")
	lw.quoted(content)
	lw.s(", ")
	lw.i(int64(len(content)))
	lw.ret(int64(len(content)))
	lw.end()
	for _, call := range []string{"fsync(9", "fchmod(9, 0644", "close(9"} {
		lw.start(pid)
		lw.s(call)
		lw.ret(0)
		lw.end()
	}
	lw.start(pid)
	lw.s("rename(")
	lw.path(tmp, "")
	lw.s(", ")
	lw.path(r.title, "")
	lw.ret(0)
	lw.end()
	g.readFile(pid, 9, `"`+r.title+`"`, content)
	g.notice(g.source + "/ensure: defined content as '{sha256}4f1d92a03310617e'")
}

// readFile opens, reads and closes a quoted path in pid with fd.
func (g *traceGen) readFile(pid, fd int, quotedPath, content string) {
	lw := &g.lw
	lw.start(pid)
	lw.s("openat(AT_FDCWD, ")
	lw.s(quotedPath)
	lw.s(", O_RDONLY|O_CLOEXEC")
	lw.ret(int64(fd))
	lw.end()
	lw.start(pid)
	lw.s("read(")
	lw.i(int64(fd))
	lw.s(", ")
	lw.quotedConst(content)
	lw.s(", 8192")
	lw.ret(int64(len(content)))
	lw.end()
	lw.start(pid)
	lw.s("read(")
	lw.i(int64(fd))
	lw.s(`, "", 8192`)
	lw.ret(0)
	lw.end()
	lw.start(pid)
	lw.s("close(")
	lw.i(int64(fd))
	lw.ret(0)
	lw.end()
}

// spawn starts a child of parent with vfork (Ruby's Process.spawn) or clone
// (fork), the child redirecting its output to a pipe and exec'ing prog.
// The parent's vfork stays unfinished until the child has exec'd.
func (g *traceGen) spawn(parent int, useVfork bool, prog string, argv string) int {
	lw := &g.lw
	child := g.newPid()
	lw.start(parent)
	lw.s("pipe2([7, 8], O_CLOEXEC")
	lw.ret(0)
	lw.end()
	if useVfork {
		lw.start(parent)
		lw.s("vfork( <unfinished ...>")
		lw.end()
	} else {
		lw.start(parent)
		lw.s("clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f3c2b5fca10")
		lw.ret(int64(child))
		lw.end()
	}
	for _, call := range []string{"dup2(8, 1", "dup2(8, 2"} {
		lw.start(child)
		lw.s(call)
		lw.ret(int64(call[len(call)-1] - '0'))
		lw.end()
	}
	lw.start(child)
	lw.s("execve(")
	lw.path(prog, "")
	lw.s(", [")
	lw.s(argv)
	lw.s("], 0x55d0c8a1e0b0 /* 12 vars */ <unfinished ...>")
	lw.end()
	if useVfork {
		lw.start(parent)
		lw.s("<... vfork resumed>")
		lw.ret(int64(child))
		lw.end()
	}
	lw.start(child)
	lw.s("<... execve resumed>")
	lw.ret(0)
	lw.end()
	lw.start(parent)
	lw.s("close(8")
	lw.ret(0)
	lw.end()
	g.loadLibs(child)
	return child
}

// reap ends child with status and has parent read the pipe and wait.
func (g *traceGen) reap(parent, child, status int, output string) {
	lw := &g.lw
	lw.start(parent)
	lw.s("read(7,  <unfinished ...>")
	lw.end()
	lw.start(child)
	lw.s("write(1, ")
	lw.quoted(output)
	lw.s(", ")
	lw.i(int64(len(output)))
	lw.ret(int64(len(output)))
	lw.end()
	lw.start(child)
	lw.s("exit_group(")
	lw.i(int64(status))
	lw.retText("?")
	lw.end()
	lw.start(child)
	lw.s("+++ exited with ")
	lw.i(int64(status))
	lw.s(" +++")
	lw.end()
	lw.start(parent)
	lw.s("<... read resumed>")
	lw.quoted(output)
	lw.s(", 4096")
	lw.ret(int64(len(output)))
	lw.end()
	lw.start(parent)
	lw.s("--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=")
	lw.i(int64(child))
	lw.s(", si_uid=0, si_status=")
	lw.i(int64(status))
	lw.s(", si_utime=0, si_stime=0} ---")
	lw.end()
	lw.start(parent)
	lw.s(`read(7, "", 4096`)
	lw.ret(0)
	lw.end()
	lw.start(parent)
	lw.s("close(7")
	lw.ret(0)
	lw.end()
	lw.start(parent)
	lw.s("wait4(")
	lw.i(int64(child))
	lw.s(", [{WIFEXITED(s) && WEXITSTATUS(s) == ")
	lw.i(int64(status))
	lw.s("}], 0, NULL")
	lw.ret(int64(child))
	lw.end()
}

// loadLibs is ld.so starting a program: the cache, then each library.
func (g *traceGen) loadLibs(pid int) {
	lw := &g.lw
	lw.start(pid)
	lw.s("brk(NULL")
	lw.retText("0x55d0c8a1e000")
	lw.end()
	lw.start(pid)
	lw.s(`access("/etc/ld.so.preload", R_OK`)
	lw.enoent()
	lw.end()
	libs := append([]string{"/etc/ld.so.cache"}, sharedLibs[:1+g.rng.IntN(len(sharedLibs))]...)
	for _, lib := range libs {
		lw.start(pid)
		lw.s("openat(AT_FDCWD, ")
		lw.path(lib, "")
		lw.s(", O_RDONLY|O_CLOEXEC")
		lw.ret(3)
		lw.end()
		if lib != "/etc/ld.so.cache" {
			lw.start(pid)
			lw.s("read(3, ")
			lw.quotedConst(elfHeader)
			lw.s("..., 832")
			lw.ret(832)
			lw.end()
		}
		lw.start(pid)
		lw.s(`newfstatat(3, "", {st_mode=S_IFREG|0644, st_size=`)
		lw.i(int64(20000 + len(lib)*1000))
		lw.s(", ...}, AT_EMPTY_PATH")
		lw.ret(0)
		lw.end()
		lw.start(pid)
		lw.s("mmap(NULL, 22843, PROT_READ, MAP_PRIVATE|MAP_DENYWRITE, 3, 0")
		lw.retText("0x7f3c2b600000")
		lw.end()
		lw.start(pid)
		lw.s("close(3")
		lw.ret(0)
		lw.end()
	}
}

// childWork is what a child does beyond starting: read an input among the
// other files of the system and any conflict paths it consumes.
func (g *traceGen) childWork(pid int, consumes []string) {
	for i := 0; i < 2; i++ {
		g.readFile(pid, 3, g.sysPaths[g.rng.IntN(len(g.sysPaths))], "key = value\n")
	}
	for _, c := range consumes {
		g.readFile(pid, 3, `"`+c+`"`, "# Managed by Puppet\n")
	}
}

// helpers runs n helper processes (sed, install scripts) from parent, a
// shell that forks and waits for each.
func (g *traceGen) helpers(parent, n int) {
	lw := &g.lw
	for k := 0; k < n; k++ {
		h := g.newPid()
		lw.start(parent)
		lw.s("clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f3c2b5fca10")
		lw.ret(int64(h))
		lw.end()
		lw.start(parent)
		lw.s("wait4(-1,  <unfinished ...>")
		lw.end()
		lw.start(h)
		lw.s(`execve("/usr/bin/sed", ["sed", "-e", "s/a/b/"], 0x55d0c8a1e0b0 /* 12 vars */`)
		lw.ret(0)
		lw.end()
		g.loadLibs(h)
		g.childWork(h, nil)
		lw.start(h)
		lw.s("exit_group(0")
		lw.retText("?")
		lw.end()
		lw.start(h)
		lw.s("+++ exited with 0 +++")
		lw.end()
		lw.start(parent)
		lw.s("<... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL")
		lw.ret(int64(h))
		lw.end()
		lw.start(parent)
		lw.s("--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=")
		lw.i(int64(h))
		lw.s(", si_uid=0, si_status=0, si_utime=0, si_stime=0} ---")
		lw.end()
	}
}

// execBody runs the Exec's command through sh: it reads its inputs, uses a
// scratch file it removes, and writes its output file.
func (g *traceGen) execBody(r *resource) {
	lw := &g.lw
	sh := g.spawn(g.mainPid, true, "/bin/sh", `"/bin/sh", "-c", "/usr/bin/gen-tool --step `+strconv.Itoa(r.index)+` > `+r.output+`"`)
	g.childWork(sh, r.consumes)
	g.helpers(sh, r.extra)
	scratch := "/tmp/gen-" + strconv.Itoa(r.index) + "." + strconv.FormatInt(int64(g.rng.Uint32()), 36)
	lw.start(sh)
	lw.s("openat(AT_FDCWD, ")
	lw.path(scratch, "")
	lw.s(", O_RDWR|O_CREAT|O_EXCL, 0600")
	lw.ret(4)
	lw.end()
	lw.start(sh)
	lw.s(`write(4, "partial\n", 8`)
	lw.ret(8)
	lw.end()
	lw.start(sh)
	lw.s("close(4")
	lw.ret(0)
	lw.end()
	lw.start(sh)
	lw.s("unlink(")
	lw.path(scratch, "")
	lw.ret(0)
	lw.end()
	lw.start(sh)
	lw.s("openat(AT_FDCWD, ")
	lw.path(r.output, "")
	lw.s(", O_WRONLY|O_CREAT|O_TRUNC, 0666")
	lw.ret(3)
	lw.end()
	lw.start(sh)
	lw.s("dup2(3, 1")
	lw.ret(1)
	lw.end()
	lw.start(sh)
	lw.s("close(3")
	lw.ret(0)
	lw.end()
	g.reap(g.mainPid, sh, 0, "step "+strconv.Itoa(r.index)+" done\n")
	g.notice(g.source + "/returns: executed successfully")
}

// packageBody is Puppet's apt provider: dpkg-query finds nothing, apt-get
// installs the package, running dpkg, which unpacks each file as .dpkg-new
// and renames it into place.
func (g *traceGen) packageBody(r *resource) {
	lw := &g.lw
	q := g.spawn(g.mainPid, false, "/usr/bin/dpkg-query", `"/usr/bin/dpkg-query", "-W", "--showformat", "'${Status} ${Package} ${Version}\\n'", "`+r.title+`"`)
	g.readFile(q, 3, `"/var/lib/dpkg/status"`, "Package: base-files\nStatus: install ok installed\n")
	g.reap(g.mainPid, q, 1, "dpkg-query: no packages found matching "+r.title+"\n")

	apt := g.spawn(g.mainPid, false, "/usr/bin/apt-get", `"/usr/bin/apt-get", "-q", "-y", "-o", "DPkg::Options::=--force-confold", "install", "`+r.title+`"`)
	g.childWork(apt, nil)
	dpkg := g.newPid()
	lw.start(apt)
	lw.s("clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f3c2b5fca10")
	lw.ret(int64(dpkg))
	lw.end()
	lw.start(apt)
	lw.s("wait4(")
	lw.i(int64(dpkg))
	lw.s(",  <unfinished ...>")
	lw.end()
	lw.start(dpkg)
	lw.s(`execve("/usr/bin/dpkg", ["/usr/bin/dpkg", "--status-fd", "23", "--unpack", "--auto-deconfigure", "/var/cache/apt/archives/`)
	lw.s(r.title)
	lw.s(`_1.0_amd64.deb"], 0x55d0c8a1e0b0 /* 14 vars */`)
	lw.ret(0)
	lw.end()
	g.loadLibs(dpkg)
	docDir := "/usr/share/doc/" + r.title
	libDir := "/usr/lib/" + r.title
	for _, d := range []string{docDir, libDir} {
		lw.start(dpkg)
		lw.s("mkdir(")
		lw.path(d, "")
		lw.s(", 0755")
		lw.ret(0)
		lw.end()
	}
	for _, f := range []string{docDir + "/copyright", docDir + "/changelog.Debian.gz", libDir + "/lib" + r.title + ".so", r.output} {
		g.dpkgUnpack(dpkg, f)
	}
	g.dpkgUnpack(dpkg, "/var/lib/dpkg/info/"+r.title+".list")
	g.helpers(dpkg, r.extra)
	lw.start(dpkg)
	lw.s("exit_group(0")
	lw.retText("?")
	lw.end()
	lw.start(dpkg)
	lw.s("+++ exited with 0 +++")
	lw.end()
	lw.start(apt)
	lw.s("<... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL")
	lw.ret(int64(dpkg))
	lw.end()
	g.reap(g.mainPid, apt, 0, "Setting up "+r.title+" (1.0) ...\n")
	g.notice(g.source + "/ensure: created")
}

// dpkgUnpack writes path as dpkg does: path.dpkg-new, then rename.
func (g *traceGen) dpkgUnpack(pid int, path string) {
	lw := &g.lw
	lw.start(pid)
	lw.s("openat(AT_FDCWD, ")
	lw.path(path, ".dpkg-new")
	lw.s(", O_WRONLY|O_CREAT|O_EXCL, 000")
	lw.ret(10)
	lw.end()
	lw.start(pid)
	lw.s("write(10, ")
	lw.quotedConst(elfHeader)
	lw.s("..., 4096")
	lw.ret(4096)
	lw.end()
	lw.start(pid)
	lw.s("close(10")
	lw.ret(0)
	lw.end()
	lw.start(pid)
	lw.s("rename(")
	lw.path(path, ".dpkg-new")
	lw.s(", ")
	lw.path(path, "")
	lw.ret(0)
	lw.end()
}

// serviceBody asks the init script for the status, then starts the
// service; the daemon reads its configuration (and any conflict path),
// opens its log and writes its pid file, and keeps running.
func (g *traceGen) serviceBody(r *resource) {
	lw := &g.lw
	initScript := "/etc/init.d/" + r.title
	status := g.spawn(g.mainPid, false, "/usr/sbin/service", `"/usr/sbin/service", "`+r.title+`", "status"`)
	g.readFile(status, 3, `"`+initScript+`"`, "#!/bin/sh\n### BEGIN INIT INFO\n")
	g.reap(g.mainPid, status, 3, r.title+" is not running\n")

	start := g.spawn(g.mainPid, false, "/usr/sbin/service", `"/usr/sbin/service", "`+r.title+`", "start"`)
	g.readFile(start, 3, `"`+initScript+`"`, "#!/bin/sh\n### BEGIN INIT INFO\n")
	d := g.newPid()
	lw.start(start)
	lw.s("clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f3c2b5fca10")
	lw.ret(int64(d))
	lw.end()
	lw.start(d)
	lw.s("execve(")
	lw.path("/usr/sbin/"+r.title, "")
	lw.s(", [\"/usr/sbin/")
	lw.s(r.title)
	lw.s(`"], 0x55d0c8a1e0b0 /* 8 vars */`)
	lw.ret(0)
	lw.end()
	g.loadLibs(d)
	lw.start(d)
	lw.s("setsid(")
	lw.ret(int64(d))
	lw.end()
	g.readFile(d, 3, `"/etc/`+r.title+"/"+r.title+`.conf"`, "listen = 127.0.0.1\n")
	for _, c := range r.consumes {
		g.readFile(d, 3, `"`+c+`"`, "# Managed by Puppet\n")
	}
	lw.start(d)
	lw.s("openat(AT_FDCWD, ")
	lw.path("/var/log/"+r.title, ".log")
	lw.s(", O_WRONLY|O_CREAT|O_APPEND, 0640")
	lw.ret(3)
	lw.end()
	lw.start(d)
	lw.s("openat(AT_FDCWD, ")
	lw.path("/run/"+r.title, ".pid")
	lw.s(", O_WRONLY|O_CREAT|O_TRUNC, 0644")
	lw.ret(4)
	lw.end()
	lw.start(d)
	lw.s("write(4, ")
	lw.quoted(strconv.Itoa(d) + "\n")
	lw.s(", ")
	lw.i(int64(len(strconv.Itoa(d)) + 1))
	lw.ret(int64(len(strconv.Itoa(d)) + 1))
	lw.end()
	lw.start(d)
	lw.s("close(4")
	lw.ret(0)
	lw.end()
	g.daemons = append(g.daemons, daemon{pid: d, name: r.title})
	g.reap(g.mainPid, start, 0, "Starting "+r.title+": ok\n")
	g.notice(g.source + "/ensure: ensure changed 'stopped' to 'running'")
}
