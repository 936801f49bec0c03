package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/cmd/fsmove/internal/project"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/internal/printable"
	"github.com/fsmove/fsmove/internal/term"
	"github.com/fsmove/fsmove/puppet/analyze"
	"github.com/fsmove/fsmove/puppet/fix"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/fsmove/fsmove/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// analyzeHelp is fsmove analyze's help; the details are in README.md.
var analyzeHelp = help{
	synopsis: `fsmove analyze [flags] TRACE CATALOG
fsmove analyze [flags] RUN-DIR
fsmove analyze [flags] --fstrace PROGRAM.fst CATALOG`,
	description: `
Analyze a captured trace of "puppet apply" against the catalog Puppet applied,
and report missing ordering relationships (MOR) and missing notifiers (MN).
TRACE is the output of "strace -f -o FILE" (plain, gzip or zstd), a directory
of "strace -ff" files, or "-" for standard input; CATALOG is the catalog JSON.
RUN-DIR is the directory of an "fsmove run" (its "artifacts:" line): the run's
own report again, with your module's file paths. No Docker and no network are
needed. The report says when the analysis is incomplete (the trace ends early,
no resource block is recognised, another run's catalog) and why.`,
	examples: []example{
		{"fsmove analyze ~/.local/state/fsmove/runs/mymod-1a2b3c4d", "a saved fsmove run, again"},
		{"fsmove analyze --format json trace.log.zst cat.json", "JSON, from a compressed trace"},
		{"fsmove analyze --format html -o report.html RUN-DIR", "one web page, with evidence and graph"},
		{"fsmove analyze --all trace.log catalog.json", "with the pairs held back as not faults"},
		{"fsmove analyze --waivers waivers.txt trace.log cat.json", "without the findings you waived"},
		{"fsmove analyze --fstrace prog.fst catalog.json", "a hand-written FStrace program"},
	},
	groups: []flagGroup{
		{"Input", []string{"fstrace", "puppet-graphs", "strict", "config", "no-config"}},
		{"Report output", reportOutputFlags},
		{"Filters", filterFlags},
		{"Debugging", []string{"stats", "cpuprofile"}},
	},
	exit: exitStatusHelp,
	more: `More: README.md ("fsmove analyze in detail", "Exit status").`,
}

// colorModes are the values of --color, scopes those of --scope.
var (
	colorModes = []string{"auto", "always", "never"}
	scopes     = []string{"module", "all"}
)

// reportOutputFlags and filterFlags are the flags of addReportFlags, as
// the help of run, analyze and confirm groups them.
var (
	reportOutputFlags = []string{"format", "output", "color", "graph-out", "base-path", "scope", "all", "allow-incomplete", "allow-unobserved", "fail-on", "show-suppressed"}
	filterFlags       = []string{"package-notify", "no-models", "filter", "filter-file", "no-default-filters", "waivers"}
)

// reportFlags are the analysis and report flags shared by analyze and run.
type reportFlags struct {
	format           string
	output           string
	graphOut         string
	packageNotify    bool
	noModels         bool
	filters          []string
	filterFile       string
	noDefaultFilters bool
	waivers          string
	strict           bool
	stats            bool
	color            string
	all              bool
	allowIncomplete  bool
	allowUnobserved  bool
	basePath         string
	failOn           string
	showSuppressed   bool
	scope            string
	// project is the project file (.fsmove.yml) read for this command,
	// nil when none: its filters and waivers join the flags'.
	project *project.Config
}

// addReportFlags registers the shared analysis/report flags on fs.
func addReportFlags(fs *pflag.FlagSet) *reportFlags {
	rf := &reportFlags{}
	enumVar(fs, &rf.format, "format", "text", report.FormatNames(), "`format`: "+strings.Join(report.FormatNames(), ", "))
	fs.StringVarP(&rf.output, "output", "o", "", "write the report to `FILE`, not standard output")
	fs.StringVar(&rf.graphOut, "graph-out", "", "write the dependency graph, findings marked, to `FILE` (DOT)")
	addFilterFlags(fs, rf)
	fs.BoolVar(&rf.strict, "strict", false, "make the first malformed trace line fatal")
	fs.BoolVar(&rf.stats, "stats", false, "print counts and each phase's time on standard error")
	enumVar(fs, &rf.color, "color", "auto", colorModes, "colour the text report: "+orList(colorModes))
	fs.BoolVar(&rf.allowIncomplete, "allow-incomplete", false, "an incomplete analysis without findings exits 0, not 4")
	fs.BoolVar(&rf.allowUnobserved, "allow-unobserved", false, "a Service whose daemon was not traced is not incomplete")
	fs.StringVar(&rf.basePath, "base-path", "", "manifest paths relative to `DIR` (default: the git top, else .)")
	fs.StringVar(&rf.failOn, "fail-on", "", "only these findings exit 1 (default all): `KIND,CONFIDENCE`, e.g. MN")
	fs.BoolVar(&rf.showSuppressed, "show-suppressed", false, "also list the findings waivers or '# fsmove:ignore' suppress")
	fs.BoolVar(&rf.all, "all", false, "also list the pairs a rule holds back as not faults, with why")
	enumVar(fs, &rf.scope, "scope", "module", scopes, "findings that count: the `module`'s, or all")
	return rf
}

