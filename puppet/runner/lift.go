package runner

// Lifting, for the traced apply only, the conditions a container cannot
// meet but a host does, so that a daemon whose start systemd would skip
// runs and reads its configuration (docs/DESIGN.md, "Coverage").
//
// Debian's chrony and ntpsec units say ConditionCapability=CAP_SYS_TIME:
// root on a host has it, the container must not, so systemd skips the
// start, Puppet counts it a success, and no process reads the files the
// module wrote: a missing notifier toward the service cannot be seen. A
// drop-in for that one unit lifts the condition; nothing gives the daemon
// the capability, so it may fail later (chronyd cannot set the clock) but
// it reads its configuration first, which is what a notifier needs.
//
// systemd resets every Condition*= of a unit on an empty assignment of
// any of them, so the drop-in resets them and sets again all but the
// lifted ones. It is written by a generator, which systemd runs at boot
// and at each daemon-reload (a package's install does one), because the
// units are the module's and come during the apply. A unit loaded with no
// reload since it appeared keeps its conditions: it is then reported as
// not observed, as before.

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/container"
)

// liftGenerator is where the generator goes: a directory systemd runs
// generators from, on the container's own disk.
const liftGenerator = "/etc/systemd/system-generators/fsmove-lift-conditions"

// liftDropIn is the drop-in's file name: late in the order of a unit's
// drop-ins, so that its reset comes after what the others set.
const liftDropIn = "zz-fsmove-lift-conditions.conf"

// liftedMark starts the drop-in's first line, which names what it lifted.
const liftedMark = "# fsmove lifted:"

// liftGeneratorScript is the generator (systemd.generator(7); its first
// argument is the directory for drop-ins of normal priority). For each
// service unit it lifts a ConditionCapability= of a capability (a host's
// root has them all) and ConditionVirtualization=!container (or !docker):
// conditions a host meets and a container does not. A negated capability,
// a triggering ("|") condition and every other kind are kept: a device
// path, a kernel command line, a file are not the container's to fake.
const liftGeneratorScript = `#!/bin/sh
# fsmove: lift, for the traced apply, the conditions a container cannot
# meet but a host does (fsmove's puppet/runner/lift.go says why).
out=${1:?normal generator directory}
seen=" "
trim() { t=$1; t=${t#"${t%%[![:space:]]*}"}; t=${t%"${t##*[![:space:]]}"}; }
for dir in /etc/systemd/system /run/systemd/system /usr/local/lib/systemd/system /usr/lib/systemd/system /lib/systemd/system; do
	for f in "$dir"/*.service; do
		[ -f "$f" ] || continue
		unit=${f##*/}
		# A link is an alias (its unit is read under its own name) or,
		# named as its target, a linked unit (systemctl link): read that.
		if [ -L "$f" ]; then t=$(readlink "$f"); [ "${t##*/}" = "$unit" ] || continue; fi
		case $seen in *" $unit "*) continue ;; esac
		seen="$seen$unit "
		lifted= kept=
		for g in "$f" /etc/systemd/system/"$unit".d/*.conf /run/systemd/system/"$unit".d/*.conf /usr/lib/systemd/system/"$unit".d/*.conf /lib/systemd/system/"$unit".d/*.conf; do
			[ -f "$g" ] || continue
			section=
			while IFS= read -r line || [ -n "$line" ]; do
				trim "$line"; line=$t
				case $line in
				'['*']') section=$line; continue ;;
				Condition*=*) [ "$section" = "[Unit]" ] || continue ;;
				*) continue ;;
				esac
				trim "${line%%=*}"; key=$t
				trim "${line#*=}"; value=$t
				if [ -z "$value" ]; then lifted= kept=; continue; fi
				case $key=$value in
				ConditionCapability=CAP_*|ConditionVirtualization=!container|ConditionVirtualization=!docker)
					lifted="$lifted $key=$value" ;;
				*) kept="$kept$key=$value
" ;;
				esac
			done < "$g"
		done
		[ -n "$lifted" ] || continue
		mkdir -p "$out/$unit.d"
		printf '# fsmove lifted:%s\n[Unit]\nConditionCapability=\n%s' "$lifted" "$kept" > "$out/$unit.d/` + liftDropIn + `"
	done
done
exit 0
`

