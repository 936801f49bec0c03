package report

import (
	"encoding/json"
	"io"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// JSONSchemaVersion is the version of the JSON report (SCHEMA.md). It grows
// only when a field changes meaning or disappears.
const JSONSchemaVersion = 1

// The json* types are the JSON report; SCHEMA.md documents every field.
// Field names are stable: add, never rename.
type jsonReport struct {
	SchemaVersion    int                `json:"schema_version"`
	Tool             jsonTool           `json:"tool"`
	Module           string             `json:"module"`
	BasePath         string             `json:"base_path"`
	Findings         []jsonFinding      `json:"findings"`
	Groups           []jsonGroup        `json:"groups"`
	UnresolvedBlocks []string           `json:"unresolved_blocks"`
	UnusedWaivers    []jsonWaiver       `json:"unused_waivers"`
	Complete         bool               `json:"complete"`
	Incomplete       []string           `json:"incomplete"`
	RunFailure       *jsonRunFail       `json:"run_failure,omitempty"`
	Warnings         []jsonWarning      `json:"warnings"`
	Checked          jsonChecked        `json:"checked"`
	Stats            jsonStats          `json:"stats"`
	Confirm          *jsonConfirm       `json:"confirm,omitempty"`
	Coverage         *detector.Coverage `json:"coverage,omitempty"`
}

// jsonRunFail is RunFailure: the run that made the trace failed.
type jsonRunFail struct {
	Status string `json:"status"`
	Error  string `json:"error"`
}

// jsonTool names the program that wrote the report.
type jsonTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// jsonChecked is Checked: what the analysis checked.
type jsonChecked struct {
	Resources    int `json:"resources"`
	Blocks       int `json:"blocks"`
	Paths        int `json:"paths"`
	RelatedPairs int `json:"related_pairs"`
}

type jsonConfirm struct {
	Confirmed        int     `json:"confirmed"`
	Refuted          int     `json:"refuted"`
	Unknown          int     `json:"unknown"`
	Applies          int     `json:"applies"`
	Seconds          float64 `json:"seconds"`
	ContainerSeconds float64 `json:"container_seconds"`
}

type jsonConfirmation struct {
	Verdict  string   `json:"verdict"`
	Why      string   `json:"why"`
	Forced   string   `json:"forced,omitempty"`
	Evidence []string `json:"evidence"`
	Seconds  float64  `json:"seconds"`
}

func confirmationJSON(c *detector.Confirmation) *jsonConfirmation {
	if c == nil {
		return nil
	}
	evidence := c.Evidence
	if evidence == nil {
		evidence = []string{}
	}
	return &jsonConfirmation{Verdict: string(c.Verdict), Why: c.Why, Forced: c.Forced, Evidence: evidence, Seconds: c.Seconds}
}

type jsonWarning struct {
	Kind          string `json:"kind"`
	Count         int64  `json:"count"`
	Example       string `json:"example"`
	ChangesReport bool   `json:"changes_report"`
}

type jsonFinding struct {
	// Number is the finding's number in every report (numbers),
	// 0 when waived.
	Number       int            `json:"number"`
	Kind         string         `json:"kind"`
	Producer     jsonResource   `json:"producer"`
	Consumer     jsonResource   `json:"consumer"`
	Paths        []jsonConflict `json:"paths"`
	Fix          string         `json:"fix"`
	BothWays     bool           `json:"both_ways"`
	Unordered    bool           `json:"unordered"`
	Observed     bool           `json:"observed"`
	ObservedErr  string         `json:"observed_error"`
	Confidence   string         `json:"confidence"`
	HeldBack     bool           `json:"held_back"`
	HeldRule     string         `json:"held_rule"`
	HeldReason   string         `json:"held_reason"`
	Commutes     bool           `json:"commutes"`
	Waived       bool           `json:"waived"`
	WaiverReason string         `json:"waiver_reason"`
	WaiverSource string         `json:"waiver_source"`
	Suppressed   bool           `json:"suppressed"`
	Group        int            `json:"group"`
	// Confirmation is there when the finding was re-applied to test it.
	Confirmation *jsonConfirmation `json:"confirmation,omitempty"`
	// NI is there for an NI finding (fsmove run --idempotence).
	NI *jsonNI `json:"ni,omitempty"`
	// Edit is there when the module's manifests were located (Edit).
	Edit *jsonEdit `json:"edit,omitempty"`
}

// jsonEdit is an Edit; its changes' files relative to the base path.
type jsonEdit struct {
	Says    string       `json:"says"`
	Diff    string       `json:"diff"`
	Changes []jsonChange `json:"changes"`
	Skipped string       `json:"skipped"`
}

// jsonChange is a Change.
type jsonChange struct {
	File        string `json:"file"`
	Offset      int    `json:"offset"`
	Length      int    `json:"length"`
	StartLine   int    `json:"start_line"`
	StartColumn int    `json:"start_column"`
	EndLine     int    `json:"end_line"`
	EndColumn   int    `json:"end_column"`
	Text        string `json:"text"`
}

func editJSON(r *detector.Report, e *detector.Edit) *jsonEdit {
	if e == nil {
		return nil
	}
	je := &jsonEdit{Says: relText(r, e.Says), Diff: e.Diff, Changes: []jsonChange{}, Skipped: relText(r, e.Skipped)}
	for _, c := range e.Changes {
		file, _ := relFile(r, c.File)
		je.Changes = append(je.Changes, jsonChange{File: file, Offset: c.Offset, Length: c.Length,
			StartLine: c.StartLine, StartColumn: c.StartCol, EndLine: c.EndLine, EndColumn: c.EndCol, Text: c.Text})
	}
	return je
}

// jsonNI is NonIdempotence.
type jsonNI struct {
	Problem      string      `json:"problem"`
	Changes      []jsonEvent `json:"changes"`
	OtherChanges []jsonEvent `json:"other_changes"`
	Error        string      `json:"error"`
}

// jsonEvent is one property change of Puppet's report.
type jsonEvent struct {
	Property string `json:"property"`
	Previous string `json:"previous"`
	Desired  string `json:"desired"`
	Status   string `json:"status"`
	Message  string `json:"message"`
}

func niJSON(ni *detector.NonIdempotence) *jsonNI {
	if ni == nil {
		return nil
	}
	events := func(es []catalog.ResourceEvent) []jsonEvent {
		out := []jsonEvent{}
		for _, e := range es {
			out = append(out, jsonEvent{e.Property, e.Previous, e.Desired, e.Status, e.Message})
		}
		return out
	}
	return &jsonNI{Problem: ni.Problem.String(), Changes: events(ni.Changes), OtherChanges: events(ni.OtherChanges), Error: ni.Error}
}

// jsonGroup is a Group: Members index "findings".
type jsonGroup struct {
	Kind       string       `json:"kind"`
	By         string       `json:"by"`
	Resource   jsonResource `json:"resource"`
	Paths      []string     `json:"paths"`
	Confidence string       `json:"confidence"`
	HeldBack   bool         `json:"held_back"`
	Fix        string       `json:"fix"`
	Members    []int        `json:"members"`
	// Edit is the members' edit, all at once (Report.GroupEdits).
	Edit *jsonEdit `json:"edit,omitempty"`
}

type jsonResource struct {
	Ref   string `json:"ref"`
	Type  string `json:"type"`
	Title string `json:"title"`
	File  string `json:"file"`
	Line  int    `json:"line"`
}

type jsonConflict struct {
	Path             string       `json:"path"`
	Producer         string       `json:"producer"`
	Consumer         string       `json:"consumer"`
	Relation         string       `json:"relation"`
	ProducerEffect   string       `json:"producer_effect"`
	ConsumerEffect   string       `json:"consumer_effect"`
	ProducerEvidence jsonEvidence `json:"producer_evidence"`
	ConsumerEvidence jsonEvidence `json:"consumer_evidence"`
	Waived           bool         `json:"waived"`
	WaiverReason     string       `json:"waiver_reason"`
	HeldRule         string       `json:"held_rule"`
	HeldReason       string       `json:"held_reason"`
	Metadata         bool         `json:"metadata"`
}

type jsonEvidence struct {
	Syscall string `json:"syscall"`
	Line    int64  `json:"line"`
	Program string `json:"program,omitempty"`
}

type jsonWaiver struct {
	Line   int    `json:"line"`
	Source string `json:"source"`
	Ref1   string `json:"ref1"`
	Ref2   string `json:"ref2"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

type jsonPhase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

type jsonStats struct {
	TraceBytes         int64          `json:"trace_bytes"`
	TraceLines         int64          `json:"trace_lines"`
	MalformedLines     int64          `json:"malformed_lines"`
	BadArgs            int64          `json:"bad_args"`
	UnknownCalls       int64          `json:"unknown_calls"`
	CutMarks           int64          `json:"cut_marks"`
	ImplicitEnds       int64          `json:"implicit_ends"`
	SelfClones         int64          `json:"self_clones"`
	Events             int64          `json:"events"`
	Statements         int64          `json:"statements"`
	Processes          int64          `json:"processes"`
	UnknownPids        int64          `json:"unknown_pids"`
	UnknownFds         int64          `json:"unknown_fds"`
	UnresolvedPaths    int64          `json:"unresolved_paths"`
	SymlinkLoops       int64          `json:"symlink_loops"`
	UnmatchedEnds      int64          `json:"unmatched_ends"`
	UnclosedBlocks     int64          `json:"unclosed_blocks"`
	Blocks             int            `json:"blocks"`
	UnresolvedBlocks   int            `json:"unresolved_blocks"`
	GeneratedBlocks    int            `json:"generated_blocks"`
	UnresolvedAccesses int            `json:"unresolved_accesses"`
	ResourceBlocks     int            `json:"resource_blocks"`
	UnknownResources   int            `json:"unknown_resources"`
	ContainerAccesses  int            `json:"container_accesses"`
	UnitMoves          int64          `json:"unit_moves"`
	UnitReads          int64          `json:"unit_reads"`
	HeldAccesses       int64          `json:"held_accesses"`
	BootAccesses       int64          `json:"boot_accesses"`
	WaitedStatements   int64          `json:"waited_statements"`
	CwdGuesses         int64          `json:"cwd_guesses"`
	RootBinds          int64          `json:"root_binds"`
	UnitBlocks         int            `json:"unit_blocks"`
	UnclaimedUnits     int            `json:"unclaimed_units"`
	UnclaimedAccesses  int            `json:"unclaimed_accesses"`
	Paths              int            `json:"paths"`
	FilteredPaths      int            `json:"filtered_paths"`
	RelatedPairs       int            `json:"related_pairs"`
	MOR                int            `json:"mor"`
	MN                 int            `json:"mn"`
	NI                 *int           `json:"ni,omitempty"` // with --idempotence only
	HeldBack           int            `json:"held_back"`
	HeldBy             map[string]int `json:"held_by"`
	InDependencies     int            `json:"in_dependencies"`
	Commuting          int            `json:"commuting"`
	NeedMet            int            `json:"need_met"`
	GeneratedOrdered   int            `json:"generated_ordered"`
	Waived             int            `json:"waived"`
	Suppressed         int            `json:"suppressed"`
	Waivers            int            `json:"waivers"`
	UnusedWaivers      int            `json:"unused_waivers"`
	Phases             []jsonPhase    `json:"phases"`
	PeakRSSBytes       int64          `json:"peak_rss_bytes,omitempty"`
}

// jsonResourceOf is res, its file relative to the base path when under it.
func jsonResourceOf(r *detector.Report, res *catalog.Resource) jsonResource {
	file, _ := relFile(r, res.File)
	return jsonResource{Ref: res.Ref(), Type: res.Type, Title: res.Title, File: file, Line: res.Line}
}

func toJSONEvidence(e interp.Evidence) jsonEvidence {
	return jsonEvidence{Syscall: e.Syscall(), Line: e.Line, Program: e.Program()}
}

// JSON writes the report as one indented JSON object (SCHEMA.md),
// waived findings included with "waived": true and the reason.
func JSON(w io.Writer, r *detector.Report) error {
	if err := check(r); err != nil {
		return err
	}
	out := jsonReport{
		SchemaVersion:    JSONSchemaVersion,
		Tool:             jsonTool{Name: "fsmove", Version: r.ToolVersion},
		Module:           r.Module,
		BasePath:         r.BasePath,
		Findings:         []jsonFinding{},
		UnresolvedBlocks: append([]string{}, r.UnresolvedBlocks...),
		UnusedWaivers:    []jsonWaiver{},
		Groups:           []jsonGroup{},
	}
	groups := detector.GroupFindings(r.Findings)
	inGroup := groupIndex(groups, len(r.Findings))
	nums := numbers(r, groups)
	for i := range groups {
		g := &groups[i]
		out.Groups = append(out.Groups, jsonGroup{Kind: g.Kind.String(), By: g.By.String(),
			Resource: jsonResourceOf(r, g.Resource), Paths: g.Paths, Confidence: g.Confidence.String(),
			HeldBack: g.HeldBack, Fix: relText(r, g.Fix(r.Findings)), Members: g.Members, Edit: editJSON(r, r.GroupEdits[g.Members[0]])})
	}
	if c := r.Confirm; c != nil {
		out.Confirm = &jsonConfirm{Confirmed: c.Confirmed, Refuted: c.Refuted, Unknown: c.Unknown,
			Applies: c.Applies, Seconds: c.Seconds, ContainerSeconds: c.ContainerSeconds}
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		jf := jsonFinding{
			Number:       nums[i],
			Kind:         f.Kind.String(),
			Producer:     jsonResourceOf(r, f.Producer),
			Consumer:     jsonResourceOf(r, f.Consumer),
			Paths:        []jsonConflict{},
			Fix:          relText(r, f.Fix),
			BothWays:     f.BothWays,
			Unordered:    f.Unordered,
			Observed:     f.Observed,
			ObservedErr:  f.ObservedError,
			Confidence:   f.Confidence.String(),
			HeldBack:     f.HeldBack,
			HeldRule:     f.HeldRule,
			HeldReason:   f.HeldReason,
			Commutes:     f.Commutes,
			Waived:       f.Waived,
			WaiverReason: f.WaiverReason,
			WaiverSource: f.WaiverSource,
			Suppressed:   f.Suppressed,
			Group:        inGroup[i],
			Confirmation: confirmationJSON(f.Confirmation),
			NI:           niJSON(f.NI),
			Edit:         editJSON(r, f.Edit),
		}
		for _, pc := range f.Paths {
			jf.Paths = append(jf.Paths, jsonConflict{
				Path:             pc.Path,
				Producer:         pc.Producer.Ref(),
				Consumer:         pc.Consumer.Ref(),
				Relation:         pc.Relation.String(),
				ProducerEffect:   pc.ProducerEffect.String(),
				ConsumerEffect:   pc.ConsumerEffect.String(),
				ProducerEvidence: toJSONEvidence(pc.ProducerEvidence),
				ConsumerEvidence: toJSONEvidence(pc.ConsumerEvidence),
				Waived:           pc.Waived,
				WaiverReason:     pc.WaiverReason,
				HeldRule:         pc.HeldRule,
				HeldReason:       pc.HeldReason,
				Metadata:         pc.Metadata,
			})
		}
		out.Findings = append(out.Findings, jf)
	}
	for _, wv := range r.UnusedWaivers {
		out.UnusedWaivers = append(out.UnusedWaivers, jsonWaiver{wv.Line, wv.Source, wv.Ref1.String(), wv.Ref2.String(), wv.Path, wv.Reason})
	}
	out.Complete = succeeded(r)
	out.Incomplete = append([]string{}, r.Incomplete...)
	out.Coverage = r.Coverage
	if f := r.RunFailure; f != nil {
		out.RunFailure = &jsonRunFail{Status: f.Status, Error: f.Error}
	}
	out.Warnings = []jsonWarning{}
	for _, w := range r.Warnings {
		out.Warnings = append(out.Warnings, jsonWarning{w.Kind, w.Count, w.Example, w.ChangesReport()})
	}
	c := r.Checked()
	out.Checked = jsonChecked{Resources: c.Resources, Blocks: c.Blocks, Paths: c.Paths, RelatedPairs: c.RelatedPairs}
	s := &r.Stats
	out.Stats = jsonStats{
		TraceBytes: s.TraceBytes, TraceLines: s.TraceLines, MalformedLines: s.MalformedLines,
		BadArgs: s.BadArgs, UnknownCalls: s.UnknownCalls, CutMarks: s.CutMarks, ImplicitEnds: s.ImplicitEnds, SelfClones: s.SelfClones,
		Events: s.Events, Statements: s.Interp.Statements, Processes: s.Interp.Processes,
		UnknownPids: s.Interp.UnknownPids, UnknownFds: s.Interp.UnknownFds,
		UnresolvedPaths: s.Interp.UnresolvedPaths, SymlinkLoops: s.Interp.SymlinkLoops,
		UnmatchedEnds: s.Interp.UnmatchedEnds, UnclosedBlocks: s.Interp.UnclosedBlocks,
		Blocks: s.Blocks, UnresolvedBlocks: s.UnresolvedBlocks, GeneratedBlocks: s.GeneratedBlocks, UnresolvedAccesses: s.UnresolvedAccesses,
		ResourceBlocks: s.ResourceBlocks, UnknownResources: s.UnknownResources,
		ContainerAccesses: s.ContainerAccesses,
		UnitMoves:         s.Interp.UnitMoves, UnitReads: s.Interp.UnitReads, HeldAccesses: s.Interp.HeldAccesses, BootAccesses: s.Interp.BootAccesses, WaitedStatements: s.Interp.WaitedStatements, CwdGuesses: s.Interp.CwdGuesses, RootBinds: s.Interp.RootBinds, UnitBlocks: s.UnitBlocks, UnclaimedUnits: s.UnclaimedUnits, UnclaimedAccesses: s.UnclaimedAccesses,
		Paths: s.Paths, FilteredPaths: s.FilteredPaths, RelatedPairs: s.RelatedPairs,
		MOR: s.MOR, MN: s.MN, HeldBack: s.HeldBack, HeldBy: heldBy(s.HeldBy), InDependencies: s.InDependencies, Commuting: s.Commuting, NeedMet: s.NeedMet, GeneratedOrdered: s.GeneratedOrdered, Waived: s.Waived, Suppressed: s.Suppressed, Waivers: s.Waivers, UnusedWaivers: s.UnusedWaivers,
		Phases: []jsonPhase{}, PeakRSSBytes: s.PeakRSSBytes,
	}
	if r.Idempotence {
		out.Stats.NI = &s.NI
	}
	for _, p := range s.Phases {
		out.Stats.Phases = append(out.Stats.Phases, jsonPhase{p.Name, p.Duration.Seconds()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// heldBy is Stats.HeldBy as written: an object, empty when nothing was
// held (never null).
func heldBy(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}
