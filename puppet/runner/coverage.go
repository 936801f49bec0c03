package runner

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// failedScript prints, for each service unit that failed, a line "unit
// ID RESULT STATUS" and the last lines of its journal, each after "line ".
const failedScript = `for u in $(systemctl list-units --type=service --state=failed --no-legend --plain | awk '{ print $1 }'); do
	echo "unit $u $(systemctl show -p Result --value -- "$u") $(systemctl show -p ExecMainStatus --value -- "$u")"
	journalctl --no-pager -o cat -n 4 -u "$u" | sed 's/^/line /'
done; true`

// failedQuestion asks systemd for the service units that failed.
var failedQuestion = question{"failed", failedScript, journalBytes}

// recordUnits fills UnmetConditions and FailedUnits after the apply
// (systemd mode) from the answers to journalQuestion and failedQuestion:
// what systemd says of the units it did not run, so that a Service no
// process of which was traced is said with why (detector.Coverage). names
// are each unit's names (unitNames). A failure to ask is said; such
// Services are then reported as not observed with no reason.
func (r *run) recordUnits(answers map[string]*answer, names map[string][]string) {
	unmet, err := unmetConditions(answers[journalQuestion.name], names)
	if err != nil {
		r.warnf(err, "fsmove: the node's journal cannot be read (why a service was not observed is not said): %v\n", err)
	}
	if len(unmet) > 0 {
		r.rec.UnmetConditions = unmet
	}
	if a := answers[failedQuestion.name]; a.err() == nil {
		r.rec.FailedUnits = withAliases(parseFailedUnits(&a.out), names)
	}
}

// withAliases adds every name of each unit of m (a Service may name the
// unit by an alias), with the unit's value; nil when m is empty. names are
// each unit's names (unitNames).
func withAliases(m map[string]string, names map[string][]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(m)) {
		for _, name := range names[id] {
			if _, ok := m[name]; !ok {
				m[name] = m[id]
			}
		}
	}
	return m
}

// parseFailedUnits reads failedScript's output: each failed unit with its
// result, exit status and the journal's last lines.
func parseFailedUnits(r io.Reader) map[string]string {
	failed := map[string]string{}
	var unit string
	var logLines []string
	flush := func() {
		if unit != "" && len(logLines) > 0 {
			failed[unit] += "; its journal ends: " + strings.Join(logLines, " | ")
		}
		unit, logLines = "", nil
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if text, ok := strings.CutPrefix(line, "line "); ok {
			if unit != "" {
				logLines = append(logLines, strings.TrimSpace(text))
			}
			continue
		}
		fields, ok := strings.CutPrefix(line, "unit ")
		if !ok {
			continue
		}
		flush()
		f := strings.Fields(fields)
		if len(f) == 0 {
			continue
		}
		unit = f[0]
		why := "its start failed"
		if len(f) >= 3 {
			why = fmt.Sprintf("its start failed (result %s, exit status %s)", f[1], f[2])
		}
		failed[unit] = why
	}
	flush()
	return failed
}
