package detector

// Edit is the change to the module's manifests that removes a finding, as
// fsmove fix writes it (docs/DESIGN.md, "fsmove fix"): a require, notify,
// or a chain's ~>, placed where the module declares the resource. The
// command that located the module's declarations with Puppet's parser sets
// it; a finding has none when nothing was located (a module that is not a
// directory of this machine, an analysis of a bare trace).
type Edit struct {
	// Says what the edit does, in a line or a few ("; " between them).
	Says string
	// Diff is the edit as a unified diff, paths relative to the module's
	// directory (git -C MODULE apply takes it).
	Diff string
	// Changes are the edit's replacements, each in its file's text.
	Changes []Change
	// Skipped says why no edit could be placed (Diff and Changes are then
	// empty): the declaration is not in the module, a title is built from a
	// variable, a notification would make a dependency cycle…
	Skipped string
}

// Change replaces a region of one manifest with Text: the region's bytes
// (Offset, Length) and its positions, lines from 1 and columns from 1 in
// UTF-16 code units (SARIF's default kind), the end exclusive. An
// insertion is an empty region.
type Change struct {
	File                string // absolute, as the catalog's files on this machine
	Offset, Length      int
	StartLine, StartCol int
	EndLine, EndCol     int
	Text                string
}
