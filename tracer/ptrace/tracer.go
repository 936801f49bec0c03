package ptrace

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/linux"
	"github.com/fsmove/fsmove/tracer/strace"
)

// Options of the root process before its first filtered call: the child's
// own Go runtime threads must not be followed.
const firstOptions = unix.PTRACE_O_TRACESYSGOOD | unix.PTRACE_O_TRACESECCOMP | unix.PTRACE_O_TRACEEXEC

// Options from the command's first filtered call (its execve) on; children
// inherit them.
const fullOptions = firstOptions | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK | unix.PTRACE_O_TRACECLONE

// batchSize is how many events the loop gathers before handing them over.
const batchSize = 256

// task is one traced thread.
type task struct {
	tid int
	// inCall: the thread is between a seccomp stop and its syscall-exit
	// stop; it is resumed with PTRACE_SYSCALL until that exit.
	inCall bool
	row    *callRow
	regs   unix.PtraceRegs // at the seccomp stop
	ev     tracer.Event    // built at entry for atEntry and newProc rows
	// emitted: the call's event went out already (at the PTRACE_EVENT stop
	// of a fork/clone); the exit only ends the call.
	emitted bool
	// held: a new child whose first stop came before its parent's
	// PTRACE_EVENT stop; it stays stopped until the event is emitted.
	held bool
	// announced: the parent's event is emitted; the child's first SIGSTOP
	// is still to come and must be swallowed.
	awaitStop bool
	// detaching: SIGSTOP was sent (PTRACE_INTERRUPT for an attached
	// thread); the thread is detached at that stop (any stop of an attached
	// thread).
	detaching bool
	// attached: a thread of a process given to Options.Attach, or a
	// descendant of one. It was seized (PTRACE_SEIZE), has no filter of
	// ours, and is driven with PTRACE_SYSCALL: every call stops at its entry
	// and exit, and the calls the filter would have stopped are decoded
	// (see attach.go).
	attached bool
	// attaching: seized and sent PTRACE_INTERRUPT; its first stop (the
	// interrupt's PTRACE_EVENT_STOP, or an event that came before it and
	// cleared it) is still to come.
	attaching bool
	// lax: the thread's filter lets realpath's readlink run (see
	// inject.go): a thread of the command's own process (command), whatever
	// program that process executes, or a child of one that has not
	// executed a program yet. injecting: its execve was made a seccomp call
	// loading the strict filter, whose exit stop is still to come.
	lax, command, injecting bool
	// creds: the thread's rights against the tracer's (predict.go).
	creds int8
}

// loop is the tracer's state. All of it lives on one locked OS thread:
// ptrace requests are accepted only from the thread that is the tracer.
type loop struct {
	opts    Options
	root    int
	started bool // the root's first filtered call was seen
	rootWS  *syscall.WaitStatus
	// ending: the root exited (or the start failed): every thread is
	// being detached and nothing more is reported.
	ending bool
	tasks  map[int]*task
	// releasedEarly holds new children detached at their first stop
	// (ending) before their parent's PTRACE_EVENT stop was seen: that stop
	// must not wait for them.
	releasedEarly map[int]bool
	mem           memReader
	seq           int64
	stats         Stats
	// viewChanged: some tracee may see other files than the tracer at the
	// same absolute path (see Stats.Predicted).
	viewChanged bool
	linkBuf     [pathMax]byte
	myCreds     string // the tracer's rights (predict.go), once read
	batch       []tracer.Event
	out         chan<- []tracer.Event
}

