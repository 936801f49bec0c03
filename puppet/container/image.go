package container

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/fsmove/fsmove/tracer/linux"
)

// DefaultImage is the tag fsmove runs Puppet in: DefaultSuite's image.
var DefaultImage = SuiteImage(DefaultSuite)

// BuildMethod says where the image came from.
type BuildMethod string

const (
	MethodReused      BuildMethod = "reused"      // the tag already existed
	MethodDockerfile  BuildMethod = "dockerfile"  // built FROM debian:bookworm (a registry was reachable)
	MethodDebootstrap BuildMethod = "debootstrap" // a debootstrap rootfs imported through the API
)

// ImageOptions configure EnsureImage. Zero fields take the defaults below.
type ImageOptions struct {
	Tag     string // SuiteImage(Suite)
	Rebuild bool   // build even when Tag exists
	Suite   string // DefaultSuite; a name of Suites
	// Mirror is the Debian mirror; "" means the one the host's apt uses
	// for Suite (HostMirror).
	Mirror string
	// Packages are installed on top of the base system.
	Packages []string // the suite's (Suites)
	// RegistryTimeout bounds the attempt to find debian:<suite> in a registry.
	RegistryTimeout time.Duration // 20s
	// Log receives the output of debootstrap, apt and docker build as it
	// comes. When nil, that output is kept and shown only in the error of a
	// failed step.
	Log io.Writer
	// Status, when set, is told each phase as it starts ("debootstrap …").
	Status func(phase string)
}

// RecipeLabel holds a digest of what an image was built from (suite,
// packages, files fsmove adds): an image of DefaultImage's tag built by an
// fsmove with another recipe is rebuilt rather than reused.
const RecipeLabel = "fsmove.recipe"

// recipeVersion changes when the build steps change in a way the options
// do not show.
const recipeVersion = "4"

// Recipe is the digest of what an image built with o contains. The mirror
// is not part of it: any mirror of the suite gives the same image.
func (o ImageOptions) Recipe() string {
	o.setDefaults()
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n", recipeVersion, o.Suite, strings.Join(o.Packages, ","), policyRCD)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func (o *ImageOptions) setDefaults() {
	if o.Suite == "" {
		o.Suite = DefaultSuite
	}
	if o.Tag == "" {
		o.Tag = SuiteImage(o.Suite)
	}
	if len(o.Packages) == 0 {
		// An unknown suite has no packages here; EnsureImage refuses it.
		s, _ := LookupSuite(o.Suite)
		o.Packages = s.Packages
	}
	if o.RegistryTimeout == 0 {
		o.RegistryTimeout = 20 * time.Second
	}
}

func (o *ImageOptions) status(phase string) {
	if o.Status != nil {
		o.Status(phase)
	}
}

// ImageInfo describes the image a run uses.
type ImageInfo struct {
	Tag string `json:"tag"`
	// Suite is the Debian release the image was built of (Suites).
	Suite  string      `json:"suite,omitempty"`
	ID     string      `json:"id"`
	Method BuildMethod `json:"method"`
	Size   int64       `json:"size_bytes"`
}

// imageID returns the ID of ref, or "" when there is no such image.
func (e *Engine) imageID(ctx context.Context, ref string) (string, int64, error) {
	id, size, _, err := e.inspectImage(ctx, ref)
	return id, size, err
}

// inspectImage returns ref's ID, size and labels ("" when there is no such
// image).
func (e *Engine) inspectImage(ctx context.Context, ref string) (string, int64, map[string]string, error) {
	info, err := e.cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return "", 0, nil, nil
	}
	if err != nil {
		return "", 0, nil, fmt.Errorf("inspect image %s: %w", ref, err)
	}
	var labels map[string]string
	if info.Config != nil {
		labels = info.Config.Labels
	}
	return info.ID, info.Size, labels, nil
}

