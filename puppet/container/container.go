package container

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// Spec says how to create a run container.
type Spec struct {
	Image string
	// Hostname is fixed so that two runs of the same module see the same
	// node name (Puppet's certname, and so the catalog's file name).
	Hostname string
	Env      []string
	// CapAdd lists the extra capabilities, e.g. "SYS_PTRACE" for strace.
	// The container is never privileged.
	CapAdd []string
	// SeccompUnconfined drops Docker's default seccomp profile, which
	// forbids ptrace on engines older than 20.10 and strace's seccomp filter.
	SeccompUnconfined bool
	// Labels are added to fsmove's own label.
	Labels map[string]string
}

// Container is a started container that fsmove created.
type Container struct {
	ID     string
	engine *Engine
}

// Start creates and starts a container that idles until it is removed.
// Work is done in it with Exec. On error nothing is left behind.
//
// Its main process is "sleep infinity" under docker-init (Init), so that
// processes orphaned by Puppet (daemons, their children) are reaped.
func (e *Engine) Start(ctx context.Context, spec Spec) (*Container, error) {
	labels := map[string]string{LabelKey: LabelValue, PidLabel: strconv.Itoa(os.Getpid())}
	for k, v := range spec.Labels {
		labels[k] = v
	}
	var secOpts []string
	if spec.SeccompUnconfined {
		secOpts = append(secOpts, "seccomp=unconfined")
	}
	useInit := true
	created, err := e.cli.ContainerCreate(ctx,
		&container.Config{
			Image:    spec.Image,
			Hostname: spec.Hostname,
			Env:      spec.Env,
			Cmd:      []string{"sleep", "infinity"},
			Labels:   labels,
		},
		&container.HostConfig{
			CapAdd:      spec.CapAdd,
			SecurityOpt: secOpts,
			Init:        &useInit,
			Privileged:  false,
		},
		nil, nil, "")
	if err != nil {
		return nil, fmt.Errorf("create container from %s: %w", spec.Image, err)
	}
	c := &Container{ID: created.ID, engine: e}
	if err := e.cli.ContainerStart(ctx, c.ID, container.StartOptions{}); err != nil {
		c.Remove(ctx)
		return nil, fmt.Errorf("start container: %w", err)
	}
	return c, nil
}

// ShortID is the 12-character form docker ps shows.
func (c *Container) ShortID() string {
	if len(c.ID) > 12 {
		return c.ID[:12]
	}
	return c.ID
}

// Remove kills and removes the container. It uses its own short deadline
// and ignores ctx's cancellation, because it runs on the way out of a
// cancelled or timed-out run, which is exactly when it must still work.
func (c *Container) Remove(ctx context.Context) error {
	rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	err := c.engine.cli.ContainerRemove(rmCtx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil {
		return fmt.Errorf("remove container %s: %w", c.ShortID(), err)
	}
	return nil
}

// Exec runs cmd in the container and returns its exit status. Its stdout
// and stderr both go to out (nil discards them). When ctx ends first,
// Exec returns ctx's error at once; the command keeps running in the
// container until the container is removed.
func (c *Container) Exec(ctx context.Context, cmd []string, env []string, out io.Writer) (int, error) {
	if out == nil {
		out = io.Discard
	}
	cli := c.engine.cli
	created, err := cli.ContainerExecCreate(ctx, c.ID, container.ExecOptions{
		Cmd:          cmd,
		Env:          env,
		AttachStdout: true,
		AttachStderr: true,
	})
	if err != nil {
		return -1, fmt.Errorf("exec %s: %w", cmdName(cmd), err)
	}
	attach, err := cli.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return -1, fmt.Errorf("exec %s: attach: %w", cmdName(cmd), err)
	}
	defer attach.Close()

	// The attached stream does not watch ctx once it is established, so
	// copy in a goroutine and close the connection when ctx ends.
	copied := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(out, out, attach.Reader)
		copied <- err
	}()
	select {
	case err := <-copied:
		if err != nil && !errors.Is(err, io.EOF) {
			return -1, fmt.Errorf("exec %s: read output: %w", cmdName(cmd), err)
		}
	case <-ctx.Done():
		attach.Close()
		<-copied
		return -1, ctx.Err()
	}

	// The stream ends when the command's output pipes close, which can be
	// a moment before the engine has recorded its exit status.
	for {
		info, err := cli.ContainerExecInspect(ctx, created.ID)
		if err != nil {
			return -1, fmt.Errorf("exec %s: inspect: %w", cmdName(cmd), err)
		}
		if !info.Running {
			return info.ExitCode, nil
		}
		select {
		case <-ctx.Done():
			return -1, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func cmdName(cmd []string) string {
	if len(cmd) == 0 {
		return "(empty command)"
	}
	return strings.Join(cmd, " ")
}

// CopyIn unpacks a tar stream into the container at dir (which must exist;
// "/" always does). Entries keep their modes; owners become root.
func (c *Container) CopyIn(ctx context.Context, dir string, tarStream io.Reader) error {
	err := c.engine.cli.CopyToContainer(ctx, c.ID, dir, tarStream, container.CopyToContainerOptions{})
	if err != nil {
		return fmt.Errorf("copy into container %s: %w", dir, err)
	}
	return nil
}

// CopyOut returns a tar stream of path (a file or a directory) from the
// container. The archive's top entry is path's base name. The caller
// closes it.
func (c *Container) CopyOut(ctx context.Context, path string) (io.ReadCloser, error) {
	rc, _, err := c.engine.cli.CopyFromContainer(ctx, c.ID, path)
	if err != nil {
		return nil, fmt.Errorf("copy %s out of the container: %w", path, err)
	}
	return rc, nil
}
