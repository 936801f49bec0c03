// Package results holds the outcome of a corpus run: one Row per module,
// made from the module's run directory (run.json from puppet/runner, plus
// analysis.json and untraced.json written by the bench), and the tables
// written from the rows (results.csv, results.json).
package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/internal/lines"
	"github.com/fsmove/fsmove/puppet/runner"
)

// Statuses of a module in the results (docs/DESIGN.md, "fsmove bench").
// They differ from run.json's: "apply-failed" is run.json's "puppet-failed"
// (Puppet compiled the catalog but failed while applying it).
const (
	StatusOK            = "ok"
	StatusCompileFailed = "compile-failed"
	StatusApplyFailed   = "apply-failed"
	StatusTimeout       = "timeout"
	StatusInfraError    = "infra-error"
)

// Statuses lists the valid statuses in the order summaries show them.
var Statuses = []string{StatusOK, StatusCompileFailed, StatusApplyFailed, StatusTimeout, StatusInfraError}

// Row is one module's line of results.csv (and object of results.json).
// Numbers that are unknown (no analysis after a compile error, no untraced
// run) are -1 in the CSV and null in the JSON; in the struct they are -1.
type Row struct {
	Module  string `json:"module"`
	Version string `json:"version"`
	Status  string `json:"status"`
	// Category says why a module is not ok, in words a reader can act on
	// (Categories); "" for ok modules.
	Category   string `json:"category"`
	FirstError string `json:"first_error"`
	// Tracer is the traced run's capture backend (strace, ptrace, ebpf).
	Tracer          string  `json:"tracer"`
	PuppetUntracedS float64 `json:"puppet_untraced_s"`
	PuppetTracedS   float64 `json:"puppet_traced_s"`
	TraceBytes      int64   `json:"trace_bytes"`
	Events          int64   `json:"events"`
	Resources       int64   `json:"resources"`
	AnalysisS       float64 `json:"analysis_s"`
	PeakMemBytes    int64   `json:"peak_mem_bytes"`
	MOR             int64   `json:"mor"`
	MN              int64   `json:"mn"`
	// NI counts the non-idempotent resources (NI findings), -1 when the
	// module was not applied twice (fsmove bench --idempotence).
	NI int64 `json:"ni"`
	// The verdicts of re-applying the reported findings (fsmove bench
	// --confirm) and the time it took; -1 when not confirmed.
	Confirmed      int64   `json:"confirmed"`
	Refuted        int64   `json:"refuted"`
	ConfirmUnknown int64   `json:"confirm_unknown"`
	ConfirmS       float64 `json:"confirm_s"`
	// The Services Puppet keeps running (the report's coverage, systemd
	// mode), those not observed, and those observed only because fsmove
	// lifted a condition of their unit that a container cannot meet
	// (without the lift: ServicesUnobserved+ServicesLifted not observed);
	// -1 when unknown.
	Services           int64 `json:"services"`
	ServicesUnobserved int64 `json:"services_unobserved"`
	ServicesLifted     int64 `json:"services_lifted"`
}

// Columns are the CSV header, in order; each is a JSON field name of Row.
var Columns = []string{
	"module", "version", "status", "category", "first_error", "tracer", "puppet_untraced_s", "puppet_traced_s",
	"trace_bytes", "events", "resources", "analysis_s", "peak_mem_bytes", "mor", "mn", "ni",
	"confirmed", "refuted", "confirm_unknown", "confirm_s", "services", "services_unobserved", "services_lifted",
}

// Findings is MOR+MN+NI, 0 when the module was not analyzed.
func (r Row) Findings() int64 {
	return max(r.MOR, 0) + max(r.MN, 0) + max(r.NI, 0)
}

// AppliedTwice reports whether the module was applied a second time
// and the analysis counted what that apply changed again (NI).
func (r Row) AppliedTwice() bool { return r.NI >= 0 }

// Slowdown is traced over untraced Puppet time, 0 when either is unknown.
func (r Row) Slowdown() float64 {
	if r.PuppetUntracedS <= 0 || r.PuppetTracedS <= 0 {
		return 0
	}
	return r.PuppetTracedS / r.PuppetUntracedS
}

// Analyzed reports whether the analysis ran and gave figures.
func (r Row) Analyzed() bool { return r.AnalysisS >= 0 && r.MOR >= 0 }