// run starts the command and traces it until the root exits and all others
// are detached.
func (t *Tracer) run(ctx context.Context, self, path string, argv []string, opts Options, started chan<- error) {
	defer close(t.done)
	defer close(t.batches)
	runtime.LockOSThread()
	// The thread stays locked: it is (was) a tracer and must not run other
	// goroutines; it ends with this goroutine.
	if !opts.AllCPUs {
		pinToThisCPU()
	}

	lax := !opts.NoPredict && opts.Failed != tracer.FailedAll
	mode := childMode{nnp: opts.NoNewPrivs, lax: lax}.String()
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], childEnv+"="+mode)
	stdin := opts.Stdin
	if stdin == nil {
		devnull, err := os.Open(os.DevNull)
		if err != nil {
			started <- fmt.Errorf("%w: %v", ErrNoTracee, err)
			return
		}
		defer devnull.Close()
		stdin = devnull
	}
	stdout, stderr := opts.Stdout, opts.Stderr
	if stdout == nil {
		stdout = os.Stdout
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	l := &loop{
		opts:  opts,
		tasks: map[int]*task{},
		out:   t.batches,
	}
	// Attach first, so that nothing the command makes the attached
	// processes do is missed. A failure leaves none of them traced.
	if err := l.attachAll(opts.Attach); err != nil {
		l.release()
		started <- err
		return
	}
	childArgv := append([]string{"fsmove-ptrace-child", path}, argv...)
	pid, err := syscall.ForkExec(self, childArgv, &syscall.ProcAttr{
		Dir:   opts.Dir,
		Env:   env,
		Files: []uintptr{stdin.Fd(), stdout.Fd(), stderr.Fd()},
		Sys:   &syscall.SysProcAttr{Ptrace: true},
	})
	if err != nil {
		l.release()
		started <- fmt.Errorf("%w: %v", ErrNoTracee, err)
		return
	}
	// The child stops with SIGTRAP at its exec of this binary.
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, unix.WALL, nil); err != nil || !ws.Stopped() {
		l.release()
		started <- fmt.Errorf("%w: child did not stop at exec (%v)", ErrNoTracee, err)
		return
	}
	if err := unix.PtraceSetOptions(pid, firstOptions); err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		l.release()
		started <- fmt.Errorf("%w: PTRACE_SETOPTIONS: %v", ErrNoTracee, err)
		return
	}
	started <- nil

	// Cancelling kills the root; the loop then detaches the others.
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go func() {
		select {
		case <-ctx.Done():
			syscall.Kill(pid, syscall.SIGKILL)
		case <-stopWatch:
		}
	}()

	l.root = pid
	l.tasks[pid] = &task{tid: pid, lax: lax, command: true}
	unix.PtraceCont(pid, 0)
	err = l.wait()
	l.flush()
	t.stats = l.stats
	if l.rootWS != nil {
		t.exitCode = exitStatus(*l.rootWS)
		if l.rootWS.Exited() && l.rootWS.ExitStatus() == childExitCode && !l.started {
			err = fmt.Errorf("%w: the command could not be started (see its stderr)", ErrNoTracee)
		}
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	t.err = err
}

// wait is the main loop: one wait4 per stop.
func (l *loop) wait() error {
	for len(l.tasks) > 0 {
		var ws syscall.WaitStatus
		// One blocking wait per stop: a WNOHANG probe first (to hand the
		// events over whenever the tracees are all running) cost a system
		// call per stop, and stops are what tracing costs. Events are handed
		// over by batch (emit) and at the end instead.
		// __WNOTHREAD: only this thread's children and tracees, so that
		// processes other goroutines of the program start (os/exec) are
		// never reaped here.
		tid, err := syscall.Wait4(-1, &ws, unix.WALL|unix.WNOTHREAD, nil)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.ECHILD {
			return nil // nothing left to wait for (all gone)
		}
		if err != nil {
			return fmt.Errorf("ptrace: wait4: %w", err)
		}
		l.stats.Stops++
		l.stop(tid, ws)
	}
	return nil
}

// flush hands the gathered events to Next.
func (l *loop) flush() {
	if len(l.batch) > 0 {
		l.out <- l.batch
		l.batch = nil
	}
}

// emit appends a copy of ev (with a sequence number) to the batch.
func (l *loop) emit(ev *tracer.Event) {
	if l.ending {
		return // after the root's exit nothing is reported
	}
	if l.batch == nil {
		l.batch = make([]tracer.Event, 0, batchSize)
	}
	strace.Normalize(ev) // strace's argument list: trace.log reads back to this event
	l.seq++
	l.stats.Events++
	ev.Line = l.seq
	l.batch = append(l.batch, *ev)
	if len(l.batch) >= batchSize {
		l.flush()
	}
}