// addFilterFlags registers the flags that choose what the analysis
// reports (filterFlags), for commands that analyze but write no report of
// their own (fsmove fix).
func addFilterFlags(fs *pflag.FlagSet, rf *reportFlags) {
	fs.BoolVar(&rf.packageNotify, "package-notify", false, "also report Package -> Service missing notifiers")
	fs.BoolVar(&rf.noModels, "no-models", false, "hold nothing back by a program model (a fact about one program)")
	stringsFlag(fs, &rf.filters, "filter", "ignore paths under `PREFIX` (repeatable; added to the defaults)")
	fs.StringVar(&rf.filterFile, "filter-file", "", "more path prefixes to ignore, one a line, from `FILE`")
	fs.BoolVar(&rf.noDefaultFilters, "no-default-filters", false, "do not ignore /proc, /sys, /dev, Puppet's state, Ruby's paths")
	fs.StringVar(&rf.waivers, "waivers", "", "suppress the findings `FILE` lists (REF1 REF2 [PATH] -- reason)")
}

// detectorOptions turns the flags into detector options, reading the filter
// and waiver files.
func (rf *reportFlags) detectorOptions() (detector.Options, error) {
	opts := detector.Options{
		PackageNotify:    rf.packageNotify,
		NoModels:         rf.noModels,
		Filters:          append([]string(nil), rf.filters...),
		NoDefaultFilters: rf.noDefaultFilters,
		ReadManifest:     detector.ReadManifestFile,
	}
	if rf.project != nil {
		opts.Filters = append(opts.Filters, rf.project.Filters...)
		opts.Waivers = append(opts.Waivers, rf.project.Waivers...)
	}
	if rf.filterFile != "" {
		more, err := detector.LoadFilterFile(rf.filterFile)
		if err != nil {
			return opts, err
		}
		opts.Filters = append(opts.Filters, more...)
	}
	if rf.waivers != "" {
		f, err := os.Open(rf.waivers)
		if err != nil {
			return opts, err
		}
		defer f.Close()
		w, err := detector.LoadWaivers(f)
		if err != nil {
			return opts, fmt.Errorf("%s: %w", rf.waivers, err)
		}
		opts.Waivers = append(opts.Waivers, w...)
	}
	return opts, nil
}

// check checks the report flags before any work (analyze's or run's):
// --filter prefixes are absolute paths (paths in the
// trace; a relative one would never match); -o and --graph-out can be
// written (their directory exists and is writable, and they are not
// directories); --filter-file and --waivers can be read and parsed.
func (rf *reportFlags) check() error {
	if rf.basePath != "" {
		if info, err := os.Stat(rf.basePath); err != nil || !info.IsDir() {
			return fmt.Errorf("--base-path %s: not a directory", rf.basePath)
		}
	}
	if _, err := detector.ParseFailOn(rf.failOn); err != nil {
		return fmt.Errorf("--fail-on %q: %v", rf.failOn, err)
	}
	for _, p := range rf.filters {
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("--filter %q: a filter is an absolute path prefix as the trace names paths (e.g. /var/cache), not a relative path", p)
		}
	}
	for _, o := range []struct{ flag, path string }{{"-o", rf.output}, {"--graph-out", rf.graphOut}} {
		if o.path == "" {
			continue
		}
		if err := checkOutputFile(o.flag, o.path); err != nil {
			return err
		}
	}
	_, err := rf.detectorOptions() // read again by the analysis
	return err
}

