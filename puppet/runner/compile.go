package runner

// The catalog and Puppet's graphs that the analysis reads are taken before
// any resource of the module runs (issue 43; docs/DESIGN.md, "What the
// verdict rests on"). During the traced apply a module's Exec is root in
// the container: it could rewrite Puppet's cached catalog or its
// expanded_relationships.dot after Puppet wrote them, adding the very
// relationship the module lacks, and fsmove would analyze the forgery.
//
// So, before the traced apply, Puppet compiles the same manifest with the
// same module path in a run that evaluates nothing: --noop, and --tags with
// a word no resource carries, so every resource is skipped (no Exec, no
// onlyif or unless, no provider's change). It writes the catalog and the
// graphs, which fsmove copies out at once. Its state goes to a vardir of
// its own, so the node the traced apply starts from is unchanged.
//
// After the apply, the catalog and graphs Puppet wrote during it are
// compared with those: the same manifest on the same node compiles to the
// same catalog (but its version and uuid) and the same graphs, measured.
// A difference means the module changed them, and the run is tampered
// (exit 3), with the difference said; the analysis keeps reading what was
// compiled first.
//
// What this does not cover: code of the module that runs inside Puppet's
// own process (its functions at compile time, its types and providers at
// apply time) is Puppet, as far as fsmove can tell (README, "Running
// modules you did not write").

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/puppet/container"
)

// StepCompile is the name of the step that compiles the catalog before
// the apply.
const StepCompile = "compile"

// compileDir holds what the compile run writes in the container: its
// vardir (the catalog in client_data/catalog, the facts in client_yaml),
// its public dir and its graphs.
const compileDir = workDir + "/compile"

// The facts are resolved once, by the compile run, which caches them
// (factsSaveRoutes); the traced apply reads them from that cache
// (factsLoadRoutes) instead of running Facter again. Facter is Puppet's
// largest cost before the catalog (about 1.5 of the 2.5 seconds that
// "puppet facts show" takes in the image), none of it is a resource's
// work, and under strace or ptrace every process it starts and every
// file of /proc and /sys it reads is traced. The two compiles see the
// same node a few seconds apart, as before; only the time and the trace
// are smaller. The second apply of --idempotence and a Node's Apply
// resolve the facts anew, as an agent's next run does.
const (
	factsSaveRoutes = workDir + "/facts-save.yaml"
	factsLoadRoutes = workDir + "/facts-load.yaml"
	factsYAMLDir    = compileDir + "/var/client_yaml"
)

// Puppet's route files (--route_file) for the facts of "puppet apply":
// resolve them with Facter and cache them as YAML in the client YAML
// directory, or read them from there.
var (
	factsSave = []byte("apply:\n  facts:\n    terminus: facter\n    cache: yaml\n")
	factsLoad = []byte("apply:\n  facts:\n    terminus: yaml\n")
)

// cachedFactsArgs are the arguments that make a "puppet apply" read the
// facts the compile run cached.
func cachedFactsArgs() []string {
	return []string{"--route_file", factsLoadRoutes, "--clientyamldir", factsYAMLDir}
}

// CompileArgs are the arguments of the "puppet apply" that compiles the
// catalog and evaluates nothing: tag is a word no resource carries.
func CompileArgs(modulePath []string, tag string) []string {
	return []string{
		"--noop", "--tags", tag,
		"--vardir", compileDir + "/var", "--publicdir", compileDir + "/public",
		"--graph", "--graphdir", compileDir + "/graphs",
		"--catalog_cache_terminus", "json",
		"--route_file", factsSaveRoutes,
		"--modulepath", strings.Join(modulePath, ":"),
		sitePP,
	}
}

// compileTag is a tag no module can know in advance.
func compileTag() string {
	var b [8]byte
	rand.Read(b[:])
	return "fsmove_compile_" + hex.EncodeToString(b[:])
}

