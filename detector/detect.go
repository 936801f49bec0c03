package detector

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// Options tune the detector.
type Options struct {
	// PackageNotify reports Package → Service missing notifiers too (off
	// by default, as in the original: a package upgrade usually restarts
	// its own service through the maintainer scripts).
	PackageNotify bool
	// Filters are path prefixes ignored in addition to the defaults.
	Filters []string
	// NoDefaultFilters drops DefaultFilterPrefixes.
	NoDefaultFilters bool
	// Waivers suppress findings (see LoadWaivers).
	Waivers []Waiver
	// ReadManifest, when set, reads a manifest file named by the catalog
	// (ReadManifestFile), so that the "# fsmove:ignore" comments on the
	// findings' resources suppress them (InlineWaivers); nil reads none.
	ReadManifest func(file string) ([]byte, error)
	// Packages is dpkg's database after the apply (ParsePackages), for
	// rule 17; nil knows only that a package installs its own files.
	Packages *Packages
	// Accounts are the user and group names before the apply
	// (ParseAccounts), so that a pair that meets only on the account
	// databases is a fault when the consumer names an account the
	// producer made (rule 6, accounts.go); nil holds every such pair back.
	Accounts *Accounts
	// Units is systemd's view of the units after the apply (ParseUnits),
	// so that a Service that names a unit by an alias, or a unit it is
	// part of, gets the unit's work; nil knows only the unit's own name.
	Units *Units
	// Idempotence, when set, adds the NI findings of a second apply of
	// the catalog (fsmove run --idempotence).
	Idempotence *Idempotence
	// Coverage, when set, makes the report account for what the run could
	// not observe (Report.Coverage): fsmove run's record of the units.
	Coverage *CoverageInput
	// NoModels turns the program models off (models.go): no finding is
	// held back by a fact about one Debian program.
	NoModels bool
	// Scope, when set, is the code under test: findings wholly outside it
	// go to Report.InDependencies and count for nothing. Nil: every
	// finding counts (fsmove analyze of a bare trace, --scope all).
	Scope *Scope
}

// NewFilterFor builds the filter Detect uses for opts.
func NewFilterFor(opts Options) *Filter {
	f := NewFilter(opts.Filters...)
	if !opts.NoDefaultFilters {
		for _, p := range DefaultFilterPrefixes {
			f.AddPrefix(p)
		}
	}
	return f
}

// relation is one path's contribution to a resource pair.
type relation struct {
	conflict PathConflict
	before   bool // producer < consumer on this path
	notify   bool // producer ⇝ consumer (a Service) on this path
	// holdBefore and holdNotify say which rule holds before or notify
	// back, and why (holds.go); none when it is a fault.
	holdBefore, holdNotify held
	// prodVia and consVia name the generated resources whose blocks made
	// the uses ("" for the catalog resource's own): Puppet ordered those
	// by their own edges too (rule 16).
	prodVia, consVia string
	// byPackage: the producer is a Package, whose install made the path
	// (rule 17); script: the dpkg package whose maintainer scripts made
	// it in that install (interp.Access.Script), "" when none did.
	byPackage bool
	script    string
	// existence: the consumer needed only that the path exist (a
	// directory it created names in, or looked into); another producer
	// ordered before the consumer meets that need too (rule 10).
	existence bool
	others    []*catalog.Resource // the path's other producers, for rule 10
}

// pairKey identifies an unordered resource pair; a is the resource whose
// reference sorts first.
type pairKey struct{ a, b *catalog.Resource }

type pair struct {
	a, b      *blockRole
	relations []relation
}

