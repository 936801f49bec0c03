package runner

// Preparing the container between putting the modules in place and the
// traced apply: the module a Debian package really installed, and the
// user's setup commands (--setup, --setup-file), run untraced.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsmove/fsmove/internal/lines"
	"github.com/fsmove/fsmove/puppet/container"
)

// SetupStep is one preparation of the node, run in the container after
// the modules are in place and before the traced apply, untraced, the way
// a module's test suite prepares a node (a directory the module assumes, a
// package it expects). Exactly one of Command and File is set.
type SetupStep struct {
	// Command (--setup) runs as /bin/sh -c COMMAND.
	Command string `json:"command,omitempty"`
	// File (--setup-file) is a local shell script, copied into the
	// container and run with /bin/sh; Script is its content.
	File   string `json:"file,omitempty"`
	Script []byte `json:"-"`
}

// setupDir holds the --setup-file scripts in the container.
const setupDir = workDir + "/setup"

// ReadSetupFile reads a --setup-file script.
func ReadSetupFile(path string) (SetupStep, error) {
	info, err := os.Stat(path)
	if err != nil {
		return SetupStep{}, fmt.Errorf("--setup-file %s: %w", path, unwrapPathError(err))
	}
	if !info.Mode().IsRegular() {
		return SetupStep{}, fmt.Errorf("--setup-file %s: not a regular file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return SetupStep{}, fmt.Errorf("--setup-file %s: %w", path, unwrapPathError(err))
	}
	return SetupStep{File: path, Script: data}, nil
}

// unwrapPathError drops the path an *os.PathError repeats.
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// CheckModulePath checks every --modulepath directory as the run will
// place it (a directory of modules, or one module), so that a bad path
// fails before any container starts.
func CheckModulePath(dirs []string) error {
	for i, dir := range dirs {
		if _, err := modulePathEntry(dir, fmt.Sprintf("%s/%d", modulePathDir, i)); err != nil {
			return err
		}
	}
	return nil
}

// describe is how the step is shown in setup.log and in messages.
func (st SetupStep) describe() string {
	if st.File != "" {
		return "--setup-file " + st.File
	}
	return "--setup " + st.Command
}

// setupScriptPath is where the --setup-file script of step i goes in the
// container: setup/<i+1>-<base name>.
func setupScriptPath(i int, st SetupStep) string {
	return fmt.Sprintf("%s/%d-%s", setupDir, i+1, filepath.Base(st.File))
}

// setup runs the setup steps (the "setup" step of run.json) when there are
// any, writing their output to SetupLogFile. A step that exits non-zero
// fails the run with the tail of its output.
func (r *run) setup(ctx context.Context) error {
	logPath := filepath.Join(r.opts.OutDir, SetupLogFile)
	steps := r.opts.Entry.Setup
	if len(steps) == 0 {
		return nil
	}
	msg := "running " + steps[0].describe()
	if len(steps) > 1 {
		msg = fmt.Sprintf("running %d setup steps", len(steps))
	}
	return r.step(ctx, "setup", msg, func(s *Step) (string, error) {
		log, err := os.Create(logPath)
		if err != nil {
			return "", err
		}
		defer log.Close()
		a := container.NewArchive()
		scripts := 0
		for i, st := range steps {
			if st.File != "" {
				a.AddFile(setupScriptPath(i, st), st.Script, 0o755)
				scripts++
			}
		}
		if scripts > 0 {
			data, err := a.Bytes()
			if err != nil {
				return "", err
			}
			if err := r.c.CopyIn(ctx, "/", bytes.NewReader(data)); err != nil {
				return "", err
			}
		}
		for i, st := range steps {
			cmd := []string{"/bin/sh", "-c", st.Command}
			if st.File != "" {
				cmd = []string{"/bin/sh", setupScriptPath(i, st)}
			}
			if len(steps) > 1 {
				s.Update(fmt.Sprintf("%d/%d: %s", i+1, len(steps), lines.First(st.describe())))
			}
			fmt.Fprintf(log, "### setup %d/%d: %s\n", i+1, len(steps), st.describe())
			var out bytes.Buffer
			w := io.MultiWriter(log, &out)
			if r.opts.Verbose {
				w = io.MultiWriter(log, &out, r.opts.Log)
			}
			start := time.Now()
			status, err := r.c.Exec(ctx, cmd, []string{"DEBIAN_FRONTEND=noninteractive"}, w)
			if err != nil {
				fmt.Fprintf(log, "### %v\n", err)
				return "", err
			}
			fmt.Fprintf(log, "### exit status %d (%.1f s)\n", status, time.Since(start).Seconds())
			if status != 0 {
				tail := lines.Last(out.String(), 15)
				if strings.TrimSpace(tail) == "" {
					tail = "(no output)"
				}
				return "", fmt.Errorf("setup step %d/%d (%s) failed with status %d; its output is in %s:\n%s", i+1, len(steps), lines.First(st.describe()), status, logPath, tail)
			}
		}
		if len(steps) == 1 {
			return "exit 0", nil
		}
		return fmt.Sprintf("%d steps, all exit 0", len(steps)), nil
	})
}

// findDebModule checks that the Debian package installed the module the
// spec names, or else takes the module the package did install (its name
// guessed from the package's name may be wrong: puppet-module-heini-wait-for
// installs wait_for), from dpkg -L and the links in
// /usr/share/puppet/modules (InstalledModule). When the name changes, the
// run's module is renamed and, if the entry manifest includes the module's
// class by that name, site.pp is written again.
func (r *run) findDebModule(ctx context.Context, s *Step, site string) error {
	m := r.opts.Module
	var list, links bytes.Buffer
	status, err := r.c.Exec(ctx, []string{"dpkg", "-L", m.Package}, nil, &list)
	if err != nil {
		return err
	}
	if status != 0 {
		return fmt.Errorf("%s installed, but dpkg -L %s failed (status %d): %s", m.Package, m.Package, status, strings.TrimSpace(list.String()))
	}
	script := `for m in ` + debianModules + `/*; do [ -e "$m" ] && printf '%s\t%s\n' "${m##*/}" "$(readlink -f "$m")"; done; true`
	status, err = r.c.Exec(ctx, []string{"/bin/sh", "-c", script}, nil, &links)
	if err != nil {
		return err
	}
	if status != 0 {
		return fmt.Errorf("listing %s failed (status %d): %s", debianModules, status, strings.TrimSpace(links.String()))
	}
	name, ok := InstalledModule(m, list.String(), links.String())
	if !ok {
		return fmt.Errorf("%s installed, but no module in %s is the package's, neither %s/%s nor a link to its files "+
			"(dpkg -L %s lists them): is it a Puppet module package?", m.Package, debianModules, debianModules, m.Name, m.Package)
	}
	if name == m.Name {
		return nil
	}
	if err := checkModuleName(name); err != nil {
		return fmt.Errorf("%s installed %s/%s, which is not a module name Puppet accepts: %w", m.Package, debianModules, name, err)
	}
	note := fmt.Sprintf("%s installed the module %s (not %s, as its name suggested)", m.Package, name, m.Name)
	s.Update(note)
	if r.opts.Verbose {
		fmt.Fprintf(r.opts.Log, "fsmove: %s\n", note)
	}
	m = m.withInstalledName(name)
	r.opts.Module, r.rec.Module = m, m
	newSite, err := r.opts.Entry.SitePP(m.Name)
	if err != nil {
		return err
	}
	if newSite == site {
		return nil
	}
	a := container.NewArchive()
	a.AddFile(sitePP, []byte(newSite), 0o644)
	data, err := a.Bytes()
	if err != nil {
		return err
	}
	if err := r.c.CopyIn(ctx, "/", bytes.NewReader(data)); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.opts.OutDir, SiteFile), []byte(newSite), 0o644)
}
