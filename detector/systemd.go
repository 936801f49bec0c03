package detector

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// What systemd knows of the node's units, for the attribution of a unit's
// processes to its Service (doc.go, "Blocks and resources"). A unit's
// processes run in a cgroup named by the unit's id (mariadb.service), but
// a Service may name it by another of its names: an alias
// (Service['mysql'] on Debian, whose mysql.service links to
// mariadb.service; bind9 and named; ssh and sshd), and Puppet's systemctl
// restart of an alias restarts the unit. A unit that is PartOf= another
// (postfix@-.service of postfix.service, ovsdb-server.service of
// openvswitch-switch.service) is stopped and restarted with it, so its
// processes act for the other unit's Service. fsmove run saves systemd's
// view after the apply (runner.UnitsFile); fsmove analyze reads it beside
// the trace.
//
// A unit that no Service manages but that a unit some Service manages
// triggers (a timer's or a path unit's service, a socket's service:
// TriggeredBy=) works for that Service: systemd loads it when it loads its
// trigger (a timer does not start without its unit) and starts it on the
// trigger's behalf (triggeringService).

// Units is systemd's view of the node's units after the apply.
type Units struct {
	names       map[string][]string // unit id → its other names (aliases)
	partOf      map[string][]string // unit id → the units it is part of
	triggeredBy map[string][]string // unit id → the units that trigger it
}

// UnitsScript prints what ParseUnits reads, in a container whose PID 1 is
// systemd: Id, Names, PartOf and TriggeredBy of every loaded unit and of
// every service unit file (which loads it), templates apart (their
// instances that ran are loaded). The unit files are the *.service names
// in systemd's unit search path (systemd-analyze unit-paths, of the
// systemd package as systemctl is): the names "systemctl list-unit-files
// --type=service" lists, measured equal on bookworm's image, without its
// reading of every unit's [Install] section for its enablement state (0.39
// of the 0.63 s the script took with it).
const UnitsScript = `systemctl show --property=Id,Names,PartOf,TriggeredBy '*' $(for d in $(systemd-analyze unit-paths); do [ -d "$d" ] && find "$d" -maxdepth 1 -name '*.service' ! -name '*@.service' -printf '%f\n'; done | sort -u)`

// ParseUnits reads what UnitsScript prints: blocks of Id=, Names=, PartOf=
// and TriggeredBy= lines (the last absent from runs made before it was
// asked for), separated by empty lines. Lines it cannot read are skipped
// and counted.
func ParseUnits(r io.Reader) (*Units, int, error) {
	u := &Units{names: map[string][]string{}, partOf: map[string][]string{}, triggeredBy: map[string][]string{}}
	bad := 0
	var id string
	var names, partOf, triggeredBy []string
	flush := func() {
		if id != "" {
			for _, n := range names {
				if n != id && !slices.Contains(u.names[id], n) {
					u.names[id] = append(u.names[id], n)
				}
			}
			for _, p := range partOf {
				if p != id && !slices.Contains(u.partOf[id], p) {
					u.partOf[id] = append(u.partOf[id], p)
				}
			}
			for _, t := range triggeredBy {
				if t != id && !slices.Contains(u.triggeredBy[id], t) {
					u.triggeredBy[id] = append(u.triggeredBy[id], t)
				}
			}
		}
		id, names, partOf, triggeredBy = "", nil, nil, nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			flush()
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		switch {
		case !ok:
			bad++
		case key == "Id":
			flush()
			id = value
		case key == "Names":
			names = strings.Fields(value)
		case key == "PartOf":
			partOf = strings.Fields(value)
		case key == "TriggeredBy":
			triggeredBy = strings.Fields(value)
		default:
			bad++
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, bad, fmt.Errorf("systemd's units: %w", err)
	}
	return u, bad, nil
}

// namesOf returns the names by which a Service may manage unit, in the order
// they are tried: the unit's id, its aliases, then each unit it is part
// of and that unit's aliases.
func (u *Units) namesOf(unit string) []string {
	names := []string{unit}
	if u == nil {
		return names
	}
	names = append(names, u.names[unit]...)
	for _, p := range u.partOf[unit] {
		names = append(names, p)
		names = append(names, u.names[p]...)
	}
	return names
}

// unitService returns the Service of the catalog that manages unit, by any
// of its names (Units.namesOf); nil when none does or g does not know
// units.
func unitService(g Graph, units *Units, unit string) *catalog.Resource {
	ug, ok := g.(UnitGraph)
	if !ok {
		return nil
	}
	for _, name := range units.namesOf(unit) {
		if r, ok := ug.UnitService(name); ok {
			return r
		}
	}
	return nil
}

// triggeringService returns the Service of the catalog that manages a
// unit that triggers unit (TriggeredBy=, by any of that unit's names), in
// the order systemd lists them; nil when none does. A caller asks it only
// for a unit that no Service manages itself (unitService).
func triggeringService(g Graph, units *Units, unit string) *catalog.Resource {
	if units == nil {
		return nil
	}
	for _, t := range units.triggeredBy[unit] {
		if r := unitService(g, units, t); r != nil {
			return r
		}
	}
	return nil
}

// UnitResource returns the Service of the catalog whose work unit's
// processes and PID 1's reads for unit are (the same as the analysis
// decides: unitService, then triggeringService); nil when none.
func UnitResource(g Graph, units *Units, unit string) *catalog.Resource {
	if r := unitService(g, units, unit); r != nil {
		return r
	}
	return triggeringService(g, units, unit)
}
