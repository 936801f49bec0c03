package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/puppet/container"
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
	// status: changed, failed or unchanged. The NI findings are read
	// from the report (which says which resource changed what), not from
	// the exit status.
	Report       string `json:"report,omitempty"`
	ReportStatus string `json:"report_status,omitempty"`
	// Skipped says why there was no second apply (the first compiled no
	// catalog).
	Skipped string `json:"skipped,omitempty"`
	// UnmetConditions are the units whose start systemd skipped in either
	// apply, with the condition not met (systemd mode, from the node's
	// journal): the NI rules hold back a service that only a container
	// keeps stopped (detector.Idempotence.UnmetConditions).
	UnmetConditions map[string]string `json:"unmet_conditions,omitempty"`
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

// secondApply is --idempotence: it runs the same puppet apply again in
// the same container, traced the same way (applyOnce), and copies its
// trace, log, report and catalog to SecondDir. The first apply's artifacts are out already:
// nothing here can lose them.
//
// Puppet compiles the catalog anew, as an agent does on every run and as
// Litmus's idempotent_apply does: a catalog that differs from one
// compilation to the next (a timestamp or a random value in a template,
// a hash iterated in no fixed order) is a way not to converge, and only
// a new compilation shows it. Applying the first catalog again (puppet
// apply --catalog) would also be wrong for another reason: Puppet gives
// a saved catalog an environment without modules, so that every File
// with a puppet:///modules/… source fails to find it (docs/DESIGN.md,
// "The second apply").
func (r *run) secondApply(ctx context.Context, modulePath []string) error {
	sec := &SecondRun{Dir: SecondDir}
	r.rec.Second = sec
	budget := &container.Budget{PerFile: ArtifactFileBudget, Total: ArtifactsBudget}
	if !files.Exists(filepath.Join(r.opts.OutDir, CatalogFile)) {
		sec.Skipped = "Puppet compiled no catalog: a second apply would fail the same way"
		return nil
	}
	dir := filepath.Join(r.opts.OutDir, SecondDir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	cmd := r.capt.Command(r.opts, PuppetApplyArgs(modulePath))
	sec.Command = cmd
	err := r.step(ctx, StepSecondApply, "the same puppet apply again, under "+r.capt.Name(), func(s *Step) (string, error) {
		// The first apply's catalog is out already; removed here, the
		// one in catalogDir after the apply is the second's own.
		var out bytes.Buffer
		status, err := r.c.Exec(ctx, []string{"/bin/sh", "-c", `rm -f "$1"`, "fsmove", catalogDir + "/" + NodeName + ".json"}, nil, &out)
		if err != nil {
			return "", err
		}
		if status != 0 {
			return "", fmt.Errorf("removing the first apply's cached catalog failed (status %d): %s", status, strings.TrimSpace(out.String()))
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
		exit := r.takeApplied(ctx, dir, "", budget)
		if file, err := r.copyFile(ctx, lastRunReport, dir, budget); err == nil && file == PuppetReportFile {
			sec.Report = SecondDir + "/" + PuppetReportFile
			if f, err := os.Open(filepath.Join(dir, PuppetReportFile)); err == nil {
				if rep, err := catalog.ParseReport(f); err == nil {
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
		if err := r.copyCatalog(ctx, tmp, dir, budget); err != nil {
			return "", err
		}
		if exit != nil {
			sec.PuppetExit = exit
			sec.PuppetOutcome = PuppetOutcome(*exit)
		}
		r.overBudget(budget.Over, false)
		status := sec.ReportStatus
		if status == "" {
			status = "no report"
		}
		journal := ""
		if r.opts.Init == container.InitSystemd {
			answers := r.ask(ctx, journalQuestion, namesQuestion)
			if sec.UnmetConditions, err = unmetConditions(answers[journalQuestion.name], unitNames(answers[namesQuestion.name])); err != nil {
				journal = fmt.Sprintf(" (the node's journal cannot be read: %v; a service that systemd skips for a condition is reported as not staying up)", err)
			} else if n := len(sec.UnmetConditions); n > 0 {
				journal = fmt.Sprintf(", %d unit(s) that systemd skipped for an unmet condition", n)
			}
		}
		return fmt.Sprintf("trace %s, Puppet's report: %s%s", container.FormatBytes(sec.TraceBytes), status, journal), nil
	})
}
