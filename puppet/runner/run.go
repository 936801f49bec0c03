package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/internal/lines"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/module"
)

// Options configure one run.
type Options struct {
	Module ModuleSpec
	Entry  Entry
	// Config is the project file the flags were read from (run.json).
	Config *ConfigRecord
	// ModulePath are local directories with the module's dependencies: each
	// is a directory of modules (Puppet's meaning) or a single module.
	ModulePath []string
	// Dependencies are the module's (ReadDependencies), found before any
	// container starts (the step "deps"); nil checks none (--no-deps).
	Dependencies []module.Dependency
	// DependencyWarnings are what ReadDependencies could not read: said
	// and recorded with the resolution's own warnings.
	DependencyWarnings []module.Warning
	Image              container.ImageOptions
	// Tracer names the capture backend (see captures); "" picks the
	// default (ChooseTracer).
	Tracer string
	// Trusted allows the tracers that run in the container (strace,
	// ptrace), which a module could subvert (ChooseTracer).
	Trusted bool
	// Untraced applies with no tracer at all (Tracer is ignored; run.json
	// says "none" and there is no trace.log): the same container, modules,
	// setup and puppet apply as a traced run, to time what tracing costs
	// ("fsmove bench --untraced").
	Untraced bool
	// CompileFirst runs the compile step in an untraced run too (a traced
	// run always does), so that its apply does the same work as a traced
	// one: it reads the facts the compile cached (compile.go). The bench's
	// untraced run, which times the apply, sets it; a confirmation's apply
	// does not, and so starts Puppet once.
	CompileFirst bool
	// TracerBinary is the fsmove binary the ptrace backend copies into the
	// container (the running executable, normally).
	TracerBinary string
	// AllowDrops accepts an eBPF capture that lost events; otherwise such a
	// run is incomplete and fails.
	AllowDrops bool
	// TracerNote says why Tracer was chosen (ChooseTracer), for run.json.
	TracerNote string
	// SeccompBPF passes --seccomp-bpf to strace.
	SeccompBPF bool
	// Init is the container's PID 1: systemd (the default, as on a host)
	// or none (for images without systemd).
	Init container.Init
	// DaemonCaps, Limits and Network configure the container's sandbox
	// (container.Spec).
	DaemonCaps bool
	Limits     container.Limits
	Network    string
	// MaxTrace caps trace.log (0: DefaultMaxTrace); a trace cut there
	// makes the run incomplete.
	MaxTrace int64
	// MaxDisk is the budget of what the container writes to its disk (0:
	// DefaultMaxDisk, negative: none); over it, the run stops (disk.go).
	MaxDisk int64
	// BootTimeout bounds systemd's boot in the container (default 90 s).
	BootTimeout time.Duration
	// OutDir receives the artifacts. It must be missing, empty, or hold
	// an earlier run (see CheckOutDir), which only Force replaces.
	OutDir string
	// Force empties an OutDir that holds an earlier run (fsmove's own file
	// names only; a directory with other files is refused all the same).
	Force bool
	// Keep leaves the container in place (for debugging) instead of
	// removing it.
	Keep bool
	// Verbose shows apt's and Puppet's output as it comes (to Log).
	Verbose bool
	// Debug prints to Log, too, the warnings that only follow from a
	// failure said by its cause (a lost engine, a full disk), which are
	// otherwise left out (warnf).
	Debug bool
	// Log receives verbose output and, on failure, the tail of the failing
	// step's output.
	Log           io.Writer
	Progress      *Progress
	FsmoveVersion string
	// Abort, when closed, ends at once what a run still does after ctx has
	// ended (interrupted, timed out): copying out what was captured, which
	// otherwise goes on for at most SalvageTimeout. fsmove run closes it
	// on a second Ctrl-C.
	Abort <-chan struct{}
	// Hold makes the step it names wait HoldFor (or until ctx ends) before
	// doing its work, so that tests can interrupt steps that take less
	// time than a signal needs to arrive. Tests only.
	Hold    string
	HoldFor time.Duration
	// Idempotence runs the same puppet apply a second time (a new
	// compilation), in the same container and traced the same way, once
	// the first apply's artifacts are out (--idempotence): its trace,
	// Puppet's log, report and catalog go to SecondDir, for the
	// non-idempotence (NI) findings.
	Idempotence bool
	// ForgeCheck, when set, reports whether the Forge can be reached
	// before anything is built (tests); nil leaves it to "puppet module
	// install", whose failure says what to do offline.
	ForgeCheck func(ctx context.Context) error
	// Then, when set, runs after an apply that Puppet finished (whatever
	// its status) and after the artifacts are copied out, in the same
	// container before it is removed, as the step "then": fsmove confirm
	// looks at the node, changes it and applies again through Node. Its
	// error fails the run.
	Then func(ctx context.Context, n *Node) error
}

// HoldStep waits HoldFor when Hold names step (tests only; see Hold).
func (o Options) HoldStep(ctx context.Context, step string) {
	if o.Hold == step && o.HoldFor > 0 {
		container.SleepCtx(ctx, o.HoldFor)
	}
}

// NodeName, the container's hostname, is fixed so that Puppet's node name, and with it the
// paths Puppet writes (reports/<node>/…), are the same in every run. It has
// a domain, as a host's name has, so that facter's fqdn and domain facts
// are set (modules build URLs and certificates from them). The .test TLD is
// reserved: it names no real host.
const NodeName = "fsmove-node.fsmove.test"

