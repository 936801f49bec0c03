package analyze

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/fstrace/interp"
	"github.com/fsmove/fsmove/puppet/runner"
)

// readIdempotence reads what the NI rules need (detector.Idempotence):
// Puppet's reports of both applies and the second apply's trace, with the
// same interpreter as the first's (first is its result). What is missing
// or cut is said in incomplete: without the second report there is no NI
// to check; without its trace the findings have no paths.
func readIdempotence(ctx context.Context, in Input, opts Options, first *interp.Result) (*detector.Idempotence, []string, error) {
	id := &detector.Idempotence{FirstTrace: first, UnmetConditions: in.UnmetConditions,
		TraceNames: [2]string{runner.TraceFile, path.Join(runner.SecondDir, runner.TraceFile)}}
	var incomplete []string
	second, err := readReport(in.SecondReport)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, []string{fmt.Sprintf("Puppet wrote no report of the second apply (%s): non-idempotent resources (NI) were not checked", in.SecondReport)}, nil
	case err != nil:
		return nil, nil, &InputError{err}
	}
	id.Second = second
	// A resource the second apply skipped (a dependency of it failed
	// there) did not get the chance to change again: its NI is not known.
	var skipped []string
	for _, st := range second {
		if st.Skipped {
			skipped = append(skipped, st.Ref)
		}
	}
	if len(skipped) > 0 {
		incomplete = append(incomplete, fmt.Sprintf("%d resource(s) the second apply skipped for a failed dependency were not checked for NI: %s",
			len(skipped), strings.Join(skipped, ", ")))
	}
	if in.FirstReport != "" {
		if id.First, err = readReport(in.FirstReport); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, &InputError{err}
		}
	}
	if in.SecondTrace != "" {
		var tr TraceCounts
		res, err := interpretTrace(ctx, in.SecondTrace, in.Links, opts, &Stats{}, &tr)
		switch {
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			return nil, nil, err
		case err != nil:
			incomplete = append(incomplete, fmt.Sprintf("the second apply's trace cannot be read (%v): NI findings have no paths", err))
		default:
			id.SecondTrace = res
			if tr.ReadErr != "" {
				incomplete = append(incomplete, "the second apply's trace ends early ("+tr.ReadErr+"): NI findings may lack paths")
			}
		}
	}
	return id, incomplete, nil
}

// readReport reads one of Puppet's reports (catalog.ParseReport), naming
// the file in its errors.
func readReport(path string) ([]catalog.ResourceStatus, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	report, err := catalog.ParseReport(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return report.Resources, nil
}
