package runner

import (
	"time"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/module"
)

// RunRecord is run.json: what was run, how, and what came of it. Field
// names are stable; new fields may be added.
type RunRecord struct {
	FsmoveVersion string     `json:"fsmove_version"`
	Module        ModuleSpec `json:"module"`
	Entry         Entry      `json:"entry"`
	// ModulePath are the --modulepath directories, absolute, in order.
	ModulePath []string `json:"module_path,omitempty"`
	// Dependencies says where each of the module's dependencies came
	// from (a --modulepath directory, its fixtures, a Debian package).
	Dependencies *module.Resolution  `json:"dependencies,omitempty"`
	Image        container.ImageInfo `json:"image"`
	Engine       string              `json:"engine_version,omitempty"`
	ContainerID  string              `json:"container_id,omitempty"`
	// Sandbox is what the container was given: capabilities, seccomp,
	// cgroups, limits, network.
	Sandbox       *container.Config `json:"sandbox,omitempty"`
	PuppetVersion string            `json:"puppet_version,omitempty"`
	StraceVersion string            `json:"strace_version,omitempty"`
	Tracer        string            `json:"tracer"`
	// Trusted: the run was told the module is trusted (--trusted), which
	// lets strace and ptrace trace it from inside its container.
	Trusted bool `json:"trusted,omitempty"`
	// TracerNote says why this tracer was chosen, or what it cannot see.
	TracerNote string `json:"tracer_note,omitempty"`
	// Init is the container's PID 1: systemd or none.
	Init container.Init `json:"init"`
	// SystemState is systemd's state when the apply started (running or
	// degraded), in systemd mode.
	SystemState string       `json:"system_state,omitempty"`
	TraceFilter string       `json:"trace_filter,omitempty"`
	Command     []string     `json:"command,omitempty"` // the traced command in the container
	Started     time.Time    `json:"started"`
	Finished    time.Time    `json:"finished"`
	Steps       []StepRecord `json:"steps"`
	TraceBytes  int64        `json:"trace_bytes"`
	// PuppetExit is Puppet's exit status as the tracer saw it (with
	// --detailed-exitcodes), nil when unknown (killed, timed out).
	PuppetExit    *int   `json:"puppet_exit"`
	PuppetOutcome string `json:"puppet_outcome,omitempty"`
	// ApplyExit is the exit status of the apply wrapper (0: it ran Puppet
	// to its end; 125: the tracer could not start Puppet).
	ApplyExit *int `json:"apply_exit"`
	// AnalyzeExit is the status of the analysis, once it has run, as fsmove
	// analyze exits: 0 clean, 1 findings, 2 unreadable artifacts, 4 no
	// findings in an incomplete analysis.
	AnalyzeExit *int `json:"analyze_exit"`
	// Status sums up the run: ok, puppet-failed, compile-failed, timeout,
	// interrupted, infra-error.
	Status string `json:"status"`
	// Error is why the run failed, in one line; ErrorChain, when the
	// cause was said for it (the engine went away, the disk is full), is
	// the error as the call that met it saw it.
	Error      string `json:"error,omitempty"`
	ErrorChain string `json:"error_chain,omitempty"`
	// StoppedStep is the step that failed, or that was running when the
	// run was interrupted or timed out (image, container, modules, setup,
	// apply, copy, analyze).
	StoppedStep string `json:"stopped_step,omitempty"`
	// Container says what became of the run's container: removed, kept
	// (--keep) or left (its removal failed); empty when none was created.
	Container string `json:"container,omitempty"`
	// DroppedEvents counts the events an eBPF capture lost (its ring buffer
	// was full); a run with drops is incomplete unless --allow-drops.
	DroppedEvents uint64 `json:"dropped_events"`
	// OutsideCalls counts the system calls an eBPF capture saw from
	// processes of the container's pid namespace outside the container's
	// cgroup; the run is then incomplete, whatever --allow-drops says.
	OutsideCalls uint64 `json:"outside_calls"`
	// OverBudget says what was cut or left out of the artifacts for being
	// over its budget (runner.DefaultMaxTrace and friends).
	OverBudget []string `json:"over_budget,omitempty"`
	// PathMap maps the directories the modules have in the container to
	// where they are on this machine, so that a report can show the user's
	// own file:line instead of /fsmove/modules/…. A relative directory is
	// in the run's directory (a Debian dependency's manifests, SourcesDir):
	// HostPathMap makes it absolute.
	PathMap map[string]string `json:"path_map,omitempty"`
	// Artifacts are the files of the output directory, relative to it.
	Artifacts []string `json:"artifacts"`
	// UnmetConditions are the units whose start systemd skipped for a
	// condition not met, by every name, with the condition; FailedUnits
	// those whose start failed, with systemd's result, the exit status and
	// the journal's last lines (systemd mode). A Service of such a unit
	// was not observed (detector.Coverage).
	UnmetConditions map[string]string `json:"unmet_conditions,omitempty"`
	FailedUnits     map[string]string `json:"failed_units,omitempty"`
	// CatalogSHA256 is the SHA-256 of catalog.json, compiled before the
	// apply (compile.go); "" when the compile failed.
	CatalogSHA256 string `json:"catalog_sha256,omitempty"`
	// CatalogDrift names the resources whose parameter values differ
	// between the compiled catalog and the one Puppet cached during the
	// apply, relationships equal (a value computed at compile time, such
	// as a timestamp): said, not tampering (compile.go).
	CatalogDrift string `json:"catalog_drift,omitempty"`
	// ImageLinks are the image's symbolic links into /run (/var/run →
	// /run), recorded before the apply (links.go), with their targets.
	ImageLinks map[string]string `json:"image_links,omitempty"`
	// LiftedConditions are the units systemd started despite a condition
	// a container cannot meet, lifted for the trace (lift.go), by every
	// name, with the conditions lifted.
	LiftedConditions map[string]string `json:"lifted_conditions,omitempty"`
	// ExpectedFailures are the resources Puppet failed, all of them
	// Services of units in LiftedConditions whose start failed: the apply
	// counts as done (Status ok), its Puppet exit kept in PuppetExit.
	ExpectedFailures []string `json:"expected_failures,omitempty"`
	// Report is Puppet's report of the apply (PuppetReportFile), "" when
	// Puppet wrote none: which resources it applied, skipped or failed.
	Report string `json:"report,omitempty"`
	// Second is the second apply of --idempotence, nil without it.
	Second *SecondRun `json:"second_run,omitempty"`
	// Config is the project file (.fsmove.yml) the run's flags were read
	// from, nil when none.
	Config *ConfigRecord `json:"config,omitempty"`
}