// SalvageTimeout bounds the copy of the artifacts out of the container
// after the run was interrupted or timed out (Options.Abort ends it
// sooner); copyTimeout bounds it otherwise.
const (
	SalvageTimeout = time.Minute
	copyTimeout    = 5 * time.Minute
)

// Run performs one traced apply and writes the artifacts and run.json to
// opts.OutDir. It returns the record even when it fails (with Status and
// Error set) unless the output directory itself cannot be written. The
// container is removed on every path out unless opts.Keep.
//
// When ctx ends (Ctrl-C, a timeout), Run stops the step that runs, copies
// out what the apply captured if it had started (at most SalvageTimeout,
// or until opts.Abort is closed), removes the container, and records
// status interrupted or timeout and the step in run.json. The error is
// then ctx's (context.Canceled or context.DeadlineExceeded).
func Run(ctx context.Context, eng *container.Engine, opts Options) (*RunRecord, error) {
	if opts.Init == "" {
		opts.Init = container.InitSystemd
	}
	if opts.BootTimeout == 0 {
		opts.BootTimeout = 90 * time.Second
	}
	if opts.Progress == nil {
		opts.Progress = NewProgress(io.Discard, true)
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	// Messages written while a step's line is drawn clear it first.
	opts.Log = opts.Progress.Writer(opts.Log)
	rec := &RunRecord{
		FsmoveVersion: opts.FsmoveVersion,
		Module:        opts.Module,
		Entry:         opts.Entry,
		Tracer:        opts.Tracer,
		Trusted:       opts.Trusted,
		TracerNote:    opts.TracerNote,
		Init:          opts.Init,
		ModulePath:    absPaths(opts.ModulePath),
		Config:        opts.Config,
		Started:       time.Now().UTC(),
		Artifacts:     []string{},
	}
	if opts.Untraced {
		rec.Tracer, rec.TracerNote = untraced.Name(), ""
	}
	if err := prepareOutDir(opts.OutDir, opts.Force); err != nil {
		return nil, err
	}
	if err := reserveRecord(*rec, opts.OutDir); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	r := &run{opts: opts, eng: eng, rec: rec, ctx: ctx, stop: stop}
	err := r.run(ctx)
	rec.Finished = time.Now().UTC()
	if err != nil && ctx.Err() != nil {
		// Stopped from outside (Ctrl-C, the timeout) or by the disk
		// watcher, whatever error the step saw on its way out (a closed
		// connection, a killed command).
		rec.Status, rec.Error = StoppedStatus(ctx)
		if rec.StoppedStep != "" {
			rec.Error += " during the " + rec.StoppedStep + " step"
		}
		err = ctx.Err()
		var overDisk *DiskBudgetError
		if errors.As(context.Cause(ctx), &overDisk) {
			// The module's doing, not the user's: said as the run's
			// own failure.
			rec.OverBudget = append(rec.OverBudget, fmt.Sprintf("the container's disk: %s written, over --max-disk %s",
				container.FormatBytes(overDisk.Written), container.FormatBytes(overDisk.Budget)))
			err = errors.New(rec.Error)
		}
	} else if err != nil {
		rec.Error = err.Error()
		if said := r.byCause(err); said != nil {
			why := said.Error()
			if rec.StoppedStep != "" {
				why += " during the " + rec.StoppedStep + " step"
			}
			rec.Error, rec.ErrorChain = why, underlying(err).Error()
			err = &causeError{line: why, err: err}
		}
		if rec.Status == "" {
			rec.Status = StatusInfraError
		}
	}
	rec.Artifacts = listArtifacts(opts.OutDir)
	if werr := rec.Write(opts.OutDir); werr != nil && err == nil {
		err = werr
	}
	return rec, err
}

// StoppedStatus is the status of a run whose ctx ended, and why in words:
// timeout ("the run took longer than …", ctx's cause) or interrupted
// ("interrupted by SIGINT", the cause fsmove run gives).
func StoppedStatus(ctx context.Context) (status, why string) {
	cause := context.Cause(ctx)
	var overDisk *DiskBudgetError
	if errors.As(cause, &overDisk) {
		return StatusOverBudget, overDisk.Error()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		why = "timed out"
		if cause != nil && cause != context.DeadlineExceeded {
			why = cause.Error()
		}
		return StatusTimeout, why
	}
	why = "interrupted"
	if cause != nil && cause != context.Canceled {
		why = cause.Error()
	}
	return StatusInterrupted, why
}

// run holds the state of one Run.
type run struct {
	opts Options
	eng  *container.Engine
	rec  *RunRecord
	c    *container.Container
	capt Capture
	ctx  context.Context         // the run's, which Ctrl-C, the timeout and the disk budget end
	stop context.CancelCauseFunc // ends ctx with a cause (the disk budget)
	// traceCut: trace.log reached Options.MaxTrace, the rest is lost.
	traceCut bool
	// tampered: artifacts the container replaced (container.ErrTampered).
	tampered []error
	// compiled: the catalog and graphs in the output directory were
	// compiled before the apply (compile.go); forged: how what Puppet
	// wrote during the apply differs from them.
	compiled bool
	forged   []string
	// deps: where the dependencies were found (deps.go).
	deps module.Resolution
}

// step runs fn as a named progress step, whose work ctx bounds, and
// records its timing. A step that fails is the run's stopped_step; one that
// fails because ctx ended when the run's had ended says so (interrupted,
// timed out) rather than how its call broke off.
func (r *run) step(ctx context.Context, name, msg string, fn func(s *Step) (string, error)) error {
	s := r.opts.Progress.Start(name, msg)
	r.opts.HoldStep(ctx, name)
	result, err := fn(s)
	var outcome stepOutcome
	if errors.As(err, &outcome) {
		// The step did its work (run.json's ok: Puppet ran to its end,
		// its time counts), with a bad outcome the run goes on with.
		d := s.Fail(string(outcome))
		r.rec.AddStep(name, d, true, string(outcome))
		return nil
	}
	if err != nil {
		if ctx.Err() == nil {
			if said := r.byCause(err); said != nil {
				err = said // the engine is asked once, here
			}
		}
		detail := lines.First(err.Error())
		if ctx.Err() != nil && r.ctx.Err() != nil {
			_, detail = StoppedStatus(r.ctx)
		}
		d := s.Fail(detail)
		r.rec.AddStep(name, d, false, detail)
		if r.rec.StoppedStep == "" {
			r.rec.StoppedStep = name
		}
		return err
	}
	d := s.Done(result)
	r.rec.AddStep(name, d, true, result)
	return nil
}

// stepOutcome is what a step's function returns when the step did its
// work but the outcome is a failure the run goes on with (Puppet could not
// compile the catalog): the step's line says it, and the run continues.
type stepOutcome string

func (o stepOutcome) Error() string { return string(o) }

func (r *run) run(ctx context.Context) (err error) {
	capt := untraced
	if !r.opts.Untraced {
		c, note, err := ChooseTracer(r.opts.Tracer, r.opts.Trusted)
		if err != nil {
			return err
		}
		capt = c
		r.rec.Tracer = c.Name()
		if note != "" {
			r.rec.TracerNote = note
		}
	}
	r.capt = capt
	site, err := r.opts.Entry.SitePP(r.opts.Module.Name)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.opts.OutDir, SiteFile), []byte(site), 0o644); err != nil {
		return err
	}
	if r.opts.Module.Kind == SourceForge {
		// Offline, fail before building anything.
		if err := r.forgeReachable(ctx); err != nil {
			return err
		}
	}
	if r.eng == nil {
		return errors.New("no Docker engine")
	}
	r.rec.Engine = r.eng.ServerVersion

	if err := r.step(ctx, "image", "checking "+r.opts.Image.ImageTag(), func(s *Step) (string, error) {
		imgOpts := r.opts.Image
		imgOpts.Status = s.Update
		if r.opts.Verbose {
			imgOpts.Log = r.opts.Log
		}
		info, err := r.eng.EnsureImage(ctx, imgOpts)
		if err != nil {
			return "", err
		}
		r.rec.Image = info
		return fmt.Sprintf("%s %s (%s)", info.Tag, shortImageID(info.ID), info.Method), nil
	}); err != nil {
		return err
	}
	if err := r.resolveDeps(ctx); err != nil {
		return err
	}

	err = r.step(ctx, "container", "starting", func(s *Step) (string, error) {
		spec := container.Spec{
			Image:      r.rec.Image.ID,
			Hostname:   NodeName,
			Env:        []string{"LANG=C.UTF-8"},
			Labels:     map[string]string{"fsmove.module": r.opts.Module.Raw},
			Init:       r.opts.Init,
			Ptrace:     capt.NeedsPtrace(),
			DaemonCaps: r.opts.DaemonCaps,
			Limits:     r.opts.Limits,
			Network:    r.opts.Network,
		}
		if err := ctx.Err(); err != nil {
			return "", err
		}
		// Create finishes even when ctx ends meanwhile, so that a
		// container the engine made is known here and removed below.
		c, err := r.eng.Create(ctx, spec)
		if err != nil {
			return "", err
		}
		r.c = c
		r.rec.ContainerID = c.ID
		r.rec.Sandbox = &c.Config
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if r.opts.Init == container.InitSystemd {
			r.installLift(ctx)
		}
		if err := c.Start(ctx); err != nil {
			return "", err
		}
		if r.opts.Init == container.InitSystemd {
			s.Update("waiting for systemd to boot")
			state, err := c.WaitBooted(ctx, r.opts.BootTimeout)
			if err != nil {
				return "", err
			}
			r.rec.SystemState = state
		}
		// One exec for both (query.go).
		answers := r.ask(ctx, linksQuestion, versionsQuestion)
		r.recordImageLinks(answers[linksQuestion.name])
		r.versions(answers[versionsQuestion.name])
		return fmt.Sprintf("%s, init %s (puppet %s, strace %s)", c.ShortID(), r.opts.Init, r.rec.PuppetVersion, r.rec.StraceVersion), nil
	})
	if err != nil && r.c != nil {
		r.removeContainer(ctx)
	}
	if err != nil {
		return err
	}
	defer func() {
		if rmErr := r.removeContainer(ctx); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	defer r.watchDisk(ctx)()

	var modulePath []string
	if err := r.step(ctx, "modules", "putting "+r.opts.Module.Raw+" in place", func(s *Step) (string, error) {
		var err error
		modulePath, err = r.putModules(ctx, s, site)
		return strings.Join(modulePath, ":"), err
	}); err != nil {
		return err
	}

	// --setup and --setup-file: the node's preparation, untraced (setup.go).
	if err := r.setup(ctx); err != nil {
		return err
	}
	accounts := r.ask(ctx, accountsQuestion)
	r.saveAnswer(accounts[accountsQuestion.name], AccountsFile, "an account a package makes for a resource that names it is not checked")
	if !r.opts.Untraced || r.opts.CompileFirst {
		if err := r.compile(ctx, modulePath); err != nil {
			return err
		}
	}

	args := PuppetApplyArgs(modulePath)
	if r.compiled {
		args = append(cachedFactsArgs(), args...)
	}
	cmd := capt.Command(r.opts, args)
	r.rec.Command = cmd
	r.rec.TraceFilter = capt.Filter()
	applyErr := r.step(ctx, StepApply, "puppet apply under "+capt.Name(), func(s *Step) (string, error) {
		status, err := r.applyOnce(ctx, cmd, r.opts.OutDir, &r.rec.DroppedEvents, &r.rec.OutsideCalls)
		if err == nil || status != 0 {
			r.rec.ApplyExit = intPtr(status)
		}
		if err != nil {
			return "", err
		}
		return r.applyOutcome(ctx)
	})

	// Copy out whatever there is, also after a failed, timed-out or
	// interrupted apply: a captured trace is never thrown away. After an
	// interrupt or a timeout the copy is bounded (SalvageTimeout, or a
	// second Ctrl-C through Abort); one that comes during the copy does
	// not stop it either, but the run is then interrupted all the same.
	// (A test's Hold of the copy lasts as the copy would: the first
	// signal does not end it, the second does.)
	copyCtx, cancel := r.salvageContext(ctx)
	defer cancel()
	copyErr := r.step(copyCtx, "copy", "copying artifacts to "+r.opts.OutDir, func(s *Step) (string, error) {
		return r.copyOut(copyCtx)
	})
	if applyErr != nil {
		return applyErr
	}
	if ctx.Err() != nil {
		if r.rec.StoppedStep == "" {
			r.rec.StoppedStep = "copy"
		}
		return ctx.Err()
	}
	if copyErr != nil {
		return copyErr
	}
	r.setPuppetStatus()
	if r.opts.Idempotence {
		if err := r.secondApply(ctx, modulePath); err != nil {
			return err
		}
	}
	if r.opts.Then != nil {
		n := &Node{r: r, modulePath: modulePath}
		if err := r.step(ctx, StepThen, "looking at the node", func(s *Step) (string, error) {
			return "done", r.opts.Then(ctx, n)
		}); err != nil {
			return err
		}
	}
	r.judgeCapture()
	return nil
}

