package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/docker/go-units"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/internal/printable"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/module"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/spf13/cobra"
)

// setupFlag is --setup or --setup-file: both append to one list, so that
// the steps run in the order they were given.
type setupFlag struct {
	steps *[]setupArg
	file  bool
}

// setupArg is one --setup CMD or --setup-file SCRIPT as given.
type setupArg struct {
	file  bool
	value string
}

func (f setupFlag) String() string { return "" }
func (f setupFlag) Type() string   { return "string" }
func (f setupFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("empty")
	}
	*f.steps = append(*f.steps, setupArg{f.file, v})
	return nil
}

// runHelp is fsmove run's help; the details are in README.md ("fsmove run
// in detail").
var runHelp = help{
	synopsis: `fsmove run [flags] MODULE
fsmove run [flags] --manifest FILE | -e CODE`,
	description: `
Apply a Puppet module in a fresh Docker container, traced, keep the artifacts
and report missing ordering relationships (MOR) and notifiers (MN). MODULE is a
module directory, deb:puppet-module-[AUTHOR-]NAME or AUTHOR-NAME[@VERSION]
(Puppet Forge); its dependencies (with -e, the --modulepath modules') come from
--modulepath, spec/fixtures/modules or Debian packages. Every flag and path is
checked first; .fsmove.yml sets defaults; "# fsmove:ignore KIND REASON" mutes one.
`,
	examples: []example{
		{"fsmove run ./mymodule", "apply it traced, report; exit 1 on findings"},
		{"fsmove run --modulepath ./deps ./mymodule", "with the modules it depends on"},
		{"fsmove run --class mymodule::server --param port=8080 ./mymodule", "another class, with a parameter"},
		{"fsmove run -e 'include mymod' --modulepath ./mods", "just this code, no module argument"},
		{"fsmove run --confirm ./mymodule", "then test each finding by re-applying it"},
		{"fsmove run --format sarif -o fsmove.sarif --quiet ./mymodule", "a report for code scanning, in CI"},
		{"fsmove run deb:puppet-module-saz-memcached", "a module Debian packages"},
	},
	groups: []flagGroup{
		{"Common flags", []string{"out", "force", "timeout", "quiet", "verbose", "debug", "config", "no-config"}},
		{"What to apply", []string{"class", "param", "execute", "manifest", "modulepath", "no-deps", "setup", "setup-file"}},
		{"Container and tracing", []string{"tracer", "suite", "image", "mirror", "init", "network", "memory", "pids-limit", "cpus", "daemon-caps", "max-trace", "max-disk", "allow-drops", "trusted", "seccomp-bpf"}},
		{"Confirmation", []string{"confirm", "workers", "confirm-timeout", "idempotence"}},
		{"Report output", reportOutputFlags},
		{"Filters", filterFlags},
		{"Debugging", []string{"keep", "keep-artifacts", "stats", "strict"}},
	},
	exit: exitStatusHelp,
	more: `More: README.md ("fsmove run in detail", "Exit status"), docs/DESIGN.md.`,
}

// runFlags are fsmove run's own flags.
type runFlags struct {
	out           string
	modulePath    []string
	noDeps        bool
	class         string
	code          string
	manifest      string
	params        []string
	setup         []setupArg
	image         string
	suite         string
	tracer        string
	init          string
	mirror        string
	seccompBPF    bool
	allowDrops    bool
	trusted       bool
	network       string
	memory        string
	pids          int64
	cpus          float64
	daemonCaps    bool
	maxTrace      string
	maxDisk       string
	timeout       time.Duration
	keep          bool
	force         bool
	keepArtifacts bool
	verbose       bool
	debug         bool
	quiet         bool
	confirm       bool
	confirmFlags  *confirmFlags
	idempotence   bool
}

