package fix

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"path"
	"slices"
	"strconv"

	"github.com/fsmove/fsmove/puppet/container"
)

// locator is the Ruby program that asks Puppet's parser where things are.
//
//go:embed locate.rb
var locator []byte

// marker starts the locator's line of JSON.
const marker = "FSMOVE-FIX-MANIFESTS "

// locateDir is where the manifests go in the locator's container.
const locateDir = "/fsmove-fix"

// Locate parses the manifests (their texts, by name) with the Puppet of
// image, in a container of its own with no network, and returns what the
// parser found in each, by the same names.
func Locate(ctx context.Context, eng *container.Engine, image string, texts map[string][]byte) (map[string]*Manifest, error) {
	names := make([]string, 0, len(texts))
	for n := range texts {
		names = append(names, n)
	}
	slices.Sort(names)
	a := container.NewArchive()
	dir := locateDir[1:] // the archive's names are relative to /
	a.AddFile(path.Join(dir, "locate.rb"), locator, 0o644)
	args := []string{"ruby", path.Join(locateDir, "locate.rb")}
	for i, n := range names {
		f := strconv.Itoa(i) + ".pp"
		a.AddFile(path.Join(dir, f), texts[n], 0o644)
		args = append(args, path.Join(locateDir, f))
	}
	tarball, err := a.Bytes()
	if err != nil {
		return nil, err
	}
	c, err := eng.Start(ctx, container.Spec{Image: image, Network: container.NetworkNone, Init: container.InitNone})
	if err != nil {
		return nil, fmt.Errorf("fix: starting a container of %s to parse the manifests: %w", image, err)
	}
	defer c.Remove(context.WithoutCancel(ctx))
	if err := c.CopyIn(ctx, "/", bytes.NewReader(tarball)); err != nil {
		return nil, fmt.Errorf("fix: copying the manifests in: %w", err)
	}
	var out bytes.Buffer
	code, err := c.Exec(ctx, args, nil, &out)
	if err != nil {
		return nil, fmt.Errorf("fix: running Puppet's parser: %w", err)
	}
	if code != 0 {
		return nil, fmt.Errorf("fix: Puppet's parser exited %d: %s", code, tail(out.Bytes()))
	}
	return parseLocatorOutput(out.Bytes(), names)
}

// parseLocatorOutput finds the locator's line in its output and maps its files
// (0.pp, 1.pp… in the order of names) back to names.
func parseLocatorOutput(out []byte, names []string) (map[string]*Manifest, error) {
	var line []byte
	for l := range bytes.Lines(out) {
		if j, ok := bytes.CutPrefix(l, []byte(marker)); ok {
			line = j
		}
	}
	if line == nil {
		return nil, fmt.Errorf("fix: Puppet's parser said nothing fsmove reads: %s", tail(out))
	}
	m, err := ParseManifests(line)
	if err != nil {
		return nil, err
	}
	if len(m.Files) != len(names) {
		return nil, fmt.Errorf("fix: Puppet's parser gave %d files for %d", len(m.Files), len(names))
	}
	byName := map[string]*Manifest{}
	for i := range m.Files {
		m.Files[i].Path = names[i]
		byName[names[i]] = &m.Files[i]
	}
	return byName, nil
}

// tail is the end of an output, for an error.
func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 600 {
		b = b[len(b)-600:]
	}
	return string(b)
}