// Detect infers the relations between the resources of res, checks them
// against g and returns the findings, in a deterministic order. It never
// panics on odd input: blocks out of range or not in the catalog are
// counted in Stats and listed in Report.UnresolvedBlocks.
func Detect(res *interp.Result, g Graph, opts Options) *Report {
	start := time.Now()
	rep := &Report{}
	if res == nil {
		res = &interp.Result{}
	}
	if g == nil {
		g = emptyGraph{}
	}
	st := &rep.Stats
	st.Interp = res.Stats
	st.Blocks = len(res.Blocks)
	st.Paths = len(res.Paths)
	st.Waivers = len(opts.Waivers)
	filter := NewFilterFor(opts)

	// Resolve each block once.
	roles := make([]blockRole, len(res.Blocks))
	containerBlocks := make([]bool, len(res.Blocks))
	unclaimed := make([]bool, len(res.Blocks))
	gen, _ := g.(GeneratorGraph)
	unitServices := make([]*catalog.Resource, len(res.Blocks)) // the Service of each unit block
	for i, name := range res.Blocks {
		if unit, ok := interp.BlockUnit(name); ok {
			// A systemd unit's processes: its Service's, or no one's.
			// As UnitResource, but knowing which of the two gave it.
			r, triggered := unitService(g, opts.Units, unit), false
			if r == nil {
				r = triggeringService(g, opts.Units, unit)
				triggered = r != nil
			}
			if r == nil {
				unclaimed[i] = true
				st.UnclaimedUnits++
				continue
			}
			st.UnitBlocks++
			unitServices[i] = r
			roles[i] = roleOf(r)
			// A unit that another unit triggers is started anew at each
			// trigger: what it read, its next start reads again, and a
			// restart of its trigger does not restart it. Its reads order
			// (they need what they read) but ask for no notifier.
			roles[i].isService = !triggered
			roles[i].notifiable = !triggered
			continue
		}
		r, generated := blockResource(g, gen, name)
		telling := tellsCatalog(name)
		if telling {
			st.ResourceBlocks++
		}
		if generated {
			st.GeneratedBlocks++
		}
		if r == nil {
			rep.UnresolvedBlocks = append(rep.UnresolvedBlocks, name)
			if telling {
				st.UnknownResources++
			}
			continue
		}
		if isContainer(g, r) {
			containerBlocks[i] = true
			continue
		}
		roles[i] = roleOf(r)
		if generated {
			roles[i].via = name
		}
	}
	for _, f := range res.Failures {
		if int(f.Block) < len(roles) && roles[f.Block].res != nil && roles[f.Block].failure == "" {
			roles[f.Block].failure = f.Message
		}
	}
	slices.Sort(rep.UnresolvedBlocks)
	st.UnresolvedBlocks = len(rep.UnresolvedBlocks)

	packages := packageResources(g, roles)
	accounts := newAccountCheck(g, opts.Accounts)

	listings := indexListings(res, roles)
	models := modelsFor(opts)
	parents := parentNeeds(res, roles)
	named := indexNamedPaths(g, res, &roles)
	pairs := make(map[pairKey]*pair)
	var uses []use
	observed := map[*catalog.Resource]bool{} // Services a process of whose unit was traced
	for pi := range res.Paths {
		pa := &res.Paths[pi]
		if opts.Coverage != nil {
			seeServices(observed, unitServices, pa)
		}
		if filter.Match(pa.Path) || isRubyTempfile(pa.Path) {
			st.FilteredPaths++
			continue
		}
		uses = uses[:0]
		for ai := range pa.Accesses {
			a := &pa.Accesses[ai]
			if a.Block < 0 || int(a.Block) >= len(roles) || roles[a.Block].res == nil {
				switch {
				case a.Block == interp.NoBlock:
				case int(a.Block) < len(roles) && containerBlocks[a.Block]:
					st.ContainerAccesses++
				case int(a.Block) < len(roles) && unclaimed[a.Block]:
					st.UnclaimedAccesses++
				default:
					st.UnresolvedAccesses++
				}
				continue
			}
			uses = append(uses, readUse(&roles[a.Block], a, pa.Path))
		}
		for ai := range parents[pa.Path] {
			a := &parents[pa.Path][ai]
			if !slices.ContainsFunc(pa.Accesses, func(b interp.Access) bool { return b.Block == a.Block }) {
				uses = append(uses, readUse(&roles[a.Block], a, pa.Path))
			}
		}
		for _, n := range named[pa.Path] {
			if !slices.ContainsFunc(uses, func(u use) bool { return u.role.res == roles[n.role].res }) {
				uses = append(uses, n.use(roles))
			}
		}
		if len(uses) < 2 {
			continue
		}
		relatePath(pairs, pa, uses, listings, models)
	}
	st.RelatedPairs = len(pairs)

	for _, pr := range pairs {
		if f, ok := judgePair(pr, g, opts, st, packages, accounts); ok {
			rep.Findings = append(rep.Findings, f)
		}
	}
	holdRefreshedThrough(rep.Findings, g)
	if opts.Coverage != nil {
		rep.Coverage = coverage(opts.Coverage, g, opts.Units, observed)
	}
	if opts.Idempotence != nil {
		rep.Idempotence = true
		rep.TraceNames = opts.Idempotence.TraceNames
		ni, unknown := idempotenceFindings(opts.Idempotence, g, opts.Units, filter)
		rep.Findings = append(rep.Findings, ni...)
		rep.AddWarning(ChangesReport, "resources the second apply changed that the catalog does not name, not checked",
			int64(len(unknown)), strings.Join(unknown, ", "))
	}
	inline, unreasoned := InlineWaivers(rep.Findings, opts.ReadManifest)
	rep.AddWarning(ChangesReport, "fsmove:ignore comments without a reason, which do not suppress", int64(len(unreasoned)), strings.Join(unreasoned, ", "))
	applyWaivers(rep, g, append(slices.Clip(opts.Waivers), inline...))
	slices.SortFunc(rep.Findings, compareFindings)
	if opts.Scope != nil {
		opts.Scope.setAside(rep)
		st.InDependencies = rep.DependencyFaults()
	}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		switch {
		case f.HeldBack:
			st.HeldBack++
			if st.HeldBy == nil {
				st.HeldBy = map[string]int{}
			}
			st.HeldBy[f.HeldRule]++
			if f.Commutes {
				st.Commuting++
			}
		case f.Kind == MN:
			st.MN++
		case f.Kind == NI:
			st.NI++
		default:
			st.MOR++
		}
		if f.Waived {
			st.Waived++
		}
		if f.Waived && f.Suppressed {
			st.Suppressed++
		}
	}
	st.UnusedWaivers = len(rep.UnusedWaivers)
	st.AddPhase("detect", time.Since(start))
	return rep
}

