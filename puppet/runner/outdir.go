package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsmove/fsmove/puppet/container"
	"golang.org/x/sys/unix"
)

// OutDirError says why a directory cannot receive a run. EarlierRun: it
// holds an earlier run, which Force replaces. Otherwise it is not a
// directory, or it holds files that are not fsmove's, and no flag makes
// fsmove delete those.
type OutDirError struct {
	Dir        string
	EarlierRun bool
	// Found are (some of) the entries that decided it, sorted.
	Found  []string
	NotDir bool
}

func (e *OutDirError) Error() string {
	switch {
	case e.NotDir:
		return fmt.Sprintf("--out %s is not a directory", e.Dir)
	case e.EarlierRun:
		return fmt.Sprintf("--out %s holds an earlier run (%s): give --force to replace it, or another --out", e.Dir, listSome(e.Found))
	default:
		return fmt.Sprintf("--out %s is not empty and not a run's directory (it holds %s): fsmove never deletes files it did not write, even with --force; give a new or empty directory", e.Dir, listSome(e.Found))
	}
}

func listSome(names []string) string {
	const show = 4
	if len(names) > show {
		return strings.Join(names[:show], ", ") + fmt.Sprintf(" and %d more", len(names)-show)
	}
	return strings.Join(names, ", ")
}

