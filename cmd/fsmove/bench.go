package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fsmove/fsmove/bench/corpus"
	"github.com/fsmove/fsmove/bench/corpusrun"
	"github.com/fsmove/fsmove/bench/report"
	"github.com/fsmove/fsmove/bench/results"
	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/internal/term"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/module"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// benchHelp is fsmove bench's help; corpus files are described in
// README.md ("Corpus files").
var benchHelp = help{
	synopsis: `fsmove bench [flags] CORPUS
fsmove bench [flags] --debian
fsmove bench merge --out DIR SHARD_DIR...   (see fsmove bench merge --help)
fsmove bench forge-corpus [-o FILE] PAGE.json...   (see its --help)
fsmove bench k8s --shards N [flags] CORPUS   (see its --help)`,
	description: `
Run every module of CORPUS (one module a line, as "fsmove run" takes it, with
optional class=, param.KEY=, timeout=, deps= fields), each in a fresh
container, traced, and analyze each trace. --debian runs Debian's
puppet-module-* packages instead, with bench/corpus/debian-params.txt (or
--params) laid over them. Writes OUT/runs/<module>/ per module and
OUT/results.csv, results.json, results.html and the figures; --confirm adds
each finding's verdict.`,
	examples: []example{
		{"fsmove bench --out results corpus.txt", "run a corpus file"},
		{"fsmove bench --debian --resume --untraced", "Debian's modules, resumed, with slowdowns"},
		{"fsmove bench --resume --confirm corpus.txt", "add the confirmations' verdicts"},
	},
	groups: []flagGroup{
		{"Common flags", []string{"out", "debian", "params", "resume", "force", "shard", "workers", "timeout", "quiet"}},
		{"Container and tracing", []string{"tracer", "trusted", "suite", "image", "init", "seccomp-bpf", "docker-host"}},
		{"What is measured", []string{"untraced", "confirm", "idempotence"}},
	},
	exit: `Exit status:
  0  every module has results, whatever each run found (a module's own
     status, 0 to 4 as fsmove analyze's, is in its analysis.json)
  2  usage or input error, or --out holds an earlier bench's results
     (--resume continues it, --force starts over)
  3  the bench stopped (Docker failed, --timeout, an interrupt), or some
     modules' runs failed outside the module (engine, image, network,
     disk): they are named, and --resume runs them again
`,
	more: `More: README.md ("Corpus files"), bench/results/README.md.`,
}

// benchFlags are fsmove bench's flags.
type benchFlags struct {
	out        string
	debian     bool
	workers    int
	timeout    time.Duration
	tracer     string
	trusted    bool
	params     string
	seccompBPF bool
	init       string
	untraced   bool
	confirm    bool
	// idempotence: --idempotence, a second traced apply of each module.
	idempotence bool
	resume      bool
	force       bool
	shard       string
	image       string
	suite       string
	quiet       bool
	hosts       []string
}

func newBenchCmd(c *cli) *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "run a corpus of modules and tabulate and plot the results",
	}
	addBenchFlags(cmd.Flags(), &f)
	cmd.AddCommand(newBenchMergeCmd(c), newForgeCorpusCmd(c), newBenchK8sCmd(c), newBenchPodCmd(c))
	setHelp(cmd, benchHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runBench(cmd.Context(), c.stdout, c.stderr, args, &f)
	}
	return cmd
}

// addBenchFlags defines fsmove bench's flags, which fsmove bench pod takes
// too.
func addBenchFlags(fs *pflag.FlagSet, f *benchFlags) {
	fs.StringVar(&f.out, "out", "fsmove-bench", "output directory")
	fs.BoolVar(&f.debian, "debian", false, "run Debian's puppet-module-* packages (apt-cache in the image)")
	fs.IntVar(&f.workers, "workers", runtime.NumCPU(), "modules run at once")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "limit per module for the traced run, the analysis and the untraced run, each")
	tracerFlag(fs, &f.tracer, &f.trusted)
	fs.StringVar(&f.params, "params", "", "corpus `file` whose lines replace the class, parameters, timeout and deps of the same modules (default with --debian: the committed debian-params.txt)")
	fs.BoolVar(&f.seccompBPF, "seccomp-bpf", true, "let strace filter in the kernel (--seccomp-bpf)")
	enumVar(fs, &f.init, "init", string(container.InitSystemd), initNames(), "the containers' PID 1: systemd or none")
	fs.BoolVar(&f.untraced, "untraced", false, "also time each cleanly applied module without the tracer (a second container: doubles Puppet's time)")
	fs.BoolVar(&f.confirm, "confirm", false, "re-apply each module's reported findings to test them (fsmove confirm): confirmed, refuted or unknown")
	fs.BoolVar(&f.idempotence, "idempotence", false, "apply each module a second time, traced, and count what it changes again (NI)")
	fs.BoolVar(&f.resume, "resume", false, "skip what the run directories already hold (finished runs, analyses, untraced times)")
	fs.StringVar(&f.shard, "shard", "", "run share `I/N` of the corpus (the same share on every machine for the same corpus and N)")
	fs.BoolVar(&f.force, "force", false, "start over in an --out that holds an earlier bench's results (its run directories are removed)")
	enumVar(fs, &f.suite, "suite", container.DefaultSuite, container.SuiteNames(), "Debian `release` of the image: "+strings.Join(container.SuiteNames(), ", "))
	fs.StringVar(&f.image, "image", "", "Docker image `tag` (default fsmove/puppet:SUITE)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	stringsFlag(fs, &f.hosts, "docker-host", "Docker engine `URL` on this host, unix:///… (repeatable: modules go round-robin to the engines; default DOCKER_HOST or the local socket)")
}

