package runner

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/module"
)

// RerunOptions are the options that apply again what the run in dir
// applied: the same module, entry manifest (its site.pp), --modulepath,
// setup, image and init, from its run.json. fsmove confirm starts from
// them; OutDir, Tracer and the progress are the caller's.
func RerunOptions(dir string) (Options, error) {
	rec, err := ReadRecord(dir)
	if err != nil {
		return Options{}, fmt.Errorf("%s holds no run of fsmove run: %w", dir, err)
	}
	site, err := os.ReadFile(filepath.Join(dir, SiteFile))
	if err != nil {
		return Options{}, fmt.Errorf("the run's entry manifest: %w", err)
	}
	// The saved site.pp is what was applied, whatever the entry flags were.
	entry := Entry{Manifest: filepath.Join(dir, SiteFile), ManifestText: string(site), Setup: append([]SetupStep(nil), rec.Entry.Setup...)}
	for i, s := range entry.Setup {
		if s.File == "" {
			continue
		}
		if entry.Setup[i].Script, err = os.ReadFile(s.File); err != nil {
			return Options{}, fmt.Errorf("the run's --setup-file: %w", err)
		}
	}
	for _, d := range append([]string{rec.Module.Dir}, rec.ModulePath...) {
		if d == "" {
			continue
		}
		if info, err := os.Stat(d); err != nil || !info.IsDir() {
			return Options{}, fmt.Errorf("the run's module directory %s is gone", d)
		}
	}
	// The dependencies are read again (the run checked them unless
	// --no-deps, which run.json shows by having none).
	var deps []module.Dependency
	var depWarnings []module.Warning
	if rec.Dependencies != nil {
		if deps, depWarnings, err = ReadDependencies(rec.Module, rec.ModulePath); err != nil {
			return Options{}, fmt.Errorf("the run's module: %w", err)
		}
	}
	return Options{
		Module:             rec.Module,
		Entry:              entry,
		ModulePath:         rec.ModulePath,
		Dependencies:       deps,
		DependencyWarnings: depWarnings,
		Image:              container.ImageOptions{Tag: rec.Image.Tag, Suite: rec.Image.Suite},
		Init:               rec.Init,
		FsmoveVersion:      rec.FsmoveVersion,
	}, nil
}

// absPaths makes paths absolute (as given when that fails).
func absPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		out = append(out, p)
	}
	return out
}