// CheckOutDir says whether dir can receive a run: a missing or empty
// directory can; one that holds an earlier run (run.json or any artifact,
// and nothing else) can with force, which empties it; one that holds
// anything else cannot (*OutDirError). It changes nothing: fsmove run calls
// it before anything starts, Run again when it prepares dir.
func CheckOutDir(dir string, force bool) error {
	if dir == "" {
		return errors.New("no output directory")
	}
	info, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	if !info.IsDir() {
		return &OutDirError{Dir: dir, NotDir: true}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	var ours, foreign []string
	for _, e := range entries {
		if isArtifactName(e.Name()) {
			ours = append(ours, e.Name())
		} else {
			foreign = append(foreign, e.Name())
		}
	}
	sort.Strings(ours)
	sort.Strings(foreign)
	switch {
	case len(foreign) > 0:
		return &OutDirError{Dir: dir, Found: foreign}
	case len(ours) > 0 && !force:
		return &OutDirError{Dir: dir, EarlierRun: true, Found: ours}
	}
	return nil
}

// prepareOutDir checks dir (CheckOutDir), creates it, and with force
// removes the earlier run it holds, so that two runs never mix their files.
func prepareOutDir(dir string, force bool) error {
	if err := CheckOutDir(dir, force); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	if err := removeArtifacts(dir, entries); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	return nil
}

// removeArtifacts removes, of dir's entries, those fsmove writes; any other
// (none, when CheckOutDir passed; one made since is not fsmove's) stays.
func removeArtifacts(dir string, entries []os.DirEntry) error {
	for _, e := range entries {
		if !isArtifactName(e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// RunsDir is where runs go without --out: $XDG_STATE_HOME/fsmove/runs, or
// ~/.local/state/fsmove/runs. The XDG base directory specification's state
// directory holds what an application keeps between its runs but that is
// not the user's data (logs, history): a run's artifacts are that, and
// unlike a cache they must stay for fsmove confirm and fsmove analyze DIR.
func RunsDir() (string, error) {
	if state := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(state) { // the spec: a relative one is ignored
		return filepath.Join(state, "fsmove", "runs"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no place for the run's artifacts (%v): give --out DIR", err)
	}
	return filepath.Join(home, ".local", "state", "fsmove", "runs"), nil
}

// DefaultOutDir is the run's place in RunsDir: <name>-<hash>, where hash is
// a short digest of what identifies what is applied (a module directory's
// absolute path, a package or Forge module as given, a manifest file's
// absolute path, or -e). So the place is the same from any current
// directory, and two modules of the same name have two places. A rerun
// replaces the run in its place (ReplaceRun), whatever its flags, but a
// run on another suite has a place of its own, <name>-<suite>-<hash> (the
// suite in the digest too), so that a module's bookworm and trixie runs
// are both kept. The default suite's place is the one fsmove used before
// it had suites: the runs made then stay where fsmove confirm MODULE
// looks.
func DefaultOutDir(spec ModuleSpec, entry Entry, suite string) (string, error) {
	runs, err := RunsDir()
	if err != nil {
		return "", err
	}
	key := string(spec.Kind) + ":" + spec.Raw
	switch {
	case spec.Kind == SourceDir:
		key = string(spec.Kind) + ":" + spec.Dir
	case spec.Kind == SourceNone && entry.Manifest != "":
		key = "manifest:" + absPaths([]string{entry.Manifest})[0]
	}
	name := spec.Name
	if suite != "" && suite != container.DefaultSuite {
		key += "\nsuite:" + suite
		name += "-" + suite
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(runs, name+"-"+hex.EncodeToString(sum[:4])), nil
}

// FailedSuffix names, beside a run's default place, the last run that
// failed before its trace and catalog were copied out; the earlier run in
// the place is kept.
const FailedSuffix = ".failed"

// ReplaceRun puts the run captured in newDir (a sibling of dir) at dir,
// replacing the run dir holds: dir is renamed aside, newDir renamed to
// dir, and only then is the earlier run removed, fsmove's files only (a
// directory with other files is refused, as CheckOutDir refuses it, and
// both stay as they are). newDir must not be empty of a trace: the caller
// replaces only once the new run's trace and catalog are out.
func ReplaceRun(newDir, dir string) error {
	if err := CheckOutDir(dir, true); err != nil {
		return err
	}
	aside := ""
	if _, err := os.Stat(dir); err == nil {
		// A unique name, made as a directory and freed again: os.Rename
		// does not replace a directory.
		if aside, err = os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".old-"); err != nil {
			return err
		}
		if err := os.Remove(aside); err != nil {
			return err
		}
		if err := os.Rename(dir, aside); err != nil {
			return err
		}
	}
	if err := os.Rename(newDir, dir); err != nil {
		if aside != "" {
			os.Rename(aside, dir)
		}
		return err
	}
	if aside == "" {
		return nil
	}
	return RemoveRun(aside)
}

// RemoveRun removes a run's directory: fsmove's files in it, then the
// directory if that left it empty. A missing directory is no error.
func RemoveRun(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := removeArtifacts(dir, entries); err != nil {
		return err
	}
	return os.Remove(dir)
}

// StagingInfix and InterruptedInfix name, beside a run's default place,
// the directory a run captures into (<place>.new-<n>, renamed to the place
// once its trace and catalog are out) and one whose fsmove was killed
// before that (<place>.interrupted-<n>, which keeps what it captured).
const (
	StagingInfix     = ".new-"
	InterruptedInfix = ".interrupted-"
)

// LockStaging holds an exclusive lock on the staging directory dir for as
// long as this process lives (or until release): the kernel drops it when
// the process dies, however it dies, which is how SweepStaging tells a dead
// run's directory from a live one.
func LockStaging(dir string) (release func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}

// stagingGrace keeps SweepStaging off a staging directory just made, whose
// fsmove has not locked it yet (it does at once, in its next system call).
const stagingGrace = 5 * time.Second

// SweepStaging finds, in the runs directory runs, the staging directories
// of runs whose fsmove died (no lock held on them) and renames each to
// <place>.interrupted-<n>: what it captured is kept, under a name that does
// not say a run is going on; an empty one is removed. With dryRun it only
// lists them. It returns the directories kept (their new names, or with
// dryRun their names).
func SweepStaging(runs string, dryRun bool) ([]string, error) {
	entries, err := os.ReadDir(runs)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var swept []string
	for _, e := range entries {
		if !e.IsDir() || !strings.Contains(e.Name(), StagingInfix) {
			continue
		}
		dir := filepath.Join(runs, e.Name())
		if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < stagingGrace {
			continue
		}
		release, err := LockStaging(dir)
		if err != nil {
			continue // live, or gone
		}
		if !dryRun && os.Remove(dir) == nil {
			release() // it was empty: killed before it captured anything
			continue
		}
		to := filepath.Join(runs, strings.Replace(e.Name(), StagingInfix, InterruptedInfix, 1))
		if dryRun {
			release()
			swept = append(swept, dir)
			continue
		}
		err = os.Rename(dir, to)
		release()
		if err != nil {
			return swept, err
		}
		swept = append(swept, to)
	}
	return swept, nil
}