// stop handles one wait status of thread tid.
func (l *loop) stop(tid int, ws syscall.WaitStatus) {
	l.mem.forget()
	tk := l.tasks[tid]
	switch {
	case ws.Exited() || ws.Signaled():
		l.exited(tid, ws)
		return
	case !ws.Stopped():
		return // continued: nothing to do
	}
	if tk == nil {
		// A new child whose parent's PTRACE_EVENT stop has not been seen:
		// keep it stopped until the parent's event is emitted.
		tk = &task{tid: tid, held: true}
		l.tasks[tid] = tk
		if l.ending {
			l.detach(tk)
		}
		return
	}
	sig := ws.StopSignal()
	// The PTRACE_EVENT_* number, whatever the stop signal (a seized
	// thread's group-stop is PTRACE_EVENT_STOP with SIGSTOP, SIGTSTP…).
	event := int(uint32(ws) >> 16)
	if tk.attached {
		// Any stop of a thread being attached is its first under the
		// tracer. It need not be the interrupt's PTRACE_EVENT_STOP: a
		// fork, clone or exec event the thread was already inside when
		// interrupted stops first, and any ptrace stop clears the
		// pending interrupt, which then never reports (signal.c,
		// ptrace_stop: "any trap clears pending STOP trap"). Waiting for
		// it hung the attach while the thread ran on.
		first := tk.attaching
		tk.attaching = false
		switch {
		case tk.detaching:
			l.detachAt(tk, sig, event)
			return
		case event == unix.PTRACE_EVENT_STOP && isStopSignal(sig):
			// A group-stop (the process is stopped: SIGSTOP, SIGTSTP…):
			// honoured, as strace does for a seized process. The thread
			// stays stopped; SIGCONT brings another PTRACE_EVENT_STOP.
			tk.awaitStop = false
			if _, _, e := syscall.Syscall6(syscall.SYS_PTRACE, unix.PTRACE_LISTEN, uintptr(tid), 0, 0, 0, 0); e != 0 {
				l.resume(tk, 0)
			}
			return
		case event == unix.PTRACE_EVENT_STOP && (first || tk.awaitStop):
			// The first stop after PTRACE_SEIZE and PTRACE_INTERRUPT, or
			// a new child's first stop: from now on its calls stop.
			tk.awaitStop = false
			l.resume(tk, 0)
			return
		}
	}
	switch {
	case sig == syscall.SIGTRAP && event == unix.PTRACE_EVENT_SECCOMP:
		if tk.attached {
			// A filter of the process's own (SECCOMP_RET_TRACE): its call
			// is seen at the syscall-entry stop already.
			l.resume(tk, 0)
			return
		}
		l.seccompStop(tk)
	case sig == syscall.SIGTRAP|0x80:
		if tk.attached {
			l.syscallStop(tk)
			return
		}
		l.syscallExit(tk)
	case sig == syscall.SIGTRAP && (event == unix.PTRACE_EVENT_FORK || event == unix.PTRACE_EVENT_VFORK || event == unix.PTRACE_EVENT_CLONE):
		l.newChild(tk, event)
	case sig == syscall.SIGTRAP && event == unix.PTRACE_EVENT_EXEC:
		l.execStop(tk)
	case event != 0:
		l.resume(tk, 0) // other events (PTRACE_EVENT_STOP…): just go on
	default:
		l.signalStop(tk, sig)
	}
}

// resume restarts a stopped thread, delivering sig (0: none): an attached
// thread always with PTRACE_SYSCALL; another with PTRACE_SYSCALL while it
// is inside a traced call (to see its exit), else with PTRACE_CONT. Once
// the root has exited, always with PTRACE_CONT.
func (l *loop) resume(tk *task, sig syscall.Signal) {
	if (tk.inCall || tk.attached) && !l.ending {
		unix.PtraceSyscall(tk.tid, int(sig))
		return
	}
	unix.PtraceCont(tk.tid, int(sig))
}

// seccompStop is the entry of a filtered call.
func (l *loop) seccompStop(tk *task) {
	if !l.started && tk.tid == l.root {
		l.started = true
		unix.PtraceSetOptions(tk.tid, fullOptions)
	}
	if l.ending {
		l.resume(tk, 0)
		return
	}
	if err := unix.PtraceGetRegs(tk.tid, &tk.regs); err != nil {
		l.resume(tk, 0)
		return
	}
	if credNumbers[tk.regs.Orig_rax] {
		tk.creds = credsUnknown // read again before the next prediction
		l.resume(tk, 0)
		return
	}
	if tk.lax && !tk.command {
		if row := lookupCall(tk.regs.Orig_rax); row != nil && row.atEntry && l.injectStrict(tk) {
			return // the execve comes again, under the strict filter
		}
	}
	l.callEntry(tk, true)
}

