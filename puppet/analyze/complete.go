package analyze

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/fstrace"
)

// captureHint is how to capture a trace that fsmove can analyze, for the
// messages that say a trace is unusable.
const captureHint = "capture with: strace -f -s 300 -o trace.log puppet apply --debug --evaltrace --catalog_cache_terminus json site.pp (or use fsmove run)"

// judgeCompleteness fills rep.Incomplete and rep.Warnings: what makes the analysis
// cover less than the whole run, and the input problems that were worked
// around. A trace that holds no fault only because it holds nothing (no
// block recognised, cut off while Puppet ran, another run's catalog) must
// never read as clean.
func judgeCompleteness(rep *detector.Report, tr *TraceCounts, st *Stats, cat *catalog.Catalog, g *catalog.Graph, fromTrace bool) {
	is := &rep.Stats.Interp

	// What makes the analysis incomplete.
	if tr.ReadErr != "" {
		rep.Incomplete = append(rep.Incomplete, fmt.Sprintf(
			"the trace ends early (%s): it was cut while being written or copied; the report covers the first %d lines",
			tr.ReadErr, tr.Lines))
	}
	if tr.EndsMidLine && tr.ReadErr == "" {
		rep.Incomplete = append(rep.Incomplete,
			"the trace's last line is cut (no final newline): the tracer was stopped while writing, or the file was truncated")
	}
	if rep.Stats.Blocks == 0 {
		rep.Incomplete = append(rep.Incomplete, noBlocksReason(tr, fromTrace))
	} else {
		if is.UnclosedBlocks > 0 {
			rep.Incomplete = append(rep.Incomplete, fmt.Sprintf(
				"the trace ends inside %d resource block(s) (a block began and never ended): it was cut off while Puppet ran",
				is.UnclosedBlocks))
		}
		if tr.RunningMarkerWriters > 0 && is.UnclosedBlocks == 0 {
			rep.Incomplete = append(rep.Incomplete,
				"Puppet's process never exits in the trace: it was cut off while Puppet ran")
		}
		if reason := unpairedMarkers(is.UnmatchedEnds, tr.InterpWarnings.ImplicitEnds); reason != "" {
			rep.Incomplete = append(rep.Incomplete, reason)
		}
		if is.UnplacedChanges > 0 {
			rep.Incomplete = append(rep.Incomplete, fmt.Sprintf(
				"%d file change(s) inside resource blocks through an fd or path fsmove cannot resolve (first: %s): a resource changed a file and the report cannot say which",
				is.UnplacedChanges, describeChange(&is.FirstUnplacedChange)))
		}
		if n, unknown := rep.Stats.ResourceBlocks, rep.Stats.UnknownResources; n > 0 && 2*(n-unknown) < n {
			rep.Incomplete = append(rep.Incomplete, fmt.Sprintf(
				"the catalog does not match this trace: it names %d of the trace's %d resource blocks (not named: %s); give the catalog of the same run",
				n-unknown, n, listSome(rep.UnknownResources(), 3)))
		}
	}

	// Counted problems: those that change what the report means are shown
	// in the text report, the others only counted (docs/DESIGN.md,
	// Warnings, has one line for each and why).
	const shown, counted = detector.ChangesReport, detector.Counted
	firstWarning := ""
	if len(st.Warnings) > 0 {
		w := st.Warnings[0]
		firstWarning = fmt.Sprintf("line %d: %s", w.Line, w.Message)
		if w.Text != "" {
			firstWarning += fmt.Sprintf(": %q", w.Text)
		}
	}
	other := tr.ReaderWarnings - tr.Malformed
	if tr.Malformed > 0 {
		rep.AddWarning(shown, "malformed trace lines, skipped", tr.Malformed, firstWarning)
		firstWarning = "" // the reader's first warning may be of either kind
	}
	rep.AddWarning(shown, "other trace warnings (a resumed call without its start, -ff files out of order)", other, firstWarning)
	rep.AddWarning(counted, "calls that never returned in the trace (<unfinished ...> without its resumed half)", int64(tr.Unfinished), "")
	rep.AddWarning(shown, "calls whose path or fd argument could not be read (a pointer, cut by the tracer), their path left out", tr.Lowering.BadArgs, "")
	rep.AddWarning(shown, "system calls fsmove does not model", tr.Lowering.Unknown, topUnknown(tr.Lowering.UnknownBySyscall))
	if rep.Stats.Blocks > 0 {
		rep.AddWarning(shown, "Puppet info lines cut by the tracer's string limit (strace -s): a block marker there is lost", tr.Lowering.MarkerCutMarks, "")
	}
	// A marker-like line from another process than Puppet's is ignored, so
	// it no longer moves work between blocks: the writer's accesses stay
	// with the block it acts for, and a command may print such lines
	// innocently (an Exec that shows an old Puppet log). Shown, not a reason
	// of incompleteness: it may be a module trying to forge its verdict.
	foreign := ""
	if tr.Lowering.ForeignMarks > 0 {
		foreign = fmt.Sprintf("line %d", tr.Lowering.ForeignMarkLine)
	}
	rep.AddWarning(shown, "marker-like lines written by other processes than Puppet's, ignored", tr.Lowering.ForeignMarks, foreign)
	rep.AddWarning(counted, "fds used but never opened in the trace (inherited)", is.UnknownFds, "")
	rep.AddWarning(counted, "paths that could not be resolved (unknown directory fd, symlink loop)", is.UnresolvedPaths, "")
	rep.AddWarning(counted, "statements of processes never created in the trace", is.UnknownPids, "")
	rep.AddWarning(counted, "clones whose child is the creating process itself (ignored)", tr.InterpWarnings.SelfClones, "")
	if cat != nil {
		rep.AddWarning(shown, "catalog entries skipped or edges unresolved", int64(len(cat.Warnings)), first(cat.Warnings))
	}
	if g != nil {
		rep.AddWarning(shown, "catalog relationship warnings (references to unknown resources)", int64(len(g.Warnings)), first(g.Warnings))
	}
}

