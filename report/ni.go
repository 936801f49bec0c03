package report

import (
	"fmt"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// An NI finding in words: what is wrong, what Puppet changed again, and
// the writes of both applies, for the text report, the one-message
// formats and the page.

// problemText says what the problem is, in a sentence's words.
func problemText(p detector.NIProblem) string {
	switch p {
	case detector.UnguardedExec:
		return "an Exec without creates, unless, onlyif or refreshonly: it runs again on every apply"
	case detector.GuardedExecRuns:
		return "an Exec whose guard did not stop it: it ran again in the second apply"
	case detector.ChangesAgain:
		return "the second apply changed it again"
	case detector.Fight:
		return "two resources write one path differently: each apply undoes the other"
	case detector.FailsSecond:
		return "it failed in the second apply only"
	case detector.NotifyMessage:
		return "a Notify resource: Puppet changes it on every apply"
	case detector.ServiceStops:
		return "a service the first apply started was stopped at the second: it does not stay up"
	}
	return p.String()
}

// eventsText is a resource's changes as "property: old -> new (message)".
func eventsText(events []catalog.ResourceEvent) string {
	var parts []string
	for _, e := range events {
		s := e.Property
		switch {
		case e.Previous != "" || e.Desired != "":
			s += ": " + e.Previous + " -> " + e.Desired // the message says it again
		case e.Message != "":
			s += ": " + e.Message
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// niEvidence is a write in the trace named trace, "(openat by /bin/sed,
// line 42 of second/trace.log)"; "" when the trace has none.
func niEvidence(ev interp.Evidence, trace string) string {
	call := callText(ev)
	switch {
	case call != "" && ev.Line > 0:
		return fmt.Sprintf("(%s, line %d of %s)", call, ev.Line, trace)
	case ev.Line > 0:
		return fmt.Sprintf("(line %d of %s)", ev.Line, trace)
	case call != "":
		return "(" + call + ")"
	}
	return ""
}

// applyTrace is the trace of one of the two applies: the evidence of an
// NI finding's paths is in one or the other. Report.TraceNames names them.
type applyTrace int

const (
	firstTrace applyTrace = iota
	secondTrace
)

// evidenceTraces names the traces that the evidence lines of f's paths are
// in: the run's trace for MOR and MN; for NI the second apply's for the
// producer, and for the consumer the second apply's in a fight, else the
// first apply's (NonIdempotence says why).
func evidenceTraces(f *detector.Finding) (producer, consumer applyTrace) {
	switch {
	case f.Kind != detector.NI:
		return firstTrace, firstTrace
	case f.NI != nil && f.NI.Problem == detector.Fight:
		return secondTrace, secondTrace
	}
	return secondTrace, firstTrace
}

// niLines are an NI finding's details, one line each, for the text report
// and the one-message formats.
func niLines(f *detector.Finding, traces [2]string) (problem string, changes []string, paths []string) {
	ni := f.NI
	if ni == nil {
		return "", nil, nil
	}
	problem = problemText(ni.Problem)
	if ni.Problem == detector.Fight {
		if s := eventsText(ni.Changes); s != "" {
			changes = append(changes, f.Producer.Ref()+": "+s)
		}
		if s := eventsText(ni.OtherChanges); s != "" {
			changes = append(changes, f.Consumer.Ref()+": "+s)
		}
	} else if s := eventsText(ni.Changes); s != "" && ni.Problem != detector.FailsSecond { // Error says it
		changes = append(changes, s)
	}
	producerTrace, consumerTrace := evidenceTraces(f)
	for _, pc := range f.Paths {
		if pc.Waived {
			continue
		}
		line := pc.Path + ": written by " + pc.Producer.Ref() + " " + niEvidence(pc.ProducerEvidence, traces[producerTrace])
		if ni.Problem == detector.Fight {
			line += " and by " + pc.Consumer.Ref() + " " + niEvidence(pc.ConsumerEvidence, traces[consumerTrace])
		} else if ev := niEvidence(pc.ConsumerEvidence, traces[consumerTrace]); ev != "" {
			line += ", and in the first apply " + ev
		}
		paths = append(paths, strings.TrimSpace(line))
	}
	return problem, changes, paths
}
