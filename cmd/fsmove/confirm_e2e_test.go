package main

// End-to-end tests of --confirm and fsmove confirm: real traced runs of
// fixture modules, then real untraced re-applies in fresh containers.

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// e2eConfirmations reads a JSON report's verdicts and their why, forced
// order and evidence by finding ("KIND producer consumer"), and the number
// of applies the confirmations took.
func e2eConfirmations(t *testing.T, report []byte) (verdicts map[string]string, evidence map[string]string, applies int) {
	t.Helper()
	r := readE2EReport(t, report)
	verdicts, evidence = map[string]string{}, map[string]string{}
	for _, f := range r.Findings {
		c := f.Confirmation
		if c == nil {
			verdicts[f.key()] = "none"
			continue
		}
		verdicts[f.key()] = c.Verdict
		evidence[f.key()] = c.Why + "\n" + c.Forced + "\n" + strings.Join(c.Evidence, "\n")
	}
	if r.Confirm != nil {
		applies = r.Confirm.Applies
	}
	return verdicts, evidence, applies
}

// TestE2EConfirm: the generate-use MOR is confirmed (the other order
// fails), the config-file MN is confirmed (cron is not restarted when
// Puppet restores its file), and the commutative near miss is refuted;
// fsmove confirm on a saved run gives the same verdict as run --confirm.
func TestE2EConfirm(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	for _, c := range []struct {
		module   string
		finding  string
		verdict  string
		evidence []string
		applies  int
		again    bool // also fsmove confirm --out on the saved run
	}{
		{"mor_generate_use", "MOR Exec[generate-script] Exec[run-script]", "confirmed",
			[]string{"Exec['run-script'] -> Exec['generate-script']", "new failure", "Could not find command"}, 3, true},
		{"mn_config_service", "MN File[/etc/cron.d/mn_config_service] Service[cron]", "confirmed",
			[]string{"after cron.service started and did not restart it", "changed out of band"}, 1, false},
		{"near_commutative", "MOR File[/srv/near_commutative.conf] Exec[enable-line]", "refuted",
			[]string{"Exec['enable-line'] -> File['/srv/near_commutative.conf']", "same state"}, 3, false},
	} {
		// With the default tracer (eBPF): three strace runs took CI 6
		// minutes (stop 58); what is tested here is the confirmations,
		// which are untraced applies.
		t.Run(c.module, func(t *testing.T) {
			t.Parallel()
			out := runDir(t)
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, []string{"run", "--quiet", "--confirm", "--all", "--workers", "2",
				"--timeout", "20m", "--out", out, "--format", "json", filepath.Join("..", "..", "testdata", "modules", c.module)})
			if code != exitFindings {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitFindings, stderr.String())
			}
			check := func(what string, report []byte) {
				verdicts, evidence, applies := e2eConfirmations(t, report)
				if verdicts[c.finding] != c.verdict {
					t.Errorf("%s: %s: verdict %q, want %q (all: %v)\n%s", what, c.finding, verdicts[c.finding], c.verdict, verdicts, evidence[c.finding])
				}
				for _, w := range c.evidence {
					if !strings.Contains(evidence[c.finding], w) {
						t.Errorf("%s: evidence lacks %q:\n%s", what, w, evidence[c.finding])
					}
				}
				if applies != c.applies {
					t.Errorf("%s: %d applies, want %d", what, applies, c.applies)
				}
			}
			check("run --confirm", stdout.Bytes())
			if !c.again {
				return
			}
			stdout.Reset()
			stderr.Reset()
			if code := run(&stdout, &stderr, []string{"confirm", "--quiet", "--all", "--out", out, "--format", "json"}); code != exitFindings {
				t.Fatalf("fsmove confirm: exit %d, want %d\nstderr:\n%s", code, exitFindings, stderr.String())
			}
			check("fsmove confirm", stdout.Bytes())
		})
	}
}
