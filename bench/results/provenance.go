package results

import "time"

// ProvenanceJSON is the file in a bench's output directory that says what
// made it.
const ProvenanceJSON = "bench.json"

// Provenance is what made a bench's output directory: which fsmove, which
// image, how the modules were traced, from which corpus, which share of
// it, and when. Results made by another fsmove, image or tracer are not
// comparable; a merge of shards reads this to tell.
type Provenance struct {
	FsmoveVersion string    `json:"fsmove_version"`
	Image         string    `json:"image"`    // the tag
	ImageID       string    `json:"image_id"` // "" when the image was not built
	Suite         string    `json:"suite"`
	Tracer        string    `json:"tracer"`
	Init          string    `json:"init"`
	Corpus        string    `json:"corpus"`          // the corpus file as given
	CorpusSHA256  string    `json:"corpus_sha256"`   // of its bytes
	Shard         string    `json:"shard,omitempty"` // I/N; "" for the whole corpus
	Modules       int       `json:"modules"`         // in this share
	Started       time.Time `json:"started"`
	Finished      time.Time `json:"finished"`
	// CorpusModules are all the corpus's modules, in its order, whatever
	// the share: what a merge of the shares must cover.
	CorpusModules []CorpusModule `json:"corpus_modules"`
	// Parts are the directories a merge (bench merge) put together.
	Parts []string `json:"parts,omitempty"`
}

// CorpusModule is one module of the corpus: its key (its run directory's
// name and its row's module) and its version when the corpus says it.
type CorpusModule struct {
	Key     string `json:"key"`
	Version string `json:"version,omitempty"`
}