// applyOnce runs cmd, a traced puppet apply, in the container, with the
// host tracer around it when the capture has one (writing trace.log in
// outDir; its lost events and outside calls go to dropped and outside). It
// returns the apply wrapper's status, which must be 0 (it ran Puppet to its
// end) for the apply to count.
func (r *run) applyOnce(ctx context.Context, cmd []string, outDir string, dropped, outside *uint64) (int, error) {
	host, err := r.capt.StartHost(ctx, r.c, outDir, r.maxTrace())
	if err != nil {
		return 0, fmt.Errorf("starting the %s tracer: %w", r.capt.Name(), err)
	}
	var out bytes.Buffer
	status, err := r.c.Exec(ctx, cmd, nil, &out)
	if host != nil {
		stopped, stopErr := host.Stop()
		*dropped, *outside = stopped.Dropped, stopped.Outside
		if stopped.Cut {
			r.overBudget([]string{fmt.Sprintf("%s was cut at %s, its cap (--max-trace)", TraceFile, container.FormatBytes(r.maxTrace()))}, true)
		}
		if err == nil && stopErr != nil {
			err = fmt.Errorf("the %s tracer: %w", r.capt.Name(), stopErr)
		}
	}
	if err != nil {
		return 0, err
	}
	if status != 0 {
		return status, fmt.Errorf("the traced apply failed (status %d): %s", status, strings.TrimSpace(out.String()))
	}
	return status, nil
}

