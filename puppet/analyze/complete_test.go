package analyze

import (
	"strings"
	"testing"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/fstrace"
)

// completeInput is what judgeCompleteness is given for a whole run: blocks that all
// closed, Puppet's process exited, markers paired, every resource block
// named by the catalog, the trace read to its final newline.
type completeInput struct {
	rep       detector.Report
	tr        TraceCounts
	fromTrace bool
}

func wholeRun() completeInput {
	in := completeInput{fromTrace: true}
	in.rep.Stats.Blocks = 6
	in.rep.Stats.ResourceBlocks = 4
	in.tr.Lines, in.tr.Events = 100, 80
	return in
}

// TestJudgeCompletenessIncomplete: each reason an analysis is incomplete, given a
// case that has it (the one reason, naming what is wrong) and its near
// miss (the same input one step short of the condition: complete).
func TestJudgeCompletenessIncomplete(t *testing.T) {
	cases := []struct {
		name     string
		edit     func(*completeInput)
		nearMiss func(*completeInput)
		want     string // in the one reason; "" for the near miss
	}{
		{
			name:     "read error",
			edit:     func(in *completeInput) { in.tr.ReadErr = "unexpected EOF" },
			nearMiss: func(in *completeInput) { in.tr.ReadErr = "" },
			want:     "the trace ends early (unexpected EOF)",
		},
		{
			name:     "last line cut",
			edit:     func(in *completeInput) { in.tr.EndsMidLine = true },
			nearMiss: func(in *completeInput) { in.tr.EndsMidLine = false },
			want:     "the trace's last line is cut",
		},
		{
			// A read error explains the cut line: one reason, not two.
			name: "read error and last line cut",
			edit: func(in *completeInput) { in.tr.ReadErr, in.tr.EndsMidLine = "unexpected EOF", true },
			nearMiss: func(in *completeInput) {
				in.tr.ReadErr, in.tr.EndsMidLine = "", false
			},
			want: "the trace ends early",
		},
		{
			name:     "no block",
			edit:     func(in *completeInput) { in.rep.Stats.Blocks, in.rep.Stats.ResourceBlocks = 0, 0 },
			nearMiss: func(in *completeInput) { in.rep.Stats.Blocks, in.rep.Stats.ResourceBlocks = 1, 0 },
			want:     "no Puppet resource block recognised",
		},
		{
			// No block is the reason; what blocks would tell is not added.
			name: "no block, Puppet still running",
			edit: func(in *completeInput) {
				in.rep.Stats.Blocks, in.rep.Stats.ResourceBlocks = 0, 0
				in.rep.Stats.Interp.UnclosedBlocks, in.tr.RunningMarkerWriters = 1, 1
			},
			nearMiss: func(in *completeInput) {
				in.rep.Stats.Blocks = 1
				in.rep.Stats.Interp.UnclosedBlocks, in.tr.RunningMarkerWriters = 0, 0
			},
			want: "no Puppet resource block recognised",
		},
		{
			name:     "no block in an FStrace program",
			edit:     func(in *completeInput) { in.rep.Stats.Blocks, in.fromTrace = 0, false },
			nearMiss: func(in *completeInput) { in.rep.Stats.Blocks, in.fromTrace = 1, false },
			want:     "the FStrace program has no begin/end block",
		},
		{
			name:     "unclosed block",
			edit:     func(in *completeInput) { in.rep.Stats.Interp.UnclosedBlocks = 1 },
			nearMiss: func(in *completeInput) { in.rep.Stats.Interp.UnclosedBlocks = 0 },
			want:     "the trace ends inside 1 resource block(s)",
		},
		{
			name:     "Puppet never exits",
			edit:     func(in *completeInput) { in.tr.RunningMarkerWriters = 1 },
			nearMiss: func(in *completeInput) { in.tr.RunningMarkerWriters = 0 },
			want:     "Puppet's process never exits in the trace",
		},
		{
			// An unclosed block already says Puppet was cut off: one reason.
			name: "Puppet never exits inside a block",
			edit: func(in *completeInput) {
				in.tr.RunningMarkerWriters, in.rep.Stats.Interp.UnclosedBlocks = 1, 2
			},
			nearMiss: func(in *completeInput) {
				in.tr.RunningMarkerWriters, in.rep.Stats.Interp.UnclosedBlocks = 0, 0
			},
			want: "the trace ends inside 2 resource block(s)",
		},
		{
			name:     "an End without its Begin",
			edit:     func(in *completeInput) { in.rep.Stats.Interp.UnmatchedEnds = 1 },
			nearMiss: func(in *completeInput) { in.rep.Stats.Interp.UnmatchedEnds = 0 },
			want:     "1 of Puppet's block markers do not pair up (1 \"Evaluated in\" without",
		},
		{
			name:     "a Begin inside a block",
			edit:     func(in *completeInput) { in.tr.InterpWarnings.ImplicitEnds = 1 },
			nearMiss: func(in *completeInput) { in.tr.InterpWarnings.ImplicitEnds = 0 },
			want:     "1 of Puppet's block markers do not pair up (0 \"Evaluated in\" without its \"Starting to evaluate the resource\", 1 ",
		},
		{
			// Fewer than half of the resource blocks named: another run's
			// catalog. Exactly half named is the near miss.
			name:     "catalog of another run",
			edit:     func(in *completeInput) { in.rep.Stats.ResourceBlocks, in.rep.Stats.UnknownResources = 4, 3 },
			nearMiss: func(in *completeInput) { in.rep.Stats.ResourceBlocks, in.rep.Stats.UnknownResources = 4, 2 },
			want:     "the catalog does not match this trace: it names 1 of the trace's 4 resource blocks",
		},
		{
			name:     "catalog names no resource block",
			edit:     func(in *completeInput) { in.rep.Stats.ResourceBlocks, in.rep.Stats.UnknownResources = 1, 1 },
			nearMiss: func(in *completeInput) { in.rep.Stats.ResourceBlocks, in.rep.Stats.UnknownResources = 1, 0 },
			want:     "it names 0 of the trace's 1 resource blocks",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := wholeRun()
			c.edit(&in)
			got := judgeInput(in)
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Errorf("incomplete: %q; want one reason holding %q", got, c.want)
			}

			in = wholeRun()
			c.edit(&in)
			c.nearMiss(&in)
			if got := judgeInput(in); len(got) != 0 {
				t.Errorf("near miss: incomplete %q; want complete", got)
			}
		})
	}
}

