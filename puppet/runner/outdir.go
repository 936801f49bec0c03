package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// artifactNames are the names fsmove writes in an output directory: the
// artifacts, run.json, and the temporary directory of the catalog's copy
// (.catalog-*, left only by a run that was killed).
var artifactNames = []string{TraceFile, CatalogFile, PuppetLogFile, GraphsDir, PackagesFile, SiteFile, SetupLogFile, RunJSON, ConfirmDir}

// isArtifactName reports whether name, an entry of an output directory, is
// one fsmove writes.
func isArtifactName(name string) bool {
	for _, a := range artifactNames {
		if name == a {
			return true
		}
	}
	return strings.HasPrefix(name, ".catalog-")
}

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
	for _, e := range entries {
		if !isArtifactName(e.Name()) {
			continue // CheckOutDir saw none; one made since is not ours
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("output directory: %w", err)
		}
	}
	return nil
}
