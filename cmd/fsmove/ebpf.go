package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/ebpf"
	"github.com/fsmove/fsmove/tracer/strace"
)

const ebpfUsage = `Usage:
  fsmove ebpf [flags] -- COMMAND [ARG...]
  fsmove ebpf [flags] --container ID
  fsmove ebpf [flags] --cgroup PATH

Trace with eBPF (a debugging aid for the eBPF tracer): a command, run in a
cgroup of its own, or a running Docker container or cgroup v2 directory until
Ctrl-C. The system calls the analysis needs are printed in strace's text form,
which "fsmove analyze" and "fsmove lower" read. Needs root.

Exit status: 0, or 3 when the tracer failed or lost events (unless
--allow-drops), or 2 for a usage error.

Flags:
`

func runEBPF(stdout, stderr io.Writer, args []string) int {
	fs := newFlagSet("ebpf", ebpfUsage, stderr)
	outPath := fs.String("o", "", "write the trace to this file instead of standard output")
	containerID := fs.String("container", "", "trace this running Docker container (full id)")
	cgroupPath := fs.String("cgroup", "", "trace this cgroup v2 directory and the cgroups below it")
	keepFailed := fs.Bool("failed", false, "print failed calls too (the analysis ignores them; the kernel drops them by default)")
	allowDrops := fs.Bool("allow-drops", false, "exit 0 even when events were lost (the trace is then incomplete)")
	args, code, ok := parseFlags(fs, args, stdout)
	if !ok {
		return code
	}
	targets := 0
	for _, set := range []bool{len(args) > 0, *containerID != "", *cgroupPath != ""} {
		if set {
			targets++
		}
	}
	if targets != 1 {
		fmt.Fprintln(stderr, "fsmove ebpf: give one of -- COMMAND, --container or --cgroup; see fsmove ebpf --help")
		return exitUsage
	}

	var cg *ebpf.TempCgroup
	var pidNS ebpf.PidNS
	switch {
	case *containerID != "":
		p, err := ebpf.DockerCgroup(*containerID)
		if err != nil {
			fmt.Fprintln(stderr, "fsmove ebpf:", err)
			return exitUsage
		}
		*cgroupPath = p
		// Pids as the container sees them, as its clone calls return them.
		if pidNS, err = containerPidNS(*containerID); err != nil {
			fmt.Fprintln(stderr, "fsmove ebpf:", err)
			return exitRun
		}
	case len(args) > 0:
		var err error
		cg, err = ebpf.NewTempCgroup("fsmove-ebpf")
		if err != nil {
			fmt.Fprintln(stderr, "fsmove ebpf:", err)
			return exitRun
		}
		defer cg.Close()
		*cgroupPath = cg.Path
	}

	out := stdout
	if *outPath != "" {
		f, err := os.Create(*outPath)
		if err != nil {
			fmt.Fprintln(stderr, "fsmove ebpf:", err)
			return exitUsage
		}
		defer f.Close()
		out = f
	}

	tr, err := ebpf.Start(ebpf.Options{CgroupPath: *cgroupPath, PidNS: pidNS, KeepFailed: *keepFailed, Lookups: fstrace.LookupCall})
	if err != nil {
		fmt.Fprintln(stderr, "fsmove ebpf:", err)
		return exitRun
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

	status := exitOK
	if cg != nil {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stderr, os.Stderr
		cg.Place(cmd)
		if err := cmd.Run(); err != nil {
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) {
				fmt.Fprintln(stderr, "fsmove ebpf:", err)
				status = exitRun
			} else {
				fmt.Fprintln(stderr, "fsmove ebpf: the command exited with", exitErr.ExitCode())
			}
		}
	} else {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		fmt.Fprintf(stderr, "fsmove ebpf: tracing %s until Ctrl-C\n", *cgroupPath)
		<-ctx.Done()
		stop()
	}
	stopErr := tr.Stop()
	res := <-saved
	var dropped *ebpf.ErrDropped
	switch {
	case errors.As(res.err, &dropped) || errors.As(stopErr, &dropped):
		fmt.Fprintf(stderr, "fsmove ebpf: %d events written; %v\n", res.events, dropped)
		if !*allowDrops {
			return exitRun
		}
	case res.err != nil || stopErr != nil:
		fmt.Fprintln(stderr, "fsmove ebpf:", errors.Join(res.err, stopErr))
		return exitRun
	default:
		fmt.Fprintf(stderr, "fsmove ebpf: %d events written, none lost\n", res.events)
	}
	return status
}

// containerPidNS is the pid namespace of a running Docker container.
func containerPidNS(id string) (ebpf.PidNS, error) {
	ctx := context.Background()
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
