package linux

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/fsmove/fsmove/internal/testenv"
)

// TestTableWellFormed: one row per name and per number, numbers in the
// index's range, at most six arguments, names for every argument or none.
func TestTableWellFormed(t *testing.T) {
	names, nrs := map[string]bool{}, map[int]string{}
	for i := range Syscalls {
		s := &Syscalls[i]
		if names[s.Name] {
			t.Errorf("%s: two rows", s.Name)
		}
		names[s.Name] = true
		if other, ok := nrs[s.Nr]; ok {
			t.Errorf("%s and %s: both number %d", s.Name, other, s.Nr)
		}
		nrs[s.Nr] = s.Name
		if s.Nr < 0 || s.Nr >= MaxNr {
			t.Errorf("%s: number %d outside [0, %d)", s.Name, s.Nr, MaxNr)
		}
		if len(s.Args) > 6 {
			t.Errorf("%s: %d arguments", s.Name, len(s.Args))
		}
		if s.Names != nil && len(s.Names) != len(s.Args) {
			t.Errorf("%s: %d names for %d arguments", s.Name, len(s.Names), len(s.Args))
		}
		if Lookup(s.Name) != s {
			t.Errorf("%s: not indexed", s.Name)
		}
		for j, k := range s.Args {
			// A length or count follows written data.
			if (k == WriteData || k == WriteIovec) && (j+1 >= len(s.Args) || s.Args[j+1].Value() == ValPointer) {
				t.Errorf("%s: argument %d is written data without a length after it", s.Name, j)
			}
			// A dirfd names the directory of a path after it.
			if k == DirFD && !pathAfter(s.Args[j+1:]) {
				t.Errorf("%s: argument %d is a dirfd with no path after it", s.Name, j)
			}
		}
	}
	if Lookup("read") != nil {
		t.Error("read is found")
	}
}

func pathAfter(args []ArgKind) bool {
	for _, k := range args {
		if k == Path || k == ExecPath {
			return true
		}
	}
	return false
}

// TestNumbersMatchKernel: every row's number is the kernel's, as the
// generated list (from asm/unistd_64.h) gives it. A call newer than the
// headers it was generated from must have a number above all of theirs.
func TestNumbersMatchKernel(t *testing.T) {
	checkNumbers(t, "names_gen.go", KernelSyscalls[:])
}

// TestNumbersMatchHeaders is TestNumbersMatchKernel against the installed
// header itself.
func TestNumbersMatchHeaders(t *testing.T) {
	const header = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"
	f, err := os.Open(header)
	if err != nil {
		testenv.Missing(t, "no kernel headers (Debian: apt-get install linux-libc-dev): %v", err)
	}
	defer f.Close()
	re := regexp.MustCompile(`^#define\s+__NR_(\w+)\s+(\d+)`)
	var list []SyscallNumber
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			nr, _ := strconv.Atoi(m[2])
			list = append(list, SyscallNumber{m[1], nr})
		}
	}
	if len(list) < 300 {
		t.Fatalf("%s: only %d calls", header, len(list))
	}
	checkNumbers(t, header, list)
}

func checkNumbers(t *testing.T, source string, kernel []SyscallNumber) {
	t.Helper()
	nrOf, highest := map[string]int{}, 0
	for _, s := range kernel {
		nrOf[s.Name] = s.Nr
		highest = max(highest, s.Nr)
	}
	newer := 0
	for _, s := range Syscalls {
		nr, ok := nrOf[s.Name]
		switch {
		case ok && nr != s.Nr:
			t.Errorf("%s: number %d, %s says %d", s.Name, s.Nr, source, nr)
		case !ok && s.Nr <= highest:
			t.Errorf("%s: not in %s, yet numbered %d, below its newest call (%d)", s.Name, source, s.Nr, highest)
		case !ok:
			newer++
		}
	}
	if newer > 0 {
		t.Logf("%d calls are newer than %s", newer, source)
	}
}

// TestKinds: each kind reads as its comment says; flags kinds are flags.
func TestKinds(t *testing.T) {
	for k, want := range map[ArgKind]Value{
		FD: ValInt32, DirFD: ValInt32, UintFD: ValUint32, Path: ValString, ExecPath: ValString,
		Name: ValString, OutPath: ValOutString, Ptr: ValPointer, StructFlags: ValStructU64,
		OutFDs: ValOutIntPair, WriteData: ValWriteData, WriteIovec: ValWriteIovec, LongFlags: ValInt64,
	} {
		if got := k.Value(); got != want {
			t.Errorf("kind %d reads as %d, want %d", k, got, want)
		}
	}
	if !StructFlags.IsFlags() || Cmd.IsFlags() || Mode.IsFlags() {
		t.Error("IsFlags")
	}
	if !Lookup("execveat").ExecsAtEntry() || Lookup("openat").ExecsAtEntry() {
		t.Error("ExecsAtEntry")
	}
	if !Lookup("writev").Writes() || Lookup("read") != nil || Lookup("close").Writes() {
		t.Error("Writes")
	}
}

// failedLookup is what a failed lookup is to every tracer: a call of the
// lookup column that failed with one of LookupErrnos.
func failedLookup(name, errno string) bool { return LookupErrno(errno) && LooksUp(name) }

// TestLookupColumn: a lookup names a path to look up, and a failed lookup
// needs the column and the errno both.
func TestLookupColumn(t *testing.T) {
	n := 0
	for i := range Syscalls {
		s := &Syscalls[i]
		if !s.Lookup {
			continue
		}
		n++
		hasPath := false
		for _, k := range s.Args {
			hasPath = hasPath || k == Path || k == ExecPath
		}
		if !hasPath || s.Why != Lowered {
			t.Errorf("%s: a lookup without a path argument, or not lowered", s.Name)
		}
		for _, errno := range LookupErrnos {
			if !failedLookup(s.Name, errno) {
				t.Errorf("failedLookup(%s, %s) = false", s.Name, errno)
			}
		}
		if failedLookup(s.Name, "EACCES") || failedLookup(s.Name, "") {
			t.Errorf("%s: a failure other than ENOENT or ENOTDIR counts as a failed lookup", s.Name)
		}
	}
	if n == 0 {
		t.Fatal("no lookup rows")
	}
	for _, name := range []string{"unlink", "mkdir", "rename", "no_such_call"} {
		if LooksUp(name) || failedLookup(name, "ENOENT") {
			t.Errorf("%s counts as a lookup", name)
		}
	}
}
