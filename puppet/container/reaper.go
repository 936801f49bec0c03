package container

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/client"
)

// The reaper removes a session's containers when the session ends, however
// it ends: fsmove killed with SIGKILL, its machine gone, the connection to
// the engine cut. It is the pattern of Testcontainers' Ryuk: a container
// beside the run containers, on the engine's side, that holds the engine's
// socket and waits on a connection from the session; when that connection
// drops, it removes every container labelled with the session.
//
// The connection is the reaper's standard input, attached by fsmove with
// StdinOnce: the engine closes it when fsmove's attach stream ends, which
// the kernel does for a process that dies. No network is needed (the
// reaper has none), so no module can reach it, and it is in a container of
// its own, so no module can signal it. Its program is the fsmove binary
// itself (any binary that links this package: a test binary too), mounted
// read-only and started with reaperEnv set; see init below.
//
// docs/DESIGN.md, "Nothing left running", says why this mechanism and not a
// watchdog inside the run container.

const (
	// SessionLabel holds the session of the process that created a
	// container; its reaper carries ReaperLabel with the same value. A
	// container whose session has no running reaper is a leftover
	// (DeadSessions).
	SessionLabel = "fsmove.session"
	ReaperLabel  = "fsmove.reaper"

	// reaperEnv makes the binary the reaper (init), when it is PID 1.
	reaperEnv = "FSMOVE_REAPER_SESSION"
	// reaperExe and reaperSocket are where the reaper finds its program
	// and the engine's socket.
	reaperExe    = "/fsmove-reaper"
	reaperSocket = "/run/fsmove-engine.sock"
	// reaperReady is the line the reaper writes once it reached the
	// engine; reaperBye is the line fsmove writes on a clean end.
	reaperReady = "fsmove-reaper ready"
	reaperBye   = "bye"
	// reaperStartTimeout bounds the wait for reaperReady.
	reaperStartTimeout = 30 * time.Second
)

// reaperLooks are when the reaper looks again after an unclean end: a
// create call the engine was answering when fsmove died ends within
// createTimeout, and most within a second.
var reaperLooks = []time.Duration{10 * time.Second, createTimeout + 5*time.Second}

func init() {
	// The reaper is this binary as PID 1 of its container; anywhere else
	// the variable means nothing.
	if session := os.Getenv(reaperEnv); session != "" && os.Getpid() == 1 {
		os.Exit(runReaper(session, os.Stdin, os.Stdout, os.Stderr))
	}
}

// reaper is a session's reaper, as fsmove holds it.
type reaper struct {
	session string
	conn    net.Conn // the attach stream: its end is the session's end
}

// close ends the session cleanly: the reaper removes what is left of it
// at once and exits.
func (r *reaper) close() {
	r.conn.Write([]byte(reaperBye + "\n"))
	r.conn.Close()
}

// newSession is a random session name.
func newSession() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// session returns the session to label a container with, starting the
// reaper (from image) on the first call. It is "" when the engine is not
// local (the reaper mounts the engine's socket and fsmove's binary, which
// are paths of this host) or the reaper could not start; then the
// container is not labelled with a session, and ReaperErr says why.
func (e *Engine) session(ctx context.Context, image string) string {
	e.reaperMu.Lock()
	defer e.reaperMu.Unlock()
	if e.reaper != nil {
		return e.reaper.session
	}
	if e.reaperErr != nil {
		return ""
	}
	if !e.local {
		e.reaperErr = fmt.Errorf("the engine at %s is not on this machine", e.cli.DaemonHost())
		return ""
	}
	r, err := e.startReaper(ctx, image)
	if err != nil {
		if ctx.Err() == nil { // a cancelled start is tried again by the next container
			e.reaperErr = err
		}
		return ""
	}
	e.reaper = r
	// Every session sweeps what dead ones left (their reapers were
	// stopped with the engine, or never ran).
	if left, err := e.DeadSessions(ctx); err == nil {
		for _, l := range left {
			e.RemoveLeftover(ctx, l)
		}
	}
	return r.session
}

// ReaperErr says why this engine's containers have no reaper: nil when they
// have one, or no container was created yet.
func (e *Engine) ReaperErr() error {
	e.reaperMu.Lock()
	defer e.reaperMu.Unlock()
	return e.reaperErr
}

