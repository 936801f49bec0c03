package main

import (
	"fmt"
	"io"
)

func runRun(stdout, stderr io.Writer, args []string) int {
	fmt.Fprintln(stderr, "fsmove run: not built yet")
	return exitUsage
}
