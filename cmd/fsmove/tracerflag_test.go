package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/puppet/runner"
)

// TestTracerFlagSame: fsmove run and fsmove bench declare --tracer alike,
// naming every backend, and both refuse an unknown one.
func TestTracerFlagSame(t *testing.T) {
	root := newRootCmd(&cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	var usages []string
	for _, name := range []string{"run", "bench"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		f := cmd.Flags().Lookup("tracer")
		if f == nil {
			t.Fatalf("fsmove %s has no --tracer", name)
		}
		for _, tr := range runner.Tracers() {
			if !strings.Contains(f.Usage, tr) {
				t.Errorf("fsmove %s --tracer: %q does not name %s", name, f.Usage, tr)
			}
		}
		if err := f.Value.Set("dtrace"); err == nil {
			t.Errorf("fsmove %s --tracer dtrace: accepted", name)
		}
		usages = append(usages, f.Usage+"|"+f.DefValue)
	}
	if usages[0] != usages[1] {
		t.Errorf("run and bench declare --tracer differently: %q, %q", usages[0], usages[1])
	}
}
