package container

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/docker/docker/api/types/build"
	"github.com/fsmove/fsmove/internal/files"
)

// BenchPodImageTag is the default tag of the image a Kubernetes pod runs
// fsmove bench in (bench/k8s): BenchPodOptions.
func BenchPodImageTag(suite string) string { return "fsmove/bench-pod:" + suite }

// BenchPodImageDir is where the bench pod image keeps the saved Puppet
// image (SUITE.tar), which the pod's own engine loads.
const BenchPodImageDir = "/usr/share/fsmove/images"

// BenchPodPackages are what the bench pod image adds to the suite's image:
// the engine each pod runs its modules on, and iptables for the isolated
// network's rule.
var BenchPodPackages = []string{"docker.io", "iptables"}

// BenchPodOptions configure BuildBenchPodImage.
type BenchPodOptions struct {
	Image  ImageOptions // the suite's Puppet image, built when missing
	Tag    string       // BenchPodImageTag(suite)
	Fsmove string       // the fsmove binary to put in the image
	Log    io.Writer    // docker build's output; nil keeps it for an error
}

// BuildBenchPodImage builds the bench pod image FROM the suite's Puppet
// image: Docker Engine and iptables installed from the image's Debian
// mirror, the fsmove binary, and the Puppet image itself saved in
// BenchPodImageDir, so that every pod's engine loads the same image (the
// same ID: fsmove bench merge compares them). An image of the tag built
// from the same Puppet image and fsmove binary is reused.
func (e *Engine) BuildBenchPodImage(ctx context.Context, o BenchPodOptions) (ImageInfo, error) {
	base, err := e.EnsureImage(ctx, o.Image)
	if err != nil {
		return ImageInfo{}, err
	}
	suite := o.Image.Suite
	if suite == "" {
		suite = DefaultSuite
	}
	if o.Tag == "" {
		o.Tag = BenchPodImageTag(suite)
	}
	fsmoveSum, err := files.SHA256(o.Fsmove)
	if err != nil {
		return ImageInfo{}, fmt.Errorf("the fsmove binary for the image: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "bench-pod 1\n%s\n%s\n%s\n", base.ID, fsmoveSum, strings.Join(BenchPodPackages, ","))
	recipe := hex.EncodeToString(h.Sum(nil))[:16]
	oldID, size, labels, err := e.inspectImage(ctx, o.Tag)
	if err != nil {
		return ImageInfo{}, err
	}
	if oldID != "" && labels[RecipeLabel] == recipe {
		return ImageInfo{Tag: o.Tag, Suite: suite, ID: oldID, Method: MethodReused, Size: size}, nil
	}

	saved, err := os.CreateTemp("", "fsmove-image-*.tar")
	if err != nil {
		return ImageInfo{}, err
	}
	defer os.Remove(saved.Name())
	defer saved.Close()
	rc, err := e.cli.ImageSave(ctx, []string{base.Tag})
	if err != nil {
		return ImageInfo{}, fmt.Errorf("saving %s: %w", base.Tag, err)
	}
	_, err = io.Copy(saved, rc)
	rc.Close()
	if err != nil {
		return ImageInfo{}, fmt.Errorf("saving %s: %w", base.Tag, err)
	}

	dockerfile := fmt.Sprintf("FROM %s\n"+
		"RUN apt-get update && apt-get install -y --no-install-recommends %s && apt-get clean\n"+
		"COPY fsmove /usr/local/bin/fsmove\n"+
		"COPY %s.tar %s/%s.tar\n"+
		"LABEL %s=%s\n",
		base.Tag, strings.Join(BenchPodPackages, " "), suite, BenchPodImageDir, suite, RecipeLabel, recipe)
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeBuildContext(pw, dockerfile, map[string]string{"fsmove": o.Fsmove, suite + ".tar": saved.Name()}))
	}()
	resp, err := e.cli.ImageBuild(ctx, pr, build.ImageBuildOptions{
		Tags: []string{o.Tag}, Remove: true, ForceRemove: true,
		Labels: map[string]string{LabelKey: LabelValue, RecipeLabel: recipe},
	})
	if err != nil {
		pr.Close()
		return ImageInfo{}, fmt.Errorf("docker build: %w", err)
	}
	defer resp.Body.Close()
	var out tailBuffer
	log := io.Writer(&out)
	if o.Log != nil {
		log = o.Log
	}
	if err := readJSONMessages(resp.Body, log); err != nil {
		return ImageInfo{}, fmt.Errorf("docker build of %s failed: %w\n%s", o.Tag, err, out.String())
	}
	id, size, _, err := e.inspectImage(ctx, o.Tag)
	if err != nil {
		return ImageInfo{}, err
	}
	e.removeReplaced(ctx, oldID, id)
	return ImageInfo{Tag: o.Tag, Suite: suite, ID: id, Method: MethodDockerfile, Size: size}, nil
}

// writeBuildContext streams a build context: the Dockerfile and the files
// (name in the context: path on this machine), without holding them in
// memory (a saved image is hundreds of MB).
func writeBuildContext(w io.Writer, dockerfile string, add map[string]string) error {
	tw := tar.NewWriter(w)
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))}); err != nil {
		return err
	}
	if _, err := io.WriteString(tw, dockerfile); err != nil {
		return err
	}
	for name, path := range add {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		info, err := f.Stat()
		if err == nil {
			err = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: info.Size()})
		}
		if err == nil {
			_, err = io.Copy(tw, f)
		}
		f.Close()
		if err != nil {
			return err
		}
	}
	return tw.Close()
}

// LoadImages loads every saved image of dir (*.tar) into the engine: a
// bench pod's engine starts empty.
func (e *Engine) LoadImages(ctx context.Context, dir string, status io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, ent := range entries {
		if !strings.HasSuffix(ent.Name(), ".tar") {
			continue
		}
		f, err := os.Open(dir + "/" + ent.Name())
		if err != nil {
			return err
		}
		fmt.Fprintf(status, "fsmove bench pod: loading %s into the pod's engine\n", ent.Name())
		resp, err := e.cli.ImageLoad(ctx, f)
		if err == nil {
			err = readJSONMessages(resp.Body, io.Discard)
			resp.Body.Close()
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("loading %s: %w", ent.Name(), err)
		}
	}
	return nil
}
