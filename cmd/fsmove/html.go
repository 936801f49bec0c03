package main

import (
	"os"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/analyze"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/fsmove/fsmove/report"
	"github.com/fsmove/fsmove/tracer/strace"
)

// htmlInputs gathers what the HTML report shows beyond the report: the
// run's facts from its run.json (rec, nil without one), the manifests
// (their paths are already the user's: analyze.Input.PathMap), the trace
// lines of the evidence (one streaming pass over each trace: the run's,
// and the second apply's for NI findings), and the
// catalog's graph. What cannot be had is left empty, and the page says so.
func htmlInputs(in analyze.Input, rec *runner.RunRecord, st *analyze.Stats, rep *detector.Report, exit int) report.HTMLInputs {
	hi := report.HTMLInputs{ExitStatus: exit, ReadSource: detector.ReadManifestFile}
	if st != nil {
		hi.Graph = st.Graph
	}
	if rec != nil {
		hi.Run = &report.HTMLRun{
			FsmoveVersion: rec.FsmoveVersion,
			PuppetVersion: rec.PuppetVersion,
			Tracer:        rec.Tracer,
			Init:          string(rec.Init),
			Image:         rec.Image.Tag,
			Status:        rec.Status,
		}
	}
	switch {
	case in.FStrace != "":
		hi.TraceError = "the analysis read an FStrace program, not a trace"
	case in.Trace == "" || in.Trace == "-":
		hi.TraceError = "the trace was read from standard input"
	default:
		lines, err := strace.ReadLines(in.Trace, report.EvidenceLines(rep))
		if err != nil {
			hi.TraceError = err.Error()
		} else {
			hi.TraceLines = lines
		}
	}
	// NI findings quote the second apply's trace too (analyze.WithRunRecord).
	if rep.Idempotence {
		if in.SecondTrace == "" {
			hi.SecondTraceError = "the second apply was not traced"
		} else if lines, err := strace.ReadLines(in.SecondTrace, report.SecondEvidenceLines(rep)); err != nil {
			hi.SecondTraceError = err.Error()
		} else {
			hi.SecondTraceLines = lines
		}
	}
	return hi
}

// writeHTMLFile writes the HTML report to path.
func writeHTMLFile(path string, rep *detector.Report, hi report.HTMLInputs) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := report.HTML(f, rep, hi); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
