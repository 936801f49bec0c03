// Command fixrate is make bench-fix: how many of the findings fsmove shows
// on a corpus its own edits remove (docs/DESIGN.md, "fsmove fix"). For each
// module of the corpus it copies the module out (a deb: package's module,
// as the image's Debian packages hold it), runs it with fsmove run (the
// entry's class, parameters, dependencies), then fsmove fix --write
// --verify on that run, and writes a row per finding the run reports:
//
//   - fixed: the edited module's run no longer reports it;
//   - not fixed: it still does;
//   - no edit: fix placed none and says why (withdrawn: a notification
//     that would make a dependency cycle);
//   - not edited: the finding lies inside a dependency;
//
// and a row "new" per finding the edited module's run reports that the
// first did not.
//
// Usage: go run ./bench/fixrate [flags] CORPUS.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/fsmove/fsmove/bench/corpus"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

func main() {
	fsmove := flag.String("fsmove", "bin/fsmove", "the fsmove binary")
	out := flag.String("out", "/tmp/fsmove-fixrate", "directory of the work: each module's copy, run and verifying run")
	results := flag.String("results", "", "write the table here as CSV (and a summary beside it, .md)")
	keep := flag.Bool("keep", false, "keep the rows -results holds of the modules CORPUS does not run (to run some modules again)")
	suite := flag.String("suite", container.DefaultSuite, "the Debian suite every module runs on (fsmove run --suite)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: fixrate [flags] CORPUS\n\nRun each module, have fsmove fix edit and verify it, count the findings fixed.")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	entries, err := corpus.ParseFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixrate:", err)
		os.Exit(2)
	}
	h := &harness{fsmove: *fsmove, out: *out, suite: *suite}
	var rows []row
	for _, e := range entries {
		rs, err := h.module(context.Background(), e)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fixrate: %s: %v\n", e.Key, err)
			rs = append(rs, row{Module: e.Key, Outcome: "module-error", Note: err.Error()})
		}
		for _, r := range rs {
			fmt.Fprintf(os.Stderr, "fixrate: %s: %s %s → %s: %s %s\n", r.Module, r.Kind, r.Producer, r.Consumer, r.Outcome, r.Note)
		}
		rows = append(rows, rs...)
	}
	if *keep && *results != "" {
		ran := map[string]bool{}
		for _, e := range entries {
			ran[e.Key] = true
		}
		old, err := readCSV(*results)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fixrate: -keep:", err)
			os.Exit(1)
		}
		var kept []row
		for _, r := range old {
			if !ran[r.Module] {
				kept = append(kept, r)
			}
		}
		rows = append(kept, rows...)
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].Module < rows[j].Module })
	}
	sum := summarize(rows)
	fmt.Print(sum)
	if *results != "" {
		if err := writeCSV(*results, rows); err != nil {
			fmt.Fprintln(os.Stderr, "fixrate:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(strings.TrimSuffix(*results, ".csv")+".md", []byte(sum), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fixrate:", err)
			os.Exit(1)
		}
	}
}

// row is one finding of a module's run and what fsmove fix made of it.
type row struct {
	Module, Kind, Producer, Consumer string
	// Outcome: fixed, not-fixed, no-edit, withdrawn, not-edited, new,
	// clean (the module's run shows nothing), module-error.
	Outcome string
	Note    string
}

type harness struct {
	fsmove, out, suite string
}

// module copies e's module, runs it, then fixes and verifies the run.
func (h *harness) module(ctx context.Context, e corpus.Entry) ([]row, error) {
	dir := filepath.Join(h.out, e.Key)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	src, err := e.CopyModule(ctx, "fsmove/puppet:"+h.suite, filepath.Join(dir, "src"))
	if err != nil {
		return nil, err
	}
	run := filepath.Join(dir, "run")
	args := append([]string{"run", "--quiet", "--no-config", "--suite", h.suite, "--out", run, "--allow-unobserved"}, e.RunFlags()...)
	// 3: the run failed; a failed apply that was analyzed (its catalog
	// is there) is fsmove fix's to judge, as for fsmove fix MODULE.
	if _, err := h.fsmoveRun(ctx, append(args, src), 0, 1, 3, 4); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(run, runner.CatalogFile)); err != nil {
		return nil, fmt.Errorf("fsmove run wrote no catalog (see %s)", filepath.Join(run, runner.PuppetLogFile))
	}
	stderr, err := h.fsmoveRun(ctx, []string{"fix", "--quiet", "--write", "--verify", run}, 0, 1)
	if err != nil {
		return nil, err
	}
	return parseFix(e.Key, stderr), nil
}

// fsmoveRun runs fsmove with args and returns its standard error; an exit
// status not in ok is an error.
func (h *harness) fsmoveRun(ctx context.Context, args []string, ok ...int) (string, error) {
	cmd := exec.CommandContext(ctx, h.fsmove, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		return "", err
	}
	for _, c := range ok {
		if code == c {
			return stderr.String(), nil
		}
	}
	return "", fmt.Errorf("fsmove %s: exit %d: %s", args[0], code, lastLines(stderr.String(), 3))
}

