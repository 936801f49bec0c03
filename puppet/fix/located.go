package fix

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsmove/fsmove/internal/files"
)

// Located is a module's manifests as a run applied them, and what Puppet's
// parser found in each: fsmove run saves it beside the catalog
// (runner.ManifestsFile) when the run has findings, so that its reports,
// a later fsmove analyze of the run and fsmove fix place edits in the text
// the run applied, without Docker and whatever the files hold since.
type Located struct {
	ModuleDir string        `json:"module_dir"` // absolute, on this machine
	Files     []LocatedFile `json:"files"`
}

// LocatedFile is one manifest: its path (absolute, as the catalog's file
// names map to this machine), its text (bytes, so base64 in JSON: offsets
// count bytes, and a text that is not UTF-8 must come back as it was), and
// the parser's answer.
type LocatedFile struct {
	Path     string    `json:"path"`
	Text     []byte    `json:"text"`
	Manifest *Manifest `json:"manifest"`
}

// NewLocated is the module at dir's manifests, texts, and what Locate
// found in them.
func NewLocated(dir string, texts map[string][]byte, found map[string]*Manifest) *Located {
	l := &Located{ModuleDir: dir}
	for name, text := range texts {
		l.Files = append(l.Files, LocatedFile{Path: name, Text: text, Manifest: found[name]})
	}
	l.sort()
	return l
}

func (l *Located) sort() {
	slices.SortFunc(l.Files, func(a, b LocatedFile) int { return strings.Compare(a.Path, b.Path) })
}

// ModuleManifests reads every .pp file under the module's manifests/, by
// absolute path. A file changed after since (the run's start; zero: not
// checked) is refused: the catalog's lines are of the text the run
// applied.
func ModuleManifests(dir string, since time.Time) (map[string][]byte, error) {
	texts := map[string][]byte{}
	root := filepath.Join(dir, "manifests")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(path, ".pp") {
			if info, err := d.Info(); err == nil && !since.IsZero() && info.ModTime().After(since) {
				return fmt.Errorf("%s changed after the run began (%s): run the module again (fsmove fix MODULE does)", path, since.Format(time.RFC3339))
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			texts[path] = data
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the module's manifests: %w", err)
	}
	return texts, nil
}

// Sources are the located files as Make takes them.
func (l *Located) Sources() map[string]*Source {
	sources := map[string]*Source{}
	for _, f := range l.Files {
		m := f.Manifest
		if m == nil {
			m = &Manifest{Path: f.Path, Error: "not parsed"}
		}
		sources[f.Path] = &Source{Text: f.Text, Manifest: m}
	}
	return sources
}

// Changed names the located files whose text on this machine is no longer
// the one the run applied (changed or gone): an edit placed in the run's
// text must not be written over another.
func (l *Located) Changed() []string {
	var changed []string
	for _, f := range l.Files {
		if data, err := os.ReadFile(f.Path); err != nil || string(data) != string(f.Text) {
			changed = append(changed, f.Path)
		}
	}
	return changed
}

// Write saves l at path, through a temporary file and a rename: a reader
// never sees half of it.
func (l *Located) Write(path string) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return files.Replace(path, append(data, '\n'), 0o644)
}

// ReadLocated reads what Write saved. Its spans are checked when Make uses
// them, like the locator's.
func ReadLocated(path string) (*Located, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Located
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	l.sort()
	return &l, nil
}