// EnsureImage returns the image to run Puppet in, building it when the tag
// does not exist yet (or when Rebuild is set): from a Dockerfile when
// debian:<suite> can be had from a registry, else from a debootstrap rootfs
// imported through the API. The image is the only cache: the rootfs is
// built in a temporary directory and removed afterwards.
func (e *Engine) EnsureImage(ctx context.Context, opts ImageOptions) (ImageInfo, error) {
	opts.setDefaults()
	if _, err := LookupSuite(opts.Suite); err != nil {
		return ImageInfo{}, err
	}
	oldID, size, labels, err := e.inspectImage(ctx, opts.Tag)
	if err != nil {
		return ImageInfo{}, err
	}
	if !opts.Rebuild {
		if oldID != "" && labels[RecipeLabel] == opts.Recipe() {
			return ImageInfo{Tag: opts.Tag, Suite: opts.Suite, ID: oldID, Method: MethodReused, Size: size}, nil
		}
		if oldID != "" {
			opts.status(opts.Tag + " was built from another recipe (an older fsmove): rebuilding")
		}
	}
	if opts.Mirror == "" {
		m, err := SuiteMirror(AptSourcesDir, opts.Suite)
		if err != nil {
			return ImageInfo{}, err
		}
		opts.Mirror = m
	}

	base := "debian:" + opts.Suite
	opts.status("looking for " + base + " (local or registry)")
	var method BuildMethod
	if e.baseAvailable(ctx, base, opts) {
		method = MethodDockerfile
		opts.status("building from a Dockerfile FROM " + base)
		err = e.buildFromDockerfile(ctx, opts)
	} else {
		method = MethodDebootstrap
		err = e.buildFromDebootstrap(ctx, opts)
	}
	if err != nil {
		return ImageInfo{}, err
	}
	opts.status("labelling " + opts.Tag + " with its module index")
	if err := e.labelModuleIndex(ctx, opts); err != nil {
		return ImageInfo{}, err
	}
	id, size, err := e.imageID(ctx, opts.Tag)
	if err != nil {
		return ImageInfo{}, err
	}
	if id == "" {
		return ImageInfo{}, fmt.Errorf("image %s was built but cannot be found", opts.Tag)
	}
	e.removeReplaced(ctx, oldID, id)
	return ImageInfo{Tag: opts.Tag, Suite: opts.Suite, ID: id, Method: method, Size: size}, nil
}

// removeReplaced removes the image a build took the tag from (oldID), so
// that rebuilding does not leave an untagged image of hundreds of MB each
// time. An image that something still uses (a container, another tag, a
// child) is the engine's to keep: it refuses, and that is not an error.
func (e *Engine) removeReplaced(ctx context.Context, oldID, newID string) {
	if oldID == "" || oldID == newID {
		return
	}
	e.cli.ImageRemove(ctx, oldID, image.RemoveOptions{PruneChildren: true})
}

// baseAvailable reports whether the base image exists locally or can be
// pulled within the registry timeout.
func (e *Engine) baseAvailable(ctx context.Context, base string, opts ImageOptions) bool {
	if id, _, err := e.imageID(ctx, base); err == nil && id != "" {
		return true
	}
	pullCtx, cancel := context.WithTimeout(ctx, opts.RegistryTimeout)
	defer cancel()
	rc, err := e.cli.ImagePull(pullCtx, base, image.PullOptions{})
	if err != nil {
		return false
	}
	defer rc.Close()
	if err := readJSONMessages(rc, opts.Log); err != nil {
		return false
	}
	id, _, err := e.imageID(ctx, base)
	return err == nil && id != ""
}

// engineMessage is one object of the Engine API's progress streams: the
// fields fsmove reads of the API's JSONMessage (docker's own decoder
// package pulls in terminal libraries that fsmove does not need).
type engineMessage struct {
	Stream      string `json:"stream"`
	Status      string `json:"status"`
	Error       string `json:"error"`
	ErrorDetail *struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// readJSONMessages drains a progress stream of the Engine API (pull, build,
// import), copying its text to log, and returns the first error it reports.
func readJSONMessages(r io.Reader, log io.Writer) error {
	dec := json.NewDecoder(r)
	for {
		var m engineMessage
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read engine progress: %w", err)
		}
		if m.ErrorDetail != nil && m.ErrorDetail.Message != "" {
			return errors.New(m.ErrorDetail.Message)
		}
		if m.Error != "" {
			return errors.New(m.Error)
		}
		if log != nil {
			if m.Stream != "" {
				io.WriteString(log, m.Stream)
			} else if m.Status != "" {
				fmt.Fprintln(log, m.Status)
			}
		}
	}
}

// aptSourcesList is written to the image so that apt-get works in the
// containers (deb: modules, Package resources).
func aptSourcesList(opts ImageOptions) string {
	return fmt.Sprintf("deb %s %s main\n", opts.Mirror, opts.Suite)
}

// policyRCD keeps package installs from starting services. Puppet's
// Service resources then start them, inside their own blocks of the trace,
// as they would on a freshly provisioned host where the service's
// configuration is managed. (Debian's invoke-rc.d honours this script.)
const policyRCD = "#!/bin/sh\n# fsmove: services are started by Puppet, not by package installs.\nexit 101\n"

