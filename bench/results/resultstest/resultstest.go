// Package resultstest reads back the tables package results writes
// (results.csv, results.json, findings.csv): the bench only writes them,
// and the tests read them to check what was written and what is committed.
package resultstest

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/bench/results"
)

// optionalColumns came after the first committed tables: a table without
// them reads with "" in their place.
var optionalColumns = map[string]bool{"category": true, "tracer": true, "ni": true,
	"confirmed": true, "refuted": true, "confirm_unknown": true, "confirm_s": true,
	"services": true, "services_unobserved": true, "services_lifted": true}

// ReadCSV reads a table written by results.WriteCSV. The header must have
// every column of results.Columns (in any order; extra columns are ignored).
func ReadCSV(r io.Reader) ([]results.Row, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("results CSV: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, c := range results.Columns {
		if _, ok := col[c]; !ok && !optionalColumns[c] {
			return nil, fmt.Errorf("results CSV: no column %q", c)
		}
	}
	var rows []results.Row
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("results CSV: %w", err)
		}
		p := fieldParser{rec: rec, col: col}
		row := results.Row{
			Module: p.str("module"), Version: p.str("version"), Status: p.str("status"),
			Category: p.str("category"), FirstError: p.str("first_error"), Tracer: p.str("tracer"),
			PuppetUntracedS: p.float("puppet_untraced_s"), PuppetTracedS: p.float("puppet_traced_s"),
			TraceBytes: p.int("trace_bytes"), Events: p.int("events"), Resources: p.int("resources"),
			AnalysisS: p.float("analysis_s"), PeakMemBytes: p.int("peak_mem_bytes"),
			MOR: p.int("mor"), MN: p.int("mn"), NI: p.intOr("ni", -1),
			Confirmed: p.intOr("confirmed", -1), Refuted: p.intOr("refuted", -1),
			ConfirmUnknown: p.intOr("confirm_unknown", -1), ConfirmS: p.floatOr("confirm_s", -1),
			Services: p.intOr("services", -1), ServicesUnobserved: p.intOr("services_unobserved", -1),
			ServicesLifted: p.intOr("services_lifted", -1),
		}
		if p.err != nil {
			line, _ := cr.FieldPos(0)
			return nil, fmt.Errorf("results CSV line %d: %w", line, p.err)
		}
		if !slices.Contains(results.Statuses, row.Status) {
			line, _ := cr.FieldPos(0)
			return nil, fmt.Errorf("results CSV line %d: unknown status %q", line, row.Status)
		}
		rows = append(rows, row)
	}
}

// fieldParser reads typed fields of one CSV record, keeping the first error.
type fieldParser struct {
	rec []string
	col map[string]int
	err error
}

func (p *fieldParser) str(name string) string {
	i, ok := p.col[name]
	if !ok {
		return ""
	}
	return p.rec[i]
}

func (p *fieldParser) int(name string) int64 {
	v, err := strconv.ParseInt(p.str(name), 10, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: %w", name, err)
	}
	return v
}

// intOr is int for an optional column: def when the table has no such column.
func (p *fieldParser) intOr(name string, def int64) int64 {
	if _, ok := p.col[name]; !ok {
		return def
	}
	return p.int(name)
}

// floatOr is float for an optional column.
func (p *fieldParser) floatOr(name string, def float64) float64 {
	if _, ok := p.col[name]; !ok {
		return def
	}
	return p.float(name)
}

func (p *fieldParser) float(name string) float64 {
	v, err := strconv.ParseFloat(p.str(name), 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: %w", name, err)
	}
	return v
}

// ReadJSON reads what results.WriteJSON wrote. A Row has the JSON names of
// the table, and a null leaves a field as it was: each row starts with every
// number unknown (-1), which a null or a missing field keeps.
func ReadJSON(r io.Reader) ([]results.Row, error) {
	var in struct {
		Modules []json.RawMessage `json:"modules"`
	}
	if err := json.NewDecoder(r).Decode(&in); err != nil {
		return nil, fmt.Errorf("results JSON: %w", err)
	}
	rows := []results.Row{}
	for _, m := range in.Modules {
		row := results.Row{
			PuppetUntracedS: -1, PuppetTracedS: -1, TraceBytes: -1, Events: -1, Resources: -1,
			AnalysisS: -1, PeakMemBytes: -1, MOR: -1, MN: -1, NI: -1,
			Confirmed: -1, Refuted: -1, ConfirmUnknown: -1, ConfirmS: -1,
			Services: -1, ServicesUnobserved: -1, ServicesLifted: -1,
		}
		if err := json.Unmarshal(m, &row); err != nil {
			return nil, fmt.Errorf("results JSON: %w", err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ReadFindingsCSV reads a table written by results.WriteFindingsCSV.
func ReadFindingsCSV(r io.Reader) ([]results.FindingRow, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	// A table written before confirmations lacks the last two columns,
	// one written before NI the last.
	cols := results.FindingColumns
	n := len(cols)
	if len(recs) == 0 || !(slices.Equal(recs[0], cols) || slices.Equal(recs[0], cols[:n-1]) || slices.Equal(recs[0], cols[:n-2])) {
		return nil, fmt.Errorf("findings table: header is not %s", strings.Join(cols, ","))
	}
	var out []results.FindingRow
	for i, rec := range recs[1:] {
		n, err := strconv.Atoi(rec[5])
		if err != nil {
			return nil, fmt.Errorf("findings table line %d: paths %q", i+2, rec[5])
		}
		row := results.FindingRow{Module: rec[0], Kind: rec[1], Producer: rec[2], Consumer: rec[3], Relations: rec[4],
			Paths: n, Observed: rec[6] == "true", HeldBack: rec[7] == "true", Commutes: rec[8] == "true"}
		if len(rec) > 9 {
			row.Confirmation = rec[9]
		}
		if len(rec) > 10 {
			row.Problem = rec[10]
		}
		out = append(out, row)
	}
	return out, nil
}
