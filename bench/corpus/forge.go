package corpus

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/fsmove/fsmove/puppet/runner"
)

// A Forge corpus: the modules of saved pages of the Forge's module listing
// (its public API's module list, v3, as a user downloads it), one entry a
// module pinned to its current release, so that the corpus names the same
// code whenever it is run.

// forgePage is the part of a listing page the corpus needs.
type forgePage struct {
	Results []struct {
		Slug         string  `json:"slug"` // AUTHOR-NAME
		DeprecatedAt *string `json:"deprecated_at"`
		Current      *struct {
			Version   string  `json:"version"`
			DeletedAt *string `json:"deleted_at"`
		} `json:"current_release"`
	} `json:"results"`
}

// ForgeCounts says what ForgeCorpus kept and why it left the rest out.
type ForgeCounts struct {
	Kept, Deprecated, NoRelease, Duplicate, Unusable int
}

func (c ForgeCounts) String() string {
	return fmt.Sprintf("kept %d; left out %d deprecated, %d without a current release, %d listed twice, %d whose name or version fsmove cannot run",
		c.Kept, c.Deprecated, c.NoRelease, c.Duplicate, c.Unusable)
}

// ForgeCorpus reads saved listing pages (name: the file, for errors) and
// returns one entry a module, AUTHOR-NAME@VERSION of its current release,
// sorted by name: deprecated modules, modules without a current release
// (or whose release was deleted), a module listed twice and a name or
// version a corpus cannot hold are left out and counted.
func ForgeCorpus(pages map[string]io.Reader) ([]Entry, ForgeCounts, error) {
	var counts ForgeCounts
	seen := map[string]bool{}
	var entries []Entry
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var page forgePage
		if err := json.NewDecoder(pages[name]).Decode(&page); err != nil {
			return nil, counts, fmt.Errorf("%s: not a page of the Forge's module list: %w", name, err)
		}
		for _, m := range page.Results {
			switch {
			case m.DeprecatedAt != nil:
				counts.Deprecated++
				continue
			case m.Current == nil || m.Current.DeletedAt != nil || m.Current.Version == "":
				counts.NoRelease++
				continue
			case seen[m.Slug]:
				counts.Duplicate++
				continue
			}
			seen[m.Slug] = true
			spec := m.Slug + "@" + m.Current.Version
			ms, err := runner.ParseModuleSpec(spec)
			if err != nil || ms.Kind != runner.SourceForge {
				counts.Unusable++
				continue
			}
			e := Entry{Spec: spec, Module: ms, Version: ms.Version}
			e.Key = keyFor(ms, "")
			entries = append(entries, e)
			counts.Kept++
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Spec < entries[j].Spec })
	return entries, counts, nil
}