// ResourceGraph is a Graph that can list the catalog's resources.
type ResourceGraph interface {
	Graph
	Resources() []*catalog.Resource
}

// packageResources lists the catalog's Package resources (those with a
// block when g cannot list them), sorted.
func packageResources(g Graph, roles []blockRole) []*catalog.Resource {
	var packages []*catalog.Resource
	if rg, ok := g.(ResourceGraph); ok {
		for _, r := range rg.Resources() {
			if r.IsPackage() {
				packages = append(packages, r)
			}
		}
	} else {
		seen := map[*catalog.Resource]bool{}
		for i := range roles {
			if r := roles[i].res; roles[i].isPackage && !seen[r] {
				seen[r] = true
				packages = append(packages, r)
			}
		}
	}
	slices.SortFunc(packages, compareResources)
	return packages
}

// relatePath adds to pairs the relations that one path makes between the
// resources of its uses (the rules of rules.go).
func relatePath(pairs map[pairKey]*pair, pa *interp.PathAccesses, uses []use, listings listingIndex, models []programModel) {
	accountWriters := accountDatabaseWriters(pa.Path, uses)
	for i := range uses {
		x := &uses[i]
		var made interp.Evidence
		madeIn := false
		if pa.IsDir && listings.made != nil {
			made, madeIn = listings.made[dirBlock{pa.Path, x.acc.Block}]
		}
		if !x.produced && !madeIn {
			continue
		}
		for j := range uses {
			y := &uses[j]
			if i == j || x.role.res == y.role.res {
				continue
			}
			// Two packages meet in the package manager's state (dpkg's
			// status, locks, triggers): apt orders its own installs, and
			// such a pair is not a fault of the manifest (the original
			// skipped these pairs too). An Exec or a File against a
			// Package is still checked: apt-get update before a package
			// install is a real ordering.
			if x.role.isPackage && y.role.isPackage {
				continue
			}
			rel, needBy, eff, before := precedes(x, y, pa.Path, pa.IsDir)
			if !before {
				rel, needBy, eff, before = observed(x, y, pa.Path)
			}
			notify := notifies(x, y, pa.Path, pa.IsDir)
			listed := !notify && madeIn && y.role.isService && listings.includes[dirBlock{pa.Path, y.acc.Block}] &&
				fileAfterListing(y, made)
			if !before && !notify && !listed {
				continue
			}
			pc := PathConflict{
				Path:             pa.Path,
				Producer:         x.role.res,
				Consumer:         y.role.res,
				Relation:         rel,
				ProducerEffect:   fstrace.Produced,
				ProducerEvidence: x.prodBy,
				ConsumerEffect:   eff,
				ConsumerEvidence: needBy,
				Metadata:         x.metaOnly || y.probeOnly || rel == Missed,
				producerReplaced: x.acc.Replaced,
				guarded:          rel == Overwrites && x.guarded,
			}
			if !before {
				pc.Relation, pc.ConsumerEffect, pc.ConsumerEvidence = Consumes, fstrace.Consumed, y.consBy
				if y.named {
					pc.Relation = Names
				}
			}
			if listed {
				// The service listed the directory, and the name came
				// later: that is the evidence, unless an order relation
				// has its own.
				notify = true
				if !before {
					pc.ProducerEvidence, pc.ConsumerEvidence = made, y.acc.LastListedBy
					pc.producerReplaced = false
				}
			}
			pc.otherWriters = otherWriter(accountWriters, x, y)
			r := relation{conflict: pc, before: before, notify: notify, prodVia: x.role.via, consVia: y.role.via}
			r.byPackage = x.role.isPackage
			if r.byPackage {
				r.script = x.acc.Script()
			}
			in := pathRelation{x: x, y: y, rel: rel, path: pa.Path, isDir: pa.IsDir, models: models}
			if before {
				r.holdBefore = holdPath(holdsOrder, in)
			}
			if notify {
				r.holdNotify = holdPath(holdsNotify, in)
			}
			if before && rel == Consumes && pa.IsDir {
				r.existence = true
				for k := range uses {
					if z := &uses[k]; k != i && k != j && z.produced && z.role.res != y.role.res && z.role.res != x.role.res {
						r.others = append(r.others, z.role.res)
					}
				}
			}
			pr := pairOf(pairs, x.role, y.role)
			pr.relations = append(pr.relations, r)
		}
	}
}

