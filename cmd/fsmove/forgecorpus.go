package main

import (
	"fmt"
	"io"
	"os"

	"github.com/fsmove/fsmove/bench/corpus"
	"github.com/spf13/cobra"
)

var forgeCorpusHelp = help{
	synopsis: `fsmove bench forge-corpus [-o FILE] PAGE.json...`,
	description: `
Make a corpus file from saved pages of the Forge's module list (its public
API's v3 module listing, as JSON, downloaded page by page): one line a
module, AUTHOR-NAME@VERSION of its current release, sorted, so that the
corpus names the same code whenever it is benched. Deprecated modules,
modules without a current release and repeated ones are left out; how many of
each is said on stderr and in the file's first line.`,
	examples: []example{
		{"fsmove bench forge-corpus -o forge.txt page-*.json", "the saved pages, as one corpus"},
	},
	groups: []flagGroup{{"Flags", []string{"output"}}},
	more:   `More: README.md ("Corpus files").`,
}

func newForgeCorpusCmd(c *cli) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "forge-corpus",
		Short: "make a corpus file from saved pages of the Forge's module list",
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the corpus to `FILE` (default stdout)")
	setHelp(cmd, forgeCorpusHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runForgeCorpus(c.stdout, c.stderr, args, out)
	}
	return cmd
}

func runForgeCorpus(stdout, stderr io.Writer, pages []string, out string) error {
	if len(pages) == 0 {
		return usagef("give the saved pages of the Forge's module list (JSON)")
	}
	readers := map[string]io.Reader{}
	for _, p := range pages {
		f, err := os.Open(p)
		if err != nil {
			return usageError{err}
		}
		defer f.Close()
		readers[p] = f
	}
	entries, counts, err := corpus.ForgeCorpus(readers)
	if err != nil {
		return usageError{err}
	}
	w := stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return usageError{err}
		}
		defer f.Close()
		w = f
	}
	header := []string{fmt.Sprintf("Forge modules from %d saved page(s), made by fsmove bench forge-corpus: %s", len(pages), counts)}
	if err := corpus.Format(w, header, entries); err != nil {
		return runError{err}
	}
	fmt.Fprintf(stderr, "fsmove bench forge-corpus: %s\n", counts)
	return nil
}