// compile runs the compile step: on success the output directory holds
// the catalog (CatalogFile) and the graphs (GraphsDir) of the module
// before any of its resources ran, and r.compiled is set. A compile error
// is a step outcome: the traced apply runs all the same and its log says
// the error, as before.
func (r *run) compile(ctx context.Context, modulePath []string) error {
	return r.step(ctx, StepCompile, "compiling the catalog before the apply", func(s *Step) (string, error) {
		var buf bytes.Buffer
		out := &capWriter{w: &buf, left: 1 << 20}
		cmd := append([]string{"puppet", "apply"}, CompileArgs(modulePath, compileTag())...)
		status, err := r.c.Exec(ctx, cmd, []string{"LANG=C.UTF-8"}, out)
		if err != nil {
			return "", err
		}
		dir := r.opts.OutDir
		budget := &container.Budget{PerFile: ArtifactFileBudget, Total: ArtifactsBudget}
		tmp, err := os.MkdirTemp(dir, ".catalog-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		// One request for the compile run's directory, which no resource
		// of the module has written yet: the catalog and the graphs out of
		// it, into tmp.
		base := path.Base(compileDir)
		catalogEntry := base + "/var/client_data/catalog/" + NodeName + ".json"
		want := map[string]string{catalogEntry: CatalogFile}
		for _, g := range graphFiles {
			want[base+"/graphs/"+g] = GraphsDir + "/" + g
		}
		wrote := r.copyFiles(ctx, compileDir, tmp, want, budget)
		if status != 0 || !wrote[catalogEntry] {
			r.overBudget(budget.Over, false)
			return "", stepOutcome(fmt.Sprintf("Puppet could not compile the catalog (exit %d); the apply will say why", status))
		}
		data, err := os.ReadFile(filepath.Join(tmp, CatalogFile))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, CatalogFile), data, 0o644); err != nil {
			return "", err
		}
		sum := sha256.Sum256(data)
		r.rec.CatalogSHA256 = hex.EncodeToString(sum[:])
		for _, g := range graphFiles {
			if wrote[base+"/graphs/"+g] {
				if err := os.MkdirAll(filepath.Join(dir, GraphsDir), 0o755); err != nil {
					return "", err
				}
				if err := os.Rename(filepath.Join(tmp, GraphsDir, g), filepath.Join(dir, GraphsDir, g)); err != nil {
					return "", err
				}
			}
		}
		r.overBudget(budget.Over, false)
		r.compiled = true
		return fmt.Sprintf("catalog %s, sha256 %.12s", container.FormatBytes(int64(len(data))), r.rec.CatalogSHA256), nil
	})
}

// compareApplied compares the catalog and graphs the traced apply left in
// applied (copied there from the container) with the compiled ones in the
// output directory, and records each difference as a forgery (r.forged).
// Nothing is compared when the compile failed: the apply's own are then
// kept (copyOut), as there is nothing else.
func (r *run) compareApplied(applied string) {
	if !r.compiled {
		return
	}
	dir := r.opts.OutDir
	compiled, err := os.ReadFile(filepath.Join(dir, CatalogFile))
	if err != nil {
		r.forged = append(r.forged, fmt.Sprintf("the compiled catalog cannot be read: %v", err))
		return
	}
	cached, err := os.ReadFile(filepath.Join(applied, CatalogFile))
	if err != nil {
		r.forged = append(r.forged, "the apply left no catalog in Puppet's cache, where it writes one before the first resource")
	} else if diff, drift, err := catalogDiff(compiled, cached); err != nil {
		r.forged = append(r.forged, fmt.Sprintf("the catalog in Puppet's cache after the apply is not a catalog: %v", err))
	} else {
		if diff != "" {
			r.forged = append(r.forged, "the catalog in Puppet's cache after the apply differs from the one compiled before it: "+diff)
		}
		if drift != "" {
			// Said, not held against the run: the analysis reads
			// the compiled catalog, whose relationships are those
			// Puppet applied.
			r.rec.CatalogDrift = drift
			fmt.Fprintf(r.opts.Log, "fsmove: the module's catalog changes from one compile to the next (%s): the analysis reads the one compiled before the apply\n", drift)
		}
	}
	for _, g := range graphFiles {
		want, err := os.ReadFile(filepath.Join(dir, GraphsDir, g))
		if err != nil {
			continue // not compiled (over budget, tampered): said already
		}
		got, err := os.ReadFile(filepath.Join(applied, GraphsDir, g))
		switch {
		case err != nil:
			r.forged = append(r.forged, fmt.Sprintf("the apply left no %s to compare with the compiled one", g))
		case !bytes.Equal(want, got):
			r.forged = append(r.forged, fmt.Sprintf("%s after the apply differs from the compiled one: %s", g, graphDiff(want, got)))
		}
	}
}

// catalogDiff says how catalog b differs from a, ignoring what differs
// between two compiles of the same manifest (version, catalog_uuid): ""
// when they are the same catalog. A difference in resources, edges or
// relationships is diff; one in other parameters' values only is drift:
// a module may compute a value at compile time (a Timestamp in a File's
// content: fixture ni_not_idempotent), which changes from one compile to
// the next and nothing the analysis rests on, while a forgery that could
// hide a fault adds a relationship (hostile class catalog).
func catalogDiff(a, b []byte) (diff, drift string, err error) {
	ca, err := readCatalogJSON(a)
	if err != nil {
		return "", "", err
	}
	cb, err := readCatalogJSON(b)
	if err != nil {
		return "", "", err
	}
	var diffs []string
	diffs = append(diffs, setDiff("resource", ca.resources, cb.resources)...)
	diffs = append(diffs, setDiff("edge", ca.edges, cb.edges)...)
	if len(diffs) == 0 && !bytes.Equal(ca.rest, cb.rest) {
		diffs = append(diffs, "its other fields differ")
	}
	var drifted []string
	for ref, v := range cb.values {
		if av, ok := ca.values[ref]; ok && av != v && ca.resources[ref] == cb.resources[ref] {
			drifted = append(drifted, ref)
		}
	}
	if len(drifted) > 0 {
		drift = "parameter values of " + firstFew(drifted)
	}
	return strings.Join(diffs, "; "), drift, nil
}

