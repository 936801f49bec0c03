package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"
)

// journalLines and journalBytes bound what unmetConditions reads of the
// node's journal: systemd's own messages of one boot are a few hundred
// short lines; a module that made it log more, or longer ones (a unit's
// Description is the module's), is not read past them.
const (
	journalLines = 20000
	journalBytes = 16 << 20
)

// journalQuestion asks the node's journal for systemd's own messages of
// this boot, as JSON lines of UNIT and MESSAGE.
var journalQuestion = question{"journal", fmt.Sprintf("journalctl --no-pager --boot --lines %d --output json --output-fields UNIT,MESSAGE _PID=1", journalLines), journalBytes}

// unmetConditions reads the answer to journalQuestion: which units
// systemd did not start because a condition of theirs was not met
// (systemd mode). Such a start is a success for Puppet, and the next apply
// finds the service stopped (detector.Idempotence.UnmetConditions). A
// Service may name the unit by an alias (Debian's ntpsec.service is also
// ntp.service): every name of a skipped unit (names: unitNames) is
// recorded.
func unmetConditions(a *answer, names map[string][]string) (map[string]string, error) {
	if err := a.err(); err != nil {
		return nil, err
	}
	unmet := parseUnmetConditions(&a.out)
	if len(unmet) == 0 {
		return unmet, nil
	}
	return withAliases(unmet, names), nil
}

// namesQuestion asks for the names of every unit the journal names (the
// UNIT field systemd sets on its messages of a unit): the aliases of a
// unit systemd skipped, failed or unloaded since (getty@tty1.service is
// also autovt@tty1.service), which unitsQuestion's loaded units and unit
// files may not show.
var namesQuestion = question{"names", "systemctl show --property=Id,Names -- $(journalctl --boot -F UNIT)", journalBytes}

// unitNames is each unit's names, from the answers to unitsQuestion and
// namesQuestion (either may be missing).
func unitNames(answers ...*answer) map[string][]string {
	names := map[string][]string{}
	for _, a := range answers {
		if a.err() == nil {
			maps.Copy(names, parseUnitNames(bytes.NewReader(a.out.Bytes())))
		}
	}
	return names
}

// parseUnitNames reads systemctl show --property=Id,Names: blocks of
// "Id=foo.service" and "Names=foo.service bar.service", one per unit,
// separated by blank lines. It returns each Id's names.
func parseUnitNames(r io.Reader) map[string][]string {
	names := map[string][]string{}
	var id string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			id = ""
		case strings.HasPrefix(line, "Id="):
			id = strings.TrimPrefix(line, "Id=")
		case strings.HasPrefix(line, "Names=") && id != "":
			names[id] = strings.Fields(strings.TrimPrefix(line, "Names="))
		}
	}
	return names
}

// skippedMarker is how systemd says it skipped a unit's start, before the
// condition: "foo.service - Foo was skipped because of an unmet condition
// check (ConditionCapability=CAP_SYS_TIME)." (252, bookworm) and "foo.service
// - Foo skipped, unmet condition check ConditionCapability=CAP_SYS_TIME"
// (257, trixie).
const skippedMarker = "unmet condition check"

// parseUnmetConditions reads journalctl's JSON lines and returns each unit
// whose start systemd skipped, with the condition it named (the last one
// when it skipped the unit more than once). Lines that are not such a
// message, or not JSON, are skipped: the journal is the node's, and what a
// module made systemd log must not stop the run.
func parseUnmetConditions(r io.Reader) map[string]string {
	unmet := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(skippedMarker)) {
			continue
		}
		var e struct {
			Unit    string `json:"UNIT"`
			Message any    `json:"MESSAGE"` // a string, or an array of bytes when not UTF-8
		}
		if json.Unmarshal(line, &e) != nil || e.Unit == "" {
			continue
		}
		msg, _ := e.Message.(string)
		_, cond, ok := strings.Cut(msg, skippedMarker)
		if !ok {
			continue
		}
		cond = strings.TrimLeft(cond, " (")
		if end := strings.IndexByte(cond, ')'); end >= 0 {
			cond = cond[:end]
		}
		if cond = strings.TrimSuffix(strings.TrimSpace(cond), "."); strings.HasPrefix(cond, "Condition") {
			unmet[e.Unit] = cond
		}
	}
	return unmet
}
