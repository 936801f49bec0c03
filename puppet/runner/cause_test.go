package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
)

// A warning that only follows from a failure said by its cause (a full
// disk, a lost engine, an interrupt) is left out, unless --debug; any
// other is printed.
func TestWarnfFollowOn(t *testing.T) {
	full := fmt.Errorf("saving units.txt: %w", syscall.ENOSPC)
	other := errors.New("saving units.txt: permission denied")
	stopped := fmt.Errorf("no answer: %w", context.Canceled)
	for _, tc := range []struct {
		debug bool
		err   error
		want  string
	}{
		{false, full, ""},
		{true, full, "units: " + full.Error() + " " + followsMark + "\n"},
		{false, other, "units: " + other.Error() + "\n"},
		{true, other, "units: " + other.Error() + "\n"},
		{false, stopped, ""},
		{true, stopped, "units: " + stopped.Error() + " " + followsMark + "\n"},
	} {
		var log bytes.Buffer
		r := &run{opts: Options{Log: &log, Debug: tc.debug}}
		r.warnf(tc.err, "units: %v\n", tc.err)
		if log.String() != tc.want {
			t.Errorf("debug %v, %v: printed %q, want %q", tc.debug, tc.err, log.String(), tc.want)
		}
	}
}
