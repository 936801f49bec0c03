package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
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
	Tool sarifTool `json:"tool"`
	// OriginalURIBaseIDs says where SRCROOT is (SARIF 3.14.14): the base
	// path, so that a consumer can resolve the relative URIs.
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
	// ColumnKind says how the fixes' columns count (3.14.17).
	ColumnKind  string            `json:"columnKind"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

// sarifInvocation says whether the run succeeded and the analysis covered
// all of it (SARIF 3.20.14 executionSuccessful) and why not, and the
// counted input warnings, as tool execution notifications (3.20.21).
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
	// Waived findings (suppressed ones included) and, of those, the ones
	// an inline fsmove:ignore comment suppressed.
	Waived     int `json:"waived"`
	Suppressed int `json:"suppressed"`
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
	// Suppressions: a waived or suppressed finding, listed only with
	// --show-suppressed (SARIF 3.27.23; inSource for an inline comment).
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
	// Fixes: the finding's edit, when the manifests were located.
	Fixes      []sarifFix       `json:"fixes,omitempty"`
	Properties sarifResultProps `json:"properties"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}

// sarifResultProps is a result's property bag: the finding's confidence
// (JSON's "confidence"), and the confirmation when it was re-applied.
type sarifResultProps struct {
	Confidence string `json:"confidence"`
	// Numbers are the report's numbers of the findings the result shows
	// (numbers): one, or a group's members; none for a waived one.
	Numbers []int `json:"numbers,omitempty"`
	// For a group's result: by "producer" or "consumer", how many
	// findings, and the members' other resources (consumers or producers).
	GroupBy      string   `json:"groupBy,omitempty"`
	GroupSize    int      `json:"groupSize,omitempty"`
	GroupMembers []string `json:"groupMembers,omitempty"`
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

func sarifConfirmationOf(c *detector.Confirmation) *sarifConfirmation {
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

// sarifFix is an Edit (SARIF 3.55): what it does, and its replacements
// grouped by file.
type sarifFix struct {
	Description     sarifMessage          `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []sarifReplacement    `json:"replacements"`
}

// sarifReplacement replaces a region (an insertion: an empty one) with
// its inserted content.
type sarifReplacement struct {
	DeletedRegion   sarifChangeRegion `json:"deletedRegion"`
	InsertedContent sarifMessage      `json:"insertedContent"`
}

// sarifChangeRegion is a region by lines and columns (the run's
// columnKind), the end exclusive.
type sarifChangeRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

// sarifFixes is e as a result's fixes: none when there is no edit.
func sarifFixes(r *detector.Report, e *detector.Edit) []sarifFix {
	if e == nil || len(e.Changes) == 0 {
		return nil
	}
	fix := sarifFix{Description: sarifMessage{relText(r, e.Says)}}
	for _, c := range e.Changes {
		n := len(fix.ArtifactChanges)
		if n == 0 || fix.ArtifactChanges[n-1].ArtifactLocation != sarifArtifactOf(r, c.File) {
			fix.ArtifactChanges = append(fix.ArtifactChanges, sarifArtifactChange{ArtifactLocation: sarifArtifactOf(r, c.File)})
			n++
		}
		ac := &fix.ArtifactChanges[n-1]
		ac.Replacements = append(ac.Replacements, sarifReplacement{
			DeletedRegion:   sarifChangeRegion{StartLine: c.StartLine, StartColumn: c.StartCol, EndLine: c.EndLine, EndColumn: c.EndCol},
			InsertedContent: sarifMessage{c.Text}})
	}
	return []sarifFix{fix}
}

// sarifRules is one row per fault kind, indexed by Kind.
var sarifRules = [...]struct {
	id, name, short, full string
}{
	detector.MOR: {"MOR", "MissingOrderingRelationship",
		"Missing ordering relationship between two resources",
		"One resource produces a file that another consumes or removes, and the catalog orders them in neither direction: Puppet may apply them in either order, and one order breaks. Add require/before or a -> chain."},
	detector.MN: {"MN", "MissingNotifier",
		"Missing notifier to a service",
		"A resource produces a file that a Service reads, and no notify/subscribe path leads from it to the service: the service keeps running with stale configuration. Add notify/subscribe or a ~> chain."},
	detector.NI: {"NI", "NonIdempotentResource",
		"Non-idempotent resource: a second apply changes it again",
		"Applied a second time, the module changed this resource again (or it failed then only): the module does not converge. Guard an Exec (creates, unless, onlyif), make content deterministic, or end a fight between two resources writing one path."},
}

// SARIF writes a SARIF 2.1.0 log: one run of the fsmove driver with
// the rules MOR and MN, and one result per finding that is not waived nor
// held back, located where its fix goes: at the consumer's manifest line
// for MOR (require), with the producer as a related location, and at the
// producer's for MN (notify), with the service as a related location; a
// Group of them is one result instead (sarifGroup). The level follows the
// confidence (sarifLevel), which the property bag carries too. Manifest
// files under BasePath are relative to SRCROOT, and so are the positions
// in the messages.
func SARIF(w io.Writer, r *detector.Report) error {
	if err := check(r); err != nil {
		return err
	}
	driver := sarifDriver{
		Name:           "fsmove",
		Version:        r.ToolVersion,
		InformationURI: "https://github.com/fsmove/fsmove",
	}
	for k, row := range sarifRules {
		if detector.Kind(k) == detector.NI && !r.Idempotence {
			continue // a report without --idempotence is as it was
		}
		rule := sarifRule{ID: row.id, Name: row.name,
			ShortDescription: sarifMessage{row.short}, FullDescription: sarifMessage{row.full}}
		rule.DefaultConfiguration.Level = "error"
		driver.Rules = append(driver.Rules, rule)
	}
	s := &r.Stats
	inv := sarifInvocation{ExecutionSuccessful: succeeded(r), ToolExecutionNotifications: []sarifNotification{},
		Properties: sarifInputCounts{MalformedLines: s.MalformedLines, BadArgs: s.BadArgs, UnknownCalls: s.UnknownCalls,
			CutMarks: s.CutMarks, ImplicitEnds: s.ImplicitEnds, SelfClones: s.SelfClones,
			Waived: s.Waived, Suppressed: s.Suppressed}}
	if r.RunFailure != nil {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{"error", sarifMessage{"Run failed: " + runFailureText(r.RunFailure)}})
	}
	for _, why := range r.Incomplete {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{"error", sarifMessage{"Incomplete analysis: " + why}})
	}
	for _, l := range r.Coverage.Lines() {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{"note", sarifMessage{"Coverage: " + l}})
	}
	for _, w := range r.Warnings {
		level := "note" // counted only: it changes no finding
		if w.ChangesReport() {
			level = "warning"
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{level, sarifMessage{warningText(w)}})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, ColumnKind: "utf16CodeUnits", Invocations: []sarifInvocation{inv}, Results: []sarifResult{}}
	if r.BasePath != "" {
		// A directory's URI ends in "/" (3.14.14), so that the relative
		// ones resolve under it.
		base := strings.TrimSuffix(r.BasePath, "/") + "/"
		run.OriginalURIBaseIDs = map[string]sarifArtifactLocation{
			sarifSrcRoot: {URI: (&url.URL{Scheme: "file", Path: base}).String()}}
	}
	groups := detector.GroupFindings(r.Findings)
	inGroup := groupIndex(groups, len(r.Findings))
	nums := numbers(r, groups)
	for i := range r.Findings {
		f := &r.Findings[i]
		listSuppressed := r.ShowSuppressed && f.Waived && !f.HeldBack
		if !f.Reported() && !listSuppressed {
			continue
		}
		if gi := inGroup[i]; gi >= 0 {
			if g := &groups[gi]; g.Members[0] == i {
				run.Results = append(run.Results, sarifGroup(r, g, nums))
			}
			continue
		}
		res := sarifResult{
			RuleID:    sarifRules[f.Kind].id,
			RuleIndex: int(f.Kind),
			Level:     sarifLevel(f),
			Message:   sarifMessage{relText(r, sarifText(f, r.TraceNames))},
			PartialFingerprints: map[string]string{
				"fsmovePair/v1": f.Kind.String() + ":" + f.Producer.Ref() + "|" + f.Consumer.Ref(),
			},
			Properties: sarifResultProps{Confidence: f.Confidence.String(), sarifConfirmation: sarifConfirmationOf(f.Confirmation)},
		}
		if !f.Waived {
			res.Fixes = sarifFixes(r, f.Edit)
		}
		if nums[i] > 0 {
			res.Properties.Numbers = []int{nums[i]}
		}
		if f.Waived {
			kind := "external"
			if f.Suppressed {
				kind = "inSource"
			}
			res.Suppressions = []sarifSuppression{{kind, f.WaiverReason}}
		}
		// At the resource the fix goes on, the other one related.
		at, other := f.FixSite()
		role := "producer "
		switch f.Kind {
		case detector.MN:
			role = "service "
		case detector.NI:
			role = "also writing it: "
		}
		if loc, ok := sarifLocationOf(r, at); ok {
			res.Locations = append(res.Locations, loc)
		}
		if loc, ok := sarifLocationOf(r, other); ok && other != at {
			id := 1
			loc.ID = &id
			loc.Message = &sarifMessage{role + other.Ref()}
			res.RelatedLocations = append(res.RelatedLocations, loc)
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// sarifGroup is the one result of a group of findings: located at the
// shared resource's manifest line (where its fix goes), with each member's
// other resource as a related location, and their numbers (nums). The
// members share the kind, confidence and verdict, so the first one gives
// the level.
func sarifGroup(r *detector.Report, g *detector.Group, nums []int) sarifResult {
	fs := r.Findings
	first := &fs[g.Members[0]]
	others := g.Others(fs)
	props := sarifResultProps{Confidence: g.Confidence.String(), GroupBy: g.By.String(), GroupSize: len(g.Members)}
	for _, o := range others {
		props.GroupMembers = append(props.GroupMembers, o.Ref())
	}
	for _, m := range g.Members {
		props.Numbers = append(props.Numbers, nums[m])
	}
	if first.Confirmation != nil {
		c := &sarifConfirmation{Confirmation: string(first.Confirmation.Verdict), ConfirmationEvidence: []string{}}
		var whys []string
		for i, m := range g.Members {
			o := others[i].Ref()
			whys = append(whys, o+": "+fs[m].Confirmation.Why)
			for _, e := range fs[m].Confirmation.Evidence {
				c.ConfirmationEvidence = append(c.ConfirmationEvidence, o+": "+e)
			}
		}
		c.ConfirmationWhy = strings.Join(whys, "; ")
		props.sarifConfirmation = c
	}
	res := sarifResult{
		RuleID:    sarifRules[g.Kind].id,
		RuleIndex: int(g.Kind),
		Level:     sarifLevel(first),
		Message:   sarifMessage{relText(r, sarifGroupText(g, fs))},
		PartialFingerprints: map[string]string{
			"fsmoveGroup/v1": g.Kind.String() + ":" + g.By.String() + ":" + g.Resource.Ref() + "|" + strings.Join(g.Paths, "|"),
		},
		Properties: props,
		Fixes:      sarifFixes(r, r.GroupEdits[g.Members[0]]),
	}
	if loc, ok := sarifLocationOf(r, g.Resource); ok {
		res.Locations = append(res.Locations, loc)
	}
	role := "consumer "
	if g.By == detector.ByConsumer {
		role = "producer "
	}
	for _, o := range others {
		if loc, ok := sarifLocationOf(r, o); ok {
			id := len(res.RelatedLocations) + 1
			loc.ID = &id
			loc.Message = &sarifMessage{role + o.Ref()}
			res.RelatedLocations = append(res.RelatedLocations, loc)
		}
	}
	return res
}

// sarifGroupText is a group's message: the shared resource, how many
// others and which, the shared paths with its evidence, and the one fix.
func sarifGroupText(g *detector.Group, fs []detector.Finding) string {
	var refs []string
	for _, o := range g.Others(fs) {
		refs = append(refs, o.Ref())
	}
	n, list, ref := len(g.Members), strings.Join(refs, ", "), g.Resource.Ref()
	var b strings.Builder
	switch {
	case g.By == detector.ByProducer && g.Kind == detector.MN:
		fmt.Fprintf(&b, "%s changes files that %d services read, but notifies none of them: %s.", ref, n, list)
	case g.By == detector.ByProducer:
		fmt.Fprintf(&b, "%s writes files that %d resources use, and none of them is ordered after it: %s.", ref, n, list)
	case g.Kind == detector.MN:
		fmt.Fprintf(&b, "%s reads files that %d resources change, and none of them notifies it: %s.", ref, n, list)
	default:
		fmt.Fprintf(&b, "%s uses files that %d resources write, and is ordered after none of them: %s.", ref, n, list)
	}
	first := &fs[g.Members[0]]
	for _, pc := range first.Paths {
		if pc.Waived {
			continue
		}
		if g.By == detector.ByProducer {
			fmt.Fprintf(&b, " %s: %s by %s %s, then used by each (%s).", pc.Path,
				pc.ProducerEffect, pc.Producer.Ref(), evidenceText(pc.ProducerEvidence), pc.Relation)
		} else {
			fmt.Fprintf(&b, " %s: made by each, then %s by %s %s (%s).", pc.Path,
				pc.ConsumerEffect, pc.Consumer.Ref(), evidenceText(pc.ConsumerEvidence), pc.Relation)
		}
	}
	switch g.Confidence {
	case detector.Observed:
		b.WriteString(" Each failed in this run.")
	case detector.Metadata:
		b.WriteString(" Only metadata (mode, owner) or a lookup relates them, on every path.")
	case detector.Guarded:
		b.WriteString(" " + guardedText)
	}
	if c := first.Confirmation; c != nil {
		fmt.Fprintf(&b, " Re-applied to test it: %s, for each of them.", c.Verdict)
	}
	b.WriteString(" Fix: ")
	b.WriteString(g.Fix(fs))
	return b.String()
}

// sarifLevel is a result's level: "error" for a finding observed in this
// run or made by content, "warning" when only metadata or lookups relate
// the two resources, and "note" when re-applying refuted it (most likely
// not a fault).
func sarifLevel(f *detector.Finding) string {
	switch {
	case f.Confirmation != nil && f.Confirmation.Verdict == detector.Refuted:
		return "note"
	case f.Confidence == detector.Metadata, f.Confidence == detector.Guarded:
		return "warning"
	}
	return "error"
}

// guardedText says what a Guarded finding rests on, in SARIF's message.
const guardedText = "The producer made each file only when it was missing (it looked first): in the other order it finds the other's, and what it does then (replace it, keep it as changed locally) is its own."

// headline is the finding in one sentence, without its paths.
func headline(f *detector.Finding) string {
	if f.Kind == detector.NI {
		problem, _, _ := niLines(f, [2]string{})
		return pairText(f) + ": " + problem + "."
	}
	if f.Kind == detector.MN {
		return fmt.Sprintf("%s changes files that %s reads, but does not notify it.", f.Producer.Ref(), f.Consumer.Ref())
	}
	return fmt.Sprintf("%s and %s are not ordered, but one uses files the other writes.", f.Producer.Ref(), f.Consumer.Ref())
}

// sarifText is the result message: what conflicts, on which paths, with
// the evidence, and the fix.
func sarifText(f *detector.Finding, traces [2]string) string {
	var b strings.Builder
	b.WriteString(headline(f))
	if f.Kind == detector.NI {
		_, changes, paths := niLines(f, traces)
		for _, c := range changes {
			b.WriteString(" Changed again: " + c + ".")
		}
		for _, p := range paths {
			b.WriteString(" Written again: " + p + ".")
		}
		if f.Observed {
			fmt.Fprintf(&b, " It failed: %s", f.ObservedError)
		}
		b.WriteString(" Fix: ")
		b.WriteString(f.Fix)
		return b.String()
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
	switch f.Confidence {
	case detector.Metadata:
		b.WriteString(" Only metadata (mode, owner) or a lookup relates them, on every path.")
	case detector.Guarded:
		b.WriteString(" " + guardedText)
	}
	if c := f.Confirmation; c != nil {
		fmt.Fprintf(&b, " Re-applied to test it: %s, %s.", c.Verdict, c.Why)
	}
	b.WriteString(" Fix: ")
	b.WriteString(f.Fix)
	return b.String()
}

// sarifSrcRoot is the uriBaseId of the files under the base path.
const sarifSrcRoot = "SRCROOT"

// sarifArtifactOf is a manifest file as SARIF names it: a file under
// BasePath a URI relative to SRCROOT; another absolute path a file:// URI;
// a relative path stays relative. Paths are percent-escaped.
func sarifArtifactOf(r *detector.Report, file string) sarifArtifactLocation {
	var al sarifArtifactLocation
	switch rel, under := relFile(r, file); {
	case under:
		al.URI = (&url.URL{Path: filepath.ToSlash(rel)}).EscapedPath()
		al.URIBaseID = sarifSrcRoot
	case strings.HasPrefix(file, "/"):
		al.URI = (&url.URL{Scheme: "file", Path: file}).String()
	default:
		al.URI = (&url.URL{Path: file}).EscapedPath()
	}
	return al
}

// sarifLocationOf is the manifest position of res, if known
// (sarifArtifactOf).
func sarifLocationOf(r *detector.Report, res *catalog.Resource) (sarifLocation, bool) {
	if res == nil || res.File == "" {
		return sarifLocation{}, false
	}
	loc := sarifLocation{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifactOf(r, res.File)}}
	if res.Line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: res.Line}
	}
	return loc, true
}