func runBench(ctx context.Context, stdout, stderr io.Writer, positional []string, f *benchFlags) error {
	if f.debian == (len(positional) == 1) || len(positional) > 1 {
		return usagef("give one corpus file, or --debian")
	}
	initMode, err := container.ParseInit(f.init)
	if err != nil {
		return usagef("--init: %w", err)
	}
	tracerName, _, err := chooseTracer(stderr, "bench", f.tracer, f.trusted)
	if err != nil {
		return err
	}
	var overrides []corpus.Entry
	switch {
	case f.params != "":
		overrides, err = corpus.ParseFile(f.params)
	case f.debian:
		overrides, err = corpus.DebianParamsEntries()
	}
	if err != nil {
		return usagef("--params: %w", err)
	}
	if f.workers < 1 {
		return usagef("--workers must be at least 1")
	}
	if _, err := container.LookupSuite(f.suite); err != nil {
		return usagef("--suite: %w", err)
	}
	shardI, shardN := 1, 1
	if f.shard != "" {
		if shardI, shardN, err = corpus.ParseShard(f.shard); err != nil {
			return usagef("--shard: %w", err)
		}
	}
	startOver, err := checkBenchOut(f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return usageError{err}
	}

	hosts := f.hosts
	if len(hosts) == 0 {
		hosts = []string{""} // DOCKER_HOST or the local socket
	}
	var engines []*container.Engine
	for _, h := range hosts {
		eng, err := container.ConnectHost(ctx, h)
		if err != nil {
			return runError{err}
		}
		defer eng.Close()
		if !eng.Local() {
			return usagef("the Docker engine at %s is not on this host: fsmove bench gives each module an isolated network, whose rules it sets on the engine's host, "+
				"and cannot for a remote engine; run fsmove bench on the engine's host (as many machines as you like: split the corpus among them)", eng.Host())
		}
		engines = append(engines, eng)
	}
	imgOpts := container.ImageOptions{Tag: f.image, Suite: f.suite}

	var entries []corpus.Entry
	var debianHeader []string // corpus.txt's header comment
	corpusPath := filepath.Join(f.out, "corpus.txt")
	switch {
	case !f.debian:
		corpusPath = positional[0]
		entries, err = corpus.ParseFile(corpusPath)
	case f.resume && files.Exists(corpusPath):
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
		if f.debian {
			if debianHeader == nil {
				debianHeader, err = corpus.ReadHeader(corpusPath)
			}
			if err == nil {
				err = writeCorpus(corpusPath, debianHeader, entries)
			}
		}
	}
	if err != nil {
		return usageError{err}
	}

	if err := checkDebEntries(ctx, engines[0], imgOpts, corpusPath, entries); err != nil {
		return err
	}
	corpusSum, err := files.SHA256(corpusPath)
	if err != nil {
		return usageError{err}
	}
	corpusModules := make([]results.CorpusModule, len(entries))
	for i, e := range entries {
		corpusModules[i] = results.CorpusModule{Key: e.Key, Version: e.Version}
	}
	if f.shard != "" {
		all := len(entries)
		entries = corpus.Shard(entries, shardI, shardN)
		fmt.Fprintf(stderr, "fsmove bench: share %s of the corpus: %d of its %d modules\n", f.shard, len(entries), all)
	}

	self, err := os.Executable()
	if err != nil {
		return runError{err}
	}
	if startOver {
		// Only now, every check passed: --force removes the earlier runs.
		if err := os.RemoveAll(filepath.Join(f.out, corpusrun.RunsDir)); err != nil {
			return usageError{err}
		}
	}
	var progress io.Writer
	if !f.quiet {
		progress = stderr // a redrawn line on a terminal, else a line per module
	}
	start := time.Now()
	rows, work, err := corpusrun.Run(ctx, entries, &corpusrun.DockerBackend{Engines: engines, Fsmove: self}, corpusrun.Options{
		OutDir: f.out, Workers: f.workers, Engines: len(engines), Timeout: f.timeout,
		Tracer: tracerName, Trusted: f.trusted, TracerBinary: fsmoveBinary(), SeccompBPF: f.seccompBPF, Init: initMode, Untraced: f.untraced, Confirm: f.confirm, Resume: f.resume,
		Idempotence: f.idempotence,
		Image:       imgOpts, Progress: progress, ProgressLines: !term.IsTerminal(stderr), FsmoveVersion: buildVersion(),
	})
	imageID, _ := engines[0].ImageID(ctx, imgOpts.ImageTag())
	prov := results.Provenance{FsmoveVersion: buildVersion(), Image: imgOpts.ImageTag(), ImageID: imageID, Suite: f.suite,
		Tracer: tracerName, Init: string(initMode), Corpus: corpusPath, CorpusSHA256: corpusSum, Shard: f.shard,
		Modules: len(entries), Started: start.UTC(), Finished: time.Now().UTC(), CorpusModules: corpusModules}
	if werr := report.WriteFiles(f.out, "fsmove bench: "+filepath.Base(corpusPath), rows, &prov); werr != nil {
		return runError{werr}
	}
	if werr := results.WriteJSONFile(f.out, results.ProvenanceJSON, prov); werr != nil {
		return runError{werr}
	}
	report.Summary(stdout, rows, 5)
	fmt.Fprintf(stdout, "work done: %d traced runs, %d analyses, %d untraced runs, %d confirmations in %s; results in %s\n",
		work.Traced, work.Analyzed, work.Untraced, work.Confirmed, time.Since(start).Round(time.Second), filepath.Join(f.out, "results.html"))
	if err != nil {
		return runError{fmt.Errorf("%w (%d of %d modules have results; --resume continues)", err, len(rows), len(entries))}
	}
	return infraFailures(work.InfraFailed, len(entries))
}

