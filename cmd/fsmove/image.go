package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fsmove/fsmove/internal/lines"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/spf13/cobra"
)

var imageHelp = help{
	synopsis: `fsmove image build [--suite SUITE] [--tag TAG] [--rebuild] [--mirror URL] [-v] [--quiet]`,
	description: `
Build the Docker image fsmove runs Puppet in (Debian with Debian's
puppet-agent, Puppet's core type modules, the Debian module packages as .debs,
systemd and strace), or reuse it when the tag exists and was built from the
same recipe. --suite is the Debian release: bookworm (Debian 12, Puppet 7; the
default) or trixie (Debian 13, Puppet 8); the tag is fsmove/puppet:SUITE unless
--tag. With a reachable registry it is built FROM debian:SUITE; without one,
from a debootstrap rootfs (needs root and debootstrap). The Debian mirror is
the one this machine's apt sources name, or --mirror. "fsmove run" builds it
when missing.`,
	examples: []example{
		{"fsmove image build", "build the default image, or reuse it"},
		{"fsmove image build --suite trixie", "the Debian 13 image, with Puppet 8"},
		{"fsmove image build --rebuild -v", "build it again, showing apt's output"},
		{"fsmove image build --bench-pod", "the image of fsmove bench k8s's pods"},
	},
}

// imageFlags are fsmove image build's flags.
type imageFlags struct {
	tag     string
	suite   string
	rebuild bool
	verbose bool
	quiet   bool
	mirror  string
	// benchPod: build the image of fsmove bench k8s's pods instead.
	benchPod bool
}

func newImageCmd(c *cli) *cobra.Command {
	image := &cobra.Command{
		Use:   "image",
		Short: "build the Docker image fsmove runs Puppet in",
		Args:  cobra.ArbitraryArgs, // an unknown subcommand is said by RunE
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				commandHelp(c.stderr, cmd)
				return usageError{errSaid}
			}
			return unknownCommand(cmd, args[0])
		},
	}
	var f imageFlags
	build := &cobra.Command{
		Use:   "build",
		Short: "build the image, or reuse it when it is up to date",
		Args:  noArgs,
	}
	fs := build.Flags()
	enumVar(fs, &f.suite, "suite", container.DefaultSuite, container.SuiteNames(), "Debian `release` of the image: "+strings.Join(container.SuiteNames(), ", "))
	fs.StringVar(&f.tag, "tag", "", "image `tag` (default fsmove/puppet:SUITE)")
	fs.BoolVar(&f.rebuild, "rebuild", false, "build even when the tag exists")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "show debootstrap/apt/docker build output")
	fs.BoolVar(&f.quiet, "quiet", false, "print only errors and the image ID")
	fs.StringVar(&f.mirror, "mirror", "", "Debian mirror `URL` (default: the one this machine's apt sources name)")
	fs.BoolVar(&f.benchPod, "bench-pod", false, "build the image of fsmove bench k8s's pods (tag default fsmove/bench-pod:SUITE): the suite's image with Docker Engine, this fsmove and the suite's image saved inside")
	buildHelp := imageHelp
	buildHelp.groups = []flagGroup{{"Flags", []string{"suite", "tag", "rebuild", "mirror", "bench-pod", "verbose", "quiet"}}}
	setHelp(build, buildHelp)
	build.RunE = func(cmd *cobra.Command, args []string) error {
		return runImageBuild(cmd.Context(), c.stdout, c.stderr, &f)
	}
	image.AddCommand(build)
	imageHelp.groups = []flagGroup{{"Flags", nil}} // only --help
	setHelp(image, imageHelp)
	return image
}

func runImageBuild(ctx context.Context, stdout, stderr io.Writer, f *imageFlags) error {
	if err := checkMirror(f.mirror); err != nil {
		return usageError{err}
	}
	if _, err := container.LookupSuite(f.suite); err != nil {
		return usagef("--suite: %w", err)
	}
	tag := f.tag
	if tag == "" || f.benchPod {
		tag = container.SuiteImage(f.suite)
	}
	eng, err := container.Connect(ctx)
	if err != nil {
		return runError{err}
	}
	defer eng.Close()

	progress := runner.NewProgress(stderr, f.quiet)
	step := progress.Start("image", "checking "+tag)
	opts := container.ImageOptions{Tag: tag, Suite: f.suite, Rebuild: f.rebuild, Mirror: f.mirror, Status: step.Update}
	if f.verbose {
		opts.Log = stderr
	}
	var info container.ImageInfo
	if f.benchPod {
		self, serr := os.Executable()
		if serr != nil {
			return runError{serr}
		}
		info, err = eng.BuildBenchPodImage(ctx, container.BenchPodOptions{Image: opts, Tag: f.tag, Fsmove: self, Log: opts.Log})
	} else {
		info, err = eng.EnsureImage(ctx, opts)
	}
	if err != nil {
		step.Fail(lines.First(err.Error()))
		return runError{err}
	}
	step.Done(fmt.Sprintf("%s (%s, %d MB)", info.Tag, info.Method, info.Size>>20))
	_, err = fmt.Fprintf(stdout, "%s %s %s\n", info.Tag, info.ID, info.Method)
	return err
}
