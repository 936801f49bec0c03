package main

import (
	"flag"
	"fmt"
	"io"
)

// Subcommands still being written land here first so that the tree builds.

func runAnalyze(stdout, stderr io.Writer, args []string) int {
	fmt.Fprintln(stderr, "fsmove analyze: not built yet")
	return exitUsage
}

func runLower(stdout, stderr io.Writer, args []string) int {
	fmt.Fprintln(stderr, "fsmove lower: not built yet")
	return exitUsage
}

// reportFlags are the analysis and report flags shared by analyze and run.
type reportFlags struct {
	format string
}

// addReportFlags registers the shared analysis/report flags on fs.
func addReportFlags(fs *flag.FlagSet) *reportFlags {
	rf := &reportFlags{}
	fs.StringVar(&rf.format, "format", "text", "report format: text, json or sarif")
	return rf
}

// analyzeArtifacts analyzes a saved trace against a saved catalog and writes
// the report; it returns the exit status (0 no findings, 1 findings, 2 input
// error). fsmove run calls it on the artifacts of its run.
func analyzeArtifacts(stdout, stderr io.Writer, tracePath, catalogPath string, rf *reportFlags) int {
	fmt.Fprintln(stderr, "fsmove: analysis not built yet")
	return exitUsage
}