// checkOutputFile checks that the file path can be created or replaced.
func checkOutputFile(flag, path string) error {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("%s %s: a directory, not a file", flag, path)
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s %s: no directory %s", flag, path, dir)
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case !info.IsDir():
		return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
	}
	if err := syscall.Access(dir, accessW); err != nil {
		return fmt.Errorf("%s %s: cannot write in %s (%v)", flag, path, dir, err)
	}
	if err := syscall.Access(path, accessW); err != nil && !errors.Is(err, syscall.ENOENT) {
		return fmt.Errorf("%s %s: cannot write it (%v)", flag, path, err)
	}
	return nil
}

// accessW is access(2)'s W_OK.
const accessW = 2

// analyzeFlags are fsmove analyze's own flags.
type analyzeFlags struct {
	fstrace      string
	puppetGraphs string
	cpuProfile   string
}

func newAnalyzeCmd(c *cli) *cobra.Command {
	var af analyzeFlags
	cmd := &cobra.Command{
		Use:   "analyze",
		Short: "analyze a captured trace against a catalog",
	}
	fs := cmd.Flags()
	rf := addReportFlags(fs)
	fs.StringVar(&af.fstrace, "fstrace", "", "interpret the hand-written FStrace `PROGRAM` instead of a trace")
	fs.StringVar(&af.puppetGraphs, "puppet-graphs", "", "`DIR` where puppet apply --graph wrote its graphs: expanded_relationships.dot names the generators of resources made at apply time (default: the graphs/ of an fsmove run beside the trace)")
	fs.StringVar(&af.cpuProfile, "cpuprofile", "", "write a CPU profile of the analysis to `FILE` (for developers)")
	setHelp(cmd, analyzeHelp)
	cfg := addConfigFlags(fs)
	cmd.RunE = func(cmd *cobra.Command, args []string) (err error) {
		if rf.project, err = cfg.load(cmd, analyzeConfigDir(args, &af)); err != nil {
			return err
		}
		if rf.project != nil {
			fmt.Fprintf(c.stderr, "fsmove analyze: config: %s\n", rf.project)
		}
		return runAnalyze(cmd.Context(), c.stdout, c.stderr, args, &af, rf)
	}
	return cmd
}

func runAnalyze(ctx context.Context, stdout, stderr io.Writer, args []string, af *analyzeFlags, rf *reportFlags) (err error) {
	in := analyze.Input{FStrace: af.fstrace, PuppetGraphs: af.puppetGraphs}
	switch {
	case af.fstrace != "" && len(args) == 1:
		in.Catalog = args[0]
	case af.fstrace == "" && len(args) == 2 && args[0] == "-" && args[1] == "-":
		return usagef("the trace and the catalog cannot both be standard input (-)")
	case af.fstrace == "" && len(args) == 2:
		in.Trace, in.Catalog = args[0], args[1]
	case af.fstrace == "" && len(args) == 1:
		run, err := analyze.RunDirInput(args[0])
		if err != nil {
			return usageError{err}
		}
		in.Trace, in.Catalog = run.Trace, run.Catalog
	default:
		return usagef("want TRACE and CATALOG, a run's directory, or --fstrace PROGRAM and CATALOG; see fsmove analyze --help")
	}
	if err := rf.check(); err != nil {
		return usageError{err}
	}
	if af.cpuProfile != "" {
		f, createErr := os.Create(af.cpuProfile)
		if createErr != nil {
			return usageError{createErr}
		}
		defer closeFile(f, "--cpuprofile", &err) // err: the function's result
		if err := pprof.StartCPUProfile(f); err != nil {
			return usageError{err}
		}
		defer pprof.StopCPUProfile()
	}
	return analyzeAndReport(ctx, stdout, stderr, in, rf, reportHooks{})
}

// analyzeArtifacts analyzes a saved trace against a saved catalog and writes
// the report; fsmove run and fsmove confirm call it on the artifacts of a
// run, with their context (an interrupt stops the analysis).
func analyzeArtifacts(ctx context.Context, stdout, stderr io.Writer, tracePath, catalogPath string, rf *reportFlags, hooks reportHooks) error {
	return analyzeAndReport(ctx, stdout, stderr, analyze.Input{Trace: tracePath, Catalog: catalogPath}, rf, hooks)
}

