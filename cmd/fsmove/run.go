package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

// repeatedFlag is a repeatable string flag (--modulepath, --param).
type repeatedFlag []string

func (l *repeatedFlag) String() string     { return strings.Join(*l, ",") }
func (l *repeatedFlag) Set(v string) error { *l = append(*l, v); return nil }

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
func (f setupFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("empty")
	}
	*f.steps = append(*f.steps, setupArg{f.file, v})
	return nil
}

const runUsage = `Usage: fsmove run [flags] MODULE
       fsmove run [flags] --manifest FILE | -e CODE

MODULE is a module directory, deb:puppet-module-[AUTHOR-]NAME (a Debian
package, installed with apt in the container) or AUTHOR-NAME[@VERSION] (from
the Puppet Forge). fsmove applies it once in a fresh container, traced,
keeps the artifacts in --out and reports missing ordering relationships and
missing notifiers.

What is applied: "include MODULE" by default; --class (with --param) for
another class of the module; --manifest FILE or -e CODE for a manifest of
your own. Without MODULE, --manifest or -e is applied by itself, with the
--modulepath modules (and Debian's packaged modules) available; the run is
then named after the manifest file (or "manifest" for -e), as in the default
--out.

A Debian package's module name is guessed from the package's name
(puppet-module-puppetlabs-stdlib: stdlib; puppet-module-nova: nova); when the
package installed another module directory (puppet-module-heini-wait-for:
wait_for), fsmove takes that one.

--modulepath DIR is a directory of modules, or one module: a directory with
manifests/, metadata.json or only Ruby code (lib/puppet, lib/facter). Every
--modulepath, the module directory and the --manifest file are checked
before any container starts.

--setup CMD (run as /bin/sh -c CMD) and --setup-file SCRIPT (a local shell
script, copied into the container and run with /bin/sh) prepare the node the
way a module's test suite does (a directory the module assumes, a package it
expects): after the modules are in place and before the traced apply, as
root, untraced, with DEBIAN_FRONTEND=noninteractive. Both are repeatable;
all run in the order given. Their output goes to setup.log in --out, their
time is the step "setup" of run.json, and run.json's entry.setup lists them.
A setup that exits non-zero fails the run (exit 3, status infra-error, with
the tail of its output).

Exit status: 0 no findings, 1 findings, 2 usage or input error (before any
container starts), 3 the run failed (Docker, setup, Puppet, tracer).

Flags:
`

// runFlags are fsmove run's own flags.
type runFlags struct {
	out           string
	modulePath    repeatedFlag
	class         string
	code          string
	manifest      string
	params        repeatedFlag
	setup         []setupArg
	image         string
	tracer        string
	init          string
	mirror        string
	seccompBPF    bool
	allowDrops    bool
	timeout       time.Duration
	keep          bool
	keepArtifacts bool
	verbose       bool
	quiet         bool
}

func runRun(stdout, stderr io.Writer, args []string) int {
	fs := newFlagSet("run", runUsage, stderr)
	var f runFlags
	fs.StringVar(&f.out, "out", "", "artifact directory (default ./fsmove-out/<module name>, or <manifest name> without a module)")
	fs.Var(&f.modulePath, "modulepath", "a `DIR` of dependency modules, or one module (repeatable)")
	fs.StringVar(&f.class, "class", "", "class to include (default: the module's name; needs a module)")
	fs.StringVar(&f.code, "e", "", "Puppet `CODE` to apply instead of including a class (no module needed)")
	fs.StringVar(&f.manifest, "manifest", "", "manifest `FILE` to apply instead of including a class (no module needed)")
	fs.Var(&f.params, "param", "class parameter `KEY=VALUE` (repeatable; needs a module)")
	fs.Var(setupFlag{&f.setup, false}, "setup", "shell `CMD` to prepare the node before the traced apply, untraced (repeatable)")
	fs.Var(setupFlag{&f.setup, true}, "setup-file", "local shell `SCRIPT` to prepare the node before the traced apply, untraced (repeatable)")
	fs.StringVar(&f.image, "image", container.DefaultImage, "Docker image (built by \"fsmove image build\" when missing)")
	fs.StringVar(&f.tracer, "tracer", "", "capture `backend`: "+strings.Join(runner.Tracers(), ", ")+" (ptrace and strace trace inside the container, ebpf from the host; default ebpf where this host allows it, else strace)")
	fs.StringVar(&f.init, "init", string(container.InitSystemd), "the container's PID 1: systemd (boots like a host; Puppet manages services through systemd) or none (for images without systemd)")
	fs.StringVar(&f.mirror, "mirror", "", "Debian mirror `URL` for building the image (default: the one this machine's apt sources name)")
	fs.BoolVar(&f.allowDrops, "allow-drops", false, "accept an ebpf capture that lost events (otherwise the run is incomplete: exit 3)")
	fs.BoolVar(&f.seccompBPF, "seccomp-bpf", true, "let strace filter in the kernel (--seccomp-bpf); breaks setuid programs in the traced tree")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "limit for the whole run")
	fs.BoolVar(&f.keep, "keep", false, "keep the container (docker rm -f it yourself)")
	fs.BoolVar(&f.keepArtifacts, "keep-artifacts", true, "keep the artifacts in --out after the analysis (false: use a temporary directory)")
	fs.BoolVar(&f.verbose, "v", false, "show apt's and Puppet's output")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output (for CI)")
	rf := addReportFlags(fs)

	positional, code, ok := parseFlags(fs, args, stdout)
	if !ok {
		return code
	}
	if err := rf.check(); err != nil {
		fmt.Fprintf(stderr, "fsmove run: %v\n", err)
		return exitUsage
	}
	moduleArg := ""
	switch {
	case len(positional) == 1:
		moduleArg = positional[0]
	case len(positional) > 1:
		fmt.Fprintf(stderr, "fsmove run: give one module, not %d arguments (%s)\n", len(positional), strings.Join(positional, " "))
		return exitUsage
	case f.code == "" && f.manifest == "":
		fmt.Fprintln(stderr, "fsmove run: give a module (a directory, deb:puppet-module-[AUTHOR-]NAME or AUTHOR-NAME[@VERSION]), or --manifest FILE or -e CODE to apply without one")
		return exitUsage
	}
	opts, code := runOptions(stderr, &f, moduleArg)
	if code != exitOK {
		return code
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()

	eng, err := container.Connect(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "fsmove run: %v\n", err)
		return exitRun
	}
	defer eng.Close()

	if !f.keepArtifacts {
		tmp, err := os.MkdirTemp("", "fsmove-run-")
		if err != nil {
			fmt.Fprintf(stderr, "fsmove run: %v\n", err)
			return exitRun
		}
		defer os.RemoveAll(tmp)
		opts.OutDir = tmp
	}
	opts.Progress = runner.NewProgress(stderr, f.quiet)
	return runAndAnalyze(ctx, stdout, stderr, eng, opts, rf, f.timeout)
}

