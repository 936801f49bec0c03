package ebpf

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// atFDCWD is AT_FDCWD as a register holds it.
var atFDCWD = func() uintptr { fd := unix.AT_FDCWD; return uintptr(fd) }()

// rewriteOpens is how many opens the helper "rewrite" makes while another
// thread rewrites their path.
const rewriteOpens = 2000

// rewriteWhileOpening opens dir/a again and again, while another thread
// turns the path it gave the kernel into dir/b and back, as a module hiding
// what it opens would: the path read at a call's exit need not be the one
// the kernel used.
func rewriteWhileOpening(dir string) error {
	runtime.GOMAXPROCS(2)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	buf := make([]byte, len(a)+1)
	copy(buf, a)
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		for i := 0; !stop.Load(); i++ {
			name := a
			if i%2 == 1 {
				name = b
			}
			copy(buf, name)
		}
	}()
	p := uintptr(unsafe.Pointer(&buf[0]))
	for range rewriteOpens {
		fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, atFDCWD, p, unix.O_RDONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o644, 0, 0)
		if errno != 0 {
			stop.Store(true)
			return fmt.Errorf("openat: %v", errno)
		}
		unix.Close(int(fd))
	}
	stop.Store(true)
	<-done
	runtime.KeepAlive(buf)
	return nil
}

// A path rewritten by another thread while the call ran is counted as
// changed; the same opens with nobody rewriting are not.
func TestChangedPathsCounted(t *testing.T) {
	needEBPF(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, c := traceCounting(t, Options{}, fmt.Sprintf("%s=rewrite '%s' '%s'", helperEnv, self, dir))
	if c.changed == 0 {
		t.Errorf("%d opens of a path another thread rewrote: none counted as changed (%d unverified)", rewriteOpens, c.unverified)
	}
	t.Logf("%d of %d opens changed, %d unverified", c.changed, rewriteOpens, c.unverified)

	_, quiet := traceCounting(t, Options{}, workload(t.TempDir()))
	if quiet.changed != 0 {
		t.Errorf("a workload that rewrites no path: %d calls counted as changed", quiet.changed)
	}
	t.Logf("workload: %d unverified", quiet.unverified)
}