func newRunCmd(c *cli) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "apply a module in a fresh Docker container, traced, and analyze it",
	}
	fs := cmd.Flags()
	fs.StringVar(&f.out, "out", "", "`DIR` of the artifacts (default: under $XDG_STATE_HOME/fsmove/runs)")
	stringsFlag(fs, &f.modulePath, "modulepath", "a `DIR` of dependency modules, or one module (repeatable)")
	fs.BoolVar(&f.noDeps, "no-deps", false, "do not read or check the module's dependencies")
	fs.StringVar(&f.class, "class", "", "`class` to include (default: the module's name)")
	fs.StringVarP(&f.code, "execute", "e", "", "Puppet `CODE` to apply instead of including a class")
	fs.StringVar(&f.manifest, "manifest", "", "manifest `FILE` to apply instead of including a class")
	stringsFlag(fs, &f.params, "param", "class parameter `KEY=VALUE`, or CLASS::KEY=VALUE (repeatable)")
	fs.Var(setupFlag{&f.setup, false}, "setup", "shell `CMD` that prepares the node, untraced (repeatable)")
	fs.Var(setupFlag{&f.setup, true}, "setup-file", "local shell `SCRIPT` that prepares the node, untraced (repeatable)")
	// No default value: "" lets metadata.json's requirements choose.
	enumVar(fs, &f.suite, "suite", "", container.SuiteNames(), "`release`: bookworm (Puppet 7), trixie (8); default by metadata")
	fs.StringVar(&f.image, "image", "", "Docker `image` (default fsmove/puppet:SUITE), built when missing")
	tracerFlag(fs, &f.tracer, &f.trusted)
	enumVar(fs, &f.init, "init", string(container.InitSystemd), initNames(), "PID 1: systemd (boots like a host) or none")
	fs.StringVar(&f.mirror, "mirror", "", "Debian mirror `URL` for the image (default: this machine's apt's)")
	enumVar(fs, &f.network, "network", container.NetworkIsolated, container.Networks, "isolated (not this host), none or bridge")
	fs.StringVar(&f.memory, "memory", "", "the container's memory limit (default "+container.FormatBytes(container.DefaultLimits().Memory)+"; -1 none)")
	fs.Int64Var(&f.pids, "pids-limit", 0, fmt.Sprintf("most tasks in the container (default %d; -1 none)", container.DefaultLimits().Pids))
	fs.Float64Var(&f.cpus, "cpus", 0, fmt.Sprintf("CPUs' worth of time the container may use (default %g; -1 none)", container.DefaultLimits().CPUs))
	fs.StringVar(&f.maxTrace, "max-trace", "", "cap of trace.log (default "+container.FormatBytes(runner.DefaultMaxTrace)+"); a cut trace is incomplete")
	fs.StringVar(&f.maxDisk, "max-disk", "", "disk the container may fill (default "+container.FormatBytes(runner.DefaultMaxDisk)+"; 0 none)")
	fs.BoolVar(&f.daemonCaps, "daemon-caps", false, "give root DAC_READ_SEARCH, SYS_NICE (trusted code only)")
	fs.BoolVar(&f.allowDrops, "allow-drops", false, "accept an ebpf capture that lost events (else: incomplete)")
	fs.BoolVar(&f.seccompBPF, "seccomp-bpf", true, "let strace filter in the kernel (breaks setuid)")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "limit of the whole run, --confirm included")
	fs.BoolVar(&f.force, "force", false, "replace the earlier run that --out holds (only fsmove's own files)")
	fs.BoolVar(&f.keep, "keep", false, "keep the container (docker rm -f it yourself)")
	fs.BoolVar(&f.keepArtifacts, "keep-artifacts", true, "keep the artifacts (false: in a temporary dir)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "show apt's and Puppet's output")
	fs.BoolVar(&f.debug, "debug", false, "print a failure's error chain and the warnings it causes")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output (for CI)")
	fs.BoolVar(&f.confirm, "confirm", false, "test each finding by re-applying the module (fsmove confirm)")
	f.confirmFlags = addConfirmFlags(fs)
	fs.BoolVar(&f.idempotence, "idempotence", false, "apply the module again, traced: report what changes again (NI)")
	rf := addReportFlags(fs)
	setHelp(cmd, runHelp)
	cfg := addConfigFlags(fs)
	cmd.RunE = func(cmd *cobra.Command, args []string) (err error) {
		if rf.project, err = cfg.load(cmd, runConfigDir(args)); err != nil {
			return err
		}
		return runRun(cmd.Context(), c.abort, c.stdout, c.stderr, args, &f, rf)
	}
	return cmd
}