// relationParams are the metaparameters that order or notify: a change of
// one is a change of the catalog, not drift.
var relationParams = []string{"require", "before", "notify", "subscribe"}

// catalogJSON is a catalog reduced to what catalogDiff compares: each
// resource by reference (its JSON with only relationParams of its
// parameters; values, its parameters), each edge, and the other fields
// but version and catalog_uuid, re-encoded with sorted keys.
type catalogJSON struct {
	resources map[string]string
	values    map[string]string
	edges     map[string]string
	rest      []byte
}

func readCatalogJSON(data []byte) (*catalogJSON, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	c := &catalogJSON{resources: map[string]string{}, values: map[string]string{}, edges: map[string]string{}}
	var resources, edges []map[string]any
	if raw, ok := doc["resources"]; ok {
		if err := json.Unmarshal(raw, &resources); err != nil {
			return nil, fmt.Errorf("resources: %w", err)
		}
	}
	if raw, ok := doc["edges"]; ok {
		if err := json.Unmarshal(raw, &edges); err != nil {
			return nil, fmt.Errorf("edges: %w", err)
		}
	}
	for _, res := range resources {
		ref := fmt.Sprintf("%v[%v]", res["type"], res["title"])
		params, _ := res["parameters"].(map[string]any)
		values, _ := json.Marshal(params)
		c.values[ref] = string(values)
		relations := map[string]any{}
		for _, p := range relationParams {
			if v, ok := params[p]; ok {
				relations[p] = v
			}
		}
		res["parameters"] = relations
		enc, _ := json.Marshal(res)
		c.resources[ref] = string(enc)
	}
	for _, e := range edges {
		edge := fmt.Sprintf("%v -> %v", e["source"], e["target"])
		c.edges[edge] = edge
	}
	for _, k := range []string{"resources", "edges", "version", "catalog_uuid"} {
		delete(doc, k)
	}
	// Re-encoded through a map: sorted keys, so field order is no
	// difference.
	var rest map[string]any
	enc, _ := json.Marshal(doc)
	json.Unmarshal(enc, &rest)
	c.rest, _ = json.Marshal(rest)
	return c, nil
}

// setDiff says what of kind is only in b (added), only in a (removed) or
// different (changed), naming at most three of each.
func setDiff(kind string, a, b map[string]string) []string {
	var added, removed, changed []string
	for k, v := range b {
		if av, ok := a[k]; !ok {
			added = append(added, k)
		} else if av != v {
			changed = append(changed, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			removed = append(removed, k)
		}
	}
	var out []string
	for _, d := range []struct {
		verb  string
		items []string
	}{{"added", added}, {"removed", removed}, {"changed", changed}} {
		if len(d.items) > 0 {
			out = append(out, fmt.Sprintf("%s %s %s", kind+plural(len(d.items)), d.verb, firstFew(d.items)))
		}
	}
	return out
}

// graphDiff names the lines of DOT file b that a lacks and the reverse, at
// most three of each.
func graphDiff(a, b []byte) string {
	la, lb := lineSet(a), lineSet(b)
	var added, removed []string
	for l := range lb {
		if !la[l] {
			added = append(added, l)
		}
	}
	for l := range la {
		if !lb[l] {
			removed = append(removed, l)
		}
	}
	var out []string
	if len(added) > 0 {
		out = append(out, "lines added "+firstFew(added))
	}
	if len(removed) > 0 {
		out = append(out, "lines removed "+firstFew(removed))
	}
	if len(out) == 0 {
		return "its lines are the same, in another order"
	}
	return strings.Join(out, "; ")
}

func lineSet(data []byte) map[string]bool {
	set := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			set[l] = true
		}
	}
	return set
}

// firstFew lists at most three items, sorted, each cut to one short line,
// and says how many more there are.
func firstFew(items []string) string {
	slices.Sort(items)
	shown := items
	if len(shown) > 3 {
		shown = shown[:3]
	}
	q := make([]string, len(shown))
	for i, s := range shown {
		if len(s) > 120 {
			s = s[:120] + "…"
		}
		q[i] = fmt.Sprintf("%q", s)
	}
	s := strings.Join(q, ", ")
	if more := len(items) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
