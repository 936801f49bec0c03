package ebpf

import (
	"github.com/fsmove/fsmove/tracer/linux"
)

// The eBPF tracer's calls are the rows of linux.Syscalls that the lowering
// lowers (Why linux.Lowered): a process's end comes from the exit
// tracepoint, not from exit_group. Each row is turned into a BPF plan
// (planFor), saying what the program reads, and its arguments into
// tracer.Args (decode in tracer.go), the same the strace reader gives for
// the same call. At most two string arguments per call (rename's two
// paths): the program reads two.

// syscallTable is the rows the BPF program traces.
var syscallTable = func() []*linux.Syscall {
	var t []*linux.Syscall
	for i := range linux.Syscalls {
		if linux.Syscalls[i].Why == linux.Lowered {
			t = append(t, &linux.Syscalls[i])
		}
	}
	return t
}()

// maxNr bounds the syscall numbers the BPF plans map holds (MAX_NR in the
// C source, TestCAgrees).
const maxNr = linux.MaxNr

// Special readings, as enum special in fsmove.bpf.c.
const (
	spNone      = 0
	spWrite     = 1
	spWritev    = 2
	spStructU64 = 3
	spIntPair   = 4
)

// planFor turns a row into the BPF program's plan for the call. A lookup
// (the row's Lookup) sends its ENOENT and ENOTDIR failures with their
// strings, so that a resource that failed for want of a path another one
// makes later is seen.
func planFor(row *linux.Syscall) fsmovePlan {
	p := fsmovePlan{Wanted: 1}
	if row.Lookup {
		p.Lookup = 1
	}
	if row.Forks {
		p.Forks = 1
	}
	for i, kind := range row.Args {
		switch kind.Value() {
		case linux.ValString, linux.ValOutString:
			switch {
			case p.Str0 == 0:
				p.Str0 = uint8(i + 1)
				if kind == linux.ExecPath {
					p.Exec = 1
				}
			case p.Str1 == 0:
				p.Str1 = uint8(i + 1)
			}
		case linux.ValWriteData:
			p.Special = spWrite
		case linux.ValWriteIovec:
			p.Special = spWritev
		case linux.ValStructU64:
			p.Special, p.SpecialArg = spStructU64, uint8(i)
		case linux.ValOutIntPair:
			p.Special, p.SpecialArg = spIntPair, uint8(i)
		}
	}
	return p
}

// byNr indexes the table by syscall number.
var byNr = func() [maxNr]*linux.Syscall {
	var ix [maxNr]*linux.Syscall
	for _, row := range syscallTable {
		ix[row.Nr] = row
	}
	return ix
}()