// Analysis is analysis.json in a run directory: what the bench's analysis of
// the run's trace gave.
type Analysis struct {
	// Exit is the status of "fsmove analyze": 0 no findings, 1 findings,
	// 2 input error, 4 an incomplete analysis without findings.
	Exit         int     `json:"exit"`
	Error        string  `json:"error,omitempty"`
	Seconds      float64 `json:"seconds"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	Events       int64   `json:"events"`
	Resources    int64   `json:"resources"`
	MOR          int64   `json:"mor"`
	MN           int64   `json:"mn"`
	// NI is there when the run applied the module twice (fsmove bench
	// --idempotence).
	NI *int64 `json:"ni,omitempty"`
	// Coverage is there when the report had one (systemd mode): Row's
	// Services, ServicesUnobserved and ServicesLifted.
	Coverage *AnalysisCoverage `json:"coverage,omitempty"`
}

// AnalysisCoverage counts the Services of a report's coverage.
type AnalysisCoverage struct {
	Services   int64 `json:"services"`
	Unobserved int64 `json:"unobserved"`
	Lifted     int64 `json:"lifted"`
}

// Confirm is confirm.json: what "fsmove confirm" said of the reported
// findings of the run (fsmove bench --confirm).
type Confirm struct {
	// Exit is fsmove confirm's status (1: findings, as fsmove analyze's).
	Exit      int     `json:"exit"`
	Error     string  `json:"error,omitempty"`
	Seconds   float64 `json:"seconds"`
	Confirmed int64   `json:"confirmed"`
	Refuted   int64   `json:"refuted"`
	Unknown   int64   `json:"unknown"`
	Applies   int64   `json:"applies"`
}

// Untraced is untraced.json: the time of the same puppet apply without a
// tracer, in its own fresh container.
type Untraced struct {
	Seconds    float64 `json:"seconds"`
	PuppetExit int     `json:"puppet_exit"`
	Error      string  `json:"error,omitempty"`
}

// File names the bench adds to a run directory.
const (
	AnalysisJSON = "analysis.json"
	UntracedJSON = "untraced.json"
	ConfirmJSON  = "confirm.json"
	ReportJSON   = "report.json" // fsmove analyze's JSON report
	UntracedDir  = "untraced"    // the untraced run's own run directory
	RunsDir      = "runs"        // OUT/runs/<module>: one run directory per module
	ResultsCSV   = "results.csv" // OUT/results.csv: one row per module (bench/report writes it)
)

// WriteJSONFile writes v indented to dir/name.
func WriteJSONFile(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), append(data, '\n'), 0o644)
}

// ReadJSONFile reads dir/name into v; a missing file gives an error for
// which errors.Is(err, os.ErrNotExist).
func ReadJSONFile(dir, name string, v any) error {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// Status maps run.json's status to a results status; "" for a run that did
// not finish (interrupted), which a resumed bench runs again.
func Status(runStatus string) string {
	switch runStatus {
	case runner.StatusOK:
		return StatusOK
	case runner.StatusCompileFailed:
		return StatusCompileFailed
	case runner.StatusPuppetFailed:
		return StatusApplyFailed
	case runner.StatusTimeout:
		return StatusTimeout
	case runner.StatusInfraError, runner.StatusIncomplete, runner.StatusTampered, runner.StatusOverBudget:
		return StatusInfraError // incomplete: the eBPF tracer lost events; the rest: the module's doing
	}
	return ""
}

// InfraFailure reports whether a run with run.json's status runStatus
// failed for a reason outside the module (the engine, the image, the
// network, the disk; an eBPF capture that lost events): no result of the
// module's, so a bench says so in its exit status and a resumed bench runs
// it again. A module that tampered with the run or went over its budget
// did so itself: that is its result.
func InfraFailure(runStatus string) bool {
	return runStatus == runner.StatusInfraError || runStatus == runner.StatusIncomplete
}

// FromRunDir makes a module's row from its run directory. module names the
// row (the corpus entry's key); version is the module's version when the
// corpus knows it ("" to read the module directory's metadata.json). It
// fails when run.json is missing or the run did not finish.
func FromRunDir(module, version, dir string) (Row, error) {
	rec, err := runner.ReadRecord(dir)
	if err != nil {
		return Row{}, err
	}
	status := Status(rec.Status)
	if status == "" {
		return Row{}, fmt.Errorf("%s: the run did not finish (status %q)", dir, rec.Status)
	}
	row := Row{
		Module: module, Version: version, Status: status,
		FirstError:      firstErrorLine(dir, rec),
		Tracer:          rec.Tracer,
		PuppetUntracedS: -1, PuppetTracedS: -1,
		TraceBytes: rec.TraceBytes, Events: -1, Resources: -1,
		AnalysisS: -1, PeakMemBytes: -1, MOR: -1, MN: -1, NI: -1,
		Confirmed: -1, Refuted: -1, ConfirmUnknown: -1, ConfirmS: -1,
		Services: -1, ServicesUnobserved: -1, ServicesLifted: -1,
	}
	if row.Version == "" {
		row.Version = moduleVersion(rec)
	}
	// A timed-out apply's time is how long it ran traced before the
	// timeout (a lower bound).
	if s, ok := rec.ApplyStep(); ok && (s.OK || status == StatusTimeout) {
		row.PuppetTracedS = s.Seconds
	}
	row.Category = Categorize(status, errorText(dir, rec))
	var u Untraced
	if err := ReadJSONFile(dir, UntracedJSON, &u); err == nil && u.Error == "" && u.Seconds > 0 {
		row.PuppetUntracedS = u.Seconds
	}
	var c Confirm
	if err := ReadJSONFile(dir, ConfirmJSON, &c); err == nil && c.Error == "" {
		row.Confirmed, row.Refuted, row.ConfirmUnknown, row.ConfirmS = c.Confirmed, c.Refuted, c.Unknown, c.Seconds
	}
	var a Analysis
	if err := ReadJSONFile(dir, AnalysisJSON, &a); err == nil {
		row.AnalysisS = a.Seconds
		row.PeakMemBytes = a.PeakRSSBytes
		row.Resources = a.Resources
		// 4: complete but for what it could not observe, which the
		// coverage columns count.
		if a.Exit == 0 || a.Exit == 1 || a.Exit == 4 {
			row.Events, row.MOR, row.MN = a.Events, a.MOR, a.MN
			if a.NI != nil {
				row.NI = *a.NI
			}
			if c := a.Coverage; c != nil {
				row.Services, row.ServicesUnobserved, row.ServicesLifted = c.Services, c.Unobserved, c.Lifted
			}
		} else if row.Status == StatusOK {
			// Puppet was fine but the analysis was not: say why.
			row.FirstError = "analysis failed: " + errorLine(a.Error)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return Row{}, err
	}
	return row, nil
}

// moduleVersion is the version in a module directory's metadata.json, or
// the Forge version asked for ("" when unknown).
func moduleVersion(rec *runner.RunRecord) string {
	var v struct {
		Version string `json:"version"`
	}
	if rec.Module.Kind == runner.SourceDir && rec.Module.Dir != "" {
		if err := ReadJSONFile(rec.Module.Dir, "metadata.json", &v); err == nil {
			return v.Version
		}
	}
	return rec.Module.Version
}

// firstErrorLine is the first line saying why a run failed: Puppet's first
// "Error:" line when there is one, else the record's error.
// elideHosts replaces the host of every URL in s with "…": the results
// table is committed, and the error says what failed without naming the
// servers a module tried to reach.
func elideHosts(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexAny(s, "/ )'\"")
		if end < 0 {
			end = len(s)
		}
		if end > 0 {
			b.WriteString("…")
		}
		s = s[end:]
	}
}

func firstErrorLine(dir string, rec *runner.RunRecord) string {
	if rec.Status == runner.StatusOK {
		return ""
	}
	if rec.Status == runner.StatusTimeout {
		// "context deadline exceeded" says nothing: say where it was.
		step := "the run"
		if n := len(rec.Steps); n > 0 {
			step = "step " + rec.Steps[n-1].Name
			for _, s := range rec.Steps {
				if !s.OK {
					step = "step " + s.Name
					break
				}
			}
		}
		return "timed out in " + step
	}
	if f, err := os.Open(filepath.Join(dir, runner.PuppetLogFile)); err == nil {
		lines := runner.PuppetErrors(f, 1)
		f.Close()
		if len(lines) > 0 {
			return elideHosts(errorLine(lines[0]))
		}
	}
	return elideHosts(errorLine(rec.Error))
}

// errorText is what Categorize reads: Puppet's errors with the lines that
// continue them (apt's reasons, a journal excerpt), the last lines of its
// Execs' output (a failed command's reason), the record's error, and the
// setup log when a setup step failed.
func errorText(dir string, rec *runner.RunRecord) string {
	var parts []string
	if data, err := os.ReadFile(filepath.Join(dir, runner.PuppetLogFile)); err == nil {
		parts = append(parts, runner.PuppetErrorBlocks(bytes.NewReader(data), 20)...)
		parts = append(parts, runner.ExecOutput(bytes.NewReader(data), 40)...)
	}
	parts = append(parts, rec.Error)
	if data, err := os.ReadFile(filepath.Join(dir, runner.SetupLogFile)); err == nil && strings.Contains(rec.Error, "setup step") {
		parts = append(parts, string(data))
	}
	return strings.Join(parts, "\n")
}

// errorLine is the first line of an error's text, without the blanks
// around it.
func errorLine(s string) string {
	return strings.TrimSpace(lines.First(strings.TrimSpace(s)))
}

// WriteCSV writes the header and one line per row; unknown numbers are -1.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	cw.Write(Columns)
	for _, r := range rows {
		cw.Write([]string{
			r.Module, r.Version, r.Status, r.Category, r.FirstError, r.Tracer,
			formatSeconds(r.PuppetUntracedS), formatSeconds(r.PuppetTracedS),
			strconv.FormatInt(r.TraceBytes, 10), strconv.FormatInt(r.Events, 10),
			strconv.FormatInt(r.Resources, 10), formatSeconds(r.AnalysisS),
			strconv.FormatInt(r.PeakMemBytes, 10), strconv.FormatInt(r.MOR, 10), strconv.FormatInt(r.MN, 10),
			strconv.FormatInt(r.NI, 10),
			strconv.FormatInt(r.Confirmed, 10), strconv.FormatInt(r.Refuted, 10), strconv.FormatInt(r.ConfirmUnknown, 10),
			formatSeconds(r.ConfirmS),
			strconv.FormatInt(r.Services, 10), strconv.FormatInt(r.ServicesUnobserved, 10), strconv.FormatInt(r.ServicesLifted, 10),
		})
	}
	cw.Flush()
	return cw.Error()
}

func formatSeconds(s float64) string {
	if s < 0 {
		return "-1"
	}
	return strconv.FormatFloat(s, 'f', 3, 64)
}

// jsonRow is Row with unknown numbers as null.
type jsonRow struct {
	Module             string   `json:"module"`
	Version            string   `json:"version"`
	Status             string   `json:"status"`
	Category           string   `json:"category"`
	FirstError         string   `json:"first_error"`
	Tracer             string   `json:"tracer"`
	PuppetUntracedS    *float64 `json:"puppet_untraced_s"`
	PuppetTracedS      *float64 `json:"puppet_traced_s"`
	TraceBytes         *int64   `json:"trace_bytes"`
	Events             *int64   `json:"events"`
	Resources          *int64   `json:"resources"`
	AnalysisS          *float64 `json:"analysis_s"`
	PeakMemBytes       *int64   `json:"peak_mem_bytes"`
	MOR                *int64   `json:"mor"`
	MN                 *int64   `json:"mn"`
	NI                 *int64   `json:"ni"`
	Confirmed          *int64   `json:"confirmed"`
	Refuted            *int64   `json:"refuted"`
	ConfirmUnknown     *int64   `json:"confirm_unknown"`
	ConfirmS           *float64 `json:"confirm_s"`
	Services           *int64   `json:"services"`
	ServicesUnobserved *int64   `json:"services_unobserved"`
	ServicesLifted     *int64   `json:"services_lifted"`
}

func optFloat(v float64) *float64 {
	if v < 0 {
		return nil
	}
	v, _ = strconv.ParseFloat(formatSeconds(v), 64) // the CSV's precision, so both agree
	return &v
}

func optInt(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

// WriteJSON writes {"modules": [...]} with unknown numbers as null.
func WriteJSON(w io.Writer, rows []Row) error {
	out := struct {
		Columns []string  `json:"columns"`
		Modules []jsonRow `json:"modules"`
	}{Columns: Columns, Modules: []jsonRow{}}
	for _, r := range rows {
		out.Modules = append(out.Modules, jsonRow{
			Module: r.Module, Version: r.Version, Status: r.Status, Category: r.Category, FirstError: r.FirstError, Tracer: r.Tracer,
			PuppetUntracedS: optFloat(r.PuppetUntracedS), PuppetTracedS: optFloat(r.PuppetTracedS),
			TraceBytes: optInt(r.TraceBytes), Events: optInt(r.Events), Resources: optInt(r.Resources),
			AnalysisS: optFloat(r.AnalysisS), PeakMemBytes: optInt(r.PeakMemBytes),
			MOR: optInt(r.MOR), MN: optInt(r.MN), NI: optInt(r.NI),
			Confirmed: optInt(r.Confirmed), Refuted: optInt(r.Refuted), ConfirmUnknown: optInt(r.ConfirmUnknown),
			ConfirmS: optFloat(r.ConfirmS),
			Services: optInt(r.Services), ServicesUnobserved: optInt(r.ServicesUnobserved), ServicesLifted: optInt(r.ServicesLifted),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