// The lines of fsmove fix's standard error that say what it did.
var (
	verdictLine = regexp.MustCompile(`^fsmove fix: verify: finding (\d+) \((MOR|MN) (.*) → (.*)\): (fixed|not fixed)$`)
	noEditLine  = regexp.MustCompile(`^fsmove fix: finding (\d+) \((MOR|MN) (.*) → (.*)\): no edit: (.*)$`)
	newLine     = regexp.MustCompile(`^fsmove fix: verify: new: (MOR|MN) (.*) → (.*)$`)
	depLine     = regexp.MustCompile(`^fsmove fix: not edited: (MOR|MN) (.*) → (.*): (inside a dependency.*)$`)
	failedLine  = regexp.MustCompile(`^fsmove fix: verify: the edited module's apply failed (.*)$`)
)

// parseFix reads fsmove fix's standard error into rows.
func parseFix(module, stderr string) []row {
	var rows []row
	failed := ""
	for _, l := range strings.Split(stderr, "\n") {
		switch m := []string(nil); {
		case failedLine.MatchString(l):
			failed = "the edited module's apply failed " + failedLine.FindStringSubmatch(l)[1]
		case verdictLine.MatchString(l):
			m = verdictLine.FindStringSubmatch(l)
			rows = append(rows, row{Module: module, Kind: m[2], Producer: m[3], Consumer: m[4], Outcome: strings.ReplaceAll(m[5], " ", "-"), Note: "finding " + m[1]})
		case noEditLine.MatchString(l):
			m = noEditLine.FindStringSubmatch(l)
			outcome := "no-edit"
			if strings.Contains(m[5], "withdrawn") {
				outcome = "withdrawn"
			}
			rows = append(rows, row{Module: module, Kind: m[2], Producer: m[3], Consumer: m[4], Outcome: outcome, Note: "finding " + m[1] + ": " + m[5]})
		case newLine.MatchString(l):
			m = newLine.FindStringSubmatch(l)
			rows = append(rows, row{Module: module, Kind: m[1], Producer: m[2], Consumer: m[3], Outcome: "new"})
		case depLine.MatchString(l):
			m = depLine.FindStringSubmatch(l)
			rows = append(rows, row{Module: module, Kind: m[1], Producer: m[2], Consumer: m[3], Outcome: "not-edited", Note: m[4]})
		}
	}
	if failed != "" {
		for i := range rows {
			if rows[i].Outcome == "not-fixed" {
				rows[i].Note += "; " + failed
			}
		}
	}
	if len(rows) == 0 {
		rows = append(rows, row{Module: module, Outcome: "clean", Note: lastLines(stderr, 1)})
	}
	return rows
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// summarize is the table's summary in Markdown: outcomes, then modules.
func summarize(rows []row) string {
	var b strings.Builder
	count := map[string]int{}
	byModule := map[string]map[string]int{}
	for _, r := range rows {
		count[r.Outcome]++
		if byModule[r.Module] == nil {
			byModule[r.Module] = map[string]int{}
		}
		byModule[r.Module][r.Outcome]++
	}
	findings := count["fixed"] + count["not-fixed"] + count["no-edit"] + count["withdrawn"]
	fmt.Fprintf(&b, "# fsmove fix over a corpus (make bench-fix)\n\n")
	fmt.Fprintf(&b, "%d modules; %d findings of the modules' own: **%d fixed**, %d not fixed, %d without an edit, %d withdrawn; %d new findings after the edits; %d inside dependencies (not edited).\n\n",
		len(byModule), findings, count["fixed"], count["not-fixed"], count["no-edit"], count["withdrawn"], count["new"], count["not-edited"])
	outcomes := []string{"fixed", "not-fixed", "no-edit", "withdrawn", "new", "not-edited", "clean", "module-error"}
	fmt.Fprintf(&b, "| module | %s |\n|---|%s\n", strings.Join(outcomes, " | "), strings.Repeat("---|", len(outcomes)))
	modules := make([]string, 0, len(byModule))
	for m := range byModule {
		modules = append(modules, m)
	}
	sort.Strings(modules)
	for _, m := range modules {
		fmt.Fprintf(&b, "| %s |", m)
		for _, o := range outcomes {
			fmt.Fprintf(&b, " %d |", byModule[m][o])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// readCSV reads a table writeCSV wrote.
func readCSV(path string) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	var rows []row
	for i, r := range recs {
		if i == 0 {
			continue // the header
		}
		if len(r) != 6 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 6", path, i+1, len(r))
		}
		rows = append(rows, row{r[0], r[1], r[2], r[3], r[4], r[5]})
	}
	return rows, nil
}

func writeCSV(path string, rows []row) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"module", "kind", "producer", "consumer", "outcome", "note"})
	for _, r := range rows {
		w.Write([]string{r.Module, r.Kind, r.Producer, r.Consumer, r.Outcome, r.Note})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
