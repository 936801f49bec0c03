package runner

// The manifests of the Debian module packages a run used as dependencies,
// copied out so that a report can show a finding's source lines and its
// file where the user can open it: <out>/sources/<package>/<name>/manifests/…
// (the Debian package it came from is in the path, so every format that
// shows the file shows the package too), recorded in PathMap relative to the run's directory (the directory is
// renamed into place after the run: RunRecord.HostPathMap).

import (
	"context"
	"path/filepath"

	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/module"
)

// SourcesDir holds, one directory per Debian package and in it one per
// module, the manifests of the Debian dependencies of a run.
const SourcesDir = "sources"

// Budgets of the copied manifests: a module's manifests are some hundred
// kilobytes; what is over is left out (its lines are then not shown).
const (
	sourceFileBudget = 1 << 20
	sourcesBudget    = 32 << 20
)

// copySources copies the manifests of the run's Debian dependencies out of
// the container. A failure only costs the reports their source lines: it
// is said, and the run goes on.
func (r *run) copySources(ctx context.Context) {
	budget := &container.Budget{PerFile: sourceFileBudget, Total: sourcesBudget}
	for _, f := range r.deps.Local(module.FromDebian) {
		from := debianModules + "/" + f.Name
		to := SourcesDir + "/" + f.Package + "/" + f.Name
		rc, err := r.c.CopyOut(ctx, from+"/manifests")
		if err == nil {
			_, err = container.ExtractManifests(rc, filepath.Join(r.opts.OutDir, filepath.FromSlash(to)), budget)
			rc.Close()
		}
		if err != nil {
			r.warnf(err, "fsmove: %s's manifests not copied (reports show its files in the image): %v\n", f.Name, err)
			continue
		}
		if r.rec.PathMap == nil {
			r.rec.PathMap = map[string]string{}
		}
		r.rec.PathMap[from] = to
	}
	r.overBudget(budget.Over, false)
}

// HostPathMap is PathMap with the directories it maps to inside the run's
// directory dir (SourcesDir's) made absolute.
func (r *RunRecord) HostPathMap(dir string) map[string]string {
	if len(r.PathMap) == 0 {
		return nil
	}
	m := make(map[string]string, len(r.PathMap))
	for from, to := range r.PathMap {
		if !filepath.IsAbs(to) {
			to = filepath.Join(dir, to)
		}
		m[from] = to
	}
	return m
}
