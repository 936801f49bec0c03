package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/puppet"
	"github.com/fsmove/fsmove/puppet/container"
)

// Artifacts of --idempotence: Puppet's report of each apply (PuppetReportFile
// beside the first apply's trace, and in SecondDir), and the second
// apply's trace, log and report in SecondDir under their first names.
const (
	PuppetReportFile = "last_run_report.yaml"
	SecondDir        = "second"
)

// Steps of the second apply.
const (
	StepSecondApply = "second-apply"
	StepSecondCopy  = "second-copy"
)

// SecondRun is run.json's record of the second apply (--idempotence).
type SecondRun struct {
	// Dir is where its artifacts are, relative to the run's directory.
	Dir string `json:"dir"`
	// Command is the traced command in the container.
	Command []string `json:"command,omitempty"`
	// ApplyExit, PuppetExit, PuppetOutcome, TraceBytes, DroppedEvents and
	// OutsideCalls are as the first apply's in RunRecord.
	ApplyExit     *int   `json:"apply_exit"`
	PuppetExit    *int   `json:"puppet_exit"`
	PuppetOutcome string `json:"puppet_outcome,omitempty"`
	TraceBytes    int64  `json:"trace_bytes"`
	DroppedEvents uint64 `json:"dropped_events"`
	OutsideCalls  uint64 `json:"outside_calls"`
	// Report is Puppet's report of the second apply, relative to the
	// run's directory ("" when Puppet wrote none), and ReportStatus its
	// status: changed, failed or unchanged. (Puppet applying a saved
	// catalog exits 0 whatever happened: PuppetExit does not tell.)
	Report       string `json:"report,omitempty"`
	ReportStatus string `json:"report_status,omitempty"`
	// Skipped says why there was no second apply (the first compiled no
	// catalog).
	Skipped string `json:"skipped,omitempty"`
}

// captureProblems are what makes the second apply's trace incomplete, as
// judgeCapture says them for the first.
func (s *SecondRun) captureProblems(tracer string, allowDrops bool) []string {
	var problems []string
	if s.OutsideCalls > 0 {
		problems = append(problems, fmt.Sprintf("in the second apply, %d system calls came from processes of the container "+
			"that had left its cgroup: its trace may be incomplete", s.OutsideCalls))
	}
	if s.DroppedEvents > 0 && !allowDrops {
		problems = append(problems, fmt.Sprintf("in the second apply, the %s tracer lost %d events: its trace is incomplete "+
			"(rerun, or accept it with --allow-drops)", tracer, s.DroppedEvents))
	}
	return problems
}

// secondApply is --idempotence: it keeps Puppet's report of the first
// apply, then applies the first apply's catalog again (SecondApplyArgs),
// traced the same way (applyOnce), and copies its trace, log and report
// to SecondDir. The first apply's artifacts are out already: nothing
// here can lose them.
func (r *run) secondApply(ctx context.Context, modulePath []string) error {
	sec := &SecondRun{Dir: SecondDir}
	r.rec.Second = sec
	budget := &container.Budget{PerFile: ArtifactFileBudget, Total: ArtifactsBudget}
	if file, err := r.copyFile(ctx, lastRunReport, r.opts.OutDir, budget); err == nil && file == PuppetReportFile {
		r.rec.Report = PuppetReportFile
	}
	if !files.Exists(filepath.Join(r.opts.OutDir, CatalogFile)) {
		sec.Skipped = "Puppet compiled no catalog to apply again"
		return nil
	}
	dir := filepath.Join(r.opts.OutDir, SecondDir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	cmd := r.capt.Command(r.opts, SecondApplyArgs(modulePath))
	sec.Command = cmd
	err := r.step(ctx, StepSecondApply, "puppet apply of the same catalog again, under "+r.capt.Name(), func(s *Step) (string, error) {
		// The catalog is copied, so that what the second apply writes
		// in catalogDir cannot change what it applies.
		prep := `rm -f "$3" && cp "$1/$2" "$3"`
		var out bytes.Buffer
		status, err := r.c.Exec(ctx, []string{"/bin/sh", "-c", prep, "fsmove", catalogDir, NodeName + ".json", secondCatalog}, nil, &out)
		if err != nil {
			return "", err
		}
		if status != 0 {
			return "", fmt.Errorf("copying the catalog for the second apply failed (status %d): %s", status, strings.TrimSpace(out.String()))
		}
		status, err = r.applyOnce(ctx, cmd, dir, &sec.DroppedEvents, &sec.OutsideCalls)
		if err == nil || status != 0 {
			sec.ApplyExit = intPtr(status)
		}
		if err != nil {
			return "", err
		}
		return "puppet finished (its report says how)", nil
	})
	if err != nil {
		return err
	}
	return r.step(ctx, StepSecondCopy, "copying the second apply's artifacts to "+dir, func(s *Step) (string, error) {
		traceBytes, err := r.takeTrace(ctx, dir)
		if err != nil {
			return "", fmt.Errorf("no trace of the second apply: %w", err)
		}
		sec.TraceBytes = traceBytes
		r.copyFile(ctx, puppetLogPath, dir, budget)
		if file, err := r.copyFile(ctx, lastRunReport, dir, budget); err == nil && file == PuppetReportFile {
			sec.Report = SecondDir + "/" + PuppetReportFile
			if f, err := os.Open(filepath.Join(dir, PuppetReportFile)); err == nil {
				if rep, err := puppet.ParseReport(f); err == nil {
					sec.ReportStatus = rep.Status
				}
				f.Close()
			}
		}
		tmp, err := os.MkdirTemp(r.opts.OutDir, ".catalog-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		if _, err := r.copyFile(ctx, puppetExitPath, tmp, budget); err == nil {
			data, _ := os.ReadFile(filepath.Join(tmp, filepath.Base(puppetExitPath)))
			if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				sec.PuppetExit = intPtr(n)
				sec.PuppetOutcome = PuppetOutcome(n)
			}
		}
		r.overBudget(budget.Over, false)
		status := sec.ReportStatus
		if status == "" {
			status = "no report"
		}
		return fmt.Sprintf("trace %s, Puppet's report: %s", container.FormatBytes(sec.TraceBytes), status), nil
	})
}
