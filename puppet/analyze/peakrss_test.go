package analyze

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestVmHWM(t *testing.T) {
	n, ok := vmHWM("Name:\tfsmove\nVmPeak:\t  900 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 100 kB\n")
	if !ok || n != 12345*1024 {
		t.Errorf("vmHWM = %d, %v; want %d", n, ok, 12345*1024)
	}
	for _, bad := range []string{"", "VmRSS:\t100 kB\n", "VmHWM:\tmany kB\n", "VmHWM:\t100 MB\n"} {
		if _, ok := vmHWM(bad); ok {
			t.Errorf("vmHWM(%q) ok", bad)
		}
	}
}

// TestPeakRSSIsOwn: a child started by a parent that holds much memory
// reports its own peak, not the parent's (which getrusage would give it).
func TestPeakRSSIsOwn(t *testing.T) {
	if os.Getenv("FSMOVE_PEAKRSS_CHILD") == "1" {
		os.Stdout.WriteString(strconv.FormatInt(peakRSS(), 10) + "\n")
		os.Exit(0)
	}
	const held = 256 << 20
	ballast := make([]byte, held)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSSIsOwn$")
	cmd.Env = append(os.Environ(), "FSMOVE_PEAKRSS_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	own, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		t.Fatalf("child said %q", out)
	}
	inherited := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
	t.Logf("child's own peak %d MB; its rusage maximum %d MB (parent holds %d MB)", own>>20, inherited>>20, held>>20)
	if own <= 0 || own >= held/2 {
		t.Errorf("child's peak = %d bytes; want its own (well under the parent's %d)", own, held)
	}
	runtime.KeepAlive(ballast)
}

// TestGCForAnalysis: an analysis runs with its own collector settings,
// restored after it (after the last of overlapping ones), unless the
// environment sets them.
func TestGCForAnalysis(t *testing.T) {
	percent := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	p0, l0 := percent(), limit()
	restore := gcForAnalysis()
	if p, l := percent(), limit(); p != analysisGCPercent || l != analysisMemoryLimit {
		t.Errorf("during an analysis: GOGC %d, limit %d; want %d, %d", p, l, analysisGCPercent, analysisMemoryLimit)
	}
	restore()
	if p, l := percent(), limit(); p != p0 || l != l0 {
		t.Errorf("after it: GOGC %d, limit %d; want %d, %d", p, l, p0, l0)
	}
	// Overlapping analyses: the settings stay until the last one ends.
	first, second := gcForAnalysis(), gcForAnalysis()
	first()
	if p, l := percent(), limit(); p != analysisGCPercent || l != analysisMemoryLimit {
		t.Errorf("while a second analysis runs: GOGC %d, limit %d; want %d, %d", p, l, analysisGCPercent, analysisMemoryLimit)
	}
	second()
	if p, l := percent(), limit(); p != p0 || l != l0 {
		t.Errorf("after overlapping analyses: GOGC %d, limit %d; want %d, %d", p, l, p0, l0)
	}
	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = gcForAnalysis()
	if p, l := percent(), limit(); p != p0 || l != l0 {
		t.Errorf("with GOGC and GOMEMLIMIT set: GOGC %d, limit %d; want them untouched (%d, %d)", p, l, p0, l0)
	}
	restore()
}
