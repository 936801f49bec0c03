package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
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

// unmetConditions asks the node's journal which units systemd did not
// start because a condition of theirs was not met (systemd mode): such a
// start is a success for Puppet, and the next apply finds the service
// stopped (detector.Idempotence.UnmetConditions).
func (r *run) unmetConditions(ctx context.Context) (map[string]string, error) {
	var out bytes.Buffer
	cmd := []string{"journalctl", "--no-pager", "--boot", "--lines", fmt.Sprint(journalLines),
		"--output", "json", "--output-fields", "UNIT,MESSAGE", "_PID=1"}
	status, err := r.c.Exec(ctx, cmd, []string{"LANG=C.UTF-8"}, &capWriter{w: &out, left: journalBytes})
	if err != nil {
		return nil, err
	}
	if status != 0 {
		return nil, fmt.Errorf("journalctl exited %d: %.200s", status, strings.TrimSpace(out.String()))
	}
	unmet := parseUnmetConditions(&out)
	if len(unmet) == 0 {
		return unmet, nil
	}
	// A Service may name the unit by an alias (Debian's ntpsec.service is
	// also ntp.service): every name of a skipped unit is recorded.
	units := slices.Sorted(maps.Keys(unmet))
	out.Reset()
	status, err = r.c.Exec(ctx, append([]string{"systemctl", "show", "--property=Id,Names", "--"}, units...), nil,
		&capWriter{w: &out, left: journalBytes})
	if err != nil || status != 0 {
		return unmet, nil // the units' own names are there still
	}
	for id, names := range parseUnitNames(&out) {
		if cond, ok := unmet[id]; ok {
			for _, name := range names {
				unmet[name] = cond
			}
		}
	}
	return unmet, nil
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