// Dockerfile returns the Dockerfile of the registry build.
func Dockerfile(opts ImageOptions) string {
	opts.setDefaults()
	var b strings.Builder
	fmt.Fprintf(&b, "FROM debian:%s\n", opts.Suite)
	fmt.Fprintf(&b, "LABEL %s=%s %s=%s\n", LabelKey, LabelValue, RecipeLabel, opts.Recipe())
	b.WriteString("ENV LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive\n")
	b.WriteString("COPY sources.list /etc/apt/sources.list\n")
	b.WriteString("COPY policy-rc.d /usr/sbin/policy-rc.d\n")
	b.WriteString("COPY " + moduleDebsScriptFile + " /tmp/" + moduleDebsScriptFile + "\n")
	// The package lists are kept: Package resources and deb: modules need them.
	fmt.Fprintf(&b, "RUN rm -f /etc/apt/sources.list.d/debian.sources && apt-get update && apt-get install -y --no-install-recommends %s && %s && apt-get clean\n",
		strings.Join(opts.Packages, " "), moduleDebsRun())
	b.WriteString("CMD [\"/bin/bash\"]\n")
	return b.String()
}

func (e *Engine) buildFromDockerfile(ctx context.Context, opts ImageOptions) error {
	a := NewArchive()
	a.AddFile("Dockerfile", []byte(Dockerfile(opts)), 0o644)
	a.AddFile("sources.list", []byte(aptSourcesList(opts)), 0o644)
	a.AddFile("policy-rc.d", []byte(policyRCD), 0o755)
	a.AddFile(moduleDebsScriptFile, []byte(moduleDebsScript), 0o644)
	buildContext, err := a.Bytes()
	if err != nil {
		return err
	}
	resp, err := e.cli.ImageBuild(ctx, bytes.NewReader(buildContext), build.ImageBuildOptions{
		Tags:        []string{opts.Tag},
		Remove:      true,
		ForceRemove: true,
		Labels:      map[string]string{LabelKey: LabelValue, RecipeLabel: opts.Recipe()},
	})
	if err != nil {
		return fmt.Errorf("docker build: %w", err)
	}
	defer resp.Body.Close()
	var out tailBuffer
	log := io.Writer(&out)
	if opts.Log != nil {
		log = opts.Log
	}
	if err := readJSONMessages(resp.Body, log); err != nil {
		return fmt.Errorf("docker build failed: %w\n%s", err, out.String())
	}
	return nil
}

// DebootstrapArgs returns debootstrap's command line for rootfs.
func DebootstrapArgs(opts ImageOptions, rootfs string) []string {
	opts.setDefaults()
	return []string{"--variant=minbase", "--include=" + strings.Join(opts.Packages, ","), opts.Suite, rootfs, opts.Mirror}
}

// importChanges are Dockerfile instructions applied to the imported rootfs.
func importChanges(opts ImageOptions) []string {
	return []string{
		"ENV LANG=C.UTF-8",
		"LABEL " + LabelKey + "=" + LabelValue + " " + RecipeLabel + "=" + opts.Recipe(),
		`CMD ["/bin/bash"]`,
	}
}

func (e *Engine) buildFromDebootstrap(ctx context.Context, opts ImageOptions) error {
	if os.Geteuid() != 0 {
		return errors.New("no registry is reachable, so the image must be built with debootstrap, which needs root: run \"fsmove image build\" as root once")
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return errors.New("no registry is reachable and debootstrap is not installed: apt-get install -y debootstrap, then run \"fsmove image build\" again")
	}
	tmp, err := os.MkdirTemp("", "fsmove-rootfs-")
	if err != nil {
		return err
	}
	defer removeRootfs(tmp)
	rootfs := filepath.Join(tmp, "rootfs")

	opts.status(fmt.Sprintf("debootstrap %s (minbase + %s) from %s", opts.Suite, strings.Join(opts.Packages, ","), opts.Mirror))
	if err := runLogged(ctx, opts.Log, "debootstrap", DebootstrapArgs(opts, rootfs)...); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(rootfs, "etc/apt/sources.list"), []byte(aptSourcesList(opts)), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(rootfs, "usr/sbin/policy-rc.d"), []byte(policyRCD), 0o755); err != nil {
		return err
	}
	opts.status("apt-get update in the rootfs")
	// debootstrap leaves no package lists; Package resources and deb:
	// modules need them, and the downloaded .debs are not needed.
	if err := runLogged(ctx, opts.Log, "chroot", rootfs, "apt-get", "update"); err != nil {
		return err
	}
	opts.status("keeping the suite's puppet-module-* packages in " + ModuleDebsDir)
	if err := keepModuleDebs(ctx, rootfs, opts); err != nil {
		return err
	}
	if err := runLogged(ctx, opts.Log, "chroot", rootfs, "apt-get", "clean"); err != nil {
		return err
	}

	opts.status("importing the rootfs as " + opts.Tag)
	return e.importRootfs(ctx, rootfs, opts)
}