// runRun is fsmove run. ctx ends the run (an interrupt); abort, closed by
// a second interrupt, ends at once what is still saved after that.
func runRun(ctx context.Context, abort <-chan struct{}, stdout, stderr io.Writer, positional []string, f *runFlags, rf *reportFlags) error {
	// Every check that can fail comes before anything is deleted, built
	// or started.
	if err := rf.check(); err != nil {
		return usageError{err}
	}
	if f.timeout <= 0 {
		return usagef("--timeout %s: want a duration above 0 (e.g. 10m)", f.timeout)
	}
	if err := f.confirmFlags.check(); err != nil {
		return usageError{err}
	}
	moduleArg := ""
	switch {
	case len(positional) == 1:
		moduleArg = positional[0]
	case len(positional) > 1:
		return usagef("give one module, not %d arguments (%s)", len(positional), strings.Join(positional, " "))
	case f.code == "" && f.manifest == "":
		return usagef("give a module (a directory, deb:puppet-module-[AUTHOR-]NAME or AUTHOR-NAME[@VERSION]), or --manifest FILE or -e CODE to apply without one")
	}
	opts, suite, err := runOptions(f, moduleArg)
	if err != nil {
		return usageError{err}
	}
	opts.Log = stderr
	opts.Config = configRecord(rf.project)
	if rf.project != nil && !f.quiet {
		fmt.Fprintf(stderr, "fsmove: config: %s\n", rf.project)
	}
	// What the module's metadata.json says is its own words: printable.
	for _, w := range suite.Warnings {
		fmt.Fprintf(stderr, "fsmove: warning: %s\n", printable.String(w))
	}
	if suite.Why != "" && !f.quiet {
		fmt.Fprintf(stderr, "fsmove: suite: %s (%s)\n", suite.Suite, printable.String(suite.Why))
	}
	defaultOut := f.out == "" && f.keepArtifacts
	if f.keepArtifacts {
		// The default place is fsmove's: a rerun replaces the run there
		// without --force (only files that are not fsmove's stop it).
		if err := checkOutDir(rf, opts.OutDir, f.force || defaultOut); err != nil {
			return usageError{err}
		}
	}
	// The tracer: what this host allows, checked before anything starts.
	if opts.Tracer, opts.TracerNote, err = chooseTracer(stderr, "run", opts.Tracer, opts.Trusted); err != nil {
		return err
	}

	ctx, cancel := context.WithTimeoutCause(ctx, f.timeout, fmt.Errorf("the run took longer than --timeout %s", f.timeout))
	defer cancel()
	opts.Abort = abort
	opts.Hold, opts.HoldFor = testHold()

	eng, err := container.Connect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			_, why := runner.StoppedStatus(ctx)
			return runError{fmt.Errorf("%s while connecting to Docker; nothing was started and --out was not touched", why)}
		}
		return runError{err}
	}
	defer eng.Close()

	if !f.keepArtifacts {
		tmp, err := os.MkdirTemp("", "fsmove-run-")
		if err != nil {
			return runError{err}
		}
		defer os.RemoveAll(tmp)
		opts.OutDir = tmp
	}
	final := ""
	if defaultOut {
		// Captured beside the default place, which keeps the earlier run
		// until this one's trace and catalog are out (settleRun).
		final = opts.OutDir
		if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
			return runError{err}
		}
		// What killed runs left here is kept, renamed so that it is not
		// taken for a live run (runner.SweepStaging).
		swept, _ := runner.SweepStaging(filepath.Dir(final), false)
		for _, dir := range swept {
			fmt.Fprintf(stderr, "fsmove: kept what an interrupted run captured: %s\n", dir)
		}
		if opts.OutDir, err = os.MkdirTemp(filepath.Dir(final), filepath.Base(final)+runner.StagingInfix); err != nil {
			return runError{err}
		}
		release, err := runner.LockStaging(opts.OutDir)
		if err != nil {
			return runError{err}
		}
		defer release()
	}
	opts.Progress = runner.NewProgress(stderr, f.quiet)
	var confirm *confirmFlags
	if f.confirm {
		confirm = f.confirmFlags
	}
	err = runAndAnalyze(ctx, stdout, stderr, eng, opts, rf, confirm, !f.keepArtifacts, final)
	if rerr := eng.ReaperErr(); rerr != nil {
		fmt.Fprintf(stderr, "fsmove: warning: the run's containers had no reaper (%v): had fsmove been killed, they would have stayed (docker ps --filter label=fsmove=1)\n", printable.String(rerr.Error()))
	}
	return err
}

