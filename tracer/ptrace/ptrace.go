// Package ptrace is a native capture backend: a Go tracer that runs a
// command under ptrace with a seccomp-bpf filter, so that only the system
// calls the lowering needs stop the traced processes (SECCOMP_RET_TRACE);
// everything else runs at full speed.
//
// It delivers the same tracer.Events as the strace reader gives for
// `strace -f` text (strace's argument lists: strace.Normalize; same
// positions and kinds, clone's flags= by name, failed calls with their
// Errno), so fstrace lowers them unchanged, and strace.Writer saves them in
// strace's form, as a trace that fsmove analyze reads again to the same
// events.
//
// How it works (see tracer.go and child.go):
//   - The command is started through a re-execution of the current binary
//     that loads the filter and executes the command (child.go).
//   - At a seccomp stop the tracer notes the call and resumes with
//     PTRACE_SYSCALL; at the syscall-exit stop it reads the result and the
//     arguments (registers with PTRACE_GETREGS, strings with
//     process_vm_readv) and emits one event. Arguments are read at the exit
//     (execve's at its entry). Of the failed calls only the failed lookups
//     (ENOENT or ENOTDIR of a call that looks a path up: linux.LooksUp) are
//     emitted, unless Options.Failed is tracer.FailedAll.
//   - fork, vfork, clone and clone3 are followed (PTRACE_O_TRACE{FORK,VFORK,
//     CLONE}); their event is emitted at the PTRACE_EVENT stop with the new
//     pid, before the child runs, so a child's calls never precede its
//     creation in the stream.
//   - Writes (write, writev, pwrite64) are stopped and decoded with their
//     data on fds 1 and 2 (Puppet's block markers), and on other fds when
//     they write at most 32 bytes (a pid written to a cgroup.procs file).
//   - Processes already running can be followed as well (Options.Attach,
//     attach.go): they are seized and, having no filter, stopped at every
//     call's entry and exit (PTRACE_SYSCALL); the same calls are decoded.
//   - When the root process exits, every other process is detached (sent
//     SIGSTOP, detached at that stop with the signal suppressed; an
//     attached one is stopped with PTRACE_INTERRUPT) and left running:
//     daemons the command started are released, not waited for.
//     PTRACE_O_EXITKILL is deliberately not set. Next returns io.EOF once
//     all are detached or gone.
//
// Known limits: job-control stops (SIGSTOP, SIGTSTP from a terminal) are
// not honoured in the command's processes: a stopped tracee is resumed, as
// strace does without PTRACE_SEIZE (attached processes, which are seized,
// stay stopped: PTRACE_LISTEN). Only x86_64 system calls are decoded; 32-bit (int 0x80)
// calls pass the filter untraced.
package ptrace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/fsmove/fsmove/tracer"
)

// Options tune a trace.
type Options struct {
	// Dir is the command's working directory ("" for the tracer's).
	Dir string
	// Env is the command's environment (nil for the tracer's).
	Env []string
	// Stdin, Stdout and Stderr are the command's standard files (nil: /dev/null
	// for Stdin, the tracer's own for the others).
	Stdin, Stdout, Stderr *os.File
	// NoNewPrivs always sets no-new-privs before loading the filter. Without
	// it the child tries without first (it needs CAP_SYS_ADMIN) so that
	// setuid programs keep working, and sets it when that is refused.
	NoNewPrivs bool
	// DataBytes is how much of a write to fd 1 or 2 is read (block markers);
	// 0 means 512. Writes to other fds are stopped and decoded only when
	// they write at most 32 bytes in all (a pid written to cgroup.procs),
	// and then in full.
	DataBytes int
	// Attach lists processes already running to follow as well, from
	// before the command starts until its root exits: every thread of
	// each, and every process or thread they create meanwhile (in a
	// container booted with systemd, PID 1, which starts the services). They
	// are seized (PTRACE_SEIZE) and driven with PTRACE_SYSCALL, since they
	// have no filter; at the end they are detached and go on. Start fails
	// with ErrAttach, naming the pid, when one cannot be attached.
	Attach []int
	// Failed says which failed calls are emitted (tracer.Failed): by
	// default only the failed lookups, with their arguments, which is all
	// the analysis uses; tracer.FailedAll emits every failed call with its
	// arguments decoded from memory (a readable saved trace), and turns
	// prediction off (a predicted readlink would not be emitted).
	Failed tracer.Failed
	// NoPredict turns off the prediction of failed readlink calls (see
	// Stats.Predicted), of stats (Stats.PredictedStats), of failed
	// opens (Stats.PredictedOpens) and of closes (Stats.PredictedCloses),
	// and stops the
	// readlinks of the command's own realpath lookups (inject.go): every
	// traced call is then stopped twice and emitted.
	NoPredict bool
	// AllCPUs lets the command run on every CPU the tracer may use. By
	// default the tracer and the command share the CPU the tracer starts
	// on (pinToThisCPU), which makes each stop a context switch instead of
	// a cross-CPU wake-up; a command that works in parallel (make -j) loses
	// that parallelism, which Puppet, one Ruby thread, does not have.
	AllCPUs bool
}