// runOptions turns the flags into runner options; it returns exitUsage on
// bad input (after saying why). moduleArg "" runs without a module (-e or
// --manifest by itself). Everything on this machine the run needs (the
// module directory, --modulepath, --manifest, --setup-file) is checked
// here, before any container starts.
func runOptions(stderr io.Writer, f *runFlags, moduleArg string) (runner.Options, int) {
	fail := func(format string, a ...any) (runner.Options, int) {
		fmt.Fprintf(stderr, "fsmove run: "+format+"\n", a...)
		return runner.Options{}, exitUsage
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
	out := f.out
	if out == "" {
		out = filepath.Join("fsmove-out", spec.Name)
	}
	initMode, err := container.ParseInit(f.init)
	if err != nil {
		return fail("--init: %v", err)
	}
	tracer, note := f.tracer, ""
	if tracer == "" {
		tracer, note = runner.DefaultTracer()
		if note != "" {
			fmt.Fprintf(stderr, "fsmove run: %s\n", note)
		}
	}
	return runner.Options{
		Module:        spec,
		Entry:         entry,
		ModulePath:    f.modulePath,
		Image:         container.ImageOptions{Tag: f.image, Mirror: f.mirror},
		Tracer:        tracer,
		TracerNote:    note,
		Init:          initMode,
		TracerBinary:  fsmoveBinary(),
		AllowDrops:    f.allowDrops,
		SeccompBPF:    f.seccompBPF,
		OutDir:        out,
		Keep:          f.keep,
		Verbose:       f.verbose,
		Log:           stderr,
		FsmoveVersion: version,
	}, exitOK
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

// runAndAnalyze runs the traced apply, then analyzes its artifacts.
func runAndAnalyze(ctx context.Context, stdout, stderr io.Writer, eng *container.Engine, opts runner.Options, rf *reportFlags, timeout time.Duration) int {
	rec, err := runner.Run(ctx, eng, opts)
	if rec == nil {
		fmt.Fprintf(stderr, "fsmove run: %v\n", err)
		return exitRun
	}
	if err != nil {
		switch rec.Status {
		case runner.StatusTimeout:
			fmt.Fprintf(stderr, "fsmove run: the run took longer than --timeout %s; raise it, or look at the partial artifacts in %s\n", timeout, opts.OutDir)
		case runner.StatusInterrupted:
			fmt.Fprintln(stderr, "fsmove run: interrupted; the container was removed")
		default:
			fmt.Fprintf(stderr, "fsmove run: %v\n", err)
		}
		return exitRun
	}

	puppetFailed := rec.Status != runner.StatusOK
	if rec.Status == runner.StatusIncomplete {
		fmt.Fprintf(stderr, "fsmove run: %s\n", rec.Error)
	} else if puppetFailed {
		fmt.Fprintf(stderr, "fsmove run: %s; Puppet's log is %s\n", rec.Error, filepath.Join(opts.OutDir, runner.PuppetLogFile))
		if log, err := os.Open(filepath.Join(opts.OutDir, runner.PuppetLogFile)); err == nil {
			for _, line := range runner.PuppetErrors(log, 5) {
				fmt.Fprintf(stderr, "  %s\n", line)
			}
			log.Close()
		}
	}
	if opts.Verbose {
		if data, err := os.ReadFile(filepath.Join(opts.OutDir, runner.PuppetLogFile)); err == nil {
			stderr.Write(data)
		}
	}
	tracePath := filepath.Join(opts.OutDir, runner.TraceFile)
	catalogPath := filepath.Join(opts.OutDir, runner.CatalogFile)
	if _, err := os.Stat(catalogPath); err != nil {
		fmt.Fprintln(stderr, "fsmove run: Puppet wrote no catalog, so there is nothing to analyze; fix the compile error above")
		return exitRun
	}

	step := opts.Progress.Start("analyze", "analyzing "+runner.TraceFile)
	start := time.Now()
	code := analyzeArtifacts(ctx, stdout, stderr, tracePath, catalogPath, rf, func() { step.Done("") })
	rec.AddStep("analyze", time.Since(start), code == exitOK || code == exitFindings, "")
	rec.AnalyzeExit = &code
	if err := rec.Write(opts.OutDir); err != nil {
		fmt.Fprintf(stderr, "fsmove run: %v\n", err)
	}
	if puppetFailed {
		return exitRun
	}
	return code
}