// judgeCapture marks a run whose capture cannot be trusted: tampered
// artifacts, a cut trace, processes seen outside the container's cgroup,
// lost events (unless --allow-drops). Each problem is said in Error, after
// Puppet's own; the analysis still runs on what was captured.
func (r *run) judgeCapture() {
	status := ""
	var problems []string
	if len(r.tampered) > 0 {
		status = StatusTampered
		problems = append(problems, fmt.Sprintf("the module tampered with what fsmove copies out of the container, which was left out: %v", errors.Join(r.tampered...)))
	}
	if len(r.forged) > 0 {
		status = StatusTampered
		problems = append(problems, "the module changed what Puppet wrote during the apply (the analysis reads what Puppet compiled before it): "+strings.Join(r.forged, "; "))
	}
	if r.traceCut {
		problems = append(problems, fmt.Sprintf("%s reached its cap of %s and was cut there: the rest of the run is not in it "+
			"(raise --max-trace)", TraceFile, container.FormatBytes(r.maxTrace())))
	}
	if r.rec.OutsideCalls > 0 {
		// Never accepted: the container got out of what it was given.
		problems = append(problems, fmt.Sprintf("%d system calls came from processes of the container that had left its cgroup, "+
			"which the container cannot do unless it got around fsmove's sandbox: the trace may be incomplete", r.rec.OutsideCalls))
	}
	if r.rec.DroppedEvents > 0 && !r.opts.AllowDrops {
		problems = append(problems, fmt.Sprintf("the %s tracer lost %d events (or saw processes it cannot name, in a pid namespace "+
			"of their own): the trace is incomplete (rerun, or accept it with --allow-drops)", r.capt.Name(), r.rec.DroppedEvents))
	}
	if sec := r.rec.Second; sec != nil {
		problems = append(problems, sec.captureProblems(r.capt.Name(), r.opts.AllowDrops)...)
	}
	if len(problems) == 0 {
		return
	}
	if status == "" {
		status = StatusIncomplete
	}
	if r.rec.Status != StatusOK && r.rec.Error != "" {
		problems = append([]string{r.rec.Error}, problems...)
	}
	r.rec.Status, r.rec.Error = status, strings.Join(problems, "; ")
}

