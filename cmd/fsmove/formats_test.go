package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/runner"
)

// analyzeRun runs fsmove analyze on a saved run of testdata/runs with the
// given flags, and returns the exit status and standard output.
func analyzeRun(t *testing.T, dir string, flags ...string) (int, []byte) {
	t.Helper()
	d := filepath.Join("..", "..", "testdata", "runs", dir)
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, append(append([]string{"analyze"}, flags...), filepath.Join(d, "trace.log.zst"), filepath.Join(d, "catalog.json")))
	return code, stdout.Bytes()
}

// jsonFindings reads the findings of a JSON report with the position each
// one's fix goes on (the consumer for MOR, the producer for MN).
func jsonFindings(t *testing.T, data []byte) (out []struct {
	kind, producer, consumer, file string
	line                           int
}) {
	t.Helper()
	type resource struct {
		Ref, File string
		Line      int
	}
	var rep struct {
		Findings []struct {
			Kind               string
			HeldBack           bool `json:"held_back"`
			Waived             bool
			Producer, Consumer resource
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.HeldBack || f.Waived {
			continue
		}
		at := f.Consumer
		if f.Kind == "MN" {
			at = f.Producer
		}
		out = append(out, struct {
			kind, producer, consumer, file string
			line                           int
		}{f.Kind, f.Producer.Ref, f.Consumer.Ref, at.File, at.Line})
	}
	return out
}

// TestJUnitOnRealRuns: one failing testcase per finding of a real run,
// named by its resources, at the file:line of its fix, with the fix in the
// message; a single passing testcase for a clean run.
func TestJUnitOnRealRuns(t *testing.T) {
	type junitCase struct {
		ClassName string `xml:"classname,attr"`
		Name      string `xml:"name,attr"`
		File      string `xml:"file,attr"`
		Line      int    `xml:"line,attr"`
		Failure   *struct {
			Message string `xml:"message,attr"`
			Text    string `xml:",chardata"`
		} `xml:"failure"`
		Error *struct{} `xml:"error"`
	}
	type junit struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Tests    int         `xml:"tests,attr"`
			Failures int         `xml:"failures,attr"`
			Cases    []junitCase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	for _, dir := range []string{"mor_exec_reads_file", "mn_config_service", "clean"} {
		t.Run(dir, func(t *testing.T) {
			code, data := analyzeRun(t, dir, "--format", "junit")
			_, js := analyzeRun(t, dir, "--format", "json")
			want := jsonFindings(t, js)
			if wantCode := map[bool]int{true: exitOK, false: exitFindings}[len(want) == 0]; code != wantCode {
				t.Fatalf("exit %d, want %d", code, wantCode)
			}
			var doc junit
			if err := xml.Unmarshal(data, &doc); err != nil {
				t.Fatalf("not XML: %v\n%s", err, data)
			}
			if len(doc.Suites) != 1 {
				t.Fatalf("%d suites", len(doc.Suites))
			}
			s := doc.Suites[0]
			if len(want) == 0 {
				if len(s.Cases) != 1 || s.Cases[0].Failure != nil || s.Cases[0].Error != nil || doc.Failures != 0 || doc.Tests != 1 {
					t.Fatalf("a clean run is not one passing testcase:\n%s", data)
				}
				return
			}
			if len(s.Cases) != len(want) || s.Failures != len(want) || doc.Failures != len(want) || doc.Tests != len(want) {
				t.Fatalf("%d testcases, %d failures, want %d findings:\n%s", len(s.Cases), s.Failures, len(want), data)
			}
			for i, f := range want {
				c := s.Cases[i]
				arrow := map[string]string{"MOR": " -> ", "MN": " ~> "}[f.kind]
				if c.ClassName != "fsmove."+f.kind || c.Name != f.producer+arrow+f.consumer {
					t.Errorf("testcase %q %q, want %s %s", c.ClassName, c.Name, f.kind, f.producer+arrow+f.consumer)
				}
				if c.File != f.file || c.Line != f.line || f.line == 0 {
					t.Errorf("testcase at %s:%d, want %s:%d", c.File, c.Line, f.file, f.line)
				}
				if c.Failure == nil || !strings.Contains(c.Failure.Message, "Fix: ") ||
					!strings.HasPrefix(c.Failure.Text, fmt.Sprintf("%s:%d: ", f.file, f.line)) {
					t.Errorf("failure without the fix or the file:line: %+v", c.Failure)
				}
			}
		})
	}
}

// TestCodeQualityOnRealRuns: one issue per finding, at the line of its
// fix, with a fingerprint that is the same in two runs and differs
// between findings; an empty array for a clean run.
func TestCodeQualityOnRealRuns(t *testing.T) {
	type issue struct {
		Description string `json:"description"`
		CheckName   string `json:"check_name"`
		Fingerprint string `json:"fingerprint"`
		Severity    string `json:"severity"`
		Location    struct {
			Path  string `json:"path"`
			Lines struct {
				Begin int `json:"begin"`
			} `json:"lines"`
		} `json:"location"`
	}
	fingerprints := map[string]string{}
	for _, dir := range []string{"mor_exec_reads_file", "mn_config_service", "mor_generate_use", "clean"} {
		_, data := analyzeRun(t, dir, "--format", "codequality")
		_, again := analyzeRun(t, dir, "--format", "codequality")
		_, js := analyzeRun(t, dir, "--format", "json")
		want := jsonFindings(t, js)
		var issues, issues2 []issue
		if err := json.Unmarshal(data, &issues); err != nil {
			t.Fatalf("%s: not a JSON array: %v\n%s", dir, err, data)
		}
		if err := json.Unmarshal(again, &issues2); err != nil {
			t.Fatal(err)
		}
		if len(issues) != len(want) || len(issues2) != len(want) {
			t.Fatalf("%s: %d issues, want %d findings:\n%s", dir, len(issues), len(want), data)
		}
		for i, f := range want {
			is := issues[i]
			if is.Fingerprint == "" || is.Fingerprint != issues2[i].Fingerprint {
				t.Errorf("%s: fingerprint %q, then %q", dir, is.Fingerprint, issues2[i].Fingerprint)
			}
			if other, seen := fingerprints[is.Fingerprint]; seen {
				t.Errorf("%s: fingerprint of %s %s also %s's", dir, f.producer, f.consumer, other)
			}
			fingerprints[is.Fingerprint] = f.producer + " " + f.consumer
			if is.Location.Path != f.file || is.Location.Lines.Begin != f.line {
				t.Errorf("%s: at %s:%d, want %s:%d", dir, is.Location.Path, is.Location.Lines.Begin, f.file, f.line)
			}
			if !strings.Contains(is.CheckName, map[string]string{"MOR": "MissingOrderingRelationship", "MN": "MissingNotifier"}[f.kind]) ||
				!strings.Contains(is.Description, f.producer) || !strings.Contains(is.Description, "Fix: ") {
				t.Errorf("%s: check %q, description %q", dir, is.CheckName, is.Description)
			}
			switch is.Severity {
			case "info", "minor", "major", "critical", "blocker":
			default:
				t.Errorf("%s: severity %q is not CodeClimate's", dir, is.Severity)
			}
		}
	}
}

// TestBasePathDefault: the base path is --base-path, else the top of the
// git work tree holding the module (site/profile in a control repository),
// else the current directory.
func TestBasePathDefault(t *testing.T) {
	top := t.TempDir()
	module := filepath.Join(top, "site", "profile")
	if err := os.MkdirAll(module, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := runner.ModuleSpec{Kind: runner.SourceDir, Dir: module, Name: "profile"}
	cwd, _ := os.Getwd()
	if got, _ := basePath("", spec); got != cwd {
		t.Errorf("without .git: base %s, want the current directory", got)
	}
	if err := os.Mkdir(filepath.Join(top, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, _ := basePath("", spec); got != top {
		t.Errorf("base %s, want the work tree's top %s", got, top)
	}
	if got, _ := basePath(module, spec); got != module {
		t.Errorf("--base-path %s gave %s", module, got)
	}
	if got, _ := basePath("", runner.ModuleSpec{}); got != cwd {
		t.Errorf("no module: base %s, want %s", got, cwd)
	}
	code, _ := analyzeRun(t, "clean", "--base-path", filepath.Join(top, "nowhere"))
	if code != exitUsage {
		t.Errorf("--base-path to no directory: exit %d, want %d", code, exitUsage)
	}
}

// checkFailedRunFormats runs fsmove analyze on dir, the directory of a run
// whose run.json says it failed (status, and why in its error), in each
// machine format, and checks that each says so: JSON complete false with
// the run's status and error, SARIF executionSuccessful false with the
// reason in a notification of level error, a JUnit testcase in error, a
// Code Quality issue. The exit status stays the analysis's own (exit).
func checkFailedRunFormats(t *testing.T, dir string, exit int, status, why string) {
	t.Helper()
	analyze := func(format string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(&stdout, &stderr, []string{"analyze", "--format", format, dir}); code != exit {
			t.Errorf("fsmove analyze --format %s: exit %d, want %d\n%s", format, code, exit, stderr.String())
		}
		return stdout.Bytes()
	}

	var js struct {
		Complete   bool `json:"complete"`
		RunFailure *struct {
			Status string `json:"status"`
			Error  string `json:"error"`
		} `json:"run_failure"`
	}
	if data := analyze("json"); json.Unmarshal(data, &js) != nil || js.Complete || js.RunFailure == nil ||
		js.RunFailure.Status != status || !strings.Contains(js.RunFailure.Error, why) {
		t.Errorf("JSON: complete %v, run_failure %+v, want false and status %s with %q", js.Complete, js.RunFailure, status, why)
	}

	var sarif struct {
		Runs []struct {
			Invocations []struct {
				ExecutionSuccessful        bool `json:"executionSuccessful"`
				ToolExecutionNotifications []struct {
					Level   string `json:"level"`
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(analyze("sarif"), &sarif); err != nil || len(sarif.Runs) != 1 || len(sarif.Runs[0].Invocations) != 1 {
		t.Fatalf("SARIF: %v %+v", err, sarif)
	}
	inv := sarif.Runs[0].Invocations[0]
	said := false
	for _, n := range inv.ToolExecutionNotifications {
		said = said || n.Level == "error" && strings.Contains(n.Message.Text, why)
	}
	if inv.ExecutionSuccessful || !said {
		t.Errorf("SARIF: executionSuccessful %v, notifications %+v; want false, and an error saying %q", inv.ExecutionSuccessful, inv.ToolExecutionNotifications, why)
	}

	var junit struct {
		Errors int `xml:"errors,attr"`
		Suites []struct {
			Errors int `xml:"errors,attr"`
			Cases  []struct {
				ClassName string `xml:"classname,attr"`
				Error     *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(analyze("junit"), &junit); err != nil || len(junit.Suites) != 1 {
		t.Fatalf("JUnit: %v", err)
	}
	// The run's failure is one error; an analysis that Puppet's failed
	// resources leave incomplete is another (fsmove.analysis), and no
	// other testcase errs.
	errored, others := false, 0
	for _, c := range junit.Suites[0].Cases {
		errored = errored || c.ClassName == "fsmove.run" && c.Error != nil && c.Error.Type == status && strings.Contains(c.Error.Message, why)
		if c.Error != nil && c.ClassName != "fsmove.run" && c.ClassName != "fsmove.analysis" {
			others++
		}
	}
	if junit.Errors < 1 || junit.Errors > 2 || junit.Suites[0].Errors != junit.Errors || !errored || others > 0 {
		t.Errorf("JUnit: errors=%d, want a testcase fsmove.run in error (%s) saying %q, and at most fsmove.analysis besides: %+v", junit.Errors, status, why, junit.Suites[0].Cases)
	}

	var issues []struct {
		CheckName   string `json:"check_name"`
		Description string `json:"description"`
		Severity    string `json:"severity"`
	}
	if err := json.Unmarshal(analyze("codequality"), &issues); err != nil {
		t.Fatal(err)
	}
	said = false
	for _, is := range issues {
		said = said || is.CheckName == "fsmove RunFailed" && is.Severity == "blocker" && strings.Contains(is.Description, why)
	}
	if !said {
		t.Errorf("Code Quality: no blocker issue saying %q: %+v", why, issues)
	}
}

// TestAnalyzeFailedRunDir: fsmove analyze of a run directory whose
// run.json says Puppet failed says so in every machine format, and exits
// as the analysis says (1: findings), as before; a run whose status is ok
// is complete.
func TestAnalyzeFailedRunDir(t *testing.T) {
	trace, _ := savedRunWithModule(t, "", "")
	dir := filepath.Dir(trace)
	rec, err := runner.ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec.Status, rec.Error = runner.StatusPuppetFailed, "Puppet exited with 6 (changes and failures)"
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	checkFailedRunFormats(t, dir, exitFindings, runner.StatusPuppetFailed, "Puppet exited with 6")

	rec.Status, rec.Error = runner.StatusOK, ""
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"analyze", "--format", "json", dir}); code != exitFindings {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	var js map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &js); err != nil || js["complete"] != true || js["run_failure"] != nil {
		t.Errorf("a run with status ok: complete %v, run_failure %v", js["complete"], js["run_failure"])
	}
}