// reportHooks are what a caller of analyzeAndReport does between the
// analysis and the report; either may be nil.
type reportHooks struct {
	// analyzed is called once the analysis is done and before anything is
	// written, so that a progress line ends before the report appears
	// under it.
	analyzed func()
	// confirm re-applies the findings to test them (--confirm) and sets
	// their confirmations (unknown, with the reason, for those it could not
	// test).
	confirm func(ctx context.Context, rep *detector.Report)
	// htmlReport, when set, is a file to write the HTML report to as
	// well, whatever --format says: fsmove run's report.html.
	htmlReport string
	// runFailed: the run that made the trace failed, so that the
	// command exits 3 whatever the analysis found (fsmove run).
	runFailed bool
	// locate gives the module's located manifests, for the findings'
	// edits (fsmove run's locates them); nil: those the run saved, if
	// the input is a run's.
	locate func(ctx context.Context, rep *detector.Report) *fix.Located
}

// basePath is the directory the reports write manifest files relative to:
// --base-path, or the top of the git work tree that holds the module's
// directory, or the current directory. It is absolute.
func basePath(flag string, module runner.ModuleSpec) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if module.Kind == runner.SourceDir && module.Dir != "" {
		if top, ok := gitWorkTree(module.Dir); ok {
			return top, nil
		}
	}
	return os.Getwd()
}