// salvageContext is the context of the copy-out: not ended by ctx, which
// may have ended already (the apply was interrupted or timed out) or end
// during the copy. Once ctx has ended, the copy has SalvageTimeout left,
// and Options.Abort ends it at once.
func (r *run) salvageContext(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), copyTimeout)
	go func() {
		select {
		case <-c.Done():
			return
		case <-ctx.Done():
		}
		_, why := StoppedStatus(ctx)
		fmt.Fprintf(r.opts.Log, "fsmove: %s; copying out what was captured (at most %s; interrupt again to stop now)\n", why, SalvageTimeout)
		t := time.NewTimer(SalvageTimeout)
		defer t.Stop()
		select {
		case <-c.Done():
		case <-t.C:
			cancel()
		case <-r.opts.Abort:
			cancel()
		}
	}()
	return c, cancel
}

// removeContainer removes the run's container, unless --keep, and records
// which in run.json's container.
func (r *run) removeContainer(ctx context.Context) error {
	if r.opts.Keep {
		if err := r.c.Keep(ctx); err != nil {
			r.rec.Container = ContainerLeft
			return err
		}
		r.rec.Container = ContainerKept
		fmt.Fprintf(r.opts.Log, "fsmove: kept container %s (docker rm -f %s removes it)\n", r.c.Name, r.c.Name)
		return nil
	}
	if err := r.c.Remove(ctx); err != nil {
		r.rec.Container = ContainerLeft
		return err
	}
	r.rec.Container = ContainerRemoved
	return nil
}

// applyOutcome says, for the apply step's line, how Puppet ended: from
// its exit status and whether it wrote a catalog, read in the container
// (the artifacts are copied out after the step). A failure is a
// stepOutcome: the run goes on to copy out what there is.
func (r *run) applyOutcome(ctx context.Context) (string, error) {
	var out bytes.Buffer
	script := `cat "$1" 2>/dev/null; test -e "$2" && echo catalog`
	if _, err := r.c.Exec(ctx, []string{"/bin/sh", "-c", script, "fsmove", puppetExitPath, catalogDir + "/" + NodeName + ".json"}, nil, &out); err != nil {
		return "puppet finished", nil // the copy and run.json say the rest
	}
	fields := strings.Fields(out.String())
	exit, err := strconv.Atoi(firstOr(fields, ""))
	catalog := len(fields) > 1 && fields[1] == "catalog"
	switch {
	case err != nil:
		return "", stepOutcome("Puppet's exit status is unknown (killed?)")
	case PuppetSucceeded(exit):
		return fmt.Sprintf("puppet finished (%s)", PuppetOutcome(exit)), nil
	case !catalog:
		return "", stepOutcome(fmt.Sprintf("Puppet could not compile the catalog (exit %d)", exit))
	}
	return "", stepOutcome(fmt.Sprintf("Puppet applied the catalog with failures (exit %d)", exit))
}

// firstOr is words[0], or def when there is none.
func firstOr(words []string, def string) string {
	if len(words) == 0 {
		return def
	}
	return words[0]
}

// setPuppetStatus fills Status from Puppet's exit status.
func (r *run) setPuppetStatus() {
	switch {
	case r.rec.PuppetExit == nil:
		r.rec.Status = StatusPuppetFailed
		r.rec.Error = "Puppet's exit status is unknown (killed?)"
	case PuppetSucceeded(*r.rec.PuppetExit):
		r.rec.Status = StatusOK
	case r.expectedFailuresOnly():
		// Only daemons started despite a lifted condition failed (lift.go):
		// the apply did what a host's would; what Puppet then skipped is
		// in the coverage, not checked.
		r.rec.Status = StatusOK
	case !files.Exists(filepath.Join(r.opts.OutDir, CatalogFile)):
		r.rec.Status = StatusCompileFailed
		r.rec.Error = fmt.Sprintf("Puppet could not compile the catalog (exit %d)", *r.rec.PuppetExit)
	default:
		r.rec.Status = StatusPuppetFailed
		r.rec.Error = fmt.Sprintf("Puppet exited with %d (%s)", *r.rec.PuppetExit, PuppetOutcome(*r.rec.PuppetExit))
	}
}

// versionsQuestion asks dpkg for Puppet's and strace's versions (no Ruby
// start-up); versions reads its answer.
var versionsQuestion = question{"versions", `dpkg-query -W -f '${Package} ${Version}\n' puppet-agent strace`, 1 << 12}

func (r *run) versions(a *answer) {
	if a.err() != nil {
		return
	}
	for _, line := range strings.Split(a.out.String(), "\n") {
		pkg, v, _ := strings.Cut(line, " ")
		switch pkg {
		case "puppet-agent":
			r.rec.PuppetVersion = v
		case "strace":
			r.rec.StraceVersion = v
		}
	}
}

