package detector

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// SARIF 2.1.0 (OASIS). Only the properties fsmove fills are declared; the
// required ones are: sarifLog.version and .runs, run.tool, tool.driver,
// toolComponent.name, reportingDescriptor.id, result.message,
// message.text (or id), physicalLocation.artifactLocation (or address),
// region.startLine ≥ 1 when present.
const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

// sarifInvocation says whether the analysis covered the whole run (SARIF
// 3.20.14 executionSuccessful) and why not, and the counted input warnings,
// as tool execution notifications (3.20.21).
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
	Properties                 sarifInputCounts    `json:"properties"`
}

// sarifInputCounts is the invocation's property bag: the input problems
// counted by the analysis (the JSON report's stats of the same names), so
// that a code-scanning consumer can read them as numbers, not only in the
// notifications' words.
type sarifInputCounts struct {
	MalformedLines int64 `json:"malformedLines"`
	BadArgs        int64 `json:"badArgs"`
	UnknownCalls   int64 `json:"unknownCalls"`
	CutMarks       int64 `json:"cutMarks"`
	ImplicitEnds   int64 `json:"implicitEnds"`
	SelfClones     int64 `json:"selfClones"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	FullDescription      sarifMessage `json:"fullDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          sarifResultProps  `json:"properties"`
}

// sarifResultProps is a result's property bag: the finding's confidence
// (JSON's "confidence"), and the confirmation when it was re-applied.
type sarifResultProps struct {
	Confidence string `json:"confidence"`
	*sarifConfirmation
}

// sarifConfirmation is the part of a result's property bag that is there
// when the finding was re-applied to test it: the verdict and its evidence
// (JSON's "confirmation").
type sarifConfirmation struct {
	Confirmation         string   `json:"confirmation"`
	ConfirmationWhy      string   `json:"confirmationWhy"`
	ConfirmationForced   string   `json:"confirmationForced,omitempty"`
	ConfirmationEvidence []string `json:"confirmationEvidence"`
}

