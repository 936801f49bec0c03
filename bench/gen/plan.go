package gen

import (
	"math/rand/v2"
	"strconv"
)

// resourceKind is the type of a generated catalog resource.
type resourceKind uint8

const (
	kindFile resourceKind = iota
	kindExec
	kindPackage
	kindService
)

// kindTypes is the Puppet type name of each kind.
var kindTypes = [...]string{kindFile: "File", kindExec: "Exec", kindPackage: "Package", kindService: "Service"}

// minChildren is how many processes a resource of each kind starts: an Exec
// runs its command through sh; a Package runs dpkg-query, then apt-get which
// runs dpkg; a Service runs `service … status`, then `service … start` which
// starts the daemon.
var minChildren = [...]int{kindFile: 0, kindExec: 1, kindPackage: 3, kindService: 3}

// blockWeight says how much of the trace a resource of each kind takes,
// relative to a File.
var blockWeight = [...]float64{kindFile: 1, kindExec: 2, kindPackage: 4, kindService: 2}

// resource is one planned catalog resource and what its block does.
type resource struct {
	kind  resourceKind
	index int // position among the resources, in evaluation order
	class int // index into plan.classes
	title string
	dir   bool // a File with ensure => directory
	// output is the path the resource produces that others may consume
	// (a File's target, an Exec's output file, a Package's program). A
	// Service produces nothing for others.
	output string
	// consumes holds conflict paths this resource's block reads.
	consumes []string
	// extra is the number of helper processes beyond minChildren.
	extra int
	// Catalog relationships, as indices of other resources.
	require, before, notify, subscribe []int
	line                               int // manifest line
}

func (r *resource) ref() string { return kindTypes[r.kind] + "[" + r.title + "]" }

// className returns the class name of class k as the evaltrace source shows
// it ("Gen::Mod3").
func className(k int) string { return "Gen::Mod" + strconv.Itoa(k) }

// conflictOrder says how the catalog relates a conflict's two resources.
type conflictOrder uint8

const (
	orderNone    conflictOrder = iota // nothing: a missing ordering relationship
	orderRequire                      // the consumer requires the producer
	orderNotify                       // the producer notifies the consumer
)

// plannedConflict is a deliberate conflict between two resources.
type plannedConflict struct {
	producer, consumer int
	path               string
	order              conflictOrder
}

// conflictShapes lists the conflicts in the order they are planned, one row
// per conflict; it repeats when more are asked for. The rows cover: a hidden
// MOR, an ordered pair (no finding), a notified service (no finding), a
// Package feeding an unordered Exec, and a MN (ordered but not notified).
var conflictShapes = []struct {
	producer, consumer resourceKind
	order              conflictOrder
}{
	{kindFile, kindService, orderNone},
	{kindExec, kindExec, orderRequire},
	{kindFile, kindService, orderNotify},
	{kindPackage, kindExec, orderNone},
	{kindFile, kindService, orderRequire},
	{kindExec, kindExec, orderNone},
}

// plan is the run decided from Params before any byte is written. It
// depends on every field but Size, so catalogs match across trace sizes.
type plan struct {
	p         Params
	classes   int
	resources []resource
	conflicts []plannedConflict
}

// words name generated things; they come from Puppet's own source tree.
var words = []string{
	"agent", "apply", "catalog", "config", "daemon", "environment", "facts", "file",
	"graph", "http", "indirector", "module", "network", "node", "parser", "pops",
	"provider", "relationship", "report", "resource", "scheduler", "settings", "ssl", "transaction",
	"type", "util", "validator", "loader", "evaluator", "functions", "confine", "context",
	"data", "defaults", "error", "face", "forge", "interface", "logging", "metatype",
	"pal", "plugins", "property", "reports", "rest", "server", "syntax", "test",
	"trusted", "vendor", "x509", "yaml", "json", "concurrent", "semantic", "thread",
	"multi", "path", "sync", "lexer", "compiler", "model", "ast", "scope",
}

func newPlan(p Params) *plan {
	rng := rand.New(rand.NewPCG(uint64(p.Seed), 0x706c616e)) // "plan"
	pl := &plan{p: p, classes: max(1, p.Blocks/25)}
	pl.resources = make([]resource, p.Blocks)
	nextLong := 7 // the next Exec from this index on gets a long title
	for i := range pl.resources {
		r := &pl.resources[i]
		r.index = i
		r.class = i * pl.classes / p.Blocks
		r.line = 3 + 4*(i-pl.firstOfClass(r.class))
		// The first four resources are one of each kind, so that small
		// runs still have every kind; then File 45%, Exec 25%, Package 15%,
		// Service 15%.
		if i < 4 {
			r.kind = resourceKind(i)
		} else {
			switch x := rng.IntN(100); {
			case x < 45:
				r.kind = kindFile
			case x < 70:
				r.kind = kindExec
			case x < 85:
				r.kind = kindPackage
			default:
				r.kind = kindService
			}
		}
		w := words[rng.IntN(len(words))]
		n := strconv.Itoa(i)
		switch r.kind {
		case kindFile:
			if i%5 == 4 {
				r.dir = true
				r.title = "/srv/gen/" + w + "-" + n
			} else {
				r.title = "/etc/gen/mod" + strconv.Itoa(r.class) + "/" + w + "-" + n + ".conf"
			}
			r.output = r.title
		case kindExec:
			// Exec titles are free text: give some the brackets, braces and
			// colons that evaltrace parsing must survive.
			switch i % 4 {
			case 0:
				r.title = "render " + w + " [" + n + "]"
			case 1:
				r.title = "/usr/bin/gen-tool --step " + n
			case 2:
				r.title = "refresh {" + w + ": " + n + "}"
			default:
				r.title = "gen-" + w + "-" + n
			}
			if i >= nextLong {
				r.title = longTitle(r.class, n)
				nextLong = i + 50
			}
			r.output = "/var/lib/gen/exec-" + n + ".out"
		case kindPackage:
			r.title = "gen-" + w + "-" + n
			r.output = "/usr/bin/gen-" + w + "-" + n
		case kindService:
			r.title = "gen-svc-" + n
		}
	}
	pl.planProcesses()
	pl.planConflicts(rng)
	pl.planEdges(rng)
	return pl
}