// putModules copies the module, its dependencies, the entry manifest and
// the apply script into the container, or installs the module there, and
// returns Puppet's module path.
func (r *run) putModules(ctx context.Context, s *Step, site string) ([]string, error) {
	a := container.NewArchive()
	a.AddFile(applyScript, applySh, 0o755)
	files, err := r.capt.Files(r.opts)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		a.AddFile(f.Path, f.Data, f.Mode)
	}
	a.AddFile(sitePP, []byte(site), 0o644)
	a.AddFile(factsSaveRoutes, factsSave, 0o644)
	a.AddFile(factsLoadRoutes, factsLoad, 0o644)
	a.AddFile(graphDir+"/.keep", nil, 0o644)
	var modulePath []string
	m := r.opts.Module
	r.rec.PathMap = map[string]string{}
	if m.Kind == SourceDir {
		skip, err := ModuleCopySkip(m.Dir, r.opts.OutDir)
		if err != nil {
			return nil, err
		}
		a.AddDirExcept(m.Dir, modulesDir+"/"+m.Name, skip)
		modulePath = append(modulePath, modulesDir)
		r.rec.PathMap[modulesDir+"/"+m.Name] = m.Dir
	}
	for i, dir := range r.opts.ModulePath {
		entry, err := modulePathEntry(dir, fmt.Sprintf("%s/%d", modulePathDir, i))
		if err != nil {
			return nil, err
		}
		a.AddDir(dir, entry.archiveName)
		modulePath = append(modulePath, entry.puppetDir)
		if abs, err := filepath.Abs(dir); err == nil {
			r.rec.PathMap[entry.archiveName] = abs
		}
	}
	if dir := r.addFixtures(a); dir != "" {
		modulePath = append(modulePath, dir)
	}
	if m.Kind == SourceForge {
		modulePath = append(modulePath, forgeDir)
	}
	// Given explicitly: with --modulepath, Puppet does not add its
	// basemodulepath, where Debian's packaged modules live.
	modulePath = append(modulePath, debianModules)
	a.AddFile(strings.TrimPrefix(puppetConf, "/"), []byte(PuppetConf(modulePath)), 0o644)
	data, err := a.Bytes()
	if err != nil {
		return nil, err
	}
	if err := r.c.CopyIn(ctx, "/", bytes.NewReader(data)); err != nil {
		return nil, err
	}
	if err := r.installDebDeps(ctx, s); err != nil {
		return nil, err
	}

	switch m.Kind {
	case SourceDeb:
		s.Update("apt-get install " + m.Package)
		script := "apt-get update -q && apt-get install -y --no-install-recommends " + m.Package
		if err := r.execLogged(ctx, "apt-get install "+m.Package, []string{"/bin/sh", "-c", script},
			[]string{"DEBIAN_FRONTEND=noninteractive"}); err != nil {
			return nil, fmt.Errorf("%w\n(is %s a Debian package? apt-cache search --names-only '^puppet-module-' lists them)", err, m.Package)
		}
		if err := r.findDebModule(ctx, s, site); err != nil {
			return nil, err
		}
	case SourceForge:
		s.Update("puppet module install " + m.Raw)
		cmd := []string{"puppet", "module", "install", m.Author + "-" + m.Name, "--target-dir", forgeDir}
		if m.Version != "" {
			cmd = append(cmd, "--version", m.Version)
		}
		if err := r.execLogged(ctx, "puppet module install", cmd, nil); err != nil {
			// Puppet's own module_repository setting names the Forge: fsmove
			// names no registry host itself.
			return nil, fmt.Errorf("%w\n(does the container reach Puppet's module_repository? %s)", err, r.forgeHint())
		}
	}
	return modulePath, nil
}

// PuppetConf is /etc/puppet/puppet.conf in the container: the run's module
// path is also Puppet's basemodulepath, so that the puppet and facter
// processes a catalog starts itself (an Exec running "puppet resource", a
// fact calling facter) find the module's types, providers and facts as they
// would on a host where the module is installed. (Debian's own puppet.conf
// holds only comments.)
func PuppetConf(modulePath []string) string {
	return "# Written by fsmove: the modules of this run are on the default module path.\n" +
		"[main]\nbasemodulepath = " + strings.Join(modulePath, ":") + "\n"
}

// execLogged runs a setup command, showing its output with -v and its tail
// when it fails.
func (r *run) execLogged(ctx context.Context, what string, cmd, env []string) error {
	var out bytes.Buffer
	w := io.Writer(&out)
	if r.opts.Verbose {
		w = io.MultiWriter(&out, r.opts.Log)
	}
	status, err := r.c.Exec(ctx, cmd, env, w)
	if err != nil {
		return err
	}
	if status != 0 {
		return execFailure(what, status, out.String())
	}
	return nil
}

// execFailure is the error of a command that exited with status: its last
// lines of output, without the colour sequences Puppet writes (puppet
// module install's "Error:" lines), which a terminal would show escaped.
func execFailure(what string, status int, output string) error {
	return fmt.Errorf("%s failed (status %d):\n%s", what, status, lines.Last(StripANSI(output), 15))
}

// modulePathTarget says where one --modulepath directory goes.
type modulePathTarget struct {
	archiveName string // where the directory is unpacked
	puppetDir   string // what goes on Puppet's module path
}

// modulePathEntry places a --modulepath directory: a directory of modules
// goes to dest itself; a single module goes to dest/<its name>. A single
// module has manifests/ or metadata.json, or only Ruby code (lib/puppet or
// lib/facter: types, providers, functions, facts) and no manifests.
func modulePathEntry(dir, dest string) (modulePathTarget, error) {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return modulePathTarget{}, fmt.Errorf("--modulepath %s: no such directory", dir)
	case err != nil:
		return modulePathTarget{}, fmt.Errorf("--modulepath %s: %w", dir, err)
	case !info.IsDir():
		return modulePathTarget{}, fmt.Errorf("--modulepath %s: not a directory (give a directory of modules, or one module)", dir)
	}
	single := false
	for _, marker := range []string{"manifests", "metadata.json", "lib/puppet", "lib/facter"} {
		single = single || files.Exists(filepath.Join(dir, marker))
	}
	if !single {
		return modulePathTarget{archiveName: dest, puppetDir: dest}, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return modulePathTarget{}, fmt.Errorf("--modulepath %s: %w", dir, err)
	}
	_, name, err := dirModuleName(abs)
	if err != nil {
		return modulePathTarget{}, fmt.Errorf("--modulepath %s: %w", dir, err)
	}
	return modulePathTarget{archiveName: dest + "/" + name, puppetDir: dest}, nil
}

