package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/ebpf"
	"github.com/fsmove/fsmove/tracer/strace"
	"github.com/spf13/cobra"
)

var ebpfHelp = help{
	synopsis: `fsmove ebpf [flags] -- COMMAND [ARG...]
fsmove ebpf [flags] --container ID
fsmove ebpf [flags] --cgroup PATH`,
	description: `
Trace with eBPF (a debugging aid for the eBPF tracer): a command, run in a
cgroup of its own, or a running Docker container or cgroup v2 directory until
Ctrl-C. The system calls the analysis needs are printed in strace's text form,
which "fsmove analyze" and "fsmove lower" read. Needs root.`,
	examples: []example{
		{"fsmove ebpf -o trace.log -- ls /etc", "trace a command"},
		{"fsmove ebpf --container $(docker ps -q --no-trunc | head -1)", "a running container"},
	},
	groups: []flagGroup{
		{"Flags", []string{"output", "container", "cgroup", "failed", "allow-drops"}},
	},
	exit: `Exit status: 0; 2 for a usage error; 3 when the tracer failed or lost events
(unless --allow-drops).
`,
}

// ebpfFlags are fsmove ebpf's flags.
type ebpfFlags struct {
	out         string
	containerID string
	cgroupPath  string
	failed      bool
	allowDrops  bool
}

func newEBPFCmd(c *cli) *cobra.Command {
	var ef ebpfFlags
	cmd := &cobra.Command{
		Use:   "ebpf",
		Short: "trace a command or a container with eBPF, printing strace's text form (debugging)",
	}
	fs := cmd.Flags()
	fs.StringVarP(&ef.out, "output", "o", "", "write the trace to `FILE` instead of standard output")
	fs.StringVar(&ef.containerID, "container", "", "trace this running Docker container (full id)")
	fs.StringVar(&ef.cgroupPath, "cgroup", "", "trace this cgroup v2 directory and the cgroups below it")
	fs.BoolVar(&ef.failed, "failed", false, failedFlagHelp)
	fs.BoolVar(&ef.allowDrops, "allow-drops", false, "exit 0 even when events were lost (the trace is then incomplete)")
	setHelp(cmd, ebpfHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runEBPF(cmd.Context(), c.stdout, c.stderr, args, &ef)
	}
	return cmd
}

func runEBPF(ctx context.Context, stdout, stderr io.Writer, args []string, ef *ebpfFlags) (err error) {
	targets := 0
	for _, set := range []bool{len(args) > 0, ef.containerID != "", ef.cgroupPath != ""} {
		if set {
			targets++
		}
	}
	if targets != 1 {
		return usagef("give one of -- COMMAND, --container or --cgroup; see fsmove ebpf --help")
	}

	cgroupPath := ef.cgroupPath
	var cg *ebpf.TempCgroup
	var pidNS ebpf.PidNS
	switch {
	case ef.containerID != "":
		p, err := ebpf.DockerCgroup(ef.containerID)
		if err != nil {
			return usageError{err}
		}
		cgroupPath = p
		// Pids as the container sees them, as its clone calls return them.
		if pidNS, err = containerPidNS(ctx, ef.containerID); err != nil {
			return runError{err}
		}
	case len(args) > 0:
		var err error
		cg, err = ebpf.NewTempCgroup("fsmove-ebpf")
		if err != nil {
			return runError{err}
		}
		defer cg.Close()
		cgroupPath = cg.Path
	}

	out := stdout
	if ef.out != "" {
		f, createErr := os.Create(ef.out)
		if createErr != nil {
			return usageError{createErr}
		}
		defer closeFile(f, "writing the trace", &err) // err: the function's result
		out = f
	}

	tr, err := ebpf.Start(ebpf.Options{CgroupPath: cgroupPath, PidNS: pidNS, Failed: failedCalls(ef.failed)})
	if err != nil {
		return runError{err}
	}
	defer tr.Close()

	// Events are written as they come, by this goroutine.
	type saveResult struct {
		events int64
		err    error
	}
	saved := make(chan saveResult, 1)
	go func() {
		n, err := tracer.Drain(tr, strace.NewWriter(out))
		saved <- saveResult{n, err}
	}()

	var cmdErr error // the command could not be run
	if cg != nil {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stderr, os.Stderr
		cg.Place(cmd)
		if err := cmd.Run(); err != nil {
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) {
				cmdErr = err
			} else {
				fmt.Fprintln(stderr, "fsmove ebpf: the command exited with", exitErr.ExitCode())
			}
		}
	} else {
		fmt.Fprintf(stderr, "fsmove ebpf: tracing %s until Ctrl-C\n", cgroupPath)
		<-ctx.Done()
	}
	stopErr := tr.Stop()
	res := <-saved
	var dropped *ebpf.ErrDropped
	switch {
	case errors.As(res.err, &dropped) || errors.As(stopErr, &dropped):
		fmt.Fprintf(stderr, "fsmove ebpf: %d events written; %v\n", res.events, dropped)
		if !ef.allowDrops {
			return runError{errSaid}
		}
	case res.err != nil || stopErr != nil:
		return runError{errors.Join(res.err, stopErr)}
	default:
		fmt.Fprintf(stderr, "fsmove ebpf: %d events written, none lost\n", res.events)
	}
	if cmdErr != nil {
		return runError{cmdErr}
	}
	return nil
}

// containerPidNS is the pid namespace of a running Docker container.
func containerPidNS(ctx context.Context, id string) (ebpf.PidNS, error) {
	eng, err := container.Connect(ctx)
	if err != nil {
		return ebpf.PidNS{}, err
	}
	defer eng.Close()
	pid, err := eng.HostPid(ctx, id)
	if err != nil {
		return ebpf.PidNS{}, err
	}
	return ebpf.PidNamespace(pid)
}