// startReaper creates, attaches and starts the reaper, and waits for its
// ready line.
func (e *Engine) startReaper(ctx context.Context, image string) (*reaper, error) {
	session, err := newSession()
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("reaper: fsmove's own binary: %w", err)
	}
	sock := strings.TrimPrefix(e.cli.DaemonHost(), "unix://")
	cfg := &container.Config{
		Image:      image,
		User:       "0:0",
		Entrypoint: []string{reaperExe},
		Cmd:        []string{},
		Env:        []string{reaperEnv + "=" + session},
		// LabelKey is the image's label too: set to another value, so
		// that the reaper is not taken for a run container.
		Labels:      map[string]string{LabelKey: "reaper", ReaperLabel: session, PidLabel: strconv.Itoa(os.Getpid())},
		AttachStdin: true, AttachStdout: true,
		OpenStdin: true, StdinOnce: true,
	}
	pids := int64(64)
	host := &container.HostConfig{
		AutoRemove:     true,
		NetworkMode:    "none",
		ReadonlyRootfs: true,
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		Mounts: []mount.Mount{
			{Type: mount.TypeBind, Source: exe, Target: reaperExe, ReadOnly: true},
			{Type: mount.TypeBind, Source: sock, Target: reaperSocket},
		},
		Resources: container.Resources{Memory: 128 << 20, PidsLimit: &pids},
	}
	name := "fsmove-reaper-" + session
	// As Create: the engine may create it after a cancelled call, so
	// the call is not cancelled, and a failed one is cleaned up by name.
	createCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
	created, err := e.cli.ContainerCreate(createCtx, cfg, host, nil, nil, name)
	cancel()
	if err != nil {
		e.removeName(ctx, name)
		return nil, fmt.Errorf("reaper: create from %s: %w", image, err)
	}
	fail := func(err error) (*reaper, error) {
		e.removeName(ctx, created.ID)
		return nil, fmt.Errorf("reaper: %w", err)
	}
	att, err := e.cli.ContainerAttach(ctx, created.ID, container.AttachOptions{Stream: true, Stdin: true, Stdout: true})
	if err != nil {
		return fail(fmt.Errorf("attach: %w", err))
	}
	if err := e.cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		att.Close()
		return fail(fmt.Errorf("start: %w", err))
	}
	ready := make(chan error, 1)
	go func() { ready <- waitReady(att.Reader) }()
	select {
	case err = <-ready:
	case <-time.After(reaperStartTimeout):
		err = fmt.Errorf("no answer in %s", reaperStartTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		att.Close()
		return fail(err)
	}
	return &reaper{session: session, conn: att.Conn}, nil
}

// waitReady reads the reaper's multiplexed stdout (the engine's 8-byte
// frame header, then the payload) until its ready line.
func waitReady(r io.Reader) error {
	var got strings.Builder
	for got.Len() < 4096 {
		var hdr [8]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if got.Len() > 0 {
				return fmt.Errorf("it exited: %s", strings.TrimSpace(got.String()))
			}
			return errors.New("it exited before it was ready")
		}
		payload := make([]byte, binary.BigEndian.Uint32(hdr[4:]))
		if _, err := io.ReadFull(r, payload); err != nil {
			return errors.New("it exited before it was ready")
		}
		got.Write(payload)
		if strings.Contains(got.String(), reaperReady) {
			return nil
		}
	}
	return fmt.Errorf("unexpected output: %.200s", got.String())
}

