package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// FindingRow is one finding of one module: a line of findings.csv, the list
// a person triages (every finding the detector reports, and those a rule
// held back, marked so).
type FindingRow struct {
	Module    string
	Kind      string // MOR, MN or NI
	Producer  string
	Consumer  string
	Relations string // the paths' relations, distinct, sorted, joined by "+"
	Paths     int
	Observed  bool
	HeldBack  bool
	Commutes  bool
	// Confirmation is the verdict of re-applying the finding (confirmed,
	// refuted, unknown; fsmove bench --confirm), "" when not confirmed.
	Confirmation string
	// Problem is an NI finding's problem (unguarded-exec, fight, …;
	// report/SCHEMA.md), "" for MOR and MN.
	Problem string
}

// FindingColumns is findings.csv's header.
var FindingColumns = []string{"module", "kind", "producer", "consumer", "relations", "paths", "observed", "held_back", "commutes", "confirmation", "problem"}

// reportFindings is the part of fsmove's JSON report (report/SCHEMA.md)
// that findings.csv lists.
type reportFindings struct {
	Findings []struct {
		Kind     string `json:"kind"`
		Producer struct {
			Ref string `json:"ref"`
		} `json:"producer"`
		Consumer struct {
			Ref string `json:"ref"`
		} `json:"consumer"`
		Paths []struct {
			Relation string `json:"relation"`
		} `json:"paths"`
		Observed bool `json:"observed"`
		HeldBack bool `json:"held_back"`
		Commutes bool `json:"commutes"`
		Waived   bool `json:"waived"`
		// Confirmation is in the report fsmove confirm wrote over it.
		Confirmation *struct {
			Verdict string `json:"verdict"`
		} `json:"confirmation"`
		NI *struct {
			Problem string `json:"problem"`
		} `json:"ni"`
	} `json:"findings"`
}

// FindingsFromRunDir lists the findings of the report in a module's run
// directory (none when it has no report: not analyzed). Waived findings are
// left out: a waiver is a verdict already.
func FindingsFromRunDir(module, dir string) ([]FindingRow, error) {
	var rep reportFindings
	if err := ReadJSONFile(dir, ReportJSON, &rep); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []FindingRow
	for _, f := range rep.Findings {
		if f.Waived {
			continue
		}
		var rels []string
		for _, p := range f.Paths {
			if !slices.Contains(rels, p.Relation) {
				rels = append(rels, p.Relation)
			}
		}
		slices.Sort(rels)
		row := FindingRow{Module: module, Kind: f.Kind, Producer: f.Producer.Ref, Consumer: f.Consumer.Ref,
			Relations: strings.Join(rels, "+"), Paths: len(f.Paths), Observed: f.Observed,
			HeldBack: f.HeldBack, Commutes: f.Commutes}
		if f.Confirmation != nil {
			row.Confirmation = f.Confirmation.Verdict
		}
		if f.NI != nil {
			row.Problem = f.NI.Problem
		}
		out = append(out, row)
	}
	return out, nil
}

// Findings lists the findings of every row's run directory (runsDir/<module>).
func Findings(runsDir string, rows []Row) ([]FindingRow, error) {
	var out []FindingRow
	for _, r := range rows {
		fs, err := FindingsFromRunDir(r.Module, filepath.Join(runsDir, r.Module))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Module, err)
		}
		out = append(out, fs...)
	}
	return out, nil
}

// WriteFindingsCSV writes findings.csv.
func WriteFindingsCSV(w io.Writer, rows []FindingRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(FindingColumns); err != nil {
		return err
	}
	for _, f := range rows {
		rec := []string{f.Module, f.Kind, f.Producer, f.Consumer, f.Relations, strconv.Itoa(f.Paths),
			strconv.FormatBool(f.Observed), strconv.FormatBool(f.HeldBack), strconv.FormatBool(f.Commutes), f.Confirmation, f.Problem}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