// runOptions turns the flags into runner options and the suite chosen
// for them (runner.ChooseSuite, which the caller says); an error is in the
// user's input (the caller makes it a usage error). moduleArg "" runs without a module (-e or
// --manifest by itself). Everything on this machine the run needs (the
// module directory, --modulepath, --manifest, --setup-file) is checked
// here, before any container starts.
func runOptions(f *runFlags, moduleArg string) (runner.Options, runner.SuiteChoice, error) {
	fail := func(format string, a ...any) (runner.Options, runner.SuiteChoice, error) {
		return runner.Options{}, runner.SuiteChoice{}, fmt.Errorf(format, a...)
	}
	entry := runner.Entry{Class: f.class, Code: f.code, Manifest: f.manifest}
	for _, p := range f.params {
		param, err := runner.ParseParam(p)
		if err != nil {
			return fail("%v", err)
		}
		entry.Params = append(entry.Params, param)
	}
	var spec runner.ModuleSpec
	var err error
	if moduleArg == "" {
		spec, err = runner.NoModuleSpec(entry)
	} else {
		spec, err = runner.ParseModuleSpec(moduleArg)
	}
	if err != nil {
		return fail("%v", err)
	}
	if spec.Kind == runner.SourceDir {
		if _, err := runner.ModuleCopySkip(spec.Dir, ""); err != nil { // its .pdkignore
			return fail("%v", err)
		}
	}
	if f.manifest != "" {
		info, err := os.Stat(f.manifest)
		if err == nil && info.IsDir() {
			return fail("--manifest %s: a directory, not a manifest file", f.manifest)
		}
		data, err := os.ReadFile(f.manifest)
		if err != nil {
			return fail("--manifest: %v", err)
		}
		entry.ManifestText = string(data)
	}
	if _, err := entry.SitePP(spec.Name); err != nil {
		return fail("%v", err)
	}
	if err := runner.CheckModulePath(f.modulePath); err != nil {
		return fail("%v", err)
	}
	var deps []module.Dependency
	var depWarnings []module.Warning
	if !f.noDeps {
		if deps, depWarnings, err = runner.ReadDependencies(spec, f.modulePath); err != nil {
			return fail("%v (--no-deps skips the dependencies)", err)
		}
	}
	for _, a := range f.setup {
		if !a.file {
			entry.Setup = append(entry.Setup, runner.SetupStep{Command: a.value})
			continue
		}
		st, err := runner.ReadSetupFile(a.value)
		if err != nil {
			return fail("%v", err)
		}
		entry.Setup = append(entry.Setup, st)
	}
	// f.suite "": not given on the command line or in the project file.
	suite, err := runner.ChooseSuite(f.suite, spec)
	if err != nil {
		return fail("%v", err)
	}
	out := f.out
	if out == "" {
		if out, err = runner.DefaultOutDir(spec, entry, suite.Suite); err != nil {
			return fail("%v", err)
		}
	}
	initMode, err := container.ParseInit(f.init)
	if err != nil {
		return fail("--init: %v", err)
	}
	if err := checkImageRef(f.image); err != nil {
		return fail("%v", err)
	}
	if err := checkMirror(f.mirror); err != nil {
		return fail("%v", err)
	}
	network := container.NetworkIsolated
	if f.network != "" {
		if network, err = container.ParseNetwork(f.network); err != nil {
			return fail("--network: %v", err)
		}
	}
	limits, err := f.limits()
	if err != nil {
		return fail("%v", err)
	}
	var maxDisk int64
	switch f.maxDisk {
	case "":
	case "0":
		maxDisk = -1
	default:
		if maxDisk, err = units.RAMInBytes(f.maxDisk); err != nil || maxDisk < 1<<20 {
			return fail("--max-disk %s: want a size of at least 1M (e.g. 20G), or 0 for no budget", f.maxDisk)
		}
	}
	var maxTrace int64
	if f.maxTrace != "" {
		if maxTrace, err = units.RAMInBytes(f.maxTrace); err != nil || maxTrace < 1<<20 {
			return fail("--max-trace %s: want a size of at least 1M (e.g. 8G)", f.maxTrace)
		}
	}
	// The default tracer (f.tracer "") is chosen by the caller, once every
	// usage check has passed.
	return runner.Options{
		Module:             spec,
		Entry:              entry,
		ModulePath:         f.modulePath,
		Dependencies:       deps,
		DependencyWarnings: depWarnings,
		Image:              container.ImageOptions{Tag: f.image, Suite: suite.Suite, Mirror: f.mirror},
		Tracer:             f.tracer,
		Init:               initMode,
		TracerBinary:       fsmoveBinary(),
		AllowDrops:         f.allowDrops,
		Trusted:            f.trusted,
		SeccompBPF:         f.seccompBPF,
		DaemonCaps:         f.daemonCaps,
		Limits:             limits,
		Network:            network,
		MaxTrace:           maxTrace,
		MaxDisk:            maxDisk,
		OutDir:             out,
		Force:              f.force,
		Keep:               f.keep,
		Verbose:            f.verbose,
		Debug:              f.debug,
		FsmoveVersion:      buildVersion(),
		Idempotence:        f.idempotence,
	}, suite, nil
}