// firstOfClass returns the index of the first resource of class k.
func (pl *plan) firstOfClass(k int) int {
	// Inverse of class = i*classes/Blocks: the smallest i with
	// i*classes >= k*Blocks.
	return (k*pl.p.Blocks + pl.classes - 1) / pl.classes
}

// planProcesses spreads the processes beyond the minimum over the resources
// that start processes, as helper children (sed, install scripts).
func (pl *plan) planProcesses() {
	const threads = 3
	need := 1 + threads
	var spawners []int
	for i := range pl.resources {
		if k := pl.resources[i].kind; minChildren[k] > 0 {
			need += minChildren[k]
			if k != kindService {
				spawners = append(spawners, i)
			}
		}
	}
	if len(spawners) == 0 {
		return
	}
	for e := 0; e < pl.p.Processes-need; e++ {
		pl.resources[spawners[e%len(spawners)]].extra++
	}
}

// planConflicts picks, for each conflict, a producer and a later consumer of
// the kinds its shape asks for, each resource in at most one conflict (so no
// chain of relationships orders an unordered pair).
func (pl *plan) planConflicts(rng *rand.Rand) {
	used := make([]bool, len(pl.resources))
	for k := 0; k < pl.p.Conflicts; k++ {
		shape := conflictShapes[k%len(conflictShapes)]
		prod := pl.pick(rng, shape.producer, used, 0, len(pl.resources)/2+1)
		if prod < 0 {
			prod = pl.pick(rng, shape.producer, used, 0, len(pl.resources))
		}
		if prod < 0 {
			continue
		}
		cons := pl.pick(rng, shape.consumer, used, prod+1, len(pl.resources))
		if cons < 0 {
			continue
		}
		used[prod], used[cons] = true, true
		pr, cr := &pl.resources[prod], &pl.resources[cons]
		if pr.dir {
			// A directory has no content to read; make it a file.
			pr.dir = false
			pr.title += ".conf"
			pr.output = pr.title
		}
		cr.consumes = append(cr.consumes, pr.output)
		switch shape.order {
		case orderRequire:
			cr.require = append(cr.require, prod)
		case orderNotify:
			pr.notify = append(pr.notify, cons)
		}
		pl.conflicts = append(pl.conflicts, plannedConflict{prod, cons, pr.output, shape.order})
	}
}

// pick returns a random unused resource of kind k with index in [from, to),
// or -1.
func (pl *plan) pick(rng *rand.Rand, k resourceKind, used []bool, from, to int) int {
	to = min(to, len(pl.resources))
	n := 0
	for i := from; i < to; i++ {
		if pl.resources[i].kind == k && !used[i] {
			n++
		}
	}
	if n == 0 {
		return -1
	}
	want := rng.IntN(n)
	for i := from; i < to; i++ {
		if pl.resources[i].kind == k && !used[i] {
			if want == 0 {
				return i
			}
			want--
		}
	}
	return -1
}

// planEdges adds the ordinary relationships a module has: some resources
// require or come before an earlier or later resource of the same class.
// Resources in a conflict get none, so the conflicts' ordering is exactly
// what planConflicts decided.
func (pl *plan) planEdges(rng *rand.Rand) {
	inConflict := make([]bool, len(pl.resources))
	for _, c := range pl.conflicts {
		inConflict[c.producer], inConflict[c.consumer] = true, true
	}
	for i := 1; i < len(pl.resources); i++ {
		r := &pl.resources[i]
		prev := &pl.resources[i-1]
		if inConflict[i] || inConflict[i-1] || prev.class != r.class || rng.IntN(10) >= 3 {
			continue
		}
		switch {
		case r.kind == kindService && prev.kind == kindFile:
			r.subscribe = append(r.subscribe, i-1)
		case rng.IntN(2) == 0:
			r.require = append(r.require, i-1)
		default:
			prev.before = append(prev.before, i)
		}
	}
}

// longTitle returns an Exec title so long that, with strace -s 300, the
// resource's Begin line is cut inside its "(N of M)" counter while its End
// line stays whole: the case Marker must still recognise.
func longTitle(class int, n string) string {
	// The Begin line up to the end of the phrase, without the title.
	fixed := len("\x1b[0;32mInfo: /Stage[main]/") + len(className(class)) + len("/Exec[") + len("]: Starting to evaluate the resource")
	title := "run a long command " + n + " "
	for len(title) < DefaultStringLimit-4-fixed {
		title += "x"
	}
	return title
}