// dirBlock is a directory and a block.
type dirBlock struct {
	dir   string
	block interp.BlockID
}

// listingIndex says, for the directories a Service's block listed
// (interp.Access.Listed), what rule 20 needs beyond one path: which of them
// the block read as include directories, and when each block last made a
// file in them.
type listingIndex struct {
	// includes: the block listed the directory, and then the program
	// that listed it read a regular file in it (a daemon reading its
	// conf.d). A listing alone is not one: a shell expanding /etc/rc?.d
	// lists /etc and reads no file there. The file read is the block's
	// first read of it (ConsumedBy): when another of its programs read it
	// first, the directory is not counted, the safe side for a rule that
	// reports. So a shell's glob whose files cat reads is not counted
	// either.
	includes map[dirBlock]bool
	// made: the last production of a regular file in the directory that
	// made its name or replaced its content (a temporary made and removed
	// within the block is not a file of the directory).
	made map[dirBlock]interp.Evidence
}

func indexListings(res *interp.Result, roles []blockRole) listingIndex {
	listed := map[dirBlock]interp.Evidence{}
	for i := range res.Paths {
		pa := &res.Paths[i]
		if !pa.IsDir {
			continue
		}
		for _, a := range pa.Accesses {
			if a.Listed && a.Block >= 0 && int(a.Block) < len(roles) && roles[a.Block].isService {
				listed[dirBlock{pa.Path, a.Block}] = a.ListedBy
			}
		}
	}
	if len(listed) == 0 {
		return listingIndex{}
	}
	ix := listingIndex{includes: map[dirBlock]bool{}, made: map[dirBlock]interp.Evidence{}}
	dirs := map[string]bool{}
	for k := range listed {
		dirs[k.dir] = true
	}
	for i := range res.Paths {
		pa := &res.Paths[i]
		slash := strings.LastIndexByte(pa.Path, '/')
		if pa.IsDir || slash < 0 {
			continue
		}
		dir := pa.Path[:slash] // the interpreter's paths are clean and absolute
		if slash == 0 {
			dir = "/"
		}
		if !dirs[dir] {
			continue
		}
		for _, a := range pa.Accesses {
			k := dirBlock{dir, a.Block}
			if by, ok := listed[k]; ok && a.ContentConsumed && a.ConsumedBy.Line > by.Line && a.ConsumedBy.Program() == by.Program() {
				ix.includes[k] = true
			}
			if a.Replaced && a.ReplacedBy.Line > ix.made[k].Line {
				ix.made[k] = a.ReplacedBy
			}
		}
	}
	return ix
}

// pairOf returns the accumulator of the unordered pair {x, y}.
func pairOf(pairs map[pairKey]*pair, x, y *blockRole) *pair {
	if compareResources(x.res, y.res) > 0 {
		x, y = y, x
	}
	k := pairKey{x.res, y.res}
	pr := pairs[k]
	if pr == nil {
		pr = &pair{a: x, b: y}
		pairs[k] = pr
	}
	return pr
}

