package main

import (
	"fmt"
	"io"
)

func runImage(stdout, stderr io.Writer, args []string) int {
	fmt.Fprintln(stderr, "fsmove image: not built yet")
	return exitUsage
}
