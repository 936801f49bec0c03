package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/detector"
)

// coverageCase is one coverage fixture: its exit status, its faults
// ("KIND producer consumer"), and what the JSON report's coverage must
// say: each Service with a piece of its why, and the resources skipped.
type coverageCase struct {
	module   string
	code     int
	findings []string
	services map[string]string // Service → a piece of its why ("" when observed with none)
	observed map[string]bool
	skipped  []string
}

var coverageCases = []coverageCase{
	// systemd skips its start in the container: not observed, the
	// analysis is incomplete, naming the condition.
	{module: "cov_captime", code: exitIncomplete,
		findings: []string{},
		services: map[string]string{"Service[cov-captime]": "ConditionCapability=CAP_SYS_TIME not met"},
		observed: map[string]bool{"Service[cov-captime]": false}},
	// Its start failed: not observed, the analysis is incomplete.
	{module: "cov_startfails", code: exitIncomplete,
		findings: []string{},
		services: map[string]string{"Service[cov-startfails]": "cannot bind port 1"},
		observed: map[string]bool{"Service[cov-startfails]": false}},
	// Puppet failed (exit 3); the File it skipped is listed.
	{module: "cov_skipped", code: exitRun,
		findings: []string{},
		services: map[string]string{},
		skipped:  []string{"File[/etc/cov_skipped.conf]"}},
}

// TestE2ECoverage runs the coverage fixtures with the default tracer in
// systemd mode: what fsmove could not observe is never reported as clean.
func TestE2ECoverage(t *testing.T) {
	requireDocker(t)
	for _, c := range coverageCases {
		t.Run(c.module, func(t *testing.T) {
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, []string{"run", "--quiet", "--out", out, "--format", "json",
				filepath.Join("..", "..", "testdata", "modules", c.module)})
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%.3000s\nstderr:\n%s", code, c.code, stdout.String(), stderr.String())
			}
			if got := e2eFindings(t, stdout.Bytes()); strings.Join(got, "\n") != strings.Join(c.findings, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.findings, "\n"))
			}
			var rep struct {
				Coverage   *detector.Coverage `json:"coverage"`
				Incomplete []string           `json:"incomplete"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Coverage == nil {
				t.Fatalf("no coverage in the report:\n%.3000s", stdout.String())
			}
			for service, why := range c.services {
				i := slices.IndexFunc(rep.Coverage.Services, func(s detector.ServiceCoverage) bool { return s.Service == service })
				if i < 0 {
					t.Errorf("%s not in the coverage: %+v", service, rep.Coverage.Services)
					continue
				}
				s := rep.Coverage.Services[i]
				if s.Observed != c.observed[service] || !strings.Contains(s.Why, why) {
					t.Errorf("%s: observed %v, why %q; want observed %v, why with %q", service, s.Observed, s.Why, c.observed[service], why)
				}
				// A Service not observed is named, with why, among the
				// reasons the analysis is incomplete.
				named := slices.ContainsFunc(rep.Incomplete, func(r string) bool { return strings.Contains(r, service) && strings.Contains(r, why) })
				if named == s.Observed {
					t.Errorf("%s observed %v, named among the incomplete reasons %v: %q", service, s.Observed, named, rep.Incomplete)
				}
			}
			for _, ref := range c.skipped {
				if !slices.Contains(rep.Coverage.Skipped, ref) {
					t.Errorf("skipped %q, want %s among them", rep.Coverage.Skipped, ref)
				}
			}
		})
	}
}