// judgePair decides whether a related pair is a fault, and which. Findings that
// a rule holds back are returned too, marked HeldBack.
func judgePair(pr *pair, g Graph, opts Options, st *Stats, packages []*catalog.Resource, accounts *accountCheck) (Finding, bool) {
	slices.SortStableFunc(pr.relations, func(x, y relation) int {
		if c := strings.Compare(x.conflict.Path, y.conflict.Path); c != 0 {
			return c
		}
		return compareResources(x.conflict.Producer, y.conflict.Producer)
	})
	ordered := g.Ordered(pr.a.res, pr.b.res) || g.Ordered(pr.b.res, pr.a.res)

	// A must-precede relation that Puppet's order meets after all, in
	// every order it may take: rule 10, a directory the consumer only
	// needed to exist is made by another producer ordered before it; rule
	// 17, a Package ordered before the consumer installs the path's
	// package; rule 16, a generated resource's (concat's File) own edges
	// order the two uses. The notify part of the relation stays.
	if !ordered {
		keep := pr.relations[:0]
		for _, rel := range pr.relations {
			switch {
			case !rel.before:
			case rel.existence && metByOther(rel, g), metByPackage(rel, packages, g, opts.Packages):
				st.NeedMet++
				rel.before = false
			case generatedOrdered(&rel, g):
				st.GeneratedOrdered++
				rel.before = false
			}
			if rel.before || rel.notify {
				keep = append(keep, rel)
			}
		}
		pr.relations = keep
	}

	// Rule 24: a refreshonly Exec's every notifier notifies the consumer
	// too, which it precedes: whenever it runs again, the consumer runs
	// after it.
	for i := range pr.relations {
		if rel := &pr.relations[i]; rel.notify && rel.holdNotify.none() {
			if why := refreshedTogether(g, rel.conflict.Producer, rel.conflict.Consumer); why != "" {
				rel.holdNotify = held{ruleRefreshedTogether, why}
			}
		}
	}

	// MN first: adding ~> fixes a missing order too, so a pair that is
	// both is reported once, as MN. Notifies is asked once per direction.
	var notified [2]int8 // by direction: 0 unknown, 1 yes, -1 no
	unnotified := func(rel relation) bool {
		d := direction(pr, rel.conflict.Producer)
		if notified[d] == 0 {
			notified[d] = -1
			if g.Notifies(rel.conflict.Producer, rel.conflict.Consumer) {
				notified[d] = 1
			}
		}
		return notified[d] < 0
	}
	notifyCounts := func(rel relation) bool {
		return rel.notify && (!roleFor(pr, rel.conflict.Producer).isPackage || opts.PackageNotify)
	}
	mnDir := -1
	for _, rel := range pr.relations {
		if notifyCounts(rel) && rel.holdNotify.none() && unnotified(rel) {
			mnDir = direction(pr, rel.conflict.Producer)
			break
		}
	}
	activeBefore := func(rel relation) bool { return !ordered && rel.before && rel.holdBefore.none() }

	var f Finding
	switch {
	case mnDir >= 0:
		f.Kind = MN
		for _, rel := range pr.relations {
			mnPath := notifyCounts(rel) && rel.holdNotify.none() && direction(pr, rel.conflict.Producer) == mnDir
			if mnPath || activeBefore(rel) {
				f.Paths = append(f.Paths, rel.conflict)
			}
			f.Unordered = f.Unordered || activeBefore(rel)
		}
		if mnDir == 0 {
			f.Producer, f.Consumer = pr.a.res, pr.b.res
		} else {
			f.Producer, f.Consumer = pr.b.res, pr.a.res
		}
	case slices.ContainsFunc(pr.relations, activeBefore):
		f.Kind = MOR
		for _, rel := range pr.relations {
			if activeBefore(rel) {
				f.Paths = append(f.Paths, rel.conflict)
			}
		}
		f.Producer, f.Consumer, f.BothWays = traceDirection(f.Paths)
	default:
		return heldByPathRules(pr, ordered, notifyCounts, unnotified)
	}
	for _, pc := range f.Paths {
		if pc.Relation == Missing {
			// It failed in this run: no rule holds that back.
			f.Observed, f.ObservedError = true, roleFor(pr, pc.Consumer).failure
			break
		}
	}
	made := accounts.madeAccount(&f)
	if !f.Observed {
		holdBack(&f, made)
	}
	f.Confidence = confidenceOf(&f)
	f.Reversed = f.Kind == MN && g.Ordered(f.Consumer, f.Producer)
	f.Fix = suggestFix(f.Kind, f.Producer, f.Consumer, f.Reversed)
	if changesUnitFile(&f) {
		f.Fix += unitFileNote
	}
	if made != "" && !f.HeldBack {
		f.Fix += accountNote(&f, made)
	}
	return f, true
}

// unitFileNote ends the fix of an MN on a unit file: the restart alone
// would run the old unit.
const unitFileNote = "; systemd must reread the unit too: Puppet's systemd provider runs systemctl daemon-reload before it restarts a unit whose unit file changed"

// changesUnitFile reports whether f is an MN toward a Service on a
// systemd unit's unit file or drop-in.
func changesUnitFile(f *Finding) bool {
	return f.Kind == MN && (f.Consumer == nil || f.Consumer.IsService()) && slices.ContainsFunc(f.Paths, func(pc PathConflict) bool {
		dir, name := path.Split(pc.Path)
		_, ok := interp.UnitOfFile(path.Base(dir), name)
		return ok
	})
}

