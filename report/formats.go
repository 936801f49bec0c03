package report

import (
	"io"

	"github.com/fsmove/fsmove/detector"
)

// Format is one format of the report: its name (a value of fsmove's
// --format), the media type of what it writes, and its writer.
type Format struct {
	Name        string
	ContentType string
	Write       func(w io.Writer, rep *detector.Report, in Inputs) error
}

// Inputs are what some writers need besides the report: the text's
// colour, and the HTML page's inputs, made only when the page is written
// (they read the trace and the manifests again). A nil HTML is a page
// without them, which says what it lacks.
type Inputs struct {
	Color bool
	HTML  func() HTMLInputs
}

// Formats is the one table of formats: --format's values and its help,
// and the writing of the report, all read it. A new format is a row here,
// its writer and its tests.
var Formats = []Format{
	{"text", "text/plain; charset=utf-8", func(w io.Writer, rep *detector.Report, in Inputs) error {
		return Text(w, rep, in.Color)
	}},
	{"json", "application/json", func(w io.Writer, rep *detector.Report, _ Inputs) error {
		return JSON(w, rep)
	}},
	{"sarif", "application/sarif+json", func(w io.Writer, rep *detector.Report, _ Inputs) error {
		return SARIF(w, rep)
	}},
	{"junit", "application/xml", func(w io.Writer, rep *detector.Report, _ Inputs) error {
		return JUnit(w, rep)
	}},
	{"codequality", "application/json", func(w io.Writer, rep *detector.Report, _ Inputs) error {
		return CodeQuality(w, rep)
	}},
	{"html", "text/html; charset=utf-8", func(w io.Writer, rep *detector.Report, in Inputs) error {
		var hi HTMLInputs
		if in.HTML != nil {
			hi = in.HTML()
		}
		return HTML(w, rep, hi)
	}},
}

// FormatNames are the names of Formats, in the table's order.
func FormatNames() []string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = f.Name
	}
	return names
}

// FormatNamed is the format of that name, and whether there is one.
func FormatNamed(name string) (Format, bool) {
	for _, f := range Formats {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}
