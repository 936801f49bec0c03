package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time by the Makefile:
// -ldflags "-X main.version=$(git describe --tags --always --dirty)".
// Empty (go build, go install), buildVersion reads it from the build
// information Go stamps into the binary instead.
var version = ""

// buildInfo is what fsmove knows of its own build.
type buildInfo struct {
	version  string // a tag, a module version or a commit; "unknown" when Go stamped none
	revision string // the commit, shortened ("" unknown)
	modified bool   // built from a checkout with uncommitted changes
}

// readBuildInfo is the version from -ldflags when the Makefile set it, else
// Go's build information: the module version (go install …@v1.2.3, or
// the pseudo-version Go derives from a git checkout), else the commit.
func readBuildInfo() buildInfo {
	bi, _ := debug.ReadBuildInfo()
	return describeBuild(version, bi)
}

// describeBuild is readBuildInfo's work: ldflags is main.version, bi Go's
// build information (nil when the binary has none).
func describeBuild(ldflags string, bi *debug.BuildInfo) buildInfo {
	var b buildInfo
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.revision = s.Value
				if len(b.revision) > 12 {
					b.revision = b.revision[:12]
				}
			case "vcs.modified":
				b.modified = s.Value == "true"
			}
		}
	}
	switch {
	case ldflags != "":
		b.version = ldflags
	case bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		b.version = bi.Main.Version
	case b.revision != "":
		b.version = b.revision
		if b.modified {
			b.version += "-dirty"
		}
	default:
		b.version = "unknown" // go run, or a build without VCS stamping
	}
	return b
}

// buildVersion is fsmove's version as run.json records it.
func buildVersion() string { return readBuildInfo().version }

func newVersionCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "print fsmove's version",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return runVersion(c.stdout, true) },
	}
	setHelp(cmd, help{
		synopsis: "fsmove version",
		description: `
Print fsmove's version (the git tag or commit it was built from), its commit,
the Go version and the platform. "fsmove --version" prints the first line only.`,
		examples: []example{{"fsmove version", "what a bug report needs"}},
		groups:   []flagGroup{{"Flags", nil}},
	})
	return cmd
}

// runVersion prints fsmove's version; long adds the commit, Go's version
// and the platform (what a bug report needs).
func runVersion(stdout io.Writer, long bool) error {
	b := readBuildInfo()
	if _, err := fmt.Fprintf(stdout, "fsmove %s\n", b.version); err != nil || !long {
		return err
	}
	commit := b.revision
	switch {
	case commit == "":
		commit = "unknown"
	case b.modified:
		commit += " (modified)"
	}
	_, err := fmt.Fprintf(stdout, "commit:   %s\ngo:       %s\nplatform: %s/%s\n", commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
