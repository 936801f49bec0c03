package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/fsmove/fsmove/puppet/container"
)

// The disk budget (Options.MaxDisk): a module writes as root in its
// container, and the container's writable layer is on the host's disk,
// which no storage driver here bounds. A module that wrote 3.2 GB left the
// host's disk fuller and the run clean. While the container lives, a
// watcher measures what it wrote (container.Disk) every diskEvery; over
// the budget, the run is stopped as a timeout is (what was captured is
// copied out, within its own budgets), with status over-budget, exit 3.

// DefaultMaxDisk is the default of Options.MaxDisk: above the largest
// module of the Debian corpus and the default --max-trace (strace writes
// trace.log in the container).
const DefaultMaxDisk = 10 << 30

// diskEvery is how often the watcher measures: a walk of the writable
// layer takes a few tens of milliseconds for a container that installed
// packages.
const diskEvery = 2 * time.Second

// DiskBudgetError is why a run over its disk budget was stopped: the
// cause of its context.
type DiskBudgetError struct {
	Written, Budget int64
}

func (e *DiskBudgetError) Error() string {
	return fmt.Sprintf("the container wrote %s to its disk, over the budget of %s (--max-disk): the run was stopped",
		container.FormatBytes(e.Written), container.FormatBytes(e.Budget))
}

// maxDisk is the run's disk budget; 0 for none.
func (r *run) maxDisk() int64 {
	switch {
	case r.opts.MaxDisk < 0:
		return 0
	case r.opts.MaxDisk == 0:
		return DefaultMaxDisk
	}
	return r.opts.MaxDisk
}

// watchDisk measures the container's disk until the returned function is
// called, and stops the run (r.stop) when it is over its budget. A
// container whose disk cannot be measured is said once; the run goes on.
func (r *run) watchDisk(ctx context.Context) (end func()) {
	budget := r.maxDisk()
	if budget == 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		disk, err := r.c.Disk(ctx)
		for err == nil {
			if err = container.SleepCtx(ctx, diskEvery); err != nil {
				return
			}
			var written int64
			if written, err = disk.Written(ctx); err == nil && written > budget {
				// Run records it in run.json: this goroutine writes
				// nothing of the run's.
				r.stop(&DiskBudgetError{Written: written, Budget: budget})
				return
			}
		}
		if ctx.Err() == nil {
			r.warnf(err, "fsmove: the container's disk cannot be measured (%v): --max-disk does not hold\n", err)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