// callEntry is the entry of a call whose registers are in tk.regs: at a
// seccomp stop (filtered) or at the syscall-entry stop of an attached
// thread. It notes the calls to decode and resumes the thread.
func (l *loop) callEntry(tk *task, filtered bool) {
	row := lookupCall(tk.regs.Orig_rax)
	if row == nil || (row.marker && !l.markerWanted(tk, row)) {
		l.resume(tk, 0)
		return
	}
	tk.row, tk.emitted = row, false
	if row.predict && filtered {
		// (An attached thread stops at the exit anyway: nothing to save.)
		if errno, ok := l.predictFailure(tk); ok {
			l.stats.Predicted++
			l.predictedFailure(tk, errno)
			return
		}
	}
	if row.open && filtered {
		if errno, ok := l.predictOpen(tk); ok {
			l.stats.PredictedOpens++
			l.predictedFailure(tk, errno)
			return
		}
	}
	if row.close && filtered && l.predictClose(tk) {
		l.stats.PredictedCloses++
		l.predicted(tk, 0, true)
		return
	}
	if row.stat && filtered {
		if errno, ok := l.predictStat(tk); ok {
			l.stats.PredictedStats++
			l.predicted(tk, errno, true)
			return
		}
	}
	if row.noReturn {
		l.startEvent(tk)
		l.decodeArgs(tk, false)
		tk.ev.Errno = "?"
		l.emit(&tk.ev)
		l.resume(tk, 0)
		return
	}
	if row.atEntry || row.newProc {
		l.startEvent(tk)
		l.decodeArgs(tk, false)
	}
	tk.inCall = true
	l.resume(tk, 0)
}

// predictedFailure ends tk's current call, whose failure with errno the
// tracer predicted at its seccomp stop: only a failed lookup is evidence
// (fstrace lowers it to a Missing statement), emitted with its path.
func (l *loop) predictedFailure(tk *task, errno syscall.Errno) {
	l.predicted(tk, errno, tk.row.lookup && linux.LookupErrno(linux.ErrnoName(int(errno))))
}

// predicted ends tk's current call, whose outcome (errno 0: success) the
// tracer predicted at its seccomp stop: its event, when emit, is emitted
// now as the call's exit would have emitted it, and the call runs on
// without its exit stop.
func (l *loop) predicted(tk *task, errno syscall.Errno, emit bool) {
	if emit {
		l.startEvent(tk)
		if errno != 0 {
			tk.ev.Ret, tk.ev.Errno = -1, linux.ErrnoName(int(errno))
		}
		l.decodeArgs(tk, errno == 0)
		l.emit(&tk.ev)
	}
	unix.PtraceCont(tk.tid, 0)
}

// startEvent starts the event of tk's current call.
func (l *loop) startEvent(tk *task) {
	ev := &tk.ev
	*ev = tracer.Event{Kind: tracer.KindSyscall, Pid: tk.tid, Syscall: tk.row.name,
		Args: make([]tracer.Arg, 0, len(tk.row.args))}
}

// syscallExit ends a call: the result, then (for a successful call) its
// arguments, then the event.
func (l *loop) syscallExit(tk *task) {
	if tk.injecting {
		l.injected(tk)
		return
	}
	if !tk.inCall {
		l.resume(tk, 0)
		return
	}
	tk.inCall = false
	var regs unix.PtraceRegs
	if err := unix.PtraceGetRegs(tk.tid, &regs); err != nil {
		l.resume(tk, 0)
		return
	}
	if tk.emitted {
		l.resume(tk, 0)
		return
	}
	ret := int64(regs.Rax)
	failed := ret < 0 && ret >= -4095
	errno := ""
	if failed {
		errno = linux.ErrnoName(int(-ret))
	}
	if tk.row.changesView && !failed {
		l.viewChanged = true
	}
	if tk.row.notLowered ||
		failed && l.opts.Failed != tracer.FailedAll && !(tk.row.lookup && linux.LookupErrno(errno)) {
		// Not lowered, or a failed call that is no failed lookup: not
		// delivered (tracer.FailedLookups).
		l.resume(tk, 0)
		return
	}
	if !tk.row.atEntry && !tk.row.newProc {
		l.startEvent(tk)
	}
	ev := &tk.ev
	if failed {
		ev.Ret, ev.Errno = -1, errno
	} else {
		ev.Ret = ret
	}
	if !tk.row.atEntry && !tk.row.newProc {
		l.decodeArgs(tk, !failed)
	}
	l.emit(ev)
	l.resume(tk, 0)
}

