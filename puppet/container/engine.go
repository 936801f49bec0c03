// Package container drives the Docker Engine for fsmove: it builds (or
// reuses) the image Puppet runs in, creates one container per run, copies
// files in and out, runs commands, and removes what it created.
//
// It talks to the Engine API through github.com/docker/docker/client with
// API version negotiation, so it works with Debian bookworm's docker.io
// (Engine 20.10, API 1.41) as well as newer engines.
package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
)

// LabelKey and LabelValue mark every container (and image) that fsmove
// creates, so that leftovers can be found: docker ps -a --filter label=fsmove=1.
// PidLabel holds the pid of the fsmove process that created a container, so
// that one process (a test suite) can check its own leftovers while others
// run fsmove on the same engine.
const (
	LabelKey   = "fsmove"
	LabelValue = "1"
	PidLabel   = "fsmove.pid"
)

// Engine is a connection to one Docker Engine.
type Engine struct {
	cli *client.Client
	// APIVersion is the API version agreed with the engine (e.g. "1.41").
	APIVersion string
	// ServerVersion is the engine's version (e.g. "20.10.24+dfsg1").
	ServerVersion string
	// CgroupDriver ("cgroupfs" or "systemd") is the engine's, as docker
	// info gives it.
	CgroupDriver string
	// Namespaced: the engine maps the container's root to an unprivileged
	// user of the host (userns-remap, or a rootless engine), so that
	// capabilities in the container are powers over its own namespaces
	// only.
	Namespaced bool
	// local: the engine listens on a unix socket of this host.
	local bool
	// isolatedReady: NetworkIsolated is set up (ensureIsolated).
	isolatedReady bool

	// The session's reaper (reaper.go), started with the first container.
	reaperMu  sync.Mutex
	reaper    *reaper
	reaperErr error
}

// HowToStartDocker is the advice printed when the engine cannot be reached.
const HowToStartDocker = `Docker is not reachable. On Debian, as root:
    apt-get install -y docker.io      # if it is not installed
    dockerd >/var/log/dockerd.log 2>&1 &   # or: systemctl start docker
then check with "docker version". Set DOCKER_HOST to use another engine.`

// ErrUnreachable is returned (wrapped) by Connect when no engine answers.
var ErrUnreachable = errors.New("docker engine unreachable")

// Connect opens a client from the environment (DOCKER_HOST and friends, else
// the local socket), negotiates the API version and checks that the engine
// answers within a few seconds.
func Connect(ctx context.Context) (*Engine, error) {
	return ConnectHost(ctx, "")
}

// ConnectHost is Connect to the engine at host (unix:///…, tcp://…,
// ssh://…), or to the environment's engine (DOCKER_HOST) when host is "":
// fsmove bench spreads its runs over several engines.
func ConnectHost(ctx context.Context, host string) (*Engine, error) {
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	cli, err := client.NewClientWithOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// Ping negotiates the API version as a side effect.
	if _, err := cli.Ping(pingCtx); err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w at %s: %v\n%s", ErrUnreachable, cli.DaemonHost(), err, HowToStartDocker)
	}
	e := &Engine{cli: cli, APIVersion: cli.ClientVersion(), local: strings.HasPrefix(cli.DaemonHost(), "unix://")}
	if v, err := cli.ServerVersion(pingCtx); err == nil {
		e.ServerVersion = v.Version
	}
	if info, err := cli.Info(pingCtx); err == nil {
		e.CgroupDriver = info.CgroupDriver
		for _, o := range info.SecurityOptions {
			// "name=userns", "name=rootless", "name=seccomp,profile=default"
			name, _, _ := strings.Cut(o, ",")
			e.Namespaced = e.Namespaced || name == "name=userns" || name == "name=rootless"
		}
	}
	return e, nil
}

// Local reports whether the engine listens on a unix socket of this host:
// only then can fsmove give its containers the isolated network (whose
// rules are the host's) and trace them with eBPF.
func (e *Engine) Local() bool { return e.local }

// Host is the engine's address as the client reaches it (unix:///…, tcp://…).
func (e *Engine) Host() string { return e.cli.DaemonHost() }

// Close ends the session: its reaper removes what is left of it (nothing,
// when every run removed its container) and exits. Then it releases the
// client's connections.
func (e *Engine) Close() error {
	e.reaperMu.Lock()
	if e.reaper != nil {
		e.reaper.close()
		e.reaper = nil
	}
	e.reaperMu.Unlock()
	return e.cli.Close()
}

// Labelled lists the IDs of the containers, running or not, that carry
// fsmove's label: all of them, or (ownOnly) those this process created.
func (e *Engine) Labelled(ctx context.Context, ownOnly bool) ([]string, error) {
	args := filters.NewArgs(filters.Arg("label", LabelKey+"="+LabelValue))
	if ownOnly {
		args.Add("label", PidLabel+"="+strconv.Itoa(os.Getpid()))
	}
	list, err := e.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: args})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	ids := make([]string, 0, len(list))
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	return ids, nil
}
