package confirm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fsmove/fsmove/detector"
	"github.com/fsmove/fsmove/puppet/runner"
)

// mnApply is the apply of a MN finding, or the finding's verdict when it
// cannot be tested this way.
func mnApply(name string, f *detector.Finding, entry runner.Entry) (*apply, *detector.Confirmation) {
	if f.Producer == nil || f.Consumer == nil {
		return nil, &detector.Confirmation{Verdict: detector.Unknown, Why: "the finding does not name both resources"}
	}
	if f.Producer.IsPackage() {
		return nil, &detector.Confirmation{Verdict: detector.Unknown,
			Why: "not confirmable this way: a package's files change only with its version, which one apply cannot change out of band"}
	}
	var paths []string
	for _, p := range f.Paths {
		if p.Producer == nil || p.Producer == f.Producer {
			paths = append(paths, p.Path)
		}
	}
	if len(paths) == 0 {
		return nil, &detector.Confirmation{Verdict: detector.Unknown, Why: "the finding has no path of its producer"}
	}
	a := &apply{name: name, finding: f, entry: entry}
	a.then = func(ctx context.Context, n *runner.Node) error {
		c, err := staleService(ctx, n, f, paths)
		if err != nil {
			return err
		}
		a.mn = c
		return nil
	}
	return a, nil
}

// unitState is what systemd says of a service: whether it runs, and what
// changes when it is restarted.
type unitState struct {
	Unit       string
	Active     string // ActiveState
	Invocation string // InvocationID: new for every start
	Started    string // ExecMainStartTimestamp, microseconds, UTC
}

func (u unitState) String() string {
	return fmt.Sprintf("%s %s, started %s (invocation %.8s)", u.Unit, u.Active, u.Started, u.Invocation)
}

// node is what staleService needs of the container (runner.Node).
type node interface {
	shell
	Apply(ctx context.Context) (exit int, log string, err error)
	Systemd() bool
}

// unitOf asks systemd about the service's unit.
func unitOf(ctx context.Context, n shell, service string) (unitState, error) {
	out, status, err := n.Shell(ctx, `systemctl show --timestamp=us+utc -p Id -p ActiveState -p InvocationID -p ExecMainStartTimestamp -- "$1"`, service)
	if err != nil {
		return unitState{}, err
	}
	if status != 0 {
		return unitState{}, fmt.Errorf("systemctl show %s: status %d: %s", service, status, strings.TrimSpace(out))
	}
	u := unitState{Unit: service}
	for _, line := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "Id":
			u.Unit = v
		case "ActiveState":
			u.Active = v
		case "InvocationID":
			u.Invocation = v
		case "ExecMainStartTimestamp":
			u.Started = v
		}
	}
	return u, nil
}

// startedAt reads systemd's "Thu 2026-11-26 03:40:01.123456 UTC".
func startedAt(s string) (time.Time, bool) {
	t, err := time.Parse("Mon 2006-01-02 15:04:05.000000 MST", s)
	return t, err == nil
}

// timeText writes the probe's epoch time as systemd writes times.
func timeText(epoch string) string {
	t, ok := epochTime(epoch)
	if !ok {
		return epoch
	}
	return t.Format("Mon 2006-01-02 15:04:05.000000 MST")
}

// epochTime reads the probe's "1795662932.072192".
func epochTime(s string) (time.Time, bool) {
	sec, frac, _ := strings.Cut(s, ".")
	secs, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var micros int64
	if frac != "" {
		if micros, err = strconv.ParseInt((frac + "000000")[:6], 10, 64); err != nil {
			return time.Time{}, false
		}
	}
	return time.Unix(secs, micros*1000).UTC(), true
}

// staleService changes the producer's path out of band, applies again and
// asks systemd whether the service was restarted. Errors are the
// infrastructure's; a test that cannot be made is an Unknown verdict.
func staleService(ctx context.Context, n node, f *detector.Finding, paths []string) (*detector.Confirmation, error) {
	unknown := func(why string, evidence ...string) (*detector.Confirmation, error) {
		return &detector.Confirmation{Verdict: detector.Unknown, Why: why, Evidence: evidence}, nil
	}
	if !n.Systemd() {
		return unknown("needs systemd as the container's init (--init systemd) to tell whether the service was restarted")
	}
	service := f.Consumer.Namevar()
	before, err := unitOf(ctx, n, service)
	if err != nil {
		return nil, err
	}
	if before.Active != "active" {
		return unknown(fmt.Sprintf("the service %s is not running after the apply (%s)", before.Unit, before.Active))
	}
	states, err := probe(ctx, n, paths)
	if err != nil {
		return nil, err
	}
	// The first path that is a file or a directory: a line appended to a
	// file, a directory's mode changed, both things Puppet restores when
	// it manages the content or the mode.
	var path string
	var change string
	for _, p := range paths {
		switch s := states[p]; s.Kind {
		case "file":
			path, change = p, `printf '\n# changed out of band by fsmove confirm\n' >>"$1"`
		case "dir":
			mode := "700"
			if s.Mode == "700" {
				mode = "755"
			}
			path, change = p, `chmod `+mode+` -- "$1"`
		}
		if path != "" {
			break
		}
	}
	if path == "" {
		return unknown("no path of the producer is a file or a directory after the apply")
	}
	orig := states[path]
	if out, status, err := n.Shell(ctx, change, path); err != nil {
		return nil, err
	} else if status != 0 {
		return nil, fmt.Errorf("changing %s: status %d: %s", path, status, strings.TrimSpace(out))
	}
	changed, err := probe(ctx, n, []string{path})
	if err != nil {
		return nil, err
	}
	rc, log, err := n.Apply(ctx)
	if err != nil {
		return nil, err
	}
	restored, err := probe(ctx, n, []string{path})
	if err != nil {
		return nil, err
	}
	after, err := unitOf(ctx, n, service)
	if err != nil {
		return nil, err
	}
	evidence := []string{
		fmt.Sprintf("after the first apply: %s; %s is %s", before, path, orig),
		fmt.Sprintf("changed out of band: %s is %s", path, changed[path]),
		fmt.Sprintf("after the second apply (Puppet exit %d): %s is %s, changed at %s", rc, path, restored[path], timeText(restored[path].CTime)),
		fmt.Sprintf("after the second apply: %s", after),
	}
	evidence = append(evidence, runner.PuppetErrors(strings.NewReader(log), 5)...)
	if !restored[path].Same(orig) {
		return unknown(fmt.Sprintf("Puppet did not restore %s (it does not manage what was changed)", path), evidence...)
	}
	if after.Invocation != before.Invocation || after.Started != before.Started {
		return &detector.Confirmation{Verdict: detector.Refuted, Evidence: evidence,
			Why: fmt.Sprintf("Puppet restored %s and the service %s was restarted", path, after.Unit)}, nil
	}
	if after.Active != "active" {
		return unknown(fmt.Sprintf("the service %s no longer runs after the second apply (%s)", after.Unit, after.Active), evidence...)
	}
	why := fmt.Sprintf("Puppet restored %s but did not restart %s: it runs with the state it read before", path, after.Unit)
	if start, ok := startedAt(after.Started); ok {
		if m, ok := epochTime(restored[path].CTime); ok && m.After(start) {
			why = fmt.Sprintf("Puppet restored %s %s after %s started and did not restart it: it runs with the state it read before", path, m.Sub(start).Round(time.Millisecond), after.Unit)
		}
	}
	return &detector.Confirmation{Verdict: detector.Confirmed, Why: why, Evidence: evidence}, nil
}
