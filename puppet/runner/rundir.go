package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmove/fsmove/internal/files"
)

// The layout of a run's directory (--out), in one place: what fsmove run
// writes there, and what fsmove analyze, fsmove confirm and the corpus
// read back.
//
//	run.json             the record of the run (RunRecord)
//	trace.log            the trace (compressed since: trace.log.zst, trace.log.gz; FindTrace)
//	catalog.json         the catalog Puppet applied
//	puppet.log           Puppet's output
//	graphs/              puppet apply --graph's graphs (expanded_relationships.dot)
//	packages.tsv         dpkg's database after the apply
//	last_run_report.yaml Puppet's report of the apply (--idempotence)
//	second/              the second apply of --idempotence: its trace, log, catalog and report
//	report.html          the HTML report
//	sources/             the manifests of the run's Debian dependencies, by package and module (SourcesDir)
//	manifests.json       the module's manifests and their declarations' places, for the edits (ManifestsFile)
//	site.pp, setup.log, confirm/, fix/
const (
	RunJSON       = "run.json"
	TraceFile     = "trace.log"
	CatalogFile   = "catalog.json"
	PuppetLogFile = "puppet.log"
	GraphsDir     = "graphs"
	// ExpandedGraph is the graph of GraphsDir that the analysis reads:
	// which resource generated the ones that are not in the catalog.
	ExpandedGraph = "expanded_relationships.dot"
	// PackagesFile is dpkg's database after the apply: each installed
	// package's dependencies and files (detector.PackagesScript), for the
	// analysis.
	PackagesFile = "packages.tsv"
	// UnitsFile is systemd's view of the units after the apply: each
	// unit's aliases and the units it is part of (detector.UnitsScript),
	// for the analysis; only with systemd as PID 1.
	UnitsFile = "units.txt"
	// AccountsFile is the user and group names on the node before the
	// apply (detector.AccountsScript), for the analysis.
	AccountsFile = "accounts.txt"
	SiteFile     = "site.pp"
	// SetupLogFile is the output of the setup steps.
	SetupLogFile = "setup.log"
	// ConfirmDir holds the applies of fsmove confirm, one directory each.
	ConfirmDir = "confirm"
	// FixDir holds fsmove fix --verify's work: the edited copy of the
	// module (module/) and its run (run/).
	FixDir = "fix"
	// ManifestsFile holds the module's manifests as the run applied them
	// and where Puppet's parser found their declarations (fix.Located):
	// written when the run has a finding to edit, read by the reports'
	// edits and by fsmove fix.
	ManifestsFile = "manifests.json"
	// HTMLReportFile is the HTML report fsmove run writes beside run.json,
	// whatever --format says.
	HTMLReportFile = "report.html"
	// Artifacts of --idempotence: Puppet's report of each apply
	// (PuppetReportFile beside the first apply's trace, and in SecondDir),
	// and the second apply's trace, log, catalog and report in SecondDir under
	// their first names.
	PuppetReportFile = "last_run_report.yaml"
	SecondDir        = "second"
)

// artifactNames are the names fsmove writes in an output directory: the
// artifacts, run.json, and the temporary files of the catalog's copy
// (.catalog-*) and of manifests.json (.manifests.json-*, fix.Located's
// Write), left only by a run that was killed.
var artifactNames = []string{TraceFile, CatalogFile, PuppetLogFile, GraphsDir, PackagesFile, UnitsFile, AccountsFile, SiteFile, SetupLogFile, RunJSON, ConfirmDir,
	HTMLReportFile, PuppetReportFile, SecondDir, SourcesDir, FixDir, ManifestsFile}

// isArtifactName reports whether name, an entry of an output directory, is
// one fsmove writes.
func isArtifactName(name string) bool {
	for _, a := range artifactNames {
		if name == a {
			return true
		}
	}
	return strings.HasPrefix(name, ".catalog-") || strings.HasPrefix(name, "."+ManifestsFile+"-")
}

// FindTrace finds a run's trace.log in dir (the run's directory, or its
// SecondDir), which may have been compressed since (trace.log.zst,
// trace.log.gz: testdata/runs).
func FindTrace(dir string) (string, bool) {
	for _, name := range []string{TraceFile, TraceFile + ".zst", TraceFile + ".gz"} {
		if path := filepath.Join(dir, name); files.Exists(path) {
			return path, true
		}
	}
	return "", false
}

// Write writes the record to dir/run.json, over what reserveRecord wrote
// there: into the blocks it holds already, so that a disk that filled up
// during the run still takes the record.
func (r *RunRecord) Write(dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, RunJSON), os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Truncate(int64(len(data) + 1))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// recordReserve is the room run.json takes from the start of a run (a
// record is a few kB).
const recordReserve = 64 << 10

// reserveRecord writes, as the run starts, the record that stays if fsmove
// never gets to write the real one (it was killed): status interrupted,
// padded with blanks to recordReserve so that Write has its room.
func reserveRecord(rec RunRecord, dir string) error {
	rec.Status = StatusInterrupted
	rec.Error = "fsmove ended before the run did (it was killed, or its machine stopped): this record is the one written when the run started"
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	pad := make([]byte, max(recordReserve-len(data), 1))
	for i := range pad {
		pad[i] = ' '
	}
	pad[len(pad)-1] = '\n'
	return os.WriteFile(filepath.Join(dir, RunJSON), append(data, pad...), 0o644)
}

// ReadRecord reads dir/run.json.
func ReadRecord(dir string) (*RunRecord, error) {
	data, err := os.ReadFile(filepath.Join(dir, RunJSON))
	if err != nil {
		return nil, err
	}
	var r RunRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, RunJSON), err)
	}
	return &r, nil
}
