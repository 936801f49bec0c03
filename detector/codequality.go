package detector

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
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

// WriteCodeQuality writes the report as a GitLab Code Quality report. The
// fingerprint hashes the kind and the two resources' references (as
// SARIF's fsmovePair/v1), not lines or paths, so that it is stable across
// runs and edits of the manifest: GitLab compares issues between branches
// by it. Waived and held-back findings are left out; the array is empty
// when there is no finding (an incomplete analysis is said by the exit
// status, since the format has no place for it).
func (r *Report) WriteCodeQuality(w io.Writer) error {
	if err := r.check(); err != nil {
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
		path, _ := r.relFile(at.File)
		sum := sha256.Sum256([]byte(f.Kind.String() + ":" + f.Producer.Ref() + "|" + f.Consumer.Ref()))
		issues = append(issues, codeQualityIssue{
			Description: r.relText(f.headline() + " Fix: " + f.Fix),
			CheckName:   "fsmove " + sarifRules[f.Kind].name,
			Fingerprint: hex.EncodeToString(sum[:]),
			Severity:    codeQualitySeverity(f),
			Location:    codeQualityLocation{Path: path, Lines: codeQualityLines{Begin: max(at.Line, 1)}},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(issues)
}

// codeQualitySeverity follows SARIF's level (sarifLevel): a fault that
// happened in this run is critical, one of content major, one of metadata
// only minor, one that re-applying refuted info.
func codeQualitySeverity(f *Finding) string {
	switch {
	case f.Confirmation != nil && f.Confirmation.Verdict == Refuted:
		return "info"
	case f.Confidence == Observed:
		return "critical"
	case f.Confidence == Metadata:
		return "minor"
	}
	return "major"
}