// newChild is the PTRACE_EVENT_{FORK,VFORK,CLONE} stop of the parent: the
// child exists and has not run. Its creation is emitted now.
func (l *loop) newChild(tk *task, event int) {
	msg, err := unix.PtraceGetEventMsg(tk.tid)
	child := int(msg)
	if err == nil && child > 0 {
		if !tk.inCall || tk.row == nil || !tk.row.newProc {
			// A creation the filter did not stop (should not happen): name it
			// by the event.
			tk.row = &callRow{name: map[int]string{unix.PTRACE_EVENT_FORK: "fork", unix.PTRACE_EVENT_VFORK: "vfork", unix.PTRACE_EVENT_CLONE: "clone"}[event], newProc: true}
			l.startEvent(tk)
		}
		tk.ev.Ret = int64(child)
		flags, _ := tk.ev.NamedArg("flags")
		if tk.row.name == "clone3" {
			flags = tk.ev.Arg(0)
		}
		if flags.Int&cloneNewNS != 0 {
			l.viewChanged = true
		}
		// A thread of the command's process is the command too; a new
		// process is not (its next execve gets the strict filter).
		command := tk.command && event == unix.PTRACE_EVENT_CLONE && flags.Int&unix.CLONE_THREAD != 0
		l.emit(&tk.ev)
		tk.emitted = true
		// The child is traced the same way as its parent.
		if c := l.tasks[child]; c != nil && c.held {
			c.held, c.attached, c.lax, c.command, c.creds = false, tk.attached, tk.lax, command, tk.creds
			l.resume(c, 0) // (held children are detached at once when ending)
		} else if c == nil && !l.releasedEarly[child] {
			l.tasks[child] = &task{tid: child, awaitStop: true, attached: tk.attached, lax: tk.lax, command: command, creds: tk.creds, detaching: l.ending}
		}
		delete(l.releasedEarly, child)
	}
	l.resume(tk, 0)
}

// execStop is PTRACE_EVENT_EXEC. When a thread other than the leader
// executed, it now has the leader's id: its call state moves there and the
// old thread id ends (strace: "+++ superseded by execve in pid N +++").
func (l *loop) execStop(tk *task) {
	msg, err := unix.PtraceGetEventMsg(tk.tid)
	former := int(msg)
	if err == nil && former != tk.tid && former > 0 {
		if old := l.tasks[former]; old != nil {
			old.tid = tk.tid
			old.ev.Pid = tk.tid
			delete(l.tasks, former)
			l.tasks[tk.tid] = old
			tk = old
		}
		l.emit(&tracer.Event{Kind: tracer.KindExit, Pid: former})
	}
	tk.creds = credsUnknown // a set-user-ID program, or capabilities recomputed
	l.resume(tk, 0)
}

// signalStop is a signal about to be delivered (or, for a thread not
// attached, a group-stop).
func (l *loop) signalStop(tk *task, sig syscall.Signal) {
	if sig == syscall.SIGSTOP && !tk.attached {
		switch {
		case tk.detaching:
			unix.PtraceDetach(tk.tid)
			delete(l.tasks, tk.tid)
			return
		case tk.awaitStop:
			tk.awaitStop = false
			if l.ending {
				unix.PtraceDetach(tk.tid)
				delete(l.tasks, tk.tid)
				return
			}
			l.resume(tk, 0)
			return
		}
	}
	if isStopSignal(sig) && !tk.attached {
		if !hasSiginfo(tk.tid) {
			// A group-stop (no siginfo): resume without honouring it.
			l.resume(tk, 0)
			return
		}
	}
	l.resume(tk, sig)
}