// initNames are the --init values.
func initNames() []string {
	var names []string
	for _, m := range container.Inits {
		names = append(names, string(m))
	}
	return names
}

// limits reads --memory, --pids-limit and --cpus: 0 (not given) is the
// default, -1 no limit.
func (f *runFlags) limits() (container.Limits, error) {
	var l container.Limits
	switch strings.TrimSpace(f.memory) {
	case "":
	case "-1":
		l.Memory = -1
	default:
		n, err := units.RAMInBytes(f.memory)
		if err != nil || n < 64<<20 {
			return l, fmt.Errorf("--memory %s: want a size of at least 64M (e.g. 2G), or -1 for no limit", f.memory)
		}
		l.Memory = n
	}
	if f.pids < -1 || (f.pids > 0 && f.pids < 32) {
		return l, fmt.Errorf("--pids-limit %d: want at least 32, or -1 for no limit", f.pids)
	}
	l.Pids = f.pids
	if f.cpus < 0 && f.cpus != -1 || (f.cpus > 0 && f.cpus < 0.1) {
		return l, fmt.Errorf("--cpus %g: want at least 0.1, or -1 for no limit", f.cpus)
	}
	l.CPUs = f.cpus
	return l, nil
}

// fsmoveBinary is the fsmove executable the ptrace backend copies into the
// container: $FSMOVE_BINARY when set (tests, which run as a test binary),
// else this executable.
func fsmoveBinary() string {
	if p := os.Getenv("FSMOVE_BINARY"); p != "" {
		return p
	}
	p, _ := os.Executable()
	return p
}

