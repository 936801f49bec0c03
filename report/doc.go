// Package report writes the detector's outcome in the formats fsmove
// offers: text for a person (Text, and Stats for --stats), JSON (JSON,
// its schema in SCHEMA.md), SARIF 2.1.0 for code scanning (SARIF), JUnit
// XML (JUnit) and GitLab Code Quality (CodeQuality) for CI, and one
// self-contained HTML page (HTML, with the inputs the page quotes:
// HTMLInputs).
//
// Formats is the one table of them: each row a format's name (a value of
// fsmove's --format), its media type and its writer, which the command's
// flag, help and output all read. Adding a format is a row there and a
// writer, with its tests; nothing in cmd/fsmove changes.
//
// It is apart from package detector because every format is fed by one
// model, detector.Report, and decides nothing about faults: the analysis
// does not grow with its presentation, and each format reads the model as
// the others do (a finding has one number in all of them: Numbers).
// report imports detector, never the reverse.
package report
