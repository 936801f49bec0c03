package runner

// The module's dependencies (metadata.json, .fixtures.yml, Puppetfile):
// found before any container starts (the step "deps"), then put in place
// with the module (the step "modules"): local ones copied in, Debian ones
// installed from the .debs the image keeps, offline.

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/module"
)

// fixturesInContainer holds the dependencies taken from the module's
// spec/fixtures/modules, one directory each, on Puppet's module path after
// --modulepath.
const fixturesInContainer = workDir + "/fixtures"

// ReadDependencies reads the dependencies of a module directory
// (module.ReadDependencies). Without a module (-e, --manifest), the code
// uses the modules of modulePath (--modulepath), so each of them is a
// dependency: Resolve finds it there and resolves its metadata.json's
// dependencies as it does a module's (its stdlib from Debian, say). Other
// kinds of module have none to read here (a Debian package's are apt's, a
// Forge module's puppet module install's). The warnings are what could
// not be read (Options.DependencyWarnings).
func ReadDependencies(m ModuleSpec, modulePath []string) ([]module.Dependency, []module.Warning, error) {
	switch m.Kind {
	case SourceDir:
		return module.ReadDependencies(m.Dir, m.Name)
	case SourceNone:
		mods, err := modulePathModules(modulePath)
		if err != nil {
			return nil, nil, err
		}
		var deps []module.Dependency
		for _, name := range slices.Sorted(maps.Keys(mods)) {
			deps = append(deps, module.Dependency{Name: module.Name{Name: name}, From: "--modulepath"})
		}
		return deps, nil, nil
	}
	return nil, nil, nil
}

// resolveDeps finds Options.Dependencies (the step "deps"), after the image
// is known and before any container starts: the image's index of its
// Debian module packages is its label. Nothing found here stops the run
// (a dependency found nowhere matters only if the code uses it, which
// the compile says): the warnings are said, one line each, their detail
// with -v, and recorded.
func (r *run) resolveDeps(ctx context.Context) error {
	deps := r.opts.Dependencies
	if len(deps) == 0 {
		r.sayWarnings(r.opts.DependencyWarnings)
		return nil
	}
	what := fmt.Sprintf("finding %d dependencies", len(deps))
	if len(deps) == 1 {
		what = "finding 1 dependency"
	}
	return r.step(ctx, "deps", what, func(s *Step) (string, error) {
		c := module.Candidates{Image: r.rec.Image.Tag}
		var err error
		if c.ModulePath, err = modulePathModules(r.opts.ModulePath); err != nil {
			return "", err
		}
		if m := r.opts.Module; m.Kind == SourceDir {
			c.FixturesDir = filepath.Join(m.Dir, module.FixturesDir)
		}
		index, ok, err := r.eng.ImageModuleIndex(ctx, r.rec.Image.ID)
		if err != nil {
			return "", err
		}
		if ok {
			if c.Debian, err = module.ParseDebIndex(index); err != nil {
				return "", fmt.Errorf("the image %s: %w", r.rec.Image.Tag, err)
			}
			c.DebianKnown = true
		}
		res, err := module.Resolve(r.opts.Module.Name, deps, c)
		if err != nil {
			return "", err
		}
		res.Warnings = append(slices.Clone(r.opts.DependencyWarnings), res.Warnings...)
		r.sayWarnings(res.Warnings)
		r.deps = res
		r.rec.Dependencies = &res
		return res.Summary(), nil
	})
}

// sayWarnings prints each warning on one line, and with -v its detail
// under it.
func (r *run) sayWarnings(ws []module.Warning) {
	for _, w := range ws {
		fmt.Fprintf(r.opts.Log, "fsmove: warning: %s\n", w.Line)
		if r.opts.Verbose && w.Detail != "" {
			fmt.Fprintf(r.opts.Log, "  %s\n", w.Detail)
		}
	}
}

// modulePathModules lists the modules of the --modulepath directories by
// the name Puppet loads each by, as Puppet searches them: the first of a
// name wins.
func modulePathModules(dirs []string) (map[string]string, error) {
	mods := map[string]string{}
	add := func(name, dir string) {
		if _, ok := mods[name]; !ok && module.CheckName(name) == nil {
			mods[name] = dir
		}
	}
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		entry, err := modulePathEntry(abs, "")
		if err != nil {
			return nil, err
		}
		if entry.archiveName != entry.puppetDir { // one module
			add(filepath.Base(entry.archiveName), abs)
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			return nil, fmt.Errorf("--modulepath %s: %w", dir, err)
		}
		for _, e := range entries {
			if info, err := os.Stat(filepath.Join(abs, e.Name())); err == nil && info.IsDir() {
				add(e.Name(), filepath.Join(abs, e.Name()))
			}
		}
	}
	return mods, nil
}

// addFixtures adds the dependencies found in the module's fixtures to the
// archive, and returns the module path entry they need ("" for none).
func (r *run) addFixtures(a *container.Archive) string {
	fixtures := r.deps.Local(module.FromFixtures)
	for _, f := range fixtures {
		dest := fixturesInContainer + "/" + f.Name
		a.AddDir(f.Dir, dest)
		r.rec.PathMap[dest] = f.Dir
	}
	if len(fixtures) == 0 {
		return ""
	}
	return fixturesInContainer
}

// debPackageName is what a Debian package name may hold (Debian policy
// 5.6.1): the index comes from an image label, and the names go into a
// shell command.
var debPackageName = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`)

// installDebDeps installs the Debian packages the dependencies need from
// the .debs of container.ModuleDebsDir, with no network: they are linked
// into apt's cache, where apt finds every package the module packages
// bring in (the image build kept them all), so "--no-download" holds.
func (r *run) installDebDeps(ctx context.Context, s *Step) error {
	pkgs := r.deps.Packages
	if len(pkgs) == 0 {
		return nil
	}
	for _, p := range pkgs {
		if !debPackageName.MatchString(p) {
			return fmt.Errorf("the image's module index names a package %q, which is not a Debian package name", p)
		}
	}
	s.Update(fmt.Sprintf("installing %d Debian packages from %s (offline)", len(pkgs), container.ModuleDebsDir))
	script := "cd " + container.ModuleDebsDir + ` && ln -sf "$PWD"/*.deb /var/cache/apt/archives/ && apt-get install -y --no-install-recommends --no-download ` + strings.Join(pkgs, " ")
	if err := r.execLogged(ctx, "apt-get install of the dependencies' .debs", []string{"/bin/sh", "-c", script},
		[]string{"DEBIAN_FRONTEND=noninteractive"}); err != nil {
		return fmt.Errorf("%w\n(the image's %s should hold them: fsmove image build --rebuild)", err, container.ModuleDebsDir)
	}
	return nil
}
