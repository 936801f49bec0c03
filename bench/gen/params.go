// Package gen writes synthetic but realistic inputs for fsmove's benchmarks:
// an `strace -f -s 300` log shaped like a Puppet 7 run (Generate) and the
// catalog that run applied (GenerateCatalog).
//
// The trace looks like fsmove-notes §1 and puppet-notes describe a real one:
// most of it is Puppet's Ruby process loading files and making calls no
// analysis cares about, with Debug lines on fd 1; around that, one block per
// resource between evaltrace markers, children started with vfork/clone and
// exec'd for Exec, Package and Service resources, File resources written to a
// temporary file and renamed onto their target, daemons that keep running
// after their Service's block, and <unfinished ...>/<... resumed> pairs
// interleaved between pids.
//
// A few deliberate conflicts (a path produced in one block and consumed in
// another) give the analysis something to find; Conflicts lists them with the
// catalog relationships that order (or do not order) each pair. Apart from
// those, no path is produced by one block and used by another.
//
// Output depends only on Params: the same Params give the same bytes. The
// catalog and the conflicts do not depend on Size, so traces of several sizes
// share one catalog.
package gen

import (
	"errors"
	"fmt"
)

// Params shapes a generated run. Zero fields take the defaults below.
type Params struct {
	// Size is the trace size to aim for, in bytes. The trace ends within a
	// few hundred bytes of it unless the blocks' own work needs more
	// (then it is as long as that work).
	Size int64
	// Processes is the number of distinct pids to aim for: Puppet's Ruby
	// process, its threads, and the children of Exec, Package and Service
	// resources. Each Exec needs one child and each Package and Service
	// three, so the trace may have more.
	Processes int
	// Paths is the number of distinct paths to aim for. Most are files Ruby
	// loads or looks for; a trace too short to reach them all has fewer.
	Paths int
	// Blocks is the number of catalog resources (File, Exec, Package,
	// Service), each one block in the trace. The trace also has the blocks
	// Puppet logs for Stage, Class, Schedule and Filebucket.
	Blocks int
	// Conflicts is the number of deliberate conflicts; 0 means
	// DefaultConflicts and a negative value means none. There may be fewer
	// when the resources do not allow them (see Conflicts).
	Conflicts int
	// Seed selects one of many runs with the same shape.
	Seed int64
	// StringLimit is strace's -s: strings longer than it are cut and printed
	// with "...". Default 300, as fsmove and the original tool use.
	StringLimit int
}

// Defaults for zero Params fields.
const (
	DefaultSize        = 64 << 20
	DefaultProcesses   = 200
	DefaultPaths       = 20000
	DefaultBlocks      = 300
	DefaultConflicts   = 5
	DefaultStringLimit = 300
)

// withDefaults returns p with zero fields set to their defaults, or an error
// for values no run can have.
func (p Params) withDefaults() (Params, error) {
	if p.Size < 0 || p.Processes < 0 || p.Paths < 0 || p.Blocks < 0 || p.StringLimit < 0 {
		return p, errors.New("gen: negative parameter")
	}
	if p.Size == 0 {
		p.Size = DefaultSize
	}
	if p.Processes == 0 {
		p.Processes = DefaultProcesses
	}
	if p.Paths == 0 {
		p.Paths = DefaultPaths
	}
	if p.Blocks == 0 {
		p.Blocks = DefaultBlocks
	}
	if p.Conflicts == 0 {
		p.Conflicts = DefaultConflicts
	}
	if p.Conflicts < 0 {
		p.Conflicts = 0
	}
	if p.StringLimit == 0 {
		p.StringLimit = DefaultStringLimit
	}
	const maxBlocks = 10_000_000
	if p.Blocks > maxBlocks || p.Paths > 100_000_000 || p.Processes > 10_000_000 {
		return p, fmt.Errorf("gen: parameters too large (at most %d blocks)", maxBlocks)
	}
	return p, nil
}

// Conflict is one deliberate conflict: Producer's block produces Path and
// Consumer's block, later in the run, consumes it.
type Conflict struct {
	Producer string // reference, e.g. File[/etc/gen/mod0/alpha-3.conf]
	Consumer string // reference, e.g. Service[gen-svc-12]
	Path     string
	// Ordered is true when the catalog orders Producer before Consumer
	// (a require, before, notify or subscribe between the two). Without it
	// the pair is a missing ordering relationship.
	Ordered bool
	// Notified is true when the catalog has Producer notify Consumer.
	// A Service consumer without it is a missing notifier.
	Notified bool
	// ConsumerIsService and ProducerIsPackage say which fault rules apply
	// (MN is about services; Package → Service only with --package-notify).
	ConsumerIsService bool
	ProducerIsPackage bool
}

// Conflicts returns the deliberate conflicts of the run p describes.
func Conflicts(p Params) ([]Conflict, error) {
	p, err := p.withDefaults()
	if err != nil {
		return nil, err
	}
	pl := newPlan(p)
	out := make([]Conflict, 0, len(pl.conflicts))
	for _, c := range pl.conflicts {
		prod, cons := &pl.resources[c.producer], &pl.resources[c.consumer]
		out = append(out, Conflict{
			Producer:          prod.ref(),
			Consumer:          cons.ref(),
			Path:              c.path,
			Ordered:           c.order != orderNone,
			Notified:          c.order == orderNotify,
			ConsumerIsService: cons.kind == kindService,
			ProducerIsPackage: prod.kind == kindPackage,
		})
	}
	return out, nil
}