// unpairedMarkers says why the analysis is incomplete when Puppet's block
// markers do not pair up, or "" when they do. Puppet logs "Starting to
// evaluate the resource" and "Evaluated in" around every resource it
// evaluates, one resource at a time (no real trace of testdata/runs or
// testdata/strace has an unpaired one): an End without its Begin, or a
// Begin while a block is open, means markers were lost, and the accesses
// between them went to no block or to another resource's.
func unpairedMarkers(endsWithoutBegin, beginsInsideBlock int64) string {
	if endsWithoutBegin+beginsInsideBlock == 0 {
		return ""
	}
	return fmt.Sprintf("%d of Puppet's block markers do not pair up (%d \"Evaluated in\" without its \"Starting to evaluate the resource\", %d \"Starting to evaluate\" before the open resource's \"Evaluated in\"): markers were lost, so some resources' accesses went to no block or to another resource's",
		endsWithoutBegin+beginsInsideBlock, endsWithoutBegin, beginsInsideBlock)
}

// describeChange says where a change the model could not place comes
// from: its trace line, call, process and names.
func describeChange(st *fstrace.Statement) string {
	name := func(dir int32, path string) string {
		if dir == fstrace.AtFdcwd || (path != "" && path[0] == '/') {
			return strconv.Quote(path)
		}
		return fmt.Sprintf("fd %d + %q", dir, path)
	}
	what := name(st.Dir, st.Path)
	if st.Op == fstrace.OpSymlink {
		what = name(st.Dir2, st.Path2)
	} else if st.Path2 != "" {
		what += " → " + name(st.Dir2, st.Path2)
	}
	return fmt.Sprintf("line %d, %s by pid %d of %s", st.Line, st.Syscall, st.Pid, what)
}

// noBlocksReason says why no block was recognised, and how to capture a
// trace that has them.
func noBlocksReason(tr *TraceCounts, fromTrace bool) string {
	if !fromTrace {
		return "the FStrace program has no begin/end block: no access belongs to a resource"
	}
	var why string
	switch {
	case tr.Events == 0 && tr.Malformed > 0:
		why = fmt.Sprintf("the input is not strace output (%d malformed lines, no system call)", tr.Malformed)
	case tr.Events == 0:
		why = "the trace holds no system call (empty, or strace traced no process)"
	case tr.Lowering.CutMarks > 0:
		why = fmt.Sprintf("strace cut Puppet's info lines, where the block markers are (%d writes end in \"...\"): its -s is too small, use -s 300 or more", tr.Lowering.CutMarks)
	default:
		why = "Puppet's evaltrace lines are missing: run puppet apply with --evaltrace (and --debug or --verbose), and trace writes"
	}
	return "no Puppet resource block recognised in the trace, so no access belongs to a resource: " + why + "; " + captureHint
}

// listSome joins the first n names, with "…" when there are more.
func listSome(names []string, n int) string {
	if len(names) > n {
		return strings.Join(names[:n], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}

// topUnknown names the most frequent calls without a lowering row.
func topUnknown(by map[string]int64) string {
	if len(by) == 0 {
		return ""
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if by[names[i]] != by[names[j]] {
			return by[names[i]] > by[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > 3 {
		names = names[:3]
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s ×%d", n, by[n])
	}
	return strings.Join(parts, ", ")
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
