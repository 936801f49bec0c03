package runner

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// PDKIgnoreFile lists, in gitignore syntax, what a module's release leaves
// out (PDK's "pdk build"); the module copy leaves it out too.
const PDKIgnoreFile = ".pdkignore"

// notModule are the paths of a module directory, from its root, that are
// not the module Puppet applies: the gems and fixtures of its test suite
// (vendor/, .bundle/, spec/fixtures/, where rspec-puppet keeps dependency
// modules), built packages (pkg/), and fsmove's own output where fsmove
// once put it by default (fsmove-out/). .git is left out by
// container.Archive, at any depth.
var notModule = []string{"/vendor/", "/.bundle/", "/spec/fixtures/", "/pkg/", "/fsmove-out/"}

// ModuleCopySkip is what the copy of the module at dir into the container
// leaves out (container.SkipFunc): notModule, what its .pdkignore lists,
// and the run's output directory outDir when it is inside the module (a
// trace of an earlier run would otherwise go in with the module). A
// .pdkignore that cannot be read is an error; a missing one is not.
func ModuleCopySkip(dir, outDir string) (container.SkipFunc, error) {
	var patterns []gitignore.Pattern
	for _, p := range notModule {
		patterns = append(patterns, gitignore.ParsePattern(p, nil))
	}
	more, err := readIgnoreFile(filepath.Join(dir, PDKIgnoreFile))
	if err != nil {
		return nil, err
	}
	patterns = append(patterns, more...)
	matcher := gitignore.NewMatcher(patterns)
	outRel := ""
	if outDir != "" {
		if rel, err := filepath.Rel(resolvedAbs(dir), resolvedAbs(outDir)); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			outRel = filepath.ToSlash(rel)
		}
	}
	return func(rel string, isDir bool) bool {
		if outRel != "" && (rel == outRel || strings.HasPrefix(rel, outRel+"/")) {
			return true
		}
		return matcher.Match(strings.Split(rel, "/"), isDir)
	}, nil
}

// readIgnoreFile reads the patterns of a gitignore-syntax file: one a
// line, blank lines and # comments skipped.
func readIgnoreFile(path string) ([]gitignore.Pattern, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the module's %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	var patterns []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		patterns = append(patterns, gitignore.ParsePattern(line, nil))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("the module's %s: %w", filepath.Base(path), err)
	}
	return patterns, nil
}

// resolvedAbs is p absolute, its symbolic links resolved where it exists.
func resolvedAbs(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
