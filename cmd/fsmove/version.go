package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func newVersionCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print fsmove's version",
		Long:  "Usage:\n  fsmove version\n\nPrint fsmove's version, its commit, platform and Go version.\n",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return runVersion(c.stdout) },
	}
}

func runVersion(stdout io.Writer) error {
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " (" + s.Value[:12] + ")"
			}
		}
	}
	_, err := fmt.Fprintf(stdout, "fsmove %s%s %s/%s %s\n", version, rev, runtime.GOOS, runtime.GOARCH, runtime.Version())
	return err
}
