package runner

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/fsmove/fsmove/puppet/container"
)

// ptraceCapture runs fsmove's own ptrace tracer ("fsmove trace") in the
// container: the fsmove binary is copied in.
type ptraceCapture struct{}

// fsmoveInContainer is where the fsmove binary goes for the ptrace backend.
const fsmoveInContainer = workDir + "/fsmove"

func (ptraceCapture) Name() string      { return "ptrace" }
func (ptraceCapture) Check() error      { return nil } // it needs CAP_SYS_PTRACE in the container only
func (ptraceCapture) NeedsPtrace() bool { return true }

func (ptraceCapture) Filter() string   { return "" }
func (ptraceCapture) Trace() TraceSite { return InContainer }

func (ptraceCapture) Files(o Options) ([]ContainerFile, error) {
	bin, err := readBinary(o.TracerBinary)
	if err != nil {
		return nil, err
	}
	return []ContainerFile{{Path: fsmoveInContainer, Data: bin, Mode: 0o755}}, nil
}

func (ptraceCapture) Command(o Options, args []string) []string {
	tracer := []string{fsmoveInContainer, "trace", "--out", tracePath}
	if o.Init == container.InitSystemd {
		tracer = append(tracer, "--attach", "1") // services are systemd's children
	}
	return plainApply(append(tracer, "--"), args)
}

func (ptraceCapture) StartHost(context.Context, *container.Container, string, int64) (HostTrace, error) {
	return nil, nil
}

// readBinary reads the fsmove binary that the ptrace backend puts in the
// container.
func readBinary(path string) ([]byte, error) {
	if path == "" {
		return nil, errors.New("the ptrace tracer needs the fsmove binary (Options.TracerBinary)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the ptrace tracer copies fsmove into the container: %w", err)
	}
	return data, nil
}