// Stats counts what the tracer did.
type Stats struct {
	Stops  int64 // wait statuses handled: two stops per traced call, one per predicted one, one per exit; two per call of any kind in attached processes
	Events int64 // events emitted
	// Predicted counts readlink calls of an absolute path that the tracer,
	// trying the same readlink itself at the seccomp stop, saw fail with
	// ENOENT, EINVAL or ENOTDIR: the call is let run without a second stop
	// and, for EINVAL (not a link), without an event, since such a failed
	// call has no effect in the model; an ENOENT or ENOTDIR is a failed
	// lookup, which the model records, so its event (with its path) is
	// emitted at once.
	// In a Puppet run four calls in five are such readlinks, most of them
	// Puppet's own realpath lookups, which its filter no longer stops at
	// all (see inject.go); this is for the others. It is exact as long
	// as the tracer sees the same files as the tracee at the same absolute
	// path, hence: only absolute paths, none under /proc or /dev/fd (they
	// name the caller's own process), none after a chroot, unshare, setns,
	// pivot_root or clone(CLONE_NEWNS) anywhere in the trace. A link created
	// by another process in the microseconds between the two readlinks would
	// be missed.
	Predicted int64
	// Strict counts the programs the command started that were given the
	// full filter before they executed (see inject.go); StrictFailed
	// those whose filter could not be loaded (their realpath's readlinks
	// go unseen).
	Strict, StrictFailed int64
	// PredictedStats counts newfstatat calls whose outcome the tracer
	// learnt by making the same call at the seccomp stop: one stop each
	// instead of two (see predict.go).
	PredictedStats int64
	// PredictedOpens counts open and openat calls whose failed lookup
	// (ENOENT, ENOTDIR) the tracer learnt by a stat of the same name at
	// the seccomp stop: one stop each instead of two (predict.go).
	PredictedOpens int64
	// PredictedCloses counts close calls of an fd the tracee had open,
	// emitted as successes at the seccomp stop: one stop each instead of
	// two (predict.go).
	PredictedCloses int64
}

// Tracer is one traced command. It implements tracer.Source: Next returns
// the events in the order the tracer saw them (per process, the order of
// its calls). It is not safe for concurrent use, except Close.
type Tracer struct {
	batches chan []tracer.Event
	cur     []tracer.Event
	pos     int
	done    chan struct{} // closed when the loop has ended
	stop    context.CancelFunc

	// Set by the loop before done is closed.
	exitCode int
	err      error
	stats    Stats

	closeOnce sync.Once
}

var _ tracer.Source = (*Tracer)(nil)

// ErrNoTracee is returned when the command could not be started.
var ErrNoTracee = errors.New("ptrace: command not started")

// Start runs argv under the tracer, after attaching to the processes of
// opts.Attach. The command's own exit status comes from Wait. Cancelling ctx kills the root process (SIGKILL); the others are
// detached as when it exits.
//
// The caller must read Next until it fails, or call Wait or Close: events
// are handed over through a bounded queue, and when it is full the traced
// processes wait at their next stop.
func Start(ctx context.Context, argv []string, opts Options) (*Tracer, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: empty command", ErrNoTracee)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoTracee, err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%w: finding this binary: %v", ErrNoTracee, err)
	}
	if opts.DataBytes <= 0 {
		opts.DataBytes = 512
	}
	ctx, cancel := context.WithCancel(ctx)
	t := &Tracer{
		batches: make(chan []tracer.Event, 64),
		done:    make(chan struct{}),
		stop:    cancel,
	}
	started := make(chan error, 1)
	go t.run(ctx, self, path, argv, opts, started)
	if err := <-started; err != nil {
		cancel()
		<-t.done
		return nil, err
	}
	return t, nil
}

// Next returns the next event, or io.EOF once the root process has exited
// and every other process is detached. The event is valid until the next
// call. After a failure of the tracer itself, Next returns that error.
func (t *Tracer) Next() (*tracer.Event, error) {
	for t.pos >= len(t.cur) {
		b, ok := <-t.batches
		if !ok {
			<-t.done
			if t.err != nil {
				return nil, t.err
			}
			return nil, io.EOF
		}
		t.cur, t.pos = b, 0
	}
	ev := &t.cur[t.pos]
	t.pos++
	return ev, nil
}

// Wait waits for the end of the trace (reading and dropping the events
// Next has not returned) and returns the root process's exit status (128+N
// when killed by signal N).
func (t *Tracer) Wait() (exitCode int, err error) {
	for range t.batches {
	}
	<-t.done
	return t.exitCode, t.err
}

// Stats returns the tracer's counts; call it after Wait.
func (t *Tracer) Stats() Stats {
	select {
	case <-t.done:
		return t.stats
	default:
		return Stats{}
	}
}

// Close kills the root process if it is still running, detaches the
// others, and waits for the end of the trace. It is safe to call more than
// once and concurrently with Next.
func (t *Tracer) Close() error {
	t.closeOnce.Do(func() {
		t.stop()
		go func() {
			for range t.batches {
			}
		}()
	})
	<-t.done
	return nil
}

// exitStatus turns a wait status into a shell-style exit code.
func exitStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
