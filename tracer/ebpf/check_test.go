package ebpf

import (
	"os"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/internal/testenv"
)

// As root on a machine that runs the other tests, eBPF is available.
func TestCheck(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Missing(t, "not root: Check() = %v", Check())
	}
	if err := Check(); err != nil {
		t.Fatalf("Check() = %v, as root", err)
	}
	if !privileged() {
		t.Error("root is not privileged")
	}
}

func TestParseCapEff(t *testing.T) {
	status := "Name:\tfsmove\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000000c000000000\nCapBnd:\t000001ffffffffff\n"
	eff, err := parseCapEff(strings.NewReader(status))
	if err != nil {
		t.Fatal(err)
	}
	if eff != 1<<capBPF|1<<capPerfmon {
		t.Errorf("CapEff = %#x, want CAP_BPF|CAP_PERFMON", eff)
	}
	if _, err := parseCapEff(strings.NewReader("Name:\tx\n")); err == nil {
		t.Error("a status without CapEff parsed")
	}
}