// heldByPathRules makes the finding a pair would have been but for the
// path rules (holdPath): held back, with each path's rule and reason,
// so that --all and JSON show it. ok is false when nothing was held.
func heldByPathRules(pr *pair, ordered bool, notifyCounts, unnotified func(relation) bool) (f Finding, ok bool) {
	var reasons []held
	for _, rel := range pr.relations {
		pc := rel.conflict
		var h held
		switch {
		case notifyCounts(rel) && !rel.holdNotify.none() && unnotified(rel):
			f.Kind, h = MN, rel.holdNotify
		case !ordered && rel.before && !rel.holdBefore.none():
			h = rel.holdBefore
		default:
			continue
		}
		pc.HeldRule, pc.HeldReason = h.rule, h.reason
		f.Paths = append(f.Paths, pc)
		if !slices.Contains(reasons, h) {
			reasons = append(reasons, h)
		}
	}
	if len(f.Paths) == 0 {
		return f, false
	}
	f.Producer, f.Consumer, f.BothWays = traceDirection(f.Paths)
	f.HeldBack, f.HeldRule, f.HeldReason = true, reasons[0].rule, reasons[0].reason
	if len(reasons) > 1 {
		f.HeldReason = fmt.Sprintf("%s (and %d more reasons: see each path)", reasons[0].reason, len(reasons)-1)
	}
	// Rules 12-14 say the two orders give the same outcome: the pair
	// commutes (rule 15 says no restart is needed, which is not that).
	f.Commutes = f.Kind == MOR
	f.Confidence = confidenceOf(&f)
	f.Fix = suggestFix(f.Kind, f.Producer, f.Consumer, false)
	return f, true
}

// confidenceOf ranks a finding's evidence: observed in this run, a content
// or existence conflict on some path, only metadata and lookups, or only
// files that the producer made because they were missing.
func confidenceOf(f *Finding) Confidence {
	if f.Observed {
		return Observed
	}
	c := Guarded
	for _, pc := range f.Paths {
		switch {
		case !pc.Metadata && !pc.guarded:
			return Content
		case pc.Metadata:
			c = Metadata
		}
	}
	return c
}

// generatedOrdered reports whether Puppet ordered a relation's two uses
// through a generated resource's own edges (rule 16): the producer's block
// was a generated resource ordered before the consumer (or after it), or
// the consumer's was one ordered after the producer (or before it).
func generatedOrdered(rel *relation, g Graph) bool {
	gg, ok := g.(GeneratedOrderGraph)
	if !ok {
		return false
	}
	prod, cons := rel.conflict.Producer, rel.conflict.Consumer
	if v := rel.prodVia; v != "" && (gg.OrderedAfterGenerated(v, cons) || gg.OrderedBeforeGenerated(cons, v)) {
		return true
	}
	if v := rel.consVia; v != "" && (gg.OrderedBeforeGenerated(prod, v) || gg.OrderedAfterGenerated(v, prod)) {
		return true
	}
	return false
}

// metByOther reports whether one of the path's other producers is ordered
// before the consumer.
func metByOther(rel relation, g Graph) bool {
	for _, z := range rel.others {
		if g.Ordered(z, rel.conflict.Consumer) {
			return true
		}
	}
	return false
}

// traceDirection chooses a MOR's producer and consumer from the trace order
// of its paths (rule 11): every path's producer acted before its consumer.
// When the paths point both ways, the order the run showed working is the
// one in which the first relation's producer acted first.
func traceDirection(paths []PathConflict) (producer, consumer *catalog.Resource, both bool) {
	first := 0
	for i := range paths {
		if paths[i].Producer != paths[0].Producer {
			both = true
		}
		if paths[i].ProducerEvidence.Line < paths[first].ProducerEvidence.Line {
			first = i
		}
	}
	return paths[first].Producer, paths[first].Consumer, both
}

// holdBack applies the rules that keep a relation out of the faults while
// leaving it in the report (--all, JSON): the pair meets only on the
// account databases (rule 6) and the consumer names no account that the
// producer made (made, accountCheck.madeAccount), or the two resources
// commute (rule 9). A pair that meets on other paths too is judged on
// those alone: the account databases leave its paths.
func holdBack(f *Finding, made string) {
	onlyAccounts := true
	for _, pc := range f.Paths {
		if !isAccountDatabase(pc.Path) {
			onlyAccounts = false
			break
		}
	}
	if onlyAccounts && made == "" {
		f.HeldBack, f.HeldRule, f.HeldReason = true, ruleAccounts, "meets only on the account databases (/etc/passwd, group, shadow…), which every owner lookup reads; User and Group order is Puppet's autorequire"
		return
	}
	if made == "" {
		// Beside another path they are no evidence either: the finding
		// shows, and its confidence and direction come from, the paths
		// that make it.
		f.Paths = slices.DeleteFunc(f.Paths, func(pc PathConflict) bool { return isAccountDatabase(pc.Path) })
		if f.Kind == MOR {
			f.Producer, f.Consumer, f.BothWays = traceDirection(f.Paths)
		}
	}
	if f.Kind != MOR {
		return
	}
	if why, ok := catalog.Commute(f.Producer, f.Consumer); ok {
		f.HeldBack, f.Commutes, f.HeldRule, f.HeldReason = true, true, ruleCommutes, "commutes: "+why
		return
	}
	if metadataBeforeContent(f) {
		f.HeldBack, f.Commutes, f.HeldRule, f.HeldReason = true, true, ruleMetadataContent,
			"commutes: "+PuppetRef(f.Producer)+" only changes metadata (mode, owner), and "+PuppetRef(f.Consumer)+" only reads or edits the content in place"
	}
}

