package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
)

const imageUsage = `Usage:
  fsmove image build [--tag TAG] [--rebuild] [--mirror URL] [-v] [--quiet]

Builds the Docker image fsmove runs Puppet in (Debian bookworm with Debian's
puppet-agent, Puppet's core type modules, systemd and strace), or reuses it
when the tag exists and was built from the same recipe. With a reachable
registry it is built FROM debian:bookworm; without one, from a debootstrap
rootfs imported through the Docker API (needs root and debootstrap). The
Debian mirror is the one this machine's apt sources name, or --mirror.
"fsmove run" builds it itself when it is missing.

Flags:
`

func runImage(stdout, stderr io.Writer, args []string) int {
	fs := newFlagSet("image build", imageUsage, stderr)
	tag := fs.String("tag", container.DefaultImage, "image `tag`")
	rebuild := fs.Bool("rebuild", false, "build even when the tag exists")
	verbose := fs.Bool("v", false, "show debootstrap/apt/docker build output")
	quiet := fs.Bool("quiet", false, "print only errors and the image ID")
	mirror := fs.String("mirror", "", "Debian mirror `URL` (default: the one this machine's apt sources name)")
	if len(args) == 0 || args[0] != "build" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fs.SetOutput(stdout)
			fs.Usage()
			return exitOK
		}
		if len(args) > 0 {
			fmt.Fprintf(stderr, "fsmove image: unknown subcommand %q (the only one is build)\n\n", args[0])
		}
		fs.Usage()
		return exitUsage
	}
	rest, code, ok := parseFlags(fs, args[1:], stdout)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "fsmove image build: unexpected argument %q\n", rest[0])
		return exitUsage
	}
	if err := checkMirror(*mirror); err != nil {
		fmt.Fprintf(stderr, "fsmove image build: %v\n", err)
		return exitUsage
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	eng, err := container.Connect(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "fsmove image build: %v\n", err)
		return exitRun
	}
	defer eng.Close()

	progress := runner.NewProgress(stderr, *quiet)
	step := progress.Start("image", "checking "+*tag)
	opts := container.ImageOptions{Tag: *tag, Rebuild: *rebuild, Mirror: *mirror, Status: step.Update}
	if *verbose {
		opts.Log = stderr
	}
	info, err := eng.EnsureImage(ctx, opts)
	if err != nil {
		step.Fail(firstLineOf(err.Error()))
		fmt.Fprintf(stderr, "fsmove image build: %v\n", err)
		return exitRun
	}
	step.Done(fmt.Sprintf("%s (%s, %d MB)", info.Tag, info.Method, info.Size>>20))
	fmt.Fprintf(stdout, "%s %s %s\n", info.Tag, info.ID, info.Method)
	return exitOK
}

func firstLineOf(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