// ConfigRecord says which project file a run read, and what it set.
type ConfigRecord struct {
	File     string   `json:"file"`
	Settings []string `json:"settings"` // its keys, in the file's order
}

// StepRecord is the timing of one step of the run.
type StepRecord struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	OK      bool    `json:"ok"`
	Detail  string  `json:"detail,omitempty"`
}

// StepApply is the name of the step that runs puppet apply, traced or
// (Options.Untraced) not: its time is the apply's time.
const StepApply = "apply"

// StepThen is the name of the step that runs Options.Then.
const StepThen = "then"

// ApplyStep returns the record of the puppet apply step, or false when the
// run did not get that far.
func (r *RunRecord) ApplyStep() (StepRecord, bool) {
	for i := len(r.Steps) - 1; i >= 0; i-- {
		if r.Steps[i].Name == StepApply {
			return r.Steps[i], true
		}
	}
	return StepRecord{}, false
}

// Run statuses.
const (
	StatusOK            = "ok"
	StatusPuppetFailed  = "puppet-failed"
	StatusCompileFailed = "compile-failed"
	StatusTimeout       = "timeout"
	StatusInterrupted   = "interrupted"
	StatusOverBudget    = "over-budget" // the container wrote more than --max-disk (disk.go)
	StatusInfraError    = "infra-error"
	StatusIncomplete    = "incomplete" // the tracer lost events, the trace was cut, a process left its cgroup
	// StatusTampered: an artifact in the container was made a link or a
	// device (container.ErrTampered), or what Puppet wrote during the
	// apply differs from what it compiled before it (compile.go); what
	// could be copied was analyzed.
	StatusTampered = "tampered"
)

// What became of a run's container (RunRecord.Container).
const (
	ContainerRemoved = "removed"
	ContainerKept    = "kept"
	ContainerLeft    = "left"
)

// AddStep appends a step's timing.
func (r *RunRecord) AddStep(name string, d time.Duration, ok bool, detail string) {
	r.Steps = append(r.Steps, StepRecord{Name: name, Seconds: roundSeconds(d), OK: ok, Detail: detail})
}

func roundSeconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}

func intPtr(v int) *int { return &v }

// ScopeRoots are the files and directories of the code under test, as the
// catalog names resources' files once analyze has mapped them to this
// machine (PathMap): the module's directory (where the user has it, in
// the container for a Debian package or a Forge install) and the entry
// manifest (-e, --manifest). Without a module, the --modulepath modules
// are the user's code. Everything else the run applied (fixtures, other
// --modulepath modules, Debian's packaged modules) is a dependency.
func (r *RunRecord) ScopeRoots() []string {
	roots := []string{sitePP}
	switch m := r.Module; m.Kind {
	case SourceDir:
		roots = append(roots, m.Dir)
	case SourceDeb:
		roots = append(roots, debianModules+"/"+m.Name)
	case SourceForge:
		roots = append(roots, forgeDir+"/"+m.Name)
	case SourceNone:
		roots = append(roots, r.ModulePath...)
	}
	return roots
}
