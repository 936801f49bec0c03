package main

import (
	"fmt"
	"io"
)

// Subcommands still being written land here first so that the tree builds.

func runRun(stdout, stderr io.Writer, args []string) int {
	fmt.Fprintln(stderr, "fsmove run: not built yet")
	return exitUsage
}

func runImage(stdout, stderr io.Writer, args []string) int {
	fmt.Fprintln(stderr, "fsmove image: not built yet")
	return exitUsage
}

func runAnalyze(stdout, stderr io.Writer, args []string) int {
	fmt.Fprintln(stderr, "fsmove analyze: not built yet")
	return exitUsage
}

func runLower(stdout, stderr io.Writer, args []string) int {
	fmt.Fprintln(stderr, "fsmove lower: not built yet")
	return exitUsage
}
