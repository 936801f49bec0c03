package container

// The image keeps every puppet-module-* package of its suite as a .deb, with
// an index of them, so that a run can satisfy a module's dependencies from
// Debian offline (--network none), and fsmove can check those dependencies
// before any container starts: the index is also an image label, which
// ImageInspect reads.

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/docker/docker/api/types/container"
)

// ModuleDebsDir holds, in the image, the .deb of every puppet-module-*
// package of the suite, and the .debs those need beyond what the image has
// installed (puppet, lsb-release, …): one file PACKAGE_VERSION_ARCH.deb per
// package.
const ModuleDebsDir = "/var/lib/fsmove/module-debs"

// ModuleIndexFile is the index of ModuleDebsDir in the image, and
// ModuleIndexLabel the image label that holds the same text. Each line
// is PACKAGE<tab>VERSION<tab>MODULES: MODULES the comma-separated
// AUTHOR-NAME of the modules the package installs (from their
// metadata.json, else their directory). Lines starting with '#' are
// comments. module.ParseDebIndex reads it.
//
// What installing a package brings in besides itself is not in the
// index: ModuleDebsDir holds every .deb the module packages need, and
// apt resolves them at install time from its cache (InstallDebsScript).
// Asking apt for each package at build time took a second a package,
// a minute and a half of every image build.
const (
	ModuleIndexFile  = ModuleDebsDir + "/index.tsv"
	ModuleIndexLabel = "fsmove.modules"
)

// moduleDebsScript runs in the image being built (the Dockerfile's RUN, or
// chroot into the debootstrap rootfs), with the package lists of the suite
// in place and the network reachable. It is the same for every suite: it
// takes whatever puppet-module-* packages the suite has.
const moduleDebsScript = `set -eu
# What an earlier step left in apt's cache (debootstrap's .debs) is not ours.
apt-get clean
dir=` + ModuleDebsDir + `
mkdir -p "$dir"
cd "$dir"
pkgs=$(apt-cache pkgnames puppet-module- | sort)
if [ -z "$pkgs" ]; then : > index.tsv; exit 0; fi
# The module packages themselves, installed in the image or not.
apt-get download $pkgs
# What they need that the image lacks (puppet, …): apt's cache, moved here.
apt-get install --download-only -y --no-install-recommends $pkgs
for f in /var/cache/apt/archives/*.deb; do
  [ -e "$f" ] || continue
  base=${f##*/}
  if ls "${base%%_*}"_*.deb >/dev/null 2>&1; then rm -f "$f"; else mv "$f" .; fi
done
{
  printf '# package\tversion\tmodules\n'
  for p in $pkgs; do
    deb=$(ls "$p"_*.deb | head -n 1)
    version=$(dpkg-deb -f "$deb" Version)
    modules=""
    for d in $(dpkg-deb -c "$deb" | awk '{print $6}' | sed -n 's#^\./usr/share/puppet/modules\(\.available\)\{0,1\}/\([^/]*\)/$#\2#p' | sort -u); do
      name=$(dpkg-deb --fsys-tarfile "$deb" | tar -x -O --wildcards "./usr/share/puppet/modules*/$d/metadata.json" 2>/dev/null |
        ruby -rjson -e 'begin; puts JSON.parse(STDIN.read)["name"].to_s; rescue StandardError; end' 2>/dev/null || true)
      [ -n "$name" ] || name=$d
      modules="${modules:+$modules,}$name"
    done
    printf '%s\t%s\t%s\n' "$p" "$version" "$modules"
  done
} > index.tsv
`

// moduleDebsScriptFile is where the build puts moduleDebsScript (the
// Dockerfile's context, the rootfs).
const moduleDebsScriptFile = "fsmove-module-debs.sh"

// moduleDebsRun is the Dockerfile's shell step that fills ModuleDebsDir.
func moduleDebsRun() string {
	return "sh /tmp/" + moduleDebsScriptFile + " && rm /tmp/" + moduleDebsScriptFile
}

// labelModuleIndex copies the index out of the image just built (a
// created, never started container of it) and commits the image again
// under the same tag with the index as ModuleIndexLabel, the image's other
// labels kept.
func (e *Engine) labelModuleIndex(ctx context.Context, opts ImageOptions) error {
	_, _, labels, err := e.inspectImage(ctx, opts.Tag)
	if err != nil {
		return err
	}
	created, err := e.cli.ContainerCreate(ctx, &container.Config{Image: opts.Tag, Cmd: []string{"true"},
		Labels: map[string]string{LabelKey: LabelValue}}, nil, nil, nil, "")
	if err != nil {
		return fmt.Errorf("reading the module index of %s: %w", opts.Tag, err)
	}
	defer e.removeName(ctx, created.ID)
	rc, _, err := e.cli.CopyFromContainer(ctx, created.ID, ModuleIndexFile)
	if err != nil {
		return fmt.Errorf("reading the module index of %s: %w", opts.Tag, err)
	}
	defer rc.Close()
	index, err := readSingleFile(rc, 1<<20)
	if err != nil {
		return fmt.Errorf("reading the module index of %s: %w", opts.Tag, err)
	}
	newLabels := map[string]string{}
	for k, v := range labels {
		newLabels[k] = v
	}
	newLabels[ModuleIndexLabel] = string(index)
	_, err = e.cli.ContainerCommit(ctx, created.ID, container.CommitOptions{
		Reference: opts.Tag,
		Comment:   "fsmove: the index of " + ModuleDebsDir + " as the label " + ModuleIndexLabel,
		Config:    &container.Config{Labels: newLabels, Env: []string{"LANG=C.UTF-8"}, Cmd: []string{"/bin/bash"}},
	})
	if err != nil {
		return fmt.Errorf("labelling %s with its module index: %w", opts.Tag, err)
	}
	return nil
}

// ImageID returns the ID of the image ref; "" when there is none.
func (e *Engine) ImageID(ctx context.Context, ref string) (string, error) {
	id, _, _, err := e.inspectImage(ctx, ref)
	return id, err
}

// ImageModuleIndex returns the ModuleIndexLabel of the image ref, without
// starting a container; ok is false when the image has no such label (an
// image of an older recipe, or one fsmove did not build).
func (e *Engine) ImageModuleIndex(ctx context.Context, ref string) (index string, ok bool, err error) {
	id, _, labels, err := e.inspectImage(ctx, ref)
	if err != nil {
		return "", false, err
	}
	if id == "" {
		return "", false, fmt.Errorf("no image %s", ref)
	}
	index, ok = labels[ModuleIndexLabel]
	return index, ok, nil
}

// readSingleFile reads the one regular file of a tar stream (what
// CopyFromContainer gives for a file), at most limit bytes.
func readSingleFile(r io.Reader, limit int64) ([]byte, error) {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("no file in the copy: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if h.Size > limit {
			return nil, fmt.Errorf("%s is %d bytes, over %d", h.Name, h.Size, limit)
		}
		return io.ReadAll(io.LimitReader(tr, limit))
	}
}

// keepModuleDebs runs moduleDebsScript in the debootstrap rootfs.
func keepModuleDebs(ctx context.Context, rootfs string, opts ImageOptions) error {
	if err := os.WriteFile(filepath.Join(rootfs, "tmp", moduleDebsScriptFile), []byte(moduleDebsScript), 0o644); err != nil {
		return err
	}
	defer os.Remove(filepath.Join(rootfs, "tmp", moduleDebsScriptFile))
	return runLogged(ctx, opts.Log, "chroot", rootfs, "/bin/sh", "/tmp/"+moduleDebsScriptFile)
}
