package detector

// The hold rules as one table: each rule that holds a relation or a
// finding back (a general fact that makes it no fault) is a row of
// holdRules, with its number in doc.go's list, the name a held finding
// carries (Finding.HeldRule, report.json's held_rule, and the key of
// Stats.HeldBy), the stage it acts at and, for the two path stages, its
// function. Adding a path rule is a row, a function and its tests (a
// reported case and a near miss); doc.go's list gives its number a line
// (TestHoldRulesDocumented). Rules that make a relation (rules.go:
// precedes, observed, notifies) and those by which Puppet's order meets a
// relation after all (rules 10, 16, 17 in judgePair) hold nothing back
// and are not rows.

// holdStage is where in the analysis a hold rule acts.
type holdStage uint8

const (
	// holdsOrder: one path's must-precede relation (after precedes and
	// observed), tried in the table's order; an observed fault (Missing)
	// is never held.
	holdsOrder holdStage = iota + 1
	// holdsNotify: one path's must-notify relation (after notifies).
	holdsNotify
	// holdsPair: a pair's relation, with Puppet's graph (judgePair).
	holdsPair
	// holdsFinding: a whole finding, once its paths are known (holdBack,
	// and the NI findings of idempotence.go).
	holdsFinding
)

// pathRelation is what a path rule looks at: the two uses of one path and
// the relation between them.
type pathRelation struct {
	x, y   *use // the producer's and the consumer's
	rel    Relation
	path   string
	isDir  bool
	models []programModel // the program models in force (modelsFor)
}

// holdRule is one row of holdRules.
type holdRule struct {
	number int // in doc.go's list; 0 for the program models' row
	name   string
	stage  holdStage
	// hold says why the relation is no fault, or "" when the rule does not
	// hold it (path stages only). It takes the relation by value, so that
	// the one made for each relation stays on the stack.
	hold func(r pathRelation) string
}

// Rule names that the code outside the table's functions gives a held
// finding.
const (
	ruleAccounts          = "account-databases"
	ruleCommutes          = "commutes"
	ruleMetadataContent   = "metadata-before-content"
	ruleRefreshedTogether = "refreshed-together"
	ruleRefreshedThrough  = "refreshed-through"
	ruleContainerSkipped  = "container-condition"
)

// holdRules are the hold rules, in the order each stage tries them.
var holdRules = []holdRule{
	{12, "metadata-for-root", holdsOrder, metadataForRoot},
	{13, "made-when-missing", holdsOrder, madeWhenMissing},
	{22, "found-as-managed", holdsOrder, foundAsManaged},
	{14, "other-names", holdsOrder, otherNames},
	{0, "program-model", holdsOrder, func(r pathRelation) string {
		return modelHold(r.models, holdsOrder, r.x, r.y, r.rel, r.path, r.isDir)
	}},
	{15, "only-looked-up", holdsNotify, onlyLookedUp},
	{25, "exec-dir-owner-mode", holdsNotify, execDirOwnerMode},
	{15, "dir-read-only", holdsNotify, dirReadOnly},
	{15, "removed-after-read", holdsNotify, removedAfterReadHold},
	{23, "runs-once", holdsNotify, runsOnce},
	{15, "own-state", holdsNotify, ownState},
	{14, "other-names", holdsNotify, otherNamesRun},
	{0, "program-model", holdsNotify, func(r pathRelation) string {
		return modelHold(r.models, holdsNotify, r.x, r.y, r.rel, r.path, r.isDir)
	}},
	{24, ruleRefreshedTogether, holdsPair, nil},
	{27, ruleRefreshedThrough, holdsFinding, nil},
	{6, ruleAccounts, holdsFinding, nil},
	{9, ruleCommutes, holdsFinding, nil},
	{9, ruleMetadataContent, holdsFinding, nil},
	{0, ruleContainerSkipped, holdsFinding, nil},
}

// held is a rule's verdict on a relation: the rule's name and its reason,
// both "" when no rule holds it.
type held struct {
	rule, reason string
}

// none reports whether no rule held the relation.
func (h held) none() bool { return h.reason == "" }

// holdPath tries the rows of one path stage in order and returns the first
// that holds the relation.
func holdPath(stage holdStage, r pathRelation) held {
	if stage == holdsOrder && r.rel == Missing {
		return held{} // it failed in this run: nothing holds that back
	}
	for i := range holdRules {
		h := &holdRules[i]
		if h.stage != stage {
			continue
		}
		if why := h.hold(r); why != "" {
			return held{h.name, why}
		}
	}
	return held{}
}