// importRootfs streams the rootfs to ImageImport. GNU tar makes the stream
// because it keeps what a root filesystem needs and archive/tar's helpers
// do not: hard links, device nodes, numeric owners, extended attributes.
func (e *Engine) importRootfs(ctx context.Context, rootfs string, opts ImageOptions) error {
	var tarErr tailBuffer
	cmd := exec.CommandContext(ctx, "tar", "--numeric-owner", "--xattrs", "-C", rootfs, "-c", ".")
	cmd.Stderr = &tarErr
	stream, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	rc, importErr := e.cli.ImageImport(ctx, image.ImportSource{Source: stream, SourceName: "-"}, opts.Tag,
		image.ImportOptions{Changes: importChanges(opts), Message: "fsmove image build (debootstrap)"})
	if importErr == nil {
		importErr = readJSONMessages(rc, opts.Log)
		rc.Close()
	}
	io.Copy(io.Discard, stream) // let tar finish if the import stopped early
	tarWaitErr := cmd.Wait()
	if importErr != nil {
		return fmt.Errorf("import rootfs: %w", importErr)
	}
	if tarWaitErr != nil {
		return fmt.Errorf("tar of the rootfs: %w\n%s", tarWaitErr, tarErr.String())
	}
	return nil
}

// stopGrace is how long a command (debootstrap, apt in the rootfs) has to
// clean up after SIGINT before its process group is killed.
const stopGrace = 20 * time.Second

// runLogged runs a command. Its output goes to log when set, else it is
// kept and its tail returned in the error when the command fails.
//
// The command runs in a process group of its own. When ctx ends, the group
// gets SIGINT, on which debootstrap unmounts what it mounted in the rootfs
// (/proc, /sys) and its children (wget, dpkg) stop; after stopGrace, or
// once the command has exited, whatever is left of the group is killed.
// The error is then ctx's.
func runLogged(ctx context.Context, log io.Writer, name string, args ...string) error {
	var out tailBuffer
	cmd := exec.CommandContext(ctx, name, args...)
	if log != nil {
		cmd.Stdout, cmd.Stderr = log, log
	} else {
		cmd.Stdout, cmd.Stderr = &out, &out
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = stopGrace
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // leftovers of the group, if any
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s failed: %w\n%s", name, err, out.String())
	}
	return nil
}

// removeRootfs removes a rootfs build directory. Anything still mounted
// under it (a debootstrap killed before it could unmount /proc and /sys in
// the rootfs) is unmounted first, so that the removal never reaches into
// the host's /proc or /sys.
func removeRootfs(dir string) error {
	if err := unmountUnder(dir); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// unmountUnder detaches every mount below dir, deepest first.
func unmountUnder(dir string) error {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil // not Linux, or no /proc: nothing fsmove could have mounted
	}
	points := MountsUnder(string(data), dir)
	var firstErr error
	for _, p := range points {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("unmount %s: %w", p, err)
		}
	}
	return firstErr
}

// MountsUnder returns the mount points of mountinfo (/proc/self/mountinfo's
// text) that lie below dir, deepest first.
func MountsUnder(mountinfo, dir string) []string {
	prefix := strings.TrimSuffix(filepath.Clean(dir), "/") + "/"
	mounts, _ := linux.ParseMountinfo(strings.NewReader(mountinfo))
	var points []string
	for _, m := range mounts {
		if strings.HasPrefix(m.Dir, prefix) {
			points = append(points, m.Dir)
		}
	}
	// A mount below another has the longer path.
	sort.Slice(points, func(i, j int) bool {
		if len(points[i]) != len(points[j]) {
			return len(points[i]) > len(points[j])
		}
		return points[i] < points[j]
	})
	return points
}

// tailBuffer keeps the last tailBytes bytes written to it: enough to show
// why a build failed without holding a whole debootstrap log.
type tailBuffer struct {
	b []byte
}

const tailBytes = 8 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	b := t.b
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}
