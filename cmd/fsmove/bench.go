package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsmove/fsmove/bench/corpus"
	"github.com/fsmove/fsmove/bench/corpusrun"
	"github.com/fsmove/fsmove/bench/report"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

const benchUsage = `Usage: fsmove bench [flags] CORPUS
       fsmove bench [flags] --debian

Runs every module of CORPUS (one module a line: a directory,
deb:puppet-module-AUTHOR-NAME or AUTHOR-NAME[@VERSION], then optional
class=NAME, module=NAME, version=V, timeout=DUR, deps=PKG,... and
param.KEY=VALUE; # comments), each in a fresh container, traced, and
analyzes each trace. --debian builds the corpus from Debian's
puppet-module-* packages instead, with the class, parameters, timeouts and
missing dependencies of the committed parameters file laid over it
(bench/corpus/debian-params.txt, or --params), and writes it to
OUT/corpus.txt. Writes OUT/runs/<module>/ per module and OUT/results.csv,
results.json, results.html and the figures.

Flags:
`

func runBench(stdout, stderr io.Writer, args []string) int {
	fs := newFlagSet("bench", benchUsage, stderr)
	var (
		out        = fs.String("out", "fsmove-bench", "output directory")
		debian     = fs.Bool("debian", false, "run Debian's puppet-module-* packages (apt-cache in the image)")
		workers    = fs.Int("workers", runtime.NumCPU(), "modules run at once")
		timeout    = fs.Duration("timeout", 10*time.Minute, "limit per module for the traced run, the analysis and the untraced run, each")
		tracer     = fs.String("tracer", "", "capture `backend`: "+strings.Join(runner.Tracers(), ", ")+" (default: ebpf where this host allows it, else strace)")
		params     = fs.String("params", "", "corpus `file` whose lines replace the class, parameters, timeout and deps of the same modules (default with --debian: the committed debian-params.txt)")
		seccompBPF = fs.Bool("seccomp-bpf", true, "let strace filter in the kernel (--seccomp-bpf)")
		initFlag   = fs.String("init", string(container.InitSystemd), "the containers' PID 1: systemd or none")
		untraced   = fs.Bool("untraced", false, "also time each cleanly applied module without the tracer (a second container: doubles Puppet's time)")
		resume     = fs.Bool("resume", false, "skip what the run directories already hold (finished runs, analyses, untraced times)")
		image      = fs.String("image", container.DefaultImage, "Docker image")
		quiet      = fs.Bool("quiet", false, "no progress line")
		hosts      repeatedFlag
	)
	fs.Var(&hosts, "docker-host", "Docker engine `URL` (repeatable: modules go round-robin to the engines; default DOCKER_HOST or the local socket)")
	positional, code, ok := parseFlags(fs, args, stdout)
	if !ok {
		return code
	}
	if *debian == (len(positional) == 1) || len(positional) > 1 {
		fmt.Fprintln(stderr, "fsmove bench: give one corpus file, or --debian")
		return exitUsage
	}
	initMode, err := container.ParseInit(*initFlag)
	if err != nil {
		fmt.Fprintf(stderr, "fsmove bench: --init: %v\n", err)
		return exitUsage
	}
	if *tracer == "" {
		var note string
		*tracer, note = runner.DefaultTracer()
		if note != "" {
			fmt.Fprintln(stderr, "fsmove bench: "+note)
		}
	} else if !slices.Contains(runner.Tracers(), *tracer) {
		fmt.Fprintf(stderr, "fsmove bench: --tracer: unknown tracer %q (want one of %s)\n", *tracer, strings.Join(runner.Tracers(), ", "))
		return exitUsage
	}
	var overrides []corpus.Entry
	switch {
	case *params != "":
		overrides, err = corpus.ParseFile(*params)
	case *debian:
		overrides, err = corpus.DebianParamsEntries()
	}
	if err != nil {
		fmt.Fprintf(stderr, "fsmove bench: --params: %v\n", err)
		return exitUsage
	}
	if *workers < 1 {
		fmt.Fprintln(stderr, "fsmove bench: --workers must be at least 1")
		return exitUsage
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "fsmove bench: %v\n", err)
		return exitUsage
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(hosts) == 0 {
		hosts = append(hosts, "")
	}
	var engines []*container.Engine
	for _, h := range hosts {
		eng, err := container.ConnectHost(ctx, h)
		if err != nil {
			fmt.Fprintf(stderr, "fsmove bench: %v\n", err)
			return exitRun
		}
		defer eng.Close()
		engines = append(engines, eng)
	}
	imgOpts := container.ImageOptions{Tag: *image}

	var entries []corpus.Entry
	var debianHeader []string // corpus.txt's header comment
	corpusPath := filepath.Join(*out, "corpus.txt")
	switch {
	case !*debian:
		corpusPath = positional[0]
		entries, err = corpus.ParseFile(corpusPath)
	case *resume && benchFileExists(corpusPath):
		// The corpus of the run being resumed, not a fresh listing (the
		// parameters file is laid over it again below: an edited entry
		// names a new run directory when its class changes, and is rerun).
		entries, err = corpus.ParseFile(corpusPath)
	default:
		fmt.Fprintln(stderr, "fsmove bench: listing Debian's puppet-module-* packages in the image")
		var skipped []corpus.Skipped
		entries, skipped, err = corpus.Debian(ctx, engines[0], imgOpts)
		debianHeader = append([]string{"Debian puppet-module-* packages, made by fsmove bench --debian"}, corpus.SkippedHeader(skipped)...)
		if err == nil {
			fmt.Fprintf(stderr, "fsmove bench: %d modules, %d packages skipped (see %s)\n", len(entries), len(skipped), corpusPath)
		}
	}
	if err == nil {
		for _, spec := range corpus.Override(entries, overrides) {
			fmt.Fprintf(stderr, "fsmove bench: warning: the parameters file names %s, which is not in the corpus\n", spec)
		}
		if *debian {
			if debianHeader == nil {
				debianHeader, err = corpus.ReadHeader(corpusPath)
			}
			if err == nil {
				err = writeCorpus(corpusPath, debianHeader, entries)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "fsmove bench: %v\n", err)
		return exitUsage
	}

	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "fsmove bench: %v\n", err)
		return exitRun
	}
	var progress io.Writer
	if !*quiet && isTerminal(stderr) {
		progress = stderr
	}
	start := time.Now()
	rows, work, err := corpusrun.Run(ctx, entries, &corpusrun.DockerBackend{Engines: engines, Fsmove: self}, corpusrun.Options{
		OutDir: *out, Workers: *workers, Engines: len(engines), Timeout: *timeout,
		Tracer: *tracer, TracerBinary: fsmoveBinary(), SeccompBPF: *seccompBPF, Init: initMode, Untraced: *untraced, Resume: *resume,
		Image: imgOpts, Progress: progress, FsmoveVersion: version,
	})
	if werr := report.WriteFiles(*out, "fsmove bench: "+filepath.Base(corpusPath), rows); werr != nil {
		fmt.Fprintf(stderr, "fsmove bench: %v\n", werr)
		return exitRun
	}
	report.Summary(stdout, rows, 5)
	fmt.Fprintf(stdout, "work done: %d traced runs, %d analyses, %d untraced runs in %s; results in %s\n",
		work.Traced, work.Analyzed, work.Untraced, time.Since(start).Round(time.Second), filepath.Join(*out, "results.html"))
	if err != nil {
		fmt.Fprintf(stderr, "fsmove bench: %v (%d of %d modules have results; --resume continues)\n", err, len(rows), len(entries))
		return exitRun
	}
	return exitOK
}

// repeatedFlag is a repeatable string flag (--docker-host).
type repeatedFlag []string

func (l *repeatedFlag) String() string     { return strings.Join(*l, ",") }
func (l *repeatedFlag) Set(v string) error { *l = append(*l, v); return nil }

func writeCorpus(path string, header []string, entries []corpus.Entry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := corpus.Format(f, header, entries); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func benchFileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