// infraFailures is the bench's error when some modules' runs failed
// outside the module: no result of theirs, so not a finished bench (exit
// 3), naming them (ten at most).
func infraFailures(failed []string, total int) error {
	n := len(failed)
	if n == 0 {
		return nil
	}
	return runError{fmt.Errorf("%d of %d modules have no result of their own: their runs failed outside the module (the engine, the image, the network or the disk; each run.json says how): %s; --resume runs them again",
		n, total, someModules(failed))}
}

// someModules names modules in one line: the first ten, then how many more.
func someModules(names []string) string {
	if n := len(names); n > 10 {
		names = append(names[:10:10], fmt.Sprintf("and %d more", n-10))
	}
	return strings.Join(names, ", ")
}

// checkDebEntries refuses, before any module runs, the deb: entries whose
// package the image's module index lacks: a misspelled package is the
// corpus's input error (exit 2, every such line, whole), not a failed run.
// Without the image (the first run builds it) or its index, the runs say it.
func checkDebEntries(ctx context.Context, eng *container.Engine, img container.ImageOptions, file string, entries []corpus.Entry) error {
	index, ok, err := eng.ImageModuleIndex(ctx, img.ImageTag())
	if err != nil || !ok {
		return nil
	}
	pkgs, err := module.ParseDebIndex(index)
	if err != nil {
		return nil
	}
	if err := corpus.CheckDebPackages(file, entries, pkgs); err != nil {
		return usageError{err}
	}
	return nil
}

// checkBenchOut refuses an --out that holds an earlier bench's results
// unless --resume continues it or --force starts over; startOver says
// that the caller is to remove the earlier run directories (with --force),
// once every other check has passed (the result files are rewritten).
// It touches nothing.
func checkBenchOut(f *benchFlags) (startOver bool, err error) {
	if f.resume && f.force {
		return false, usagef("--resume and --force contradict each other")
	}
	entries, _ := os.ReadDir(filepath.Join(f.out, corpusrun.RunsDir))
	if len(entries) == 0 && !files.Exists(filepath.Join(f.out, results.ResultsCSV)) || f.resume {
		return false, nil
	}
	if !f.force {
		return false, usagef("%s holds the results of an earlier bench: --resume continues it, --force starts over", f.out)
	}
	return true, nil
}

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