// metadataBeforeContent reports whether a MOR's producer is a File that
// manages only metadata (catalog.MetadataOnly), every path's production is
// a metadata call, and the consumer only read or edited the content there:
// mode and owner do not change what is read, and an in-place edit keeps
// them (rule 9).
func metadataBeforeContent(f *Finding) bool {
	if f.BothWays || !catalog.MetadataOnly(f.Producer) {
		return false
	}
	for _, pc := range f.Paths {
		if pc.producerReplaced || (pc.Relation != Consumes && pc.Relation != Modifies) {
			return false
		}
	}
	return true
}

// direction is 0 when r (a producer) is the pair's a side, 1 otherwise.
func direction(pr *pair, r *catalog.Resource) int {
	if r == pr.a.res {
		return 0
	}
	return 1
}

func roleFor(pr *pair, r *catalog.Resource) *blockRole {
	if r == pr.a.res {
		return pr.a
	}
	return pr.b
}

// suggestFix writes the change that removes the fault, in manifest syntax,
// placed on the resource that needs it (with its file:line). reversed says
// the consumer is ordered before the producer today (a service started
// before its log file is recreated): adding the edge alone would make a
// dependency cycle, which Puppet rejects, so the fix says to reverse it.
func suggestFix(k Kind, producer, consumer *catalog.Resource, reversed bool) string {
	p, c := PuppetRef(producer), PuppetRef(consumer)
	if k == MN {
		fix := c + " must be notified by " + p + ": add notify => " + c + " to " + p +
			location(producer, " (", ")") + ", or " + p + " ~> " + c
		if reversed {
			fix += "; " + p + " is ordered after " + c + " now: remove that ordering first, or Puppet reports a dependency cycle"
		}
		return fix
	}
	return c + " requires " + p + ": add require => " + p + " to " + c +
		location(consumer, " (", ")") + ", or " + p + " -> " + c
}

// location is "file:line" between before and after, or "" when unknown.
func location(r *catalog.Resource, before, after string) string {
	l := FileLine(r)
	if l == "" {
		return ""
	}
	return before + l + after
}

// FileLine is the manifest position of r as the fixes and the reports
// write it: "file:line", "file", or "" when the catalog does not say.
func FileLine(r *catalog.Resource) string {
	if r == nil || r.File == "" {
		return ""
	}
	if r.Line <= 0 {
		return r.File
	}
	return r.File + ":" + strconv.Itoa(r.Line)
}

// compareResources orders resources by manifest file, line, then reference.
// (Not cmp.Or: its arguments are all evaluated, and Ref allocates.)
func compareResources(x, y *catalog.Resource) int {
	if x == y {
		return 0
	}
	if c := strings.Compare(x.File, y.File); c != 0 {
		return c
	}
	if c := cmp.Compare(x.Line, y.Line); c != 0 {
		return c
	}
	if c := strings.Compare(x.Ref(), y.Ref()); c != 0 {
		return c
	}
	return cmp.Compare(x.ID, y.ID)
}

// compareFindings: MOR before MN, then by the producer's and the
// consumer's file:line and reference.
func compareFindings(x, y Finding) int {
	return cmp.Or(
		cmp.Compare(x.Kind, y.Kind),
		compareResources(x.Producer, y.Producer),
		compareResources(x.Consumer, y.Consumer),
	)
}

// resolvedWaiver is a waiver with its references looked up once.
type resolvedWaiver struct {
	Waiver
	r1, r2 *catalog.Resource // nil when the catalog does not know the reference
}

// applyWaivers marks waived findings and paths, and lists unused waivers.
func applyWaivers(rep *Report, g Graph, waivers []Waiver) {
	for _, w := range waivers {
		rw := resolvedWaiver{Waiver: w}
		if r, ok := g.Lookup(w.Ref1.String()); ok {
			rw.r1 = r
		}
		if r, ok := g.Lookup(w.Ref2.String()); ok {
			rw.r2 = r
		}
		used := false
		for i := range rep.Findings {
			f := &rep.Findings[i]
			if !rw.names(f.Producer, f.Consumer) || !w.Kinds.Has(f.Kind) {
				continue
			}
			if w.Path == "" {
				used = true
				if !f.Waived {
					f.Waived, f.WaiverReason, f.WaiverSource, f.Suppressed = true, w.Reason, w.Source, w.Inline
				}
				continue
			}
			for j := range f.Paths {
				pc := &f.Paths[j]
				if pc.Path == w.Path {
					used = true
					if !pc.Waived {
						pc.Waived, pc.WaiverReason = true, w.Reason
					}
				}
			}
		}
		// An inline comment is read only for the findings' resources, and
		// one of another kind than a finding's is simply not about it.
		if !used && !w.Inline {
			rep.UnusedWaivers = append(rep.UnusedWaivers, w)
		}
	}
	// A finding whose every path is waived is waived.
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if f.Waived || len(f.Paths) == 0 {
			continue
		}
		var reasons []string
		all := true
		for _, pc := range f.Paths {
			if !pc.Waived {
				all = false
				break
			}
			if !slices.Contains(reasons, pc.WaiverReason) {
				reasons = append(reasons, pc.WaiverReason)
			}
		}
		if all {
			f.Waived, f.WaiverReason = true, strings.Join(reasons, "; ")
		}
	}
}

