package detector

import (
	"time"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// Kind is the kind of a fault.
type Kind uint8

const (
	// MOR: a resource produces a path that another consumes or expunges,
	// and the catalog orders them in neither direction.
	MOR Kind = iota
	// MN: a resource produces a path that a Service consumes, and no
	// notify path leads from the producer to the service.
	MN
	// NI: a resource that the second apply of the module changed again,
	// or that failed only then (fsmove run --idempotence): the module
	// does not converge.
	NI
)

func (k Kind) String() string {
	switch k {
	case MN:
		return "MN"
	case NI:
		return "NI"
	}
	return "MOR"
}

// Finding is one fault between two resources: one finding per unordered
// resource pair, with every path that makes it.
type Finding struct {
	Kind Kind
	// Producer wrote what Consumer read or removed. For MN the consumer is
	// the Service. If paths go both ways, Producer is the producer of the
	// first path; each PathConflict names its own producer.
	Producer *catalog.Resource
	Consumer *catalog.Resource
	Paths    []PathConflict // sorted by path
	Fix      string         // a suggested change, in manifest syntax
	// Edit is that change written in the module's manifests (nil when
	// they were not located; see Edit).
	Edit *Edit
	// BothWays: the paths relate the two resources in both directions
	// (interleaved blocks, a daemon); Producer → Consumer is then the order
	// the run showed working, the one in which the blocks ran.
	BothWays bool
	// Unordered: an MN whose two resources are not ordered either, and
	// whose order matters too (a path the consumer needs as the producer
	// left it): ~> fixes both, and the report says the order is missing
	// as well, so that a reader does not take it for a restart alone.
	Unordered bool
	// Observed: the consumer failed in this run because the producer had
	// not run yet (Puppet's error is ObservedError).
	Observed      bool
	ObservedError string
	// Confidence says what kind of evidence makes the finding (see
	// Confidence): findings rank observed, content, metadata, guarded.
	Confidence Confidence
	// Reversed: an MN whose service is ordered before its producer today,
	// so that adding the notification alone would make a dependency cycle
	// (the fix says to remove that ordering first).
	Reversed bool
	// HeldBack: the pair is not a fault by a rule of the detector (it only
	// meets on the account databases, or the two resources commute); it is
	// kept for --all and JSON with the reason, and never counts as a fault.
	HeldBack bool
	// HeldRule names the rule that held it back (a row of holds.go's
	// table; the first path's, when paths were held for several reasons),
	// HeldReason says why.
	HeldRule   string
	HeldReason string
	Commutes   bool // held back because the two resources commute
	// Waived: a waiver covers the pair, or every one of its paths.
	Waived       bool
	WaiverReason string
	// WaiverSource says where the waiver of the whole pair was written
	// when not in the --waivers file (Waiver.Source); Suppressed: it is an
	// inline "# fsmove:ignore" comment.
	WaiverSource string
	Suppressed   bool
	// Confirmation is set when the finding was re-applied to test it
	// (fsmove run --confirm, fsmove confirm).
	Confirmation *Confirmation
	// NI says what makes an NI finding's resource non-idempotent (nil for
	// the other kinds).
	NI *NonIdempotence
}

// FixSite returns the resource the fix goes on (the consumer of an MOR,
// which requires the producer; the producer of an MN, which notifies the
// service) and the other one: reports that place a finding at one
// manifest line place it at the first.
func (f *Finding) FixSite() (at, other *catalog.Resource) {
	if f.Kind == MN {
		return f.Producer, f.Consumer
	}
	return f.Consumer, f.Producer
}

// Confidence is how strong a finding's evidence is.
type Confidence uint8

const (
	// Observed: the consumer failed in this run because the producer had
	// not run yet.
	Observed Confidence = iota
	// Content: a path's content or existence made by one resource is what
	// the other read, overwrote or removed.
	Content
	// Metadata: only metadata (mode, owner) or a lookup (stat, access)
	// relates them on every path.
	Metadata
	// Guarded: on every path the producer made the path only when it was
	// missing (a package's file, which dpkg looked up first) and the
	// consumer replaced it: in the other order the producer finds the
	// consumer's file, and what it does then is its own (dpkg replaces a
	// file, keeps a conffile as changed locally, its scripts may rewrite
	// it). The weakest tier: --fail-on …,metadata leaves it out.
	Guarded
)

var confidenceNames = [...]string{"observed", "content", "metadata", "guarded"}

func (c Confidence) String() string {
	if int(c) < len(confidenceNames) {
		return confidenceNames[c]
	}
	return "unknown"
}

// Reported reports whether f counts as a fault: neither waived nor held
// back.
func (f *Finding) Reported() bool { return !f.Waived && !f.HeldBack }

// PathConflict is one path that relates the two resources of a finding.
type PathConflict struct {
	Path             string
	Producer         *catalog.Resource // the resource with ProducerEffect
	Consumer         *catalog.Resource
	Relation         Relation       // how the consumer depends on the producer here
	ProducerEffect   fstrace.Effect // always Produced
	ConsumerEffect   fstrace.Effect // Consumed, Expunged, or Produced (Overwrites)
	ProducerEvidence interp.Evidence
	ConsumerEvidence interp.Evidence
	Waived           bool // a pair+path waiver covers this path
	WaiverReason     string
	// HeldRule and HeldReason say which rule holds this path's relation
	// back (a row of holds.go's table) and why it alone does not make a
	// fault, in a held-back finding.
	HeldRule   string
	HeldReason string
	// Metadata: the producer changed only metadata here, or the consumer
	// only looked the path up (stat, access): see Confidence.
	Metadata bool
	// guarded: the producer made the path only when it was missing, and
	// the consumer replaced it (see Guarded).
	guarded bool
	// producerReplaced: the producer replaced the content here (not only a
	// metadata change or an append).
	producerReplaced bool
	// otherWriters: on an account database, a resource other than the
	// producer (and than Users and Groups) wrote it too before the
	// consumer read it, so another could have made an account the
	// consumer names (accounts.go).
	otherWriters bool
}

// Report is the detector's outcome. Findings holds waived findings too
// (see Faults for what counts).
type Report struct {
	Findings []Finding
	// InDependencies are the findings wholly outside Options.Scope: both
	// resources are declared in code the module under test uses. They
	// count for nothing; the reports say how many there are.
	InDependencies []Finding
	// UnresolvedBlocks names the blocks that the catalog does not know
	// (sorted); their accesses were not checked.
	UnresolvedBlocks []string
	// UnusedWaivers are waivers that matched no finding: probably stale.
	UnusedWaivers []Waiver
	// ToolVersion, when set by the caller, is fsmove's version: SARIF's
	// driver.version, JSON's tool.version.
	ToolVersion string
	// Module is the name of the module under test ("" when the run applied
	// other code), for JSON's module.
	Module string
	// BasePath, when set, is the absolute directory that manifest files
	// are written relative to in SARIF (uriBaseId SRCROOT, for code
	// scanning), JSON, JUnit and Code Quality: the top of the git work
	// tree holding the module, so that site/profile/manifests/init.pp maps
	// to the repository's file. Files outside it stay absolute.
	BasePath string
	// ShowSuppressed makes the text report and SARIF list the waived and
	// suppressed findings too, with their reason (--show-suppressed).
	ShowSuppressed bool
	// ShowHeldBack makes the text report list the findings that a rule
	// held back, with the reason (--all). JSON always has them.
	ShowHeldBack bool
	// Incomplete says why the analysis does not cover the whole run, one
	// sentence each (the trace ends early, no block was recognised, the
	// catalog is another run's). Empty when it does. A report without
	// faults is clean only when it is complete.
	Incomplete []string
	// Coverage says which Services the trace saw at work and which
	// resources Puppet applied (nil when the run did not say: fsmove
	// analyze of a bare trace).
	Coverage *Coverage
	// RunFailure, set by the caller from the run's record (run.json), says
	// that the run which made the trace failed (Puppet failed, the tracer
	// lost events) and why; nil when it succeeded or there is no record.
	// The analysis then covers what the run did, not what the module would
	// do: the machine formats say the execution did not succeed (JSON
	// complete false, SARIF executionSuccessful false, a JUnit error, a
	// Code Quality issue). It does not change Complete, which the exit
	// status follows: a failed fsmove run exits 3 by itself.
	RunFailure *RunFailure
	// Warnings count the problems of the input that the analysis worked
	// around (malformed lines, fds never opened, catalog entries skipped).
	// Only those that change what the report means are in the text report
	// (docs/DESIGN.md, Warnings); JSON, SARIF and --stats have them all.
	Warnings []InputWarning
	Stats    Stats
	// Idempotence: the run applied the module twice (--idempotence) and
	// NI was checked; the summaries count NI then, and only then.
	Idempotence bool
	// TraceNames name the first and the second apply's traces where the
	// report quotes lines of them (NI findings' evidence): Idempotence's.
	TraceNames [2]string
	// Confirm, when set, counts the findings' confirmations and gives
	// their cost (fsmove run --confirm, fsmove confirm).
	Confirm *ConfirmStats
	// GroupEdits are the edits of the groups (GroupFindings), by the index
	// of a group's first member: one edit for all its members, where each
	// member's own Edit fixes that member alone.
	GroupEdits map[int]*Edit
}

// RunFailure is a failed run as its record says it.
type RunFailure struct {
	Status string // run.json's status: "puppet-failed", "incomplete", …
	Error  string // run.json's error: "Puppet exited with 6 (changes and failures)"
}

// InputWarning is one kind of input problem, counted.
type InputWarning struct {
	Kind    string // what, in a few words: "malformed trace lines"
	Count   int64
	Example string // the first one, when known ("line 12: …")
	Effect  WarningEffect
}

// WarningEffect says whether an input problem changes what the report
// means, which decides whether the text report shows it.
type WarningEffect uint8

const (
	// Counted: worked around without changing any finding or a clean
	// result (an fd inherited from before the trace): counted only, under
	// --stats and in JSON and SARIF.
	Counted WarningEffect = iota
	// ChangesReport: because of it a relation may be missing or wrong (a
	// call whose path was lost, a catalog entry skipped, a block marker
	// cut): in the text report too.
	ChangesReport
)

// ChangesReport reports whether the warning changes what the report means.
func (w InputWarning) ChangesReport() bool { return w.Effect == ChangesReport }

// Checked is what the analysis checked, for a clean report to say so.
type Checked struct {
	Resources    int // the catalog's resources whose blocks the trace has
	Blocks       int // blocks of the trace (resources, classes, systemd units)
	Paths        int // distinct paths the blocks accessed
	RelatedPairs int // resource pairs a path relates, checked against the catalog's order
}

// Checked returns what the analysis checked, from its stats.
func (r *Report) Checked() Checked {
	s := &r.Stats
	return Checked{
		Resources:    s.ResourceBlocks - s.UnknownResources,
		Blocks:       s.Blocks,
		Paths:        s.Paths,
		RelatedPairs: s.RelatedPairs,
	}
}

// Complete reports whether the analysis covers the whole run.
func (r *Report) Complete() bool { return len(r.Incomplete) == 0 }

// AddWarning counts n problems of a kind, with the effect they have on
// the report; n == 0 adds nothing.
func (r *Report) AddWarning(effect WarningEffect, kind string, n int64, example string) {
	if n > 0 {
		r.Warnings = append(r.Warnings, InputWarning{Kind: kind, Count: n, Example: example, Effect: effect})
	}
}

// UnknownResources lists the blocks counted in Stats.UnknownResources: the
// resource blocks the catalog does not name.
func (r *Report) UnknownResources() []string {
	var out []string
	for _, b := range r.UnresolvedBlocks {
		if tellsCatalog(b) {
			out = append(out, b)
		}
	}
	return out
}

// Faults is the number of findings that are not waived: the exit status is
// 1 when it is positive.
func (r *Report) Faults() int { return reported(r.Findings) }

// reported is how many of findings count as faults (Finding.Reported).
func reported(findings []Finding) int {
	n := 0
	for i := range findings {
		if findings[i].Reported() {
			n++
		}
	}
	return n
}

// Pairs returns the (producer, consumer) pairs of the findings that are
// not waived, for highlighting in the dependency graph (--graph-out).
func (r *Report) Pairs() [][2]*catalog.Resource {
	var out [][2]*catalog.Resource
	for i := range r.Findings {
		// An NI is no missing edge of the graph.
		if f := &r.Findings[i]; f.Reported() && f.Kind != NI {
			out = append(out, [2]*catalog.Resource{f.Producer, f.Consumer})
		}
	}
	return out
}

// Phase is the wall time of one step of the pipeline.
type Phase struct {
	Name     string
	Duration time.Duration
}

// Stats are the counts that report.Stats prints (--stats) and the JSON
// report holds. The caller fills the trace counts and its phases; Detect
// fills the rest and appends its own "detect" phase.
type Stats struct {
	// Filled by the caller.
	TraceBytes     int64
	TraceLines     int64
	Events         int64
	MalformedLines int64
	// The lowering's and the interpreter's counted problems: calls whose
	// path or fd argument could not be read (BadArgs), system calls with
	// no lowering row (UnknownCalls), Puppet info lines cut by strace -s
	// where a block marker may have been (CutMarks), blocks begun while
	// another was open (ImplicitEnds: with Interp.UnmatchedEnds, an
	// incompleteness reason), clones whose child is the creating process
	// (SelfClones). The others are also in Warnings, in words, when not
	// zero.
	BadArgs      int64
	UnknownCalls int64
	CutMarks     int64
	ImplicitEnds int64
	SelfClones   int64
	Phases       []Phase
	// PeakRSSBytes is the analysis's own peak resident memory (VmHWM of
	// the process since it started), 0 when not measured.
	PeakRSSBytes int64

	// Copied from the interpreter's result by Detect.
	Interp interp.Stats

	// Filled by Detect.
	Blocks             int // blocks in the result
	UnresolvedBlocks   int // blocks the catalog does not know
	GeneratedBlocks    int // blocks of resources generated at apply time, attributed to their generator
	UnresolvedAccesses int // accesses of those blocks, not checked
	// ResourceBlocks counts the blocks that can tell whether the catalog
	// belongs to the trace: every block but systemd units, Puppet's
	// default schedules and filebucket (never in a catalog) and classes,
	// stages and nodes by name (Class[Main], Stage[main], Class[Settings]
	// are in every catalog). UnknownResources is how many of them the
	// catalog does not name.
	ResourceBlocks    int
	UnknownResources  int
	ContainerAccesses int // accesses in container whits (Class, Stage…), Puppet's own
	UnitBlocks        int // systemd units whose processes' accesses went to the catalog's Service for the unit
	UnclaimedUnits    int // systemd units no Service names (journald, a dependency): their processes act for no resource
	UnclaimedAccesses int // accesses of those units' processes, not checked
	Paths             int // distinct paths in the result
	FilteredPaths     int // paths skipped by the filters
	RelatedPairs      int // resource pairs with a < or ⇝ relation
	MOR               int // findings by kind, waived ones included, held-back ones and those in dependencies not
	MN                int
	NI                int // non-idempotent resources (--idempotence)
	HeldBack          int // findings held back by a rule (--all shows them)
	// HeldBy counts the held-back findings by the rule that held them
	// (Finding.HeldRule; nil when none was held).
	HeldBy           map[string]int
	InDependencies   int // findings wholly inside dependencies that would be faults (--scope all lists them)
	Commuting        int // of those, pairs that commute
	NeedMet          int // path relations dropped: another, ordered producer met the need
	GeneratedOrdered int // path relations Puppet ordered through a generated resource's own edges
	Waived           int // findings waived, suppressed ones included
	Suppressed       int // of those, by an inline fsmove:ignore comment
	Waivers          int // waivers given
	UnusedWaivers    int
}

// AddPhase records the duration of a step.
func (s *Stats) AddPhase(name string, d time.Duration) {
	s.Phases = append(s.Phases, Phase{name, d})
}