// installLift puts the generator in the created container before it
// starts, so that systemd runs it at boot with its other generators (and
// at each daemon-reload after): no reload of its own is needed. A failure
// costs only what the lift would show: it is said, and the run goes on.
func (r *run) installLift(ctx context.Context) {
	a := container.NewArchive()
	a.AddFile(strings.TrimPrefix(liftGenerator, "/"), []byte(liftGeneratorScript), 0o755)
	data, err := a.Bytes()
	if err == nil {
		err = r.c.CopyIn(ctx, "/", bytes.NewReader(data))
	}
	if err != nil {
		r.warnf(err, "fsmove: conditions a container cannot meet are not lifted (a daemon they stop is not observed): %v\n", err)
	}
}

// liftedScript prints, for each unit whose conditions the generator
// lifted and whose start systemd then tried (it left the inactive state),
// a line "UNIT CONDITION…".
const liftedScript = `for d in /run/systemd/generator/*.service.d/` + liftDropIn + `; do
	[ -f "$d" ] || continue
	u=${d%/*}; u=${u##*/}; u=${u%.d}
	t=$(systemctl show -p InactiveExitTimestampMonotonic --value -- "$u" 2>/dev/null)
	[ -n "$t" ] && [ "$t" != 0 ] || continue
	printf '%s %s\n' "$u" "$(head -n 1 "$d")"
done; true`

// liftedQuestion asks which units systemd started despite a lifted
// condition.
var liftedQuestion = question{"lifted", liftedScript, journalBytes}

// recordLifted fills LiftedConditions after the apply from the answer to
// liftedQuestion: the units started despite a lifted condition, by every
// name (names: unitNames).
func (r *run) recordLifted(a *answer, names map[string][]string) {
	if a.err() != nil {
		return
	}
	r.rec.LiftedConditions = withAliases(parseLifted(&a.out), names)
}

// parseLifted reads liftedScript's output: each unit with the conditions
// lifted for it ("ConditionCapability=CAP_SYS_TIME", space-separated).
func parseLifted(r io.Reader) map[string]string {
	lifted := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		unit, rest, ok := strings.Cut(sc.Text(), " ")
		conds, marked := strings.CutPrefix(rest, liftedMark)
		conds = strings.TrimSpace(conds)
		if !ok || !marked || conds == "" || !strings.HasSuffix(unit, ".service") {
			continue
		}
		lifted[unit] = conds
	}
	return lifted
}

// expectedFailures returns the resources Puppet failed when every one of
// them is a Service whose unit systemd started despite a lifted condition
// and whose start then failed (detector.ExpectedFailures, which the
// coverage asks too, through systemd's aliases of the unit): the failure
// the lift lets happen (chronyd cannot set the clock), not the module's.
// Otherwise, or when Puppet's report or the catalog cannot be read, nil.
func (r *run) expectedFailures() []string {
	if len(r.rec.LiftedConditions) == 0 || len(r.rec.FailedUnits) == 0 {
		return nil
	}
	f, err := os.Open(filepath.Join(r.opts.OutDir, PuppetReportFile))
	if err != nil {
		return nil
	}
	report, err := catalog.ParseReport(f)
	f.Close()
	if err != nil {
		return nil
	}
	cat, err := catalog.ReadFile(filepath.Join(r.opts.OutDir, CatalogFile))
	if err != nil {
		return nil
	}
	graph, err := cat.Graph()
	if err != nil {
		return nil
	}
	var units *detector.Units
	if uf, err := os.Open(filepath.Join(r.opts.OutDir, UnitsFile)); err == nil {
		units, _, _ = detector.ParseUnits(uf)
		uf.Close()
	}
	return detector.ExpectedFailures(report.Resources, detector.CatalogGraph(cat, graph), units, r.rec.LiftedConditions, r.rec.FailedUnits)
}

// expectedFailuresOnly: Puppet's failures (exit 4 or 6) are all
// expectedFailures, recorded in ExpectedFailures.
func (r *run) expectedFailuresOnly() bool {
	if exit := *r.rec.PuppetExit; exit != 4 && exit != 6 {
		return false
	}
	r.rec.ExpectedFailures = r.expectedFailures()
	return len(r.rec.ExpectedFailures) > 0
}
