package strace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/tracer"
)

// FuzzReader feeds arbitrary text to the Reader: it must never panic, every
// event must have a valid Kind, line numbers must increase, and the parallel
// scan, with chunks of a few bytes, must read exactly what the serial one
// reads.
func FuzzReader(f *testing.F) {
	for _, name := range []string{"f.log", "stderr.log", "single.log"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "strace", name))
		if err != nil {
			f.Fatal(err)
		}
		// Seed with a few lines at a time so that the fuzzer mutates shapes.
		lines := bytes.Split(data, []byte("\n"))
		for i := 0; i+4 < len(lines); i += 37 {
			f.Add(bytes.Join(lines[i:i+4], []byte("\n")), false)
		}
	}
	for _, s := range []string{
		`1 clone3({flags=CLONE_VM, exit_signal=SIGCHLD} <unfinished ...>` + "\n" + `1 <... clone3 resumed> => {parent_tid=[2]}, 88) = 2`,
		`[pid 3] 12:00:00.000001 openat(-100 /* AT_FDCWD */</r>, "a\"b\x1b", 0x80000 /* O_RDONLY */) = 3</a> <0.1>`,
		`1 rt_sigaction(SIGINT, {sa_handler=SIG_IGN, sa_mask=~[KILL STOP RTMIN RT_1], sa_flags=SA_RESTORER}, NULL, 8) = 0`,
		`1 pipe2([3<pipe:[1]>, 4<pipe:[1]>], O_CLOEXEC) = 0`,
		"1 +++ killed by SIGKILL (core dumped) +++\n1 --- SIGCHLD {si_signo=SIGCHLD} ---",
		"2 execve(\"/bin/x\", [\"x\"], 0x7ffd /* 1 var */ <pid changed to 1 ...>\n1 +++ superseded by execve in pid 2 +++\n1 <... execve resumed>) = 0",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, filter bool) {
		if filter {
			checkWantIsAFilter(t, data)
		}
		for _, rc := range readerCases {
			for _, shape := range []scanShape{{2, 1, false}, {3, 40, false}, {2, 40, true}} {
				if why := compareReads(data, rc, shape); why != "" {
					t.Fatalf("%s, %v: differs from the serial read: %s", rc.name, shape, why)
				}
			}
		}
		opts := Options{Failed: tracer.FailedAll}
		if filter {
			opts.Want = func(name string) bool { return strings.HasPrefix(name, "o") || name == "clone3" }
			// Failed calls: the failed lookups, only ENOENT ones decoded,
			// the first two arguments only, the line left unread after
			// them.
			opts.Failed = tracer.FailedLookups
			opts.LookupArgs = func(ev *tracer.Event) bool { return ev.Errno == "ENOENT" }
			opts.Args = func(string) uint64 { return 0b11 }
		}
		r := NewReader(bytes.NewReader(data), opts)
		last := int64(0)
		for {
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if errors.Is(err, ErrMalformed) {
				t.Fatalf("non-strict reader failed on a malformed line: %v", err)
			}
			if err != nil {
				break // a broken gzip/zstd stream is a read error, not a bug
			}
			if ev.Kind > tracer.KindSignal {
				t.Fatalf("invalid kind %d", ev.Kind)
			}
			if ev.Line <= last || ev.Line > r.Lines() {
				t.Fatalf("line %d after %d (lines read %d)", ev.Line, last, r.Lines())
			}
			last = ev.Line
			if ev.Kind == tracer.KindSyscall && ev.Syscall == "" {
				t.Fatalf("syscall event without a name")
			}
			for _, a := range ev.Args {
				if a.Kind > tracer.ArgOther {
					t.Fatalf("invalid arg kind %d", a.Kind)
				}
			}
		}
		if r.Malformed() > r.Lines() || int64(len(r.Warnings())) > r.WarningCount() || len(r.Warnings()) > maxKeptWarnings {
			t.Fatalf("counts: malformed %d lines %d warnings %d/%d", r.Malformed(), r.Lines(), len(r.Warnings()), r.WarningCount())
		}
		if r.Bytes() != int64(len(data)) && !bytes.HasPrefix(data, gzipMagic) && !bytes.HasPrefix(data, zstdMagic) {
			t.Fatalf("bytes %d, want %d", r.Bytes(), len(data))
		}
	})
}

// checkWantIsAFilter: with Options.Want, the reader must give exactly the
// events it gives without, minus the rejected calls.
func checkWantIsAFilter(t *testing.T, data []byte) {
	want := func(name string) bool { return strings.HasPrefix(name, "o") || name == "clone3" }
	describe := func(opts Options) []string {
		r := NewReader(bytes.NewReader(data), opts)
		var out []string
		for {
			ev, err := r.Next()
			if err != nil {
				return out
			}
			if ev.Kind == tracer.KindSyscall && !want(ev.Syscall) {
				continue
			}
			out = append(out, fmt.Sprintf("%+v", *ev))
		}
	}
	all, filtered := describe(Options{}), describe(Options{Want: want})
	if strings.Join(all, "\n") != strings.Join(filtered, "\n") {
		t.Fatalf("Want changed the events:\nwithout: %v\nwith:    %v", all, filtered)
	}
}

// TestNoAllocsPerUnwantedLine checks the speed promise: lines of calls the
// caller does not want, unfinished/resumed pairs included, and wanted calls
// without strings cost no allocation once the Reader is warm.
func TestNoAllocsPerUnwantedLine(t *testing.T) {
	block := strings.Join([]string{
		`21746 read(3, "some data \33 here"..., 8192) = 8192`,
		`21746 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000001000`,
		`21747 futex(0x55d0c0a0b0c0, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ...>`,
		`21746 newfstatat(AT_FDCWD, "/usr/lib/ruby/x.rb", {st_mode=S_IFREG|0644, st_size=1, ...}, 0) = 0`,
		`21747 <... futex resumed>) = 0`,
		`21746 close(3) = 0`,
		`21746 fcntl(5, F_DUPFD_CLOEXEC, 10) = 10`,
	}, "\n") + "\n"
	data := []byte(strings.Repeat(block, 20000))
	r := NewReader(bytes.NewReader(data), Options{Want: wantFileSyscalls})
	// Warm up: maps, buffers, and the records of every chunk in flight.
	for i := 0; i < 20000; i++ {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(5000, func() {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%.2f allocations per event (each after 3.5 lines), want 0", allocs)
	}
}