// runAndAnalyze runs the traced apply, then analyzes its artifacts and,
// with cf (--confirm), re-applies the findings to test them.
// tempOut: --out is a temporary directory (--keep-artifacts=false), removed
// on the way out. final: the run's default place, opts.OutDir a new
// directory beside it (settleRun); "" when opts.OutDir is the place. The
// analysis's own errors are said as fsmove analyze's, as they would be by
// a later fsmove analyze of the artifacts.
func runAndAnalyze(ctx context.Context, stdout, stderr io.Writer, eng *container.Engine, opts runner.Options, rf *reportFlags, cf *confirmFlags, tempOut bool, final string) error {
	rec, err := runner.Run(ctx, eng, opts)
	if final != "" {
		newDir := opts.OutDir
		opts.OutDir = settleRun(ctx, stderr, rec, err, newDir, final)
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			// Its message names where the run was captured.
			err = errors.New(strings.ReplaceAll(err.Error(), newDir, opts.OutDir))
		}
	}
	if rec != nil && !tempOut {
		// Where to look, at the end of what the run says (an error's
		// message comes after it).
		defer func() { fmt.Fprintf(stderr, "artifacts: %s\n", opts.OutDir) }()
	}
	if rec == nil {
		var outErr *runner.OutDirError
		if errors.As(err, &outErr) {
			return usageError{err} // changed since it was checked
		}
		return runError{err}
	}
	if err != nil {
		if ctx.Err() != nil {
			reportStopped(stderr, rec, opts, tempOut)
			return runError{errSaid}
		}
		if opts.Debug && rec.ErrorChain != "" {
			// After the line that says the cause, what the call that
			// failed saw.
			err = fmt.Errorf("%w\n%s", err, errorChain(rec))
		}
		return runError{err}
	}

	if rf.stats && rec.Dependencies != nil {
		d := rec.Dependencies
		fmt.Fprintf(stderr, "dependencies: %d found, %d found nowhere, %d test-only found nowhere (not said)\n",
			len(d.Found), len(d.Missing), len(d.TestOnlyMissing))
	}
	puppetFailed := rec.Status != runner.StatusOK
	logPath := filepath.Join(opts.OutDir, runner.PuppetLogFile)
	if opts.Verbose {
		// Puppet's output as the user reads it: no colour codes, the
		// module's files where they are on this machine.
		if data, err := os.ReadFile(logPath); err == nil {
			io.WriteString(stderr, printable.Lines(runner.HostPaths(runner.StripANSI(string(data)), rec.HostPathMap(opts.OutDir))))
		}
	}
	// A failure is said once: what failed, Puppet's errors, where its log is.
	if rec.Status == runner.StatusIncomplete {
		fmt.Fprintf(stderr, "fsmove run: %s\n", printable.Lines(rec.Error))
	} else if puppetFailed {
		fmt.Fprintf(stderr, "fsmove run: %s\n", printable.Lines(rec.Error))
		if log, err := os.Open(logPath); err == nil {
			errs := runner.PuppetErrors(log, 5)
			log.Close()
			for _, line := range errs {
				fmt.Fprintf(stderr, "  %s\n", printable.String(runner.HostPaths(line, rec.HostPathMap(opts.OutDir))))
			}
			if rec.Status == runner.StatusCompileFailed {
				if hint := unknownNameHint(errs, rec); hint != "" {
					fmt.Fprintf(stderr, "fsmove run: %s\n", printable.String(hint))
				}
			}
		}
		fmt.Fprintf(stderr, "fsmove run: Puppet's log is %s\n", logPath)
	}
	tracePath := filepath.Join(opts.OutDir, runner.TraceFile)
	catalogPath := filepath.Join(opts.OutDir, runner.CatalogFile)
	if _, err := os.Stat(catalogPath); err != nil {
		if puppetFailed {
			return runError{errSaid} // no catalog, nothing to analyze: said above
		}
		return runError{errors.New("Puppet wrote no catalog, so there is nothing to analyze")}
	}

	step := opts.Progress.Start("analyze", "analyzing "+runner.TraceFile)
	start := time.Now()
	opts.HoldStep(ctx, "analyze")
	// The step's line ends before the report is written under it.
	endStep := func() {
		if ctx.Err() != nil {
			_, why := runner.StoppedStatus(ctx)
			step.Fail(why)
		} else {
			step.Done("")
		}
	}
	var confirm func(context.Context, *detector.Report)
	if cf != nil {
		confirm = confirmHook(eng, opts, opts.OutDir, cf, rf.all, stderr)
	}
	// The analysis's outcome becomes its exit status here, once, said as
	// fsmove analyze of the artifacts would say it: run.json records it,
	// and the run exits with it.
	code := exitRun
	if ctx.Err() == nil {
		analyzeErr := analyzeArtifacts(ctx, stdout, stderr, tracePath, catalogPath, rf, reportHooks{
			analyzed: endStep, confirm: confirm, locate: locateHook(eng, opts, rec, stderr),
			htmlReport: filepath.Join(opts.OutDir, runner.HTMLReportFile), runFailed: puppetFailed,
		})
		code = exitCode(stderr, "fsmove analyze", analyzeErr)
	}
	endStep()
	if ctx.Err() != nil {
		// Interrupted or timed out: whatever the analysis got to, the run
		// is not complete.
		status, why := runner.StoppedStatus(ctx)
		rec.AddStep("analyze", time.Since(start), false, why)
		rec.Status, rec.StoppedStep, rec.Error = status, "analyze", why+" during the analyze step"
		rec.AnalyzeExit = nil
		if err := rec.Write(opts.OutDir); err != nil {
			fmt.Fprintf(stderr, "fsmove run: %v\n", err)
		}
		reportStopped(stderr, rec, opts, tempOut)
		return runError{errSaid}
	}
	rec.AddStep("analyze", time.Since(start), code == exitOK || code == exitFindings, "")
	rec.AnalyzeExit = &code
	for _, name := range []string{runner.HTMLReportFile, runner.ManifestsFile} {
		if _, err := os.Stat(filepath.Join(opts.OutDir, name)); err == nil && !slices.Contains(rec.Artifacts, name) {
			rec.Artifacts = append(rec.Artifacts, name)
			slices.Sort(rec.Artifacts)
		}
	}
	if err := rec.Write(opts.OutDir); err != nil {
		fmt.Fprintf(stderr, "fsmove run: %v\n", err)
	}
	switch {
	case puppetFailed:
		return runError{errSaid}
	case code == exitUsage:
		// The run's own trace or catalog cannot be read (said above): the
		// run failed, not the user's input.
		return runError{fmt.Errorf("the run's artifacts in %s cannot be analyzed: the run failed", opts.OutDir)}
	case code == exitOK:
		return nil
	}
	return statusError{code: code} // said above
}