// TestJudgeCompletenessWholeRun: the input every case starts from is complete,
// and so is a trace with problems that are only counted.
func TestJudgeCompletenessWholeRun(t *testing.T) {
	in := wholeRun()
	if got := judgeInput(in); len(got) != 0 {
		t.Fatalf("a whole run is incomplete: %q", got)
	}
	in.tr.Malformed, in.tr.ReaderWarnings, in.tr.Unfinished = 2, 2, 1
	in.rep.Stats.Interp.UnknownFds = 3
	if got := judgeInput(in); len(got) != 0 {
		t.Errorf("counted warnings make the run incomplete: %q", got)
	}
}

// TestNoBlocksReason: a trace without blocks says why, by what it holds.
func TestNoBlocksReason(t *testing.T) {
	for _, c := range []struct {
		name string
		tr   TraceCounts
		want string
	}{
		{"not strace", TraceCounts{Malformed: 3}, "the input is not strace output (3 malformed lines"},
		{"empty", TraceCounts{}, "the trace holds no system call"},
		{"cut markers", TraceCounts{Events: 5, Lowering: fstrace.Stats{CutMarks: 2}}, "strace cut Puppet's info lines, where the block markers are (2 writes"},
		{"no evaltrace", TraceCounts{Events: 5}, "Puppet's evaltrace lines are missing"},
		{"no evaltrace, some lines malformed", TraceCounts{Events: 5, Malformed: 2}, "Puppet's evaltrace lines are missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := wholeRun()
			in.rep.Stats.Blocks, in.tr = 0, c.tr
			got := judgeInput(in)
			if len(got) != 1 || !strings.Contains(got[0], c.want) || !strings.Contains(got[0], captureHint) {
				t.Errorf("got %q; want one reason holding %q and how to capture", got, c.want)
			}
		})
	}
}

// judgeInput runs judgeCompleteness on in and returns the reasons it gives.
func judgeInput(in completeInput) []string {
	rep := in.rep
	judgeCompleteness(&rep, &in.tr, &Stats{}, nil, nil, in.fromTrace)
	return rep.Incomplete
}
