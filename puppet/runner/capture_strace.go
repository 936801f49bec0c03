package runner

import (
	"context"

	"github.com/fsmove/fsmove/puppet/container"
)

// straceCapture runs strace in the container, started by apply.sh
// (strace.go), following PID 1 too when systemd is the container's init.
type straceCapture struct{}

func (straceCapture) Name() string                           { return "strace" }
func (straceCapture) Check() error                           { return nil } // the image has strace
func (straceCapture) NeedsPtrace() bool                      { return true }
func (straceCapture) Files(Options) ([]ContainerFile, error) { return nil, nil }
func (straceCapture) Filter() string                         { return TraceFilter() }
func (straceCapture) Trace() TraceSite                       { return InContainer }

func (straceCapture) Command(o Options, args []string) []string {
	return ApplyCommand(o.SeccompBPF, o.Init == container.InitSystemd, args)
}

func (straceCapture) StartHost(context.Context, *container.Container, string, int64) (HostTrace, error) {
	return nil, nil
}
