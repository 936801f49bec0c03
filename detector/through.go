package detector

import (
	"slices"

	"github.com/fsmove/fsmove/catalog"
)

// Rule 27: a missing notifier x ⇝ c is the same fault as a missing
// notifier x ⇝ n shown beside it, when n notifies c (and c does not notify
// n): the fix of that one, x ~> n, refreshes n, and Puppet passes n's
// refresh on to c (a "restarted" event for the resources n notifies), after
// n. The check that follows a service's start (an Exec subscribed to the
// Service that reads what the service reads) is the common case. x ⇝ c is
// held back, naming x ⇝ n, which stays shown.

// holdRefreshedThrough applies rule 27 to the findings that judgePair
// made: each MN held is held by an MN of the same producer that no rule
// held and whose fix is x ~> n as written (not a reversed one, which
// Puppet's order makes a cycle). An MN whose consumer Puppet orders before
// its producer is never held: n, which notifies c, precedes it, so x ⇝ n
// is reversed too. Of the shown MNs that notify c, it names
// one that none of the others notifies, so that a chain x ⇝ m, x ⇝ n,
// x ⇝ c with m ~> n ~> c keeps x ⇝ m shown and names it for both.
func holdRefreshedThrough(findings []Finding, g Graph) {
	var roots []*Finding // the shown MNs, in the findings' order
	for i := range findings {
		if f := &findings[i]; f.Kind == MN && !f.HeldBack && !f.Reversed {
			roots = append(roots, f)
		}
	}
	for i := range findings {
		f := &findings[i]
		if f.Kind != MN || f.HeldBack || f.Observed {
			continue
		}
		var through *Finding
		for _, n := range roots {
			if n == f || n.Producer != f.Producer || !oneWay(g, n.Consumer, f.Consumer) {
				continue
			}
			// Prefer an n that none of the producer's other shown MNs
			// notifies: that one stays shown.
			top := !slices.ContainsFunc(roots, func(m *Finding) bool {
				return m != n && m.Producer == f.Producer && oneWay(g, m.Consumer, n.Consumer)
			})
			if through == nil || top {
				through = n
			}
			if top {
				break
			}
		}
		if through != nil {
			// roots was listed first: holding f changes none of it.
			f.HeldBack, f.HeldRule = true, ruleRefreshedThrough
			f.HeldReason = PuppetRef(through.Consumer) + " notifies " + PuppetRef(f.Consumer) + ", and " + PuppetRef(f.Producer) +
				" must notify " + PuppetRef(through.Consumer) + " (shown): its fix refreshes " + PuppetRef(through.Consumer) +
				", whose refresh Puppet passes on to " + PuppetRef(f.Consumer)
		}
	}
}

// oneWay reports whether a notifies b in Puppet's graph and b does not
// notify a.
func oneWay(g Graph, a, b *catalog.Resource) bool {
	return g.Notifies(a, b) && !g.Notifies(b, a)
}