// settleRun puts a run captured in newDir, beside its default place final,
// where it belongs, and returns where its artifacts now are. Once the trace
// and the catalog are out, at final: the earlier run there is removed (and
// a failed one beside it, now stale). Otherwise (the run failed or was
// stopped before) at final.failed, and the earlier run in final is kept as
// it was. When a rename fails, the run stays in newDir, which is said.
func settleRun(ctx context.Context, stderr io.Writer, rec *runner.RunRecord, runErr error, newDir, final string) string {
	if rec == nil { // nothing was written (runner.Run's check of newDir)
		os.Remove(newDir)
		return final
	}
	_, traceErr := os.Stat(filepath.Join(newDir, runner.TraceFile))
	_, catalogErr := os.Stat(filepath.Join(newDir, runner.CatalogFile))
	place := final
	if runErr != nil || ctx.Err() != nil || traceErr != nil || catalogErr != nil {
		place = final + runner.FailedSuffix
	}
	if err := runner.ReplaceRun(newDir, place); err != nil {
		fmt.Fprintf(stderr, "fsmove run: this run stays in %s: %v\n", newDir, err)
		return newDir
	}
	if place == final {
		if err := runner.RemoveRun(final + runner.FailedSuffix); err != nil {
			fmt.Fprintf(stderr, "fsmove run: %v\n", err)
		}
	} else if _, err := os.Stat(final); err == nil {
		fmt.Fprintf(stderr, "fsmove run: this run got no trace and catalog out, so the earlier run in %s is kept\n", final)
	}
	return place
}

// errorChain is the whole error chain of a failed run (run.json's
// error_chain), which the one line said by its cause leaves out: --debug
// prints it after that line.
func errorChain(rec *runner.RunRecord) string {
	return "error chain: " + rec.ErrorChain
}

// reportStopped says on stderr what became of an interrupted or timed-out
// run: the step it stopped in, the container, and where the artifacts are.
func reportStopped(stderr io.Writer, rec *runner.RunRecord, opts runner.Options, tempOut bool) {
	out := opts.OutDir
	fmt.Fprintf(stderr, "fsmove run: %s\n", printable.Lines(rec.Error))
	if opts.Debug && rec.ErrorChain != "" {
		fmt.Fprintf(stderr, "%s\n", printable.Lines(errorChain(rec)))
	}
	short := rec.ContainerID
	if len(short) > 12 {
		short = short[:12]
	}
	switch rec.Container {
	case runner.ContainerRemoved:
		fmt.Fprintf(stderr, "fsmove run: the container %s was removed\n", short)
	case runner.ContainerKept:
		fmt.Fprintf(stderr, "fsmove run: the container %s was kept (--keep); docker rm -f %s removes it\n", short, short)
	case runner.ContainerLeft:
		fmt.Fprintf(stderr, "fsmove run: the container %s could NOT be removed; docker rm -f %s removes it\n", short, short)
	default:
		fmt.Fprintln(stderr, "fsmove run: no container had been created")
	}
	if tempOut {
		fmt.Fprintln(stderr, "fsmove run: the artifacts were not kept (--keep-artifacts=false)")
		return
	}
	what := "nothing was traced yet; run.json is"
	for _, s := range rec.Steps {
		if s.Name == "apply" {
			what = "no trace was saved; run.json is"
		}
	}
	if rec.TraceBytes > 0 {
		what = fmt.Sprintf("what was captured (%s, %d bytes) is", runner.TraceFile, rec.TraceBytes)
	}
	hint := ""
	if rec.Status == runner.StatusTimeout {
		hint = "; raise --timeout to let it finish"
	}
	fmt.Fprintf(stderr, "fsmove run: %s in %s (run.json: status %q, stopped_step %q)%s\n", what, out, rec.Status, rec.StoppedStep, hint)
}

