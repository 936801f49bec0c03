package puppet_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fsmove/fsmove/fstrace/interp"
	"github.com/fsmove/fsmove/puppet/analyze"
	"github.com/fsmove/fsmove/tracer"
	"github.com/fsmove/fsmove/tracer/strace"
)

// TestObservedFailureTrace reads, through the analysis pipeline (the
// strace reader with the analysis options, the lowering with
// puppet.Marker, the interpreter), an excerpt of a real Puppet 7.23 trace
// (fsmove run, strace 6.1) of
//
//	exec { 'use': command => 'fsmove-made-later', path => ['/usr/local/bin'] }
//	file { '/usr/local/bin/fsmove-made-later': ensure => file, mode => '0755', content => "#!/bin/sh\ntrue\n" }
//
// Puppet applies them in manifest order: the Exec looks its command up,
// does not find it (newfstatat ENOENT), and fails ("Error: …/returns: …" on
// fd 2); then the File creates it. The result must hold both facts the
// detector needs: Exec[use] failed, with Puppet's line, and its block
// failed to find the path that File's block produces later.
func TestObservedFailureTrace(t *testing.T) {
	const cmd = "/usr/local/bin/fsmove-made-later"
	r, err := strace.Open("testdata/observed-fail.strace", analyze.ReaderOptions(true))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var counts analyze.TraceCounts
	res, err := analyze.Interpret(context.Background(), r, &counts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	block := func(name string) interp.BlockID {
		for i, b := range res.Blocks {
			if b == name {
				return interp.BlockID(i)
			}
		}
		t.Fatalf("no block %s in %q", name, res.Blocks)
		return interp.NoBlock
	}
	exec, file := block("Exec[use]"), block("File["+cmd+"]")

	if len(res.Failures) != 1 {
		t.Fatalf("failures %+v", res.Failures)
	}
	f := res.Failures[0]
	const wantMsg = "Error: /Stage[main]/Main/Exec[use]/returns: change from 'notrun' to ['0'] failed: Could not find command 'fsmove-made-later'"
	if f.Block != exec || f.Message != wantMsg || f.By.Syscall() != "writev" || f.By.Line != 13 {
		t.Errorf("failure %+v", f)
	}

	var pa *interp.PathAccesses
	for i := range res.Paths {
		if res.Paths[i].Path == cmd {
			pa = &res.Paths[i]
		}
	}
	if pa == nil {
		t.Fatalf("no accesses to %s", cmd)
	}
	var byExec, byFile *interp.Access
	for i := range pa.Accesses {
		switch pa.Accesses[i].Block {
		case exec:
			byExec = &pa.Accesses[i]
		case file:
			byFile = &pa.Accesses[i]
		}
	}
	if byExec == nil || !byExec.Missing || byExec.Produced || byExec.Consumed || byExec.Expunged ||
		byExec.MissingBy != (interp.NewEvidence("newfstatat", 11)) {
		t.Errorf("Exec[use] on %s: %+v", cmd, byExec)
	}
	// The File looks its path up first (not found either), then renames its
	// temporary file onto it.
	if byFile == nil || !byFile.Produced || byFile.ProducedBy.Syscall() != "rename" || !byFile.Missing ||
		byFile.MissingBy.Line <= byExec.MissingBy.Line {
		t.Errorf("File on %s: %+v", cmd, byFile)
	}
	if res.Stats.MissingLookups == 0 || res.Stats.FailedBlocks != 1 || res.Stats.UnclosedBlocks != 0 || res.Stats.UnmatchedEnds != 0 {
		t.Errorf("stats %+v", res.Stats)
	}
	// The sourceless "Error: Could not find command …" line before it names
	// no block.
	for _, b := range res.Blocks {
		if b == "" {
			t.Error("an empty block name")
		}
	}
}

// ungated hides the strace reader's SetLookupArgs from analyze.Interpret, so
// that every failed lookup is decoded (ReaderOptions sets no LookupArgs).
type ungated struct{ r *strace.Reader }

func (u ungated) Next() (*tracer.Event, error) { return u.r.Next() }

// TestLookupArgsGateLosesNothing: the analysis decodes the failed lookups
// of processes that may act for a block only (Lowerer.NeedsFailedArgs);
// on the real traces of testdata/runs the result must be the one of
// decoding them all.
func TestLookupArgsGateLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every real trace twice")
	}
	traces, _ := filepath.Glob("../testdata/runs/*/trace.log.zst")
	traces = append(traces, "testdata/observed-fail.strace")
	for _, path := range traces {
		name := filepath.Base(filepath.Dir(path))
		if name == "testdata" {
			name = filepath.Base(path)
		}
		t.Run(name, func(t *testing.T) {
			var results [2]*interp.Result
			for i, gated := range []bool{true, false} {
				r, err := strace.Open(path, analyze.ReaderOptions(true))
				if err != nil {
					t.Fatal(err)
				}
				var src tracer.Source = r
				if !gated {
					src = ungated{r}
				}
				var counts analyze.TraceCounts
				results[i], err = analyze.Interpret(context.Background(), src, &counts, nil, nil)
				r.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			gated, all := results[0], results[1]
			if all.Stats.MissingLookups == 0 {
				t.Fatal("no failed lookup recorded")
			}
			if gated.Stats.MissingLookups != all.Stats.MissingLookups || !reflect.DeepEqual(gated.Paths, all.Paths) ||
				!reflect.DeepEqual(gated.Blocks, all.Blocks) || !reflect.DeepEqual(gated.Failures, all.Failures) {
				t.Errorf("gated: %d failed lookups, %d paths; all decoded: %d, %d",
					gated.Stats.MissingLookups, len(gated.Paths), all.Stats.MissingLookups, len(all.Paths))
			}
		})
	}
}
