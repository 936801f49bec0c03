// Package report writes the detector's outcome in the formats fsmove
// offers: text for a person (Text, and Stats for --stats), JSON (JSON,
// its schema in SCHEMA.md), SARIF 2.1.0 for code scanning (SARIF), JUnit
// XML (JUnit) and GitLab Code Quality (CodeQuality) for CI, and one
// self-contained HTML page (HTML, with the inputs the page quotes:
// HTMLInputs).
//
// It is apart from package detector because every format is fed by one
// model, detector.Report, and decides nothing about faults: the analysis
// does not grow with its presentation, and a format reads the model as
// every other does (a finding has one number in all of them: Numbers).
// report imports detector, never the reverse.
package report