// testHold reads FSMOVE_TEST_HOLD=STEP:DURATION, with which the
// end-to-end tests make a short step (modules, copy, analyze) last long
// enough to be interrupted in it (runner.Options.Hold).
func testHold() (string, time.Duration) {
	step, d, ok := strings.Cut(os.Getenv("FSMOVE_TEST_HOLD"), ":")
	if !ok {
		return "", 0
	}
	dur, err := time.ParseDuration(d)
	if err != nil {
		return "", 0
	}
	return step, dur
}

// checkOutDir checks --out before anything is deleted: it can be created or
// written, it holds no earlier run unless --force and nothing that is not
// fsmove's (runner.CheckOutDir), and the report files (-o, --graph-out) are
// not in it, where they would mix with the run's artifacts.
func checkOutDir(rf *reportFlags, out string, force bool) error {
	if err := runner.CheckOutDir(out, force); err != nil {
		return err
	}
	// The nearest existing directory must be writable.
	dir := out
	for {
		info, err := os.Stat(dir)
		if err == nil {
			if !info.IsDir() {
				return fmt.Errorf("--out %s: %s is not a directory", out, dir)
			}
			if err := syscall.Access(dir, accessW); err != nil {
				return fmt.Errorf("--out %s: cannot write in %s (%v)", out, dir, err)
			}
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	for _, o := range []struct{ flag, path string }{{"-o", rf.output}, {"--graph-out", rf.graphOut}} {
		if o.path != "" && within(o.path, out) {
			return fmt.Errorf("%s %s is in --out %s, which holds the run's artifacts and nothing else (so that --force can replace them); write it elsewhere", o.flag, o.path, out)
		}
	}
	return nil
}

// within reports whether path is dir or below it, symbolic links in
// their existing parts resolved.
func within(path, dir string) bool {
	rel, err := filepath.Rel(resolvePath(dir), resolvePath(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolvePath makes p absolute and resolves the symbolic links of its
// longest existing prefix.
func resolvePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	rest := ""
	for cur := abs; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// imageRef is Docker's grammar of an image reference, simplified:
// [DOMAIN[:PORT]/]NAME[/NAME…][:TAG][@DIGEST], names in lower case.
var imageRef = regexp.MustCompile(`^` +
	`(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?/)?` +
	`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*` +
	`(?::[\w][\w.-]{0,127})?` +
	`(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`)

// checkImageRef checks --image's form (not whether it exists: a missing
// image is built).
func checkImageRef(ref string) error {
	if ref != "" && !imageRef.MatchString(ref) { // "": the default
		return fmt.Errorf("--image %q is not an image reference (NAME[:TAG], in lower case, e.g. %s)", ref, container.DefaultImage)
	}
	return nil
}

// checkMirror checks --mirror's form: an http, https, ftp or file URL.
func checkMirror(mirror string) error {
	if mirror == "" {
		return nil
	}
	u, err := url.Parse(mirror)
	if err != nil || !slices.Contains([]string{"http", "https", "ftp", "file"}, u.Scheme) || (u.Scheme != "file" && u.Host == "") {
		return fmt.Errorf("--mirror %q is not a mirror URL: want the URI of a deb line of /etc/apt/sources.list, SCHEME://HOST/PATH (http, https, ftp) or file:///PATH", mirror)
	}
	return nil
}

// unknownNameHint is, for a catalog that failed to compile, the first of
// Puppet's errors that names a class, type or function it did not find,
// explained: the module that provides it and how to give it ("" when
// none does, or there is nothing to add).
func unknownNameHint(puppetErrors []string, rec *runner.RunRecord) string {
	for _, line := range puppetErrors {
		u, ok := module.ParseUnknown(line)
		if !ok {
			continue
		}
		return u.Explain(rec.Dependencies, rec.Module.Name, rec.Module.Kind == runner.SourceDir)
	}
	return ""
}