// exited is a thread's end.
func (l *loop) exited(tid int, ws syscall.WaitStatus) {
	if _, ok := l.tasks[tid]; !ok && tid != l.root {
		return
	}
	delete(l.tasks, tid)
	ev := tracer.Event{Kind: tracer.KindExit, Pid: tid}
	if ws.Signaled() {
		sig := ws.Signal()
		ev.Ret = -int64(sig)
		ev.Args = []tracer.Arg{{Kind: tracer.ArgInt, Int: int64(sig), Str: strace.SignalName(int(sig))}}
	} else {
		ev.Ret = int64(ws.ExitStatus())
	}
	l.emit(&ev)
	if tid == l.root {
		w := ws
		l.rootWS = &w
		l.endAll()
	}
}

// endAll starts detaching every thread: the root has exited. The loop
// (wait) ends when all are detached or gone.
func (l *loop) endAll() {
	l.ending = true
	for _, tk := range l.tasks {
		l.detach(tk)
	}
}

// release detaches every thread and waits until all are (after a failed
// start: the attached processes must go on untraced).
func (l *loop) release() {
	l.endAll()
	l.wait()
}

// detach lets a thread go. A thread stopped by us (held) is detached now;
// a running one is sent SIGSTOP and detached at that stop (PTRACE_DETACH
// needs a stopped tracee; the SIGSTOP is then suppressed). A new child
// whose first SIGSTOP is still to come is detached at that stop. An
// attached (seized) thread is stopped with PTRACE_INTERRUPT instead, and
// detached at whatever stop comes next (detachAt).
func (l *loop) detach(tk *task) {
	switch {
	case tk.held:
		unix.PtraceDetach(tk.tid)
		delete(l.tasks, tk.tid)
		if l.releasedEarly == nil {
			l.releasedEarly = map[int]bool{}
		}
		l.releasedEarly[tk.tid] = true
	case tk.awaitStop:
		tk.detaching = true
	case tk.detaching:
	case tk.attached:
		tk.detaching = true
		if err := unix.PtraceInterrupt(tk.tid); err != nil {
			delete(l.tasks, tk.tid) // gone already
		}
	default:
		tk.detaching = true
		if err := unix.Tgkill(tgidOf(tk.tid), tk.tid, unix.SIGSTOP); err != nil {
			delete(l.tasks, tk.tid) // gone already
		}
	}
}

// cloneNewNS is CLONE_NEWNS: the child gets its own mount namespace.
const cloneNewNS = 0x20000

// tgidOf returns the thread group (process) id of a thread, from /proc.
func tgidOf(tid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return tid
	}
	const key = "\nTgid:"
	for i := 0; i+len(key) < len(b); i++ {
		if string(b[i:i+len(key)]) == key {
			n := 0
			for j := i + len(key); j < len(b) && b[j] != '\n'; j++ {
				if b[j] >= '0' && b[j] <= '9' {
					n = n*10 + int(b[j]-'0')
				}
			}
			if n > 0 {
				return n
			}
			break
		}
	}
	return tid
}

// isStopSignal tells the signals that stop a process (a group-stop).
func isStopSignal(sig syscall.Signal) bool {
	return sig == syscall.SIGSTOP || sig == syscall.SIGTSTP || sig == syscall.SIGTTIN || sig == syscall.SIGTTOU
}

// hasSiginfo tells a signal-delivery-stop (PTRACE_GETSIGINFO works) from a
// group-stop (it fails with EINVAL).
func hasSiginfo(tid int) bool {
	var info [128]byte
	_, _, e := syscall.RawSyscall6(syscall.SYS_PTRACE, unix.PTRACE_GETSIGINFO, uintptr(tid), 0, uintptr(unsafe.Pointer(&info[0])), 0, 0)
	return e == 0
}

// pinToThisCPU keeps the calling thread, the tracer, on the CPU it runs on,
// and so the command it forks, which inherits the mask, and the command's
// children. Every stop hands the CPU from tracee to tracer and back: on one
// CPU that is a context switch, across two it is a wake-up of an idle CPU,
// which in a virtual machine costs a halt and its exit each time. Measured on
// the bench fixture's apply in a 2-CPU VM (85k events): 49 s unpinned, 11 s
// pinned, against 3 s untraced. Processes the tracer attached (PID 1) keep
// their own mask. Best effort: on failure nothing is pinned.
func pinToThisCPU() {
	var cpu uint32
	if _, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); errno != 0 {
		return
	}
	var set unix.CPUSet
	set.Set(int(cpu))
	_ = unix.SchedSetaffinity(0, &set) // 0: the calling thread
}