// gitWorkTree is the top of the git work tree holding dir: the nearest
// directory at or above it with a .git entry (a directory, or the file of
// a linked work tree or submodule).
func gitWorkTree(dir string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// runAnalysis runs the analysis of in as rf says. rec, the record of the
// run that made in (nil for a bare trace), sets apart the findings wholly
// inside the run's dependencies: they count only when the module under
// test can fix them (unless --scope all). The error is typed for the exit
// status.
func runAnalysis(ctx context.Context, in analyze.Input, rec *runner.RunRecord, dopts detector.Options, rf *reportFlags) (*detector.Report, *analyze.Stats, error) {
	if rec != nil && rf.scope != "all" {
		dopts.Scope = &detector.Scope{Roots: rec.ScopeRoots()}
	}
	rep, st, err := analyze.Run(ctx, in, analyze.Options{Strict: rf.strict, AllowUnobserved: rf.allowUnobserved, Detector: dopts})
	if err != nil {
		var inputErr *analyze.InputError
		switch {
		case errors.Is(err, context.Canceled):
			return nil, nil, runError{errors.New("interrupted")}
		case errors.Is(err, context.DeadlineExceeded):
			return nil, nil, runError{errors.New("out of time (--timeout)")}
		case errors.As(err, &inputErr):
			return nil, nil, usageError{err}
		}
		return nil, nil, runError{err}
	}
	return rep, st, nil
}

// analyzeAndReport runs the pipeline and writes the report. It returns
// nil for a complete analysis without findings, errFindings, a usageError
// for an input error, an incompleteError for an incomplete analysis without
// findings (unless --allow-incomplete), a runError when interrupted or out
// of time.
func analyzeAndReport(ctx context.Context, stdout, stderr io.Writer, in analyze.Input, rf *reportFlags, hooks reportHooks) (err error) {
	dopts, err := rf.detectorOptions()
	if err != nil {
		return usageError{err}
	}
	in, rec := analyze.WithRunRecord(in)
	var module runner.ModuleSpec
	if rec != nil {
		module = rec.Module
	}
	base, err := basePath(rf.basePath, module)
	if err != nil {
		return usagef("--base-path: %w", err)
	}
	rep, st, err := runAnalysis(ctx, in, rec, dopts, rf)
	if hooks.analyzed != nil {
		hooks.analyzed()
	}
	if err != nil {
		return err
	}
	if hooks.confirm != nil {
		hooks.confirm(ctx, rep)
	}
	locate := hooks.locate
	if locate == nil && rec != nil {
		locate = func(context.Context, *detector.Report) *fix.Located {
			return savedLocation(filepath.Dir(in.Trace), stderr)
		}
	}
	if locate != nil && ctx.Err() == nil {
		if loc := locate(ctx, rep); loc != nil {
			if err := attachEdits(rep, loc); err != nil {
				fmt.Fprintf(stderr, "fsmove analyze: the findings' edits: %v\n", err)
			}
		}
	}

	out := stdout
	toTerminal := rf.output == "" && term.IsTerminal(stdout)
	color := rf.color == "always" || (rf.color == "auto" && toTerminal)
	if rf.output != "" {
		f, createErr := os.Create(rf.output)
		if createErr != nil {
			return usageError{createErr}
		}
		defer closeFile(f, "writing the report", &err) // err: the function's result
		out = f
		color = rf.color == "always"
	}
	rep.ToolVersion = version
	if module.Kind != runner.SourceNone {
		rep.Module = module.Name // kind none's name only names the run
	}
	rep.BasePath = base
	if rec != nil && rec.Status != "" && rec.Status != runner.StatusOK {
		// From the run's record, not hooks.runFailed, so that a later
		// fsmove analyze of the run's directory says it too (a record
		// without a status says nothing).
		rep.RunFailure = &detector.RunFailure{Status: rec.Status, Error: rec.Error}
	}
	rep.ShowHeldBack = rf.all
	rep.ShowSuppressed = rf.showSuppressed
	failOn, _ := detector.ParseFailOn(rf.failOn) // checked by rf.check
	status := analyze.ExitStatus(rep, failOn, rf.allowIncomplete)
	exit := status // the command's, which the HTML page shows
	if hooks.runFailed {
		exit = exitRun
	}
	format, ok := report.FormatNamed(rf.format)
	if !ok { // --format takes only the table's names
		return usagef("no report format %q", rf.format)
	}
	err = format.Write(out, rep, report.Inputs{Color: color, HTML: func() report.HTMLInputs {
		return htmlInputs(in, rec, st, rep, exit)
	}})
	if err != nil {
		return usagef("writing the report: %w", err)
	}
	if hooks.htmlReport != "" {
		if err := writeHTMLFile(hooks.htmlReport, rep, htmlInputs(in, rec, st, rep, exit)); err != nil {
			fmt.Fprintf(stderr, "fsmove analyze: writing %s: %v\n", hooks.htmlReport, err)
		}
	}
	if rf.graphOut != "" {
		if err := writeGraph(rf.graphOut, st.Graph, rep); err != nil {
			return usagef("writing the graph: %w", err)
		}
	}
	if rf.stats {
		report.Stats(stderr, rep)
		printThroughput(stderr, rep, st)
	}
	// The text report on a terminal already says all this; a JSON or SARIF
	// report, or one written to a file, is not read by the person who ran
	// the command: tell them on stderr.
	if rf.format != "text" || !toTerminal {
		for _, why := range rep.Incomplete {
			fmt.Fprintln(stderr, "fsmove analyze: incomplete:", printable.String(why))
		}
	}
	return reportStatus(rep, failOn, status, stderr)
}

// reportStatus is the error of a report whose analysis exits with status
// (analyze.ExitStatus): errFindings, an incompleteError, or nil (with a
// note when the analysis is incomplete but allowed, or no finding fails).
func reportStatus(rep *detector.Report, failOn detector.FailOn, status int, stderr io.Writer) error {
	if n := rep.Faults(); n > 0 && rep.Failing(failOn) == 0 {
		fmt.Fprintf(stderr, "fsmove analyze: %d finding(s) reported, none of them --fail-on %s\n", n, failOn)
	}
	switch status {
	case exitFindings:
		return errFindings
	case exitIncomplete:
		return incompleteError{errors.New("no findings, but the analysis is incomplete (see why above), so this is not a clean result: exit 4 (--allow-incomplete accepts it)")}
	}
	if !rep.Complete() {
		fmt.Fprintln(stderr, "fsmove analyze: no findings in an incomplete analysis; exit 0 because of --allow-incomplete")
	}
	return nil
}

// printThroughput adds what --stats says beyond the report's counts: the
// end-to-end speed and the peak memory of this process.
func printThroughput(w io.Writer, rep *detector.Report, st *analyze.Stats) {
	var total float64
	for _, p := range rep.Stats.Phases {
		if p.Name == "total" {
			total = p.Duration.Seconds()
		}
	}
	if total > 0 && rep.Stats.TraceBytes > 0 {
		fmt.Fprintf(w, "throughput: %.1f MB/s (%d bytes in %.3fs)\n", float64(rep.Stats.TraceBytes)/1e6/total, rep.Stats.TraceBytes, total)
	}
	fmt.Fprintf(w, "peak RSS: %.1f MB\n", float64(st.PeakRSSBytes)/(1<<20))
}

// writeGraph writes the catalog's dependency graph with the findings
// highlighted, in DOT.
func writeGraph(path string, g *catalog.Graph, rep *detector.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := g.WriteDOT(f, rep.Pairs()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