func sarifConfirmationOf(c *Confirmation) *sarifConfirmation {
	if c == nil {
		return nil
	}
	evidence := c.Evidence
	if evidence == nil {
		evidence = []string{}
	}
	return &sarifConfirmation{Confirmation: string(c.Verdict), ConfirmationWhy: c.Why, ConfirmationForced: c.Forced, ConfirmationEvidence: evidence}
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifMessage         `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// sarifRules is one row per fault kind, indexed by Kind.
var sarifRules = [...]struct {
	id, name, short, full string
}{
	MOR: {"MOR", "MissingOrderingRelationship",
		"Missing ordering relationship between two resources",
		"One resource produces a file that another consumes or removes, and the catalog orders them in neither direction: Puppet may apply them in either order, and one order breaks. Add require/before or a -> chain."},
	MN: {"MN", "MissingNotifier",
		"Missing notifier to a service",
		"A resource produces a file that a Service reads, and no notify/subscribe path leads from it to the service: the service keeps running with stale configuration. Add notify/subscribe or a ~> chain."},
}

// WriteSARIF writes a SARIF 2.1.0 log: one run of the fsmove driver with
// the rules MOR and MN, and one result per finding that is not waived,
// located at the consumer's manifest line (the service's, for MN), with the
// producer as a related location. The level follows the confidence
// (sarifLevel), which the property bag carries too.
func (r *Report) WriteSARIF(w io.Writer) error {
	if err := r.check(); err != nil {
		return err
	}
	driver := sarifDriver{
		Name:           "fsmove",
		Version:        r.ToolVersion,
		InformationURI: "https://github.com/fsmove/fsmove",
	}
	for _, row := range sarifRules {
		rule := sarifRule{ID: row.id, Name: row.name,
			ShortDescription: sarifMessage{row.short}, FullDescription: sarifMessage{row.full}}
		rule.DefaultConfiguration.Level = "error"
		driver.Rules = append(driver.Rules, rule)
	}
	s := &r.Stats
	inv := sarifInvocation{ExecutionSuccessful: r.Complete(), ToolExecutionNotifications: []sarifNotification{},
		Properties: sarifInputCounts{MalformedLines: s.MalformedLines, BadArgs: s.BadArgs, UnknownCalls: s.UnknownCalls,
			CutMarks: s.CutMarks, ImplicitEnds: s.ImplicitEnds, SelfClones: s.SelfClones}}
	for _, why := range r.Incomplete {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{"error", sarifMessage{"Incomplete analysis: " + why}})
	}
	for _, w := range r.Warnings {
		text := fmt.Sprintf("%d %s", w.Count, w.Kind)
		if w.Example != "" {
			text += " (first: " + w.Example + ")"
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{"warning", sarifMessage{text}})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Invocations: []sarifInvocation{inv}, Results: []sarifResult{}}
	for i := range r.Findings {
		f := &r.Findings[i]
		if !f.Reported() {
			continue
		}
		res := sarifResult{
			RuleID:    sarifRules[f.Kind].id,
			RuleIndex: int(f.Kind),
			Level:     sarifLevel(f),
			Message:   sarifMessage{sarifText(f)},
			PartialFingerprints: map[string]string{
				"fsmovePair/v1": f.Kind.String() + ":" + f.Producer.Ref() + "|" + f.Consumer.Ref(),
			},
			Properties: sarifResultProps{Confidence: f.Confidence.String(), sarifConfirmation: sarifConfirmationOf(f.Confirmation)},
		}
		if loc, ok := sarifLocationOf(f.Consumer, r.SourceRoot); ok {
			res.Locations = append(res.Locations, loc)
		}
		if loc, ok := sarifLocationOf(f.Producer, r.SourceRoot); ok {
			id := 1
			loc.ID = &id
			loc.Message = &sarifMessage{"producer " + f.Producer.Ref()}
			res.RelatedLocations = append(res.RelatedLocations, loc)
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// sarifLevel is a result's level: "error" for a finding observed in this
// run or made by content, "warning" when only metadata or lookups relate
// the two resources, and "note" when re-applying refuted it (most likely
// not a fault).
func sarifLevel(f *Finding) string {
	switch {
	case f.Confirmation != nil && f.Confirmation.Verdict == Refuted:
		return "note"
	case f.Confidence == Metadata:
		return "warning"
	}
	return "error"
}

// sarifText is the result message: what conflicts, on which paths, with
// the evidence, and the fix.
func sarifText(f *Finding) string {
	var b strings.Builder
	if f.Kind == MN {
		fmt.Fprintf(&b, "%s changes files that %s reads, but does not notify it.", f.Producer.Ref(), f.Consumer.Ref())
	} else {
		fmt.Fprintf(&b, "%s and %s are not ordered, but one uses files the other writes.", f.Producer.Ref(), f.Consumer.Ref())
	}
	for _, pc := range f.Paths {
		if pc.Waived {
			continue
		}
		fmt.Fprintf(&b, " %s: %s by %s %s, then %s by %s %s (%s).", pc.Path,
			pc.ProducerEffect, pc.Producer.Ref(), evidenceText(pc.ProducerEvidence),
			pc.ConsumerEffect, pc.Consumer.Ref(), evidenceText(pc.ConsumerEvidence), pc.Relation)
	}
	if f.Observed {
		fmt.Fprintf(&b, " It failed in this run: %s", f.ObservedError)
	}
	if f.Confidence == Metadata {
		b.WriteString(" Only metadata (mode, owner) or a lookup relates them, on every path.")
	}
	if c := f.Confirmation; c != nil {
		fmt.Fprintf(&b, " Re-applied to test it: %s, %s.", c.Verdict, c.Why)
	}
	b.WriteString(" Fix: ")
	b.WriteString(f.Fix)
	return b.String()
}

// sarifLocationOf is the manifest position of r, if known. A file under
// root becomes a relative URI against %SRCROOT%; another absolute path a
// file:// URI; a relative path stays relative. Paths are percent-escaped.
func sarifLocationOf(r *catalog.Resource, root string) (sarifLocation, bool) {
	if r == nil || r.File == "" {
		return sarifLocation{}, false
	}
	var al sarifArtifactLocation
	root = strings.TrimSuffix(root, "/")
	switch {
	case root != "" && strings.HasPrefix(r.File, root+"/"):
		al.URI = (&url.URL{Path: strings.TrimPrefix(r.File, root+"/")}).EscapedPath()
		al.URIBaseID = "%SRCROOT%"
	case strings.HasPrefix(r.File, "/"):
		al.URI = (&url.URL{Scheme: "file", Path: r.File}).String()
	default:
		al.URI = (&url.URL{Path: r.File}).EscapedPath()
	}
	loc := sarifLocation{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: al}}
	if r.Line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: r.Line}
	}
	return loc, true
}