// Budgets of what is copied out of the container: the trace (Options.MaxTrace,
// cut there), and each other artifact and all of them (left out when over).
// A Puppet run's log and graphs are a few MB; more is a module filling them.
const (
	DefaultMaxTrace    = 4 << 30
	ArtifactFileBudget = 256 << 20
	ArtifactsBudget    = 1 << 30
)

// takeTrace puts the apply's trace.log in dir, within its cap (a cut
// trace makes the run incomplete), and returns its size: copied out of
// the container when the tracer ran there, already written by a host
// tracer, none without a tracer.
func (r *run) takeTrace(ctx context.Context, dir string) (int64, error) {
	switch r.capt.Trace() {
	case NoTrace:
		return 0, nil
	case InContainer:
		trace := &container.Budget{PerFile: r.maxTrace(), Total: r.maxTrace(), Cut: true}
		_, err := r.copyFile(ctx, tracePath, dir, trace)
		r.overBudget(trace.Over, true)
		if err != nil {
			return 0, err
		}
	}
	info, err := os.Stat(filepath.Join(dir, TraceFile))
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

// copyOut brings the artifacts to the output directory, within their
// budgets, and reads Puppet's exit status. Missing pieces (no catalog after
// a compile error) are not errors; a missing trace is. An artifact that the
// container replaced with something else than a file or a directory is
// left out and recorded (r.tampered): the run fails, after the analysis of
// what was captured.
func (r *run) copyOut(ctx context.Context) (string, error) {
	dir := r.opts.OutDir
	artifacts := &container.Budget{PerFile: ArtifactFileBudget, Total: ArtifactsBudget}
	get := func(path, dest string, budget *container.Budget) (string, error) {
		return r.copyFile(ctx, path, dest, budget)
	}
	traceBytes, err := r.takeTrace(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("no trace: %w", err)
	}
	r.rec.TraceBytes = traceBytes

	// The catalog is <certname>.json, kept as catalog.json. It passes
	// through a temporary directory. When the catalog and graphs were
	// compiled before the apply (compile.go), the apply's own are only
	// compared with them, from the temporary directory.
	tmp, err := os.MkdirTemp(dir, ".catalog-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	keep := dir
	if r.compiled {
		keep = tmp
	}
	exit := r.takeApplied(ctx, dir, keep, artifacts)
	if err := r.copyCatalog(ctx, tmp, keep, artifacts); err != nil {
		return "", err
	}
	r.compareApplied(tmp)

	r.copySources(ctx)
	if file, err := get(lastRunReport, dir, artifacts); err == nil && file == PuppetReportFile {
		r.rec.Report = PuppetReportFile
	}
	r.askAfterApply(ctx)

	if exit != nil {
		r.rec.PuppetExit = exit
		r.rec.PuppetOutcome = PuppetOutcome(*exit)
	}
	r.checkPuppetExit()
	r.overBudget(artifacts.Over, false)
	if err := ctx.Err(); err != nil {
		// A second interrupt or the copy's deadline cut it short: what
		// came after is missing, and the step says why (the warnings of
		// the missing parts are left out: followsFailure).
		return "", fmt.Errorf("the copy was stopped: %w", err)
	}
	return fmt.Sprintf("trace %s, %d artifacts", container.FormatBytes(r.rec.TraceBytes), len(listArtifacts(dir))), nil
}

// takeApplied brings out, in one request of applyDir (fsmove's directory
// of apply.sh and what the apply writes), Puppet's log to logDir and its
// graphs to graphsDir's GraphsDir (none when graphsDir is ""), within
// budget. It returns Puppet's exit status as apply.sh or plainApply wrote
// it, nil when there is none. (strace's trace, there too, is taken before,
// with a budget of its own.) A file that the container replaced with
// something else is left out and recorded (r.tampered).
func (r *run) takeApplied(ctx context.Context, logDir, graphsDir string, budget *container.Budget) *int {
	tmp, err := os.MkdirTemp(r.opts.OutDir, ".apply-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(tmp)
	base := path.Base(applyDir)
	logEntry, exitEntry := base+"/"+path.Base(puppetLogPath), base+"/"+path.Base(puppetExitPath)
	want := map[string]string{logEntry: PuppetLogFile, exitEntry: path.Base(puppetExitPath)}
	for _, g := range graphFiles {
		want[base+"/"+path.Base(graphDir)+"/"+g] = GraphsDir + "/" + g
	}
	wrote := r.copyFiles(ctx, applyDir, tmp, want, budget)
	if wrote[logEntry] {
		os.Rename(filepath.Join(tmp, PuppetLogFile), filepath.Join(logDir, PuppetLogFile))
	}
	for _, g := range graphFiles {
		if graphsDir != "" && wrote[base+"/"+path.Base(graphDir)+"/"+g] && os.MkdirAll(filepath.Join(graphsDir, GraphsDir), 0o755) == nil {
			os.Rename(filepath.Join(tmp, GraphsDir, g), filepath.Join(graphsDir, GraphsDir, g))
		}
	}
	if !wrote[exitEntry] {
		return nil
	}
	data, _ := os.ReadFile(filepath.Join(tmp, path.Base(puppetExitPath)))
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return nil
	}
	return &n
}

// copyCatalog copies the catalog Puppet cached (<certname>.json) through
// tmp to dir's CatalogFile; nothing when Puppet cached none (it compiled
// no catalog).
func (r *run) copyCatalog(ctx context.Context, tmp, dir string, budget *container.Budget) error {
	file, _ := r.copyFile(ctx, catalogDir+"/"+NodeName+".json", tmp, budget)
	if file == "" {
		return nil
	}
	return os.Rename(filepath.Join(tmp, file), filepath.Join(dir, CatalogFile))
}

// copyFiles copies, in one request, the regular files of the container's
// directory dir that want names into dest (container.ExtractFiles), within
// budget, and returns the names of want it wrote. A wanted file that the
// container replaced with something else is left out and recorded
// (r.tampered).
func (r *run) copyFiles(ctx context.Context, dir, dest string, want map[string]string, budget *container.Budget) map[string]bool {
	rc, err := r.c.CopyOut(ctx, dir)
	if err != nil {
		return nil
	}
	defer rc.Close()
	wrote, err := container.ExtractFiles(rc, dest, want, budget)
	if errors.Is(err, container.ErrTampered) {
		r.tampered = append(r.tampered, fmt.Errorf("%s: %w", dir, err))
	}
	return wrote
}

// copyFile copies the regular file at path in the container into the
// directory dest, within budget, and returns its name there. An artifact
// that the container replaced with something else than a regular file is
// left out and recorded (r.tampered).
func (r *run) copyFile(ctx context.Context, path, dest string, budget *container.Budget) (string, error) {
	rc, err := r.c.CopyOut(ctx, path)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	file, err := container.Extract(rc, dest, budget)
	if errors.Is(err, container.ErrTampered) {
		r.tampered = append(r.tampered, fmt.Errorf("%s: %w", path, err))
	}
	return file, err
}

// The node's state the analysis reads beside the trace: what dpkg
// (PackagesFile) and systemd (UnitsFile) know of the node as the apply
// left it, and its accounts before the apply (AccountsFile).
var (
	packagesQuestion = question{"packages", detector.PackagesScript, ArtifactFileBudget}
	unitsQuestion    = question{"units", detector.UnitsScript, ArtifactFileBudget}
	accountsQuestion = question{"accounts", detector.AccountsScript, ArtifactFileBudget}
)

// askAfterApply asks the node, in one exec, what dpkg and (systemd mode)
// systemd know after the apply, and saves and records it.
func (r *run) askAfterApply(ctx context.Context) {
	qs := []question{packagesQuestion}
	systemd := r.opts.Init == container.InitSystemd
	if systemd {
		qs = append(qs, unitsQuestion, journalQuestion, namesQuestion, failedQuestion, liftedQuestion)
	}
	answers := r.ask(ctx, qs...)
	r.saveAnswer(answers[packagesQuestion.name], PackagesFile, "no dpkg in the image? the analysis knows less of packages")
	if !systemd {
		return
	}
	units := answers[unitsQuestion.name]
	r.saveAnswer(units, UnitsFile, "a Service that names its unit by an alias gets none of its work")
	names := unitNames(units, answers[namesQuestion.name])
	r.recordUnits(answers, names)
	r.recordLifted(answers[liftedQuestion.name], names)
}

// saveAnswer writes what a question's script printed to file in the
// output directory. Its absence only makes the analysis know less: a
// failure is said, with what is lost (lost), and the run goes on.
func (r *run) saveAnswer(a *answer, file, lost string) {
	err := a.err()
	if err == nil {
		err = os.WriteFile(filepath.Join(r.opts.OutDir, file), a.out.Bytes(), 0o644)
	}
	if err != nil {
		r.warnf(err, "fsmove: %s not saved (%s): %v\n", file, lost, err)
	}
}

// maxTrace is the cap of trace.log.
func (r *run) maxTrace() int64 {
	if r.opts.MaxTrace > 0 {
		return r.opts.MaxTrace
	}
	return DefaultMaxTrace
}

// overBudget records and says what a budget left out or cut; a cut trace
// makes the run incomplete.
func (r *run) overBudget(lines []string, trace bool) {
	for _, l := range lines {
		fmt.Fprintf(r.opts.Log, "fsmove: %s\n", l)
	}
	r.rec.OverBudget = append(r.rec.OverBudget, lines...)
	r.traceCut = r.traceCut || (trace && len(lines) > 0)
}

func (r *run) forgeReachable(ctx context.Context) error {
	if r.opts.ForgeCheck == nil {
		return nil // puppet module install says so, with forgeHint
	}
	if err := r.opts.ForgeCheck(ctx); err != nil {
		return fmt.Errorf("%s is a Forge module, but the Puppet Forge cannot be reached (%v).\n%s", r.opts.Module.Raw, err, r.forgeHint())
	}
	return nil
}

// forgeHint says what to do without the Forge.
func (r *run) forgeHint() string {
	return fmt.Sprintf("Offline, use a module directory (fsmove run DIR, dependencies with --modulepath) "+
		"or a Debian package (fsmove run deb:puppet-module-%s-%s)", r.opts.Module.Author, r.opts.Module.Name)
}

// listArtifacts lists the regular files under dir, relative and sorted.
func listArtifacts(dir string) []string {
	files := []string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".catalog-") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			if rel, err := filepath.Rel(dir, p); err == nil {
				files = append(files, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	sort.Strings(files)
	return files
}

func shortImageID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
