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

const runUsage = `Usage: fsmove run [flags] MODULE

MODULE is a module directory, deb:puppet-module-AUTHOR-NAME (installed with
apt in the container) or AUTHOR-NAME[@VERSION] (from the Puppet Forge).
fsmove applies it once in a fresh container, traced, keeps the artifacts in
--out and reports missing ordering relationships and missing notifiers.

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
	fs.StringVar(&f.out, "out", "", "artifact directory (default ./fsmove-out/<module>)")
	fs.Var(&f.modulePath, "modulepath", "a directory of dependency modules, or one module (repeatable)")
	fs.StringVar(&f.class, "class", "", "class to include (default: the module's name)")
	fs.StringVar(&f.code, "e", "", "Puppet code to apply instead of including a class")
	fs.StringVar(&f.manifest, "manifest", "", "manifest file to apply instead of including a class")
	fs.Var(&f.params, "param", "class parameter key=value (repeatable)")
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
	if len(positional) != 1 {
		fmt.Fprintln(stderr, "fsmove run: give exactly one module (a directory, deb:puppet-module-AUTHOR-NAME or AUTHOR-NAME[@VERSION])")
		return exitUsage
	}
	opts, code := runOptions(stderr, &f, positional[0])
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
// bad input (after saying why).
func runOptions(stderr io.Writer, f *runFlags, moduleArg string) (runner.Options, int) {
	spec, err := runner.ParseModuleSpec(moduleArg)
	if err != nil {
		fmt.Fprintf(stderr, "fsmove run: %v\n", err)
		return runner.Options{}, exitUsage
	}
	entry := runner.Entry{Class: f.class, Code: f.code, Manifest: f.manifest}
	for _, p := range f.params {
		param, err := runner.ParseParam(p)
		if err != nil {
			fmt.Fprintf(stderr, "fsmove run: %v\n", err)
			return runner.Options{}, exitUsage
		}
		entry.Params = append(entry.Params, param)
	}
	if f.manifest != "" {
		data, err := os.ReadFile(f.manifest)
		if err != nil {
			fmt.Fprintf(stderr, "fsmove run: --manifest: %v\n", err)
			return runner.Options{}, exitUsage
		}
		entry.ManifestText = string(data)
	}
	if _, err := entry.SitePP(spec.Name); err != nil {
		fmt.Fprintf(stderr, "fsmove run: %v\n", err)
		return runner.Options{}, exitUsage
	}
	out := f.out
	if out == "" {
		out = filepath.Join("fsmove-out", spec.Name)
	}
	initMode, err := container.ParseInit(f.init)
	if err != nil {
		fmt.Fprintf(stderr, "fsmove run: --init: %v\n", err)
		return runner.Options{}, exitUsage
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
	code := analyzeArtifacts(stdout, stderr, tracePath, catalogPath, rf)
	if code == exitOK || code == exitFindings {
		step.Done(fmt.Sprintf("exit %d", code))
	} else {
		step.Fail(fmt.Sprintf("exit %d", code))
	}
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
