package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/internal/words"
)

// JUnit XML as CI systems read it (GitLab's test reports, Jenkins, GitHub
// actions that publish test results): one testsuite, and in it one
// testcase per reported finding, each failing with the finding's message
// and the file:line its fix goes on; a single passing testcase when the
// run succeeded and the analysis is complete and clean; a testcase in error
// when the run failed, and one when the analysis is incomplete (the report
// then does not show every fault).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// junitProblem is a failure or an error: a one-line message, its type,
// and the details as text.
type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit writes the report as JUnit XML (see junitSuites). Waived and
// held-back findings are left out, as in the text report; manifest files
// are relative to BasePath.
func JUnit(w io.Writer, r *detector.Report) error {
	if err := check(r); err != nil {
		return err
	}
	name := "fsmove"
	if r.Module != "" {
		name += " " + r.Module
	}
	suite := junitSuite{Name: name, Properties: []junitProperty{{"fsmove.version", r.ToolVersion}}}
	for i := range r.Findings {
		f := &r.Findings[i]
		if !f.Reported() {
			continue
		}
		at, _ := f.FixSite()
		file, _ := relFile(r, at.File)
		pos := file
		if at.Line > 0 {
			pos = fmt.Sprintf("%s:%d", file, at.Line)
		}
		text := relText(r, sarifText(f, r.TraceNames))
		if pos != "" {
			text = pos + ": " + text
		}
		suite.Cases = append(suite.Cases, junitCase{
			ClassName: "fsmove." + f.Kind.String(),
			Name:      pairText(f),
			File:      file,
			Line:      at.Line,
			Failure: &junitProblem{
				Message: relText(r, headline(f)+" Fix: "+f.Fix),
				Type:    f.Kind.String() + " (" + f.Confidence.String() + ")",
				Text:    text,
			},
		})
	}
	c := r.Checked()
	checked := fmt.Sprintf("%s, %s, %s, %s checked", words.Count(c.Resources, "resource"),
		words.Count(c.Blocks, "block"), words.Count(c.Paths, "path"), words.Count(c.RelatedPairs, "related resource pair"))
	if f := r.RunFailure; f != nil {
		suite.Cases = append(suite.Cases, junitCase{
			ClassName: "fsmove.run",
			Name:      "the run succeeds",
			Error: &junitProblem{
				Message: "the run failed: " + runFailureText(f),
				Type:    f.Status,
				Text:    f.Error,
			},
		})
	}
	if len(r.Incomplete) > 0 {
		suite.Cases = append(suite.Cases, junitCase{
			ClassName: "fsmove.analysis",
			Name:      "the analysis covers the whole run",
			Error: &junitProblem{
				Message: "incomplete analysis: " + r.Incomplete[0],
				Type:    "incomplete",
				Text:    strings.Join(r.Incomplete, "\n"),
			},
		})
	} else if len(suite.Cases) == 0 {
		suite.Cases = append(suite.Cases, junitCase{
			ClassName: "fsmove.analysis",
			Name:      "no missing ordering relationships or notifiers",
			SystemOut: checked,
		})
	}
	for _, tc := range suite.Cases {
		suite.Tests++
		if tc.Failure != nil {
			suite.Failures++
		}
		if tc.Error != nil {
			suite.Errors++
		}
	}
	doc := junitSuites{Name: "fsmove", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
