package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/runner"
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
	// lifted: Service → a piece of what the coverage says of the lifted
	// condition it started despite; expectedFailures: run.json's.
	lifted           map[string]string
	expectedFailures []string
}

var coverageCases = []coverageCase{
	// systemd would skip its start in the container: fsmove lifts the
	// capability condition, the daemon reads its configuration, the MN
	// is found.
	{module: "cov_captime", code: exitFindings,
		findings: []string{"MN File[/etc/cov_captime.conf] Service[cov-captime]"},
		services: map[string]string{"Service[cov-captime]": ""},
		observed: map[string]bool{"Service[cov-captime]": true},
		lifted:   map[string]string{"Service[cov-captime]": "started despite ConditionCapability=CAP_SYS_TIME"}},
	// Its near miss: a device path is not lifted; systemd skips the start,
	// not observed, the analysis is incomplete, naming the condition.
	{module: "cov_devpath", code: exitIncomplete,
		findings: []string{},
		services: map[string]string{"Service[cov-devpath]": "ConditionPathExists=/dev/fsmove-absent not met"},
		observed: map[string]bool{"Service[cov-devpath]": false}},
	// Started despite a lifted condition, it reads its configuration and
	// fails, as chronyd does: Puppet's failure of the Service is
	// expected, the apply counts, the MN is found.
	{module: "cov_liftfails", code: exitFindings,
		findings:         []string{"MN File[/etc/cov_liftfails.conf] Service[cov-liftfails]"},
		services:         map[string]string{"Service[cov-liftfails]": ""},
		observed:         map[string]bool{"Service[cov-liftfails]": true},
		lifted:           map[string]string{"Service[cov-liftfails]": "ConditionVirtualization=!container, not met in a container: its later failure is expected"},
		expectedFailures: []string{"Service[cov-liftfails]"}},
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
	t.Parallel()
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
			for service, note := range c.lifted {
				i := slices.IndexFunc(rep.Coverage.Services, func(s detector.ServiceCoverage) bool { return s.Service == service })
				if i < 0 || !strings.Contains(rep.Coverage.Services[i].Lifted, note) {
					t.Errorf("%s: coverage %+v, want it said started with %q", service, rep.Coverage.Services, note)
				}
			}
			for _, s := range rep.Coverage.Services {
				if _, ok := c.lifted[s.Service]; !ok && s.Lifted != "" {
					t.Errorf("%s said lifted (%q), want not", s.Service, s.Lifted)
				}
			}
			var rec runner.RunRecord
			if data, err := os.ReadFile(filepath.Join(out, runner.RunJSON)); err != nil {
				t.Error(err)
			} else if err := json.Unmarshal(data, &rec); err != nil {
				t.Error(err)
			} else if !slices.Equal(rec.ExpectedFailures, c.expectedFailures) {
				t.Errorf("run.json: expected_failures %q, want %q", rec.ExpectedFailures, c.expectedFailures)
			}
			for _, ref := range c.skipped {
				if !slices.Contains(rep.Coverage.Skipped, ref) {
					t.Errorf("skipped %q, want %s among them", rep.Coverage.Skipped, ref)
				}
			}
		})
	}
}