// names reports whether the waiver names the pair {x, y}, in either order
// (one of them, when it names one resource).
func (w *resolvedWaiver) names(x, y *catalog.Resource) bool {
	if w.Ref2 == (catalog.Ref{}) {
		return refIs(w.Ref1, w.r1, x) || refIs(w.Ref1, w.r1, y)
	}
	return (refIs(w.Ref1, w.r1, x) && refIs(w.Ref2, w.r2, y)) ||
		(refIs(w.Ref1, w.r1, y) && refIs(w.Ref2, w.r2, x))
}

// refIs reports whether a reference written by a user denotes r: through
// the catalog (resolved: by title, namevar, alias) or, failing that, by comparing
// type case-insensitively and the title exactly (class titles
// case-insensitively, as Puppet does).
func refIs(ref catalog.Ref, resolved, r *catalog.Resource) bool {
	if resolved != nil {
		return resolved == r
	}
	if !r.Is(ref.Type) {
		return false
	}
	if ref.Is(catalog.TypeClass) {
		return strings.EqualFold(ref.Title, r.Title)
	}
	return ref.Title == r.Title
}

// emptyGraph stands in for a missing graph: every block is unresolved.
type emptyGraph struct{}

func (emptyGraph) Lookup(string) (*catalog.Resource, bool) { return nil, false }
func (emptyGraph) Ordered(a, b *catalog.Resource) bool     { return false }
func (emptyGraph) Notifies(a, b *catalog.Resource) bool    { return false }

// blockResource resolves a block's name to its catalog resource: the
// resource itself or, for one made at apply time (a recursive File's
// child, concat's File), the resource that generated it, whose accesses
// they are (generated true). nil when the catalog knows neither.
func blockResource(g Graph, gen GeneratorGraph, name string) (r *catalog.Resource, generated bool) {
	if r, ok := g.Lookup(name); ok && r != nil {
		return r, false
	}
	if gen != nil {
		if r, ok := gen.Generator(name); ok && r != nil {
			return r, true
		}
	}
	return nil, false
}

// parentNeeds returns, by directory, what the Files that make their own
// path when it is missing (blockRole.makesPath) need of its parent
// directory (rule 21): that it exists, as an existence-only read at the
// File's first access of its own path (Puppet looks its path up before it
// makes it). A File whose path was there in this run did not make it, and
// did not touch the parent: in the other order it has to make it, and
// cannot without the parent. Whoever made the parent in this run must
// precede it; Puppet orders a parent that a File manages itself
// (autorequire), but not one a Package or an Exec makes.
func parentNeeds(res *interp.Result, roles []blockRole) map[string][]interp.Access {
	var needs map[string][]interp.Access
	for pi := range res.Paths {
		pa := &res.Paths[pi]
		for ai := range pa.Accesses {
			a := &pa.Accesses[ai]
			if a.Block < 0 || int(a.Block) >= len(roles) {
				continue
			}
			role := &roles[a.Block]
			if !role.makesPath || role.ownPath != pa.Path || pa.Path == "/" {
				continue
			}
			ev, ok := firstEvidence(a)
			if !ok {
				continue
			}
			if needs == nil {
				needs = map[string][]interp.Access{}
			}
			dir := path.Dir(pa.Path)
			needs[dir] = append(needs[dir], interp.Access{Block: a.Block, Consumed: true, ConsumedBy: ev})
		}
	}
	return needs
}

// firstEvidence returns the earliest evidence of an access, whatever its
// effect.
func firstEvidence(a *interp.Access) (first interp.Evidence, ok bool) {
	for _, e := range []struct {
		set bool
		ev  interp.Evidence
	}{{a.Consumed, a.ConsumedBy}, {a.Produced, a.ProducedBy}, {a.Missing, a.MissingBy}, {a.Expunged, a.ExpungedBy}} {
		if e.set && (!ok || e.ev.Line < first.Line) {
			first, ok = e.ev, true
		}
	}
	return first, ok
}