// runReaper is the reaper's program: reach the engine, say ready, wait for
// the end of stdin, remove the session's containers. After an unclean end
// (no bye line) it looks again (reaperLooks).
func runReaper(session string, stdin io.Reader, stdout, stderr io.Writer) int {
	cli, err := client.NewClientWithOpts(client.WithHost("unix://"+reaperSocket), client.WithAPIVersionNegotiation())
	if err != nil {
		fmt.Fprintf(stderr, "fsmove reaper: %v\n", err)
		return 1
	}
	defer cli.Close()
	ctx := context.Background()
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, err = cli.Ping(pingCtx)
	cancel()
	if err != nil {
		fmt.Fprintf(stdout, "fsmove reaper: the engine: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, reaperReady)
	clean := false
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		clean = clean || sc.Text() == reaperBye
	}
	// A look the engine does not answer (the connection that ended the
	// session failed with it) is tried again until the last look's time.
	start := time.Now()
	giveUp := start.Add(reaperLooks[len(reaperLooks)-1])
	for _, at := range append([]time.Duration{0}, reaperLooks...) {
		time.Sleep(time.Until(start.Add(at)))
		for removeSession(ctx, cli, session, stderr) != nil && time.Now().Before(giveUp) {
			time.Sleep(2 * time.Second)
		}
		if clean {
			return 0
		}
	}
	return 0
}

// removeSession removes every container of the session, running or not;
// an error is the engine's not answering the list.
func removeSession(ctx context.Context, cli *client.Client, session string, stderr io.Writer) error {
	list, err := cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", SessionLabel+"="+session))})
	if err != nil {
		fmt.Fprintf(stderr, "fsmove reaper: list: %v\n", err)
		return err
	}
	for _, c := range list {
		if kept(c.Names) {
			continue
		}
		if err := forceRemove(ctx, cli, c.ID); err != nil {
			fmt.Fprintf(stderr, "fsmove reaper: remove %.12s: %v\n", c.ID, err)
		}
	}
	return nil
}

// Leftover is a container of a session that has ended: its reaper is not
// running (it was stopped with the engine, or removed), so nothing will
// remove it.
type Leftover struct {
	ID      string
	Name    string
	Session string
	State   string // running, exited, …
}

// DeadSessions lists the containers whose session has no running reaper,
// and the reapers that do not run.
func (e *Engine) DeadSessions(ctx context.Context) ([]Leftover, error) {
	list, err := e.cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", SessionLabel))})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	reapers, err := e.cli.ContainerList(ctx, container.ListOptions{
		Filters: filters.NewArgs(filters.Arg("label", ReaperLabel), filters.Arg("status", "running"))})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	live := map[string]bool{}
	for _, r := range reapers {
		live[r.Labels[ReaperLabel]] = true
	}
	var left []Leftover
	// A reaper that is not running (never started, or stopped with the
	// engine) is a leftover too.
	all, err := e.cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", ReaperLabel))})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	for _, r := range all {
		// One just made may be about to start.
		if r.State != "running" && time.Since(time.Unix(r.Created, 0)) > reaperStartTimeout+createTimeout {
			list = append(list, r)
		}
	}
	for _, c := range list {
		s := c.Labels[SessionLabel]
		if s == "" {
			s = c.Labels[ReaperLabel]
		}
		if live[s] || kept(c.Names) {
			continue
		}
		name := ""
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		left = append(left, Leftover{ID: c.ID, Name: name, Session: s, State: c.State})
	}
	return left, nil
}

// RemoveLeftover removes a container DeadSessions listed.
func (e *Engine) RemoveLeftover(ctx context.Context, l Leftover) error {
	if err := e.removeName(ctx, l.ID); err != nil {
		return fmt.Errorf("remove container %.12s: %w", l.ID, err)
	}
	return nil
}

// keptPrefix starts the name of a container kept with --keep (Keep): no
// reaper and no sweep removes it; the user does.
const keptPrefix = "fsmove-kept-"

func kept(names []string) bool {
	for _, n := range names {
		if strings.HasPrefix(strings.TrimPrefix(n, "/"), keptPrefix) {
			return true
		}
	}
	return false
}

// Keep renames the container fsmove-kept-…, so that its session's reaper
// and later sweeps leave it to the user (fsmove run --keep).
func (c *Container) Keep(ctx context.Context) error {
	name := keptPrefix + strings.TrimPrefix(c.Name, namePrefix)
	if err := c.engine.cli.ContainerRename(ctx, c.ID, name); err != nil {
		return fmt.Errorf("keep container %s: %w", c.ShortID(), err)
	}
	c.Name = name
	return nil
}

// UnstartedReapers lists the reapers this process made that never started:
// a start that failed without removing its container (tests check it).
func (e *Engine) UnstartedReapers(ctx context.Context) ([]string, error) {
	list, err := e.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(
		filters.Arg("label", ReaperLabel), filters.Arg("label", PidLabel+"="+strconv.Itoa(os.Getpid())),
		filters.Arg("status", "created"))})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	var ids []string
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	return ids, nil
}
