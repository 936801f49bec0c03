package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"

	"github.com/fsmove/fsmove/detector"
)

// GitLab Code Quality: a JSON array of issues in the subset of the
// CodeClimate format that GitLab reads (description, check_name,
// fingerprint, severity, location.path relative to the repository,
// location.lines.begin). One issue per reported finding, at the manifest
// line its fix goes on.
type codeQualityIssue struct {
	Description string              `json:"description"`
	CheckName   string              `json:"check_name"`
	Fingerprint string              `json:"fingerprint"`
	Severity    string              `json:"severity"`
	Location    codeQualityLocation `json:"location"`
}

type codeQualityLocation struct {
	Path  string           `json:"path"`
	Lines codeQualityLines `json:"lines"`
}

type codeQualityLines struct {
	Begin int `json:"begin"`
}

// CodeQuality writes the report as a GitLab Code Quality report. The
// fingerprint hashes the kind and the two resources' references (as
// SARIF's fsmovePair/v1), not lines or paths, so that it is stable across
// runs and edits of the manifest: GitLab compares issues between branches
// by it. Waived and held-back findings are left out. A failed run and an
// incomplete analysis are an issue each (codeQualityRun), so that the
// array is empty only for a clean result.
func CodeQuality(w io.Writer, r *detector.Report) error {
	if err := check(r); err != nil {
		return err
	}
	issues := []codeQualityIssue{}
	for i := range r.Findings {
		f := &r.Findings[i]
		if !f.Reported() {
			continue
		}
		at, other := f.FixSite()
		if at.File == "" {
			at = other // a position is required; the other resource's is the next best
		}
		path, _ := relFile(r, at.File)
		sum := sha256.Sum256([]byte(f.Kind.String() + ":" + f.Producer.Ref() + "|" + f.Consumer.Ref()))
		issues = append(issues, codeQualityIssue{
			Description: relText(r, headline(f)+" Fix: "+f.Fix),
			CheckName:   "fsmove " + sarifRules[f.Kind].name,
			Fingerprint: hex.EncodeToString(sum[:]),
			Severity:    codeQualitySeverity(f),
			Location:    codeQualityLocation{Path: path, Lines: codeQualityLines{Begin: max(at.Line, 1)}},
		})
	}
	if f := r.RunFailure; f != nil {
		issues = append(issues, codeQualityRun("RunFailed", "fsmove: the run failed: "+runFailureText(f)+".", "run-failed:"+f.Status))
	}
	if len(r.Incomplete) > 0 {
		issues = append(issues, codeQualityRun("IncompleteAnalysis",
			"fsmove: incomplete analysis: "+strings.Join(r.Incomplete, "; ")+".", "incomplete"))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(issues)
}

// codeQualityRun is an issue of the whole run, not of a manifest line: the
// format requires a location, so it is at line 1 of codeQualityRunPath.
// Its fingerprint hashes what went wrong in a word (the run's status), not
// the details, so that GitLab sees the same issue in the next failed run.
func codeQualityRun(check, description, key string) codeQualityIssue {
	sum := sha256.Sum256([]byte(key))
	return codeQualityIssue{
		Description: description,
		CheckName:   "fsmove " + check,
		Fingerprint: hex.EncodeToString(sum[:]),
		Severity:    "blocker",
		Location:    codeQualityLocation{Path: codeQualityRunPath, Lines: codeQualityLines{Begin: 1}},
	}
}

// codeQualityRunPath is the location.path of an issue of the whole run:
// no file of the repository, since no manifest line is at fault.
const codeQualityRunPath = "fsmove"

// codeQualitySeverity follows SARIF's level (sarifLevel): a fault that
// happened in this run is critical, one of content major, one of metadata
// only minor, one that re-applying refuted info.
func codeQualitySeverity(f *detector.Finding) string {
	switch {
	case f.Confirmation != nil && f.Confirmation.Verdict == detector.Refuted:
		return "info"
	case f.Confidence == detector.Observed:
		return "critical"
	case f.Confidence == detector.Metadata, f.Confidence == detector.Guarded:
		return "minor"
	}
	return "major"
}
