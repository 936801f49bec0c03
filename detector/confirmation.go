package detector

// Verdict is what re-applying the module said about a finding (fsmove run
// --confirm, fsmove confirm).
type Verdict string

const (
	// Confirmed: the other order failed or left the finding's paths in
	// another state (MOR), or the service kept running while Puppet
	// rewrote what it reads (MN).
	Confirmed Verdict = "confirmed"
	// Refuted: the other order gave the same Puppet outcome and the same
	// state of every path (MOR), or Puppet restarted the service (MN).
	Refuted Verdict = "refuted"
	// Unknown: the test could not be made; Why says why (a cycle, a
	// resource that cannot be referenced, a package producer, a service
	// that does not run).
	Unknown Verdict = "unknown"
)

// ConfirmStats counts the verdicts of a report's confirmations and says
// what they cost.
type ConfirmStats struct {
	Confirmed, Refuted, Unknown int
	// Applies is the number of containers run; Seconds the wall time of
	// all of them, ContainerSeconds the sum of their own times.
	Applies          int
	Seconds          float64
	ContainerSeconds float64
}

// Add counts one verdict.
func (s *ConfirmStats) Add(v Verdict) {
	switch v {
	case Confirmed:
		s.Confirmed++
	case Refuted:
		s.Refuted++
	default:
		s.Unknown++
	}
}

// Confirmation is the outcome of re-applying a module to test one finding.
type Confirmation struct {
	Verdict Verdict
	// Why says in one sentence what decided the verdict.
	Why string
	// Evidence are the facts behind it, one per line: Puppet's error
	// lines, the paths whose state differed, the service's start time and
	// the path's modification time.
	Evidence []string
	// Forced is the relationship added to the manifest (MOR).
	Forced string
	// Seconds is the wall time the confirmation took (its containers).
	Seconds float64
}
