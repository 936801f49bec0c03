package strace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"syscall"
	"testing"
	"time"
)

// fileSyscalls is a Want set like the lowering table's: the original tool's
// 46 calls plus the modern variants (about 40 of them occur on x86_64).
var fileSyscalls = map[string]bool{}

func init() {
	for _, n := range []string{
		"access", "chdir", "chmod", "chown", "clone", "clone3", "close", "close_range", "dup", "dup2", "dup3",
		"execve", "execveat", "fchdir", "fchmodat", "fchownat", "fcntl", "fork", "getxattr", "lchown",
		"lgetxattr", "link", "linkat", "mkdir", "mkdirat", "mknod", "open", "openat", "openat2",
		"readlink", "readlinkat", "rename", "renameat", "renameat2", "rmdir", "symlink", "symlinkat",
		"unlink", "unlinkat", "utimensat", "vfork", "write", "writev", "pipe2", "creat", "truncate",
	} {
		fileSyscalls[n] = true
	}
}

func wantFileSyscalls(name string) bool { return fileSyscalls[name] }

// specSyscalls is the wider set the lowering covers beyond the original
// tool's (stat family, xattrs, fd-creating calls…; docs/DESIGN.md,
// "Effects of system calls"): about 75 names.
var specSyscalls = map[string]bool{}

func init() {
	for n := range fileSyscalls {
		specSyscalls[n] = true
	}
	for _, n := range []string{
		"stat", "lstat", "newfstatat", "statx", "faccessat", "faccessat2", "mknodat", "ftruncate",
		"fchmod", "fchown", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
		"fremovexattr", "listxattr", "llistxattr", "utime", "utimes", "futimesat", "getcwd", "chroot",
		"pipe", "socket", "socketpair", "accept", "accept4", "eventfd", "eventfd2", "memfd_create",
		"epoll_create", "epoll_create1", "inotify_init1", "signalfd4", "timerfd_create",
	} {
		specSyscalls[n] = true
	}
}

// lineShape is one kind of line in the synthetic trace, with its weight (per
// mille). The mix follows a Puppet 7 / Ruby 3.1 `strace -f -s 300` run (see
// /work/shared/reference/puppet-notes.md): ~90% of the lines are calls no
// lowering rule reads (read, mmap, futex, clock_gettime, stat of Ruby files…).
type lineShape struct {
	weight int
	format func(rng *rand.Rand, pid int) string
}

var rubyFiles = []string{
	"/usr/lib/ruby/vendor_ruby/puppet/type/file.rb", "/usr/lib/ruby/3.1.0/set.rb",
	"/usr/lib/ruby/vendor_ruby/puppet/parameter/value_collection.rb", "/etc/puppet/puppet.conf",
	"/usr/lib/ruby/vendor_ruby/puppet/provider/service/systemd.rb", "/var/cache/puppet/state/state.yaml",
	"/usr/share/puppet/modules/stdlib/lib/puppet/functions/to_json.rb", "/etc/ssl/certs/ca-certificates.crt",
}

func randomPath(rng *rand.Rand) string { return rubyFiles[rng.Intn(len(rubyFiles))] }

func randomData(rng *rand.Rand, n int) string {
	const chars = `abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ0123456789_.:/=`
	b := make([]byte, 0, n+n/8)
	for i := 0; i < n; i++ {
		switch rng.Intn(24) {
		case 0:
			b = append(b, `\n`...)
		case 1:
			b = append(b, `\"`...)
		default:
			b = append(b, chars[rng.Intn(len(chars))])
		}
	}
	return string(b)
}

var lineShapes = []lineShape{
	{170, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d read(%d, "%s"..., 8192) = 8192`, pid, 3+r.Intn(10), randomData(r, 300))
	}},
	{40, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d read(%d, "", 8192) = 0`, pid, 3+r.Intn(10))
	}},
	{90, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d mmap(NULL, %d, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f%010x`, pid, 4096*(1+r.Intn(64)), r.Int63n(1<<40))
	}},
	{30, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d munmap(0x7f%010x, 262144) = 0`, pid, r.Int63n(1<<40))
	}},
	{110, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d futex(0x55%010x, FUTEX_WAKE_PRIVATE, 1) = %d`, pid, r.Int63n(1<<40), r.Intn(2))
	}},
	{100, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d clock_gettime(CLOCK_MONOTONIC, {tv_sec=%d, tv_nsec=%d}) = 0`, pid, 10000+r.Intn(1000), r.Intn(1e9))
	}},
	{50, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d rt_sigprocmask(SIG_SETMASK, [], NULL, 8) = 0`, pid)
	}},
	{130, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d newfstatat(AT_FDCWD, "%s", {st_mode=S_IFREG|0644, st_size=%d, ...}, 0) = 0`, pid, randomPath(r), r.Intn(100000))
	}},
	{60, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d newfstatat(AT_FDCWD, "%s.so", 0x7ffd%08x, 0) = -1 ENOENT (No such file or directory)`, pid, randomPath(r), r.Int63n(1<<32))
	}},
	{40, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d fstat(%d, {st_mode=S_IFREG|0644, st_size=%d, ...}) = 0`, pid, 3+r.Intn(10), r.Intn(100000))
	}},
	{30, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d lseek(%d, 0, SEEK_CUR) = %d`, pid, 3+r.Intn(10), r.Intn(100000))
	}},
	{20, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d ppoll([{fd=%d, events=POLLIN}], 1, {tv_sec=0, tv_nsec=100000000}, NULL, 8) = 0 (Timeout)`, pid, 3+r.Intn(10))
	}},
	{20, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d getdents64(%d, 0x55%010x /* %d entries */, 32768) = %d`, pid, 3+r.Intn(10), r.Int63n(1<<40), r.Intn(40), r.Intn(4000))
	}},
	{20, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d mprotect(0x7f%010x, 4096, PROT_READ) = 0`, pid, r.Int63n(1<<40))
	}},
	// The calls a lowering table wants (about 10% of the lines).
	{35, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d openat(AT_FDCWD, "%s", O_RDONLY|O_CLOEXEC) = %d`, pid, randomPath(r), 3+r.Intn(10))
	}},
	{10, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d openat(AT_FDCWD, "%s.lock", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = -1 ENOENT (No such file or directory)`, pid, randomPath(r))
	}},
	{35, func(r *rand.Rand, pid int) string { return fmt.Sprintf(`%d close(%d) = 0`, pid, 3+r.Intn(10)) }},
	{10, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d fcntl(%d, F_DUPFD_CLOEXEC, 10) = %d`, pid, 3+r.Intn(10), 10+r.Intn(5))
	}},
	{6, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d writev(1, [{iov_base="\33[0;32mInfo: /Stage[main]/Main/File[%s]: Starting to evaluate the resource (6 of 15)\33[0m", iov_len=94}, {iov_base="\n", iov_len=1}], 2) = 95`, pid, randomPath(r))
	}},
	{8, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d write(5, "%s", 64) = 64`, pid, randomData(r, 64))
	}},
	{3, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d access("%s", R_OK) = 0`, pid, randomPath(r))
	}},
	{3, func(r *rand.Rand, pid int) string {
		return fmt.Sprintf(`%d readlink("/proc/self/exe", "/usr/bin/ruby3.1", 4096) = 16`, pid)
	}},
}

// syntheticTrace builds about size bytes of trace. Pids interleave, and one
// call in fifty is split into "<unfinished ...>" and "<... resumed>" halves
// with another pid's line in between, as strace -f prints them.
func syntheticTrace(size int) []byte {
	rng := rand.New(rand.NewSource(1))
	total := 0
	for _, s := range lineShapes {
		total += s.weight
	}
	var buf bytes.Buffer
	for buf.Len() < size {
		pid := 21746
		if rng.Intn(10) == 0 {
			pid = 21800 + rng.Intn(5)
		}
		n := rng.Intn(total)
		var line string
		for _, s := range lineShapes {
			if n < s.weight {
				line = s.format(rng, pid)
				break
			}
			n -= s.weight
		}
		if rng.Intn(50) == 0 {
			// Split after the first argument: "name(arg, <unfinished ...>".
			if k := bytes.IndexByte([]byte(line), ','); k > 0 {
				open := bytes.IndexByte([]byte(line), '(')
				nameStart := bytes.IndexByte([]byte(line), ' ') + 1
				name := line[nameStart:open]
				fmt.Fprintf(&buf, "%s <unfinished ...>\n", line[:k+1])
				fmt.Fprintf(&buf, "%d futex(0x55d0c0a0b0c0, FUTEX_WAIT_PRIVATE, 0, NULL) = 0\n", pid+1)
				fmt.Fprintf(&buf, "%d <... %s resumed>%s\n", pid, name, line[k+1:])
				continue
			}
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// BenchmarkReader measures the scanner alone on a realistic trace: "want40"
// with the original tool's 46 calls as Want set (the main case), "wantSpec"
// with the lowering's wider set (specSyscalls), "all" decoding every call.
// Set FSMOVE_STRACE_BENCH_FILE to also run on a real trace file.
func BenchmarkReader(b *testing.B) {
	inputs := []struct {
		name string
		data []byte
	}{{"synthetic", syntheticTrace(32 << 20)}}
	if path := os.Getenv("FSMOVE_STRACE_BENCH_FILE"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, struct {
			name string
			data []byte
		}{"file", data})
	}
	for _, in := range inputs {
		for _, mode := range []struct {
			name string
			want func(string) bool
		}{{"want40", wantFileSyscalls}, {"wantSpec", func(n string) bool { return specSyscalls[n] }}, {"all", nil}} {
			b.Run(in.name+"/"+mode.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.data)))
				b.ReportAllocs()
				var events, lines int64
				cpuBefore := cpuTime()
				for b.Loop() {
					r := NewReader(bytes.NewReader(in.data), Options{Want: mode.want})
					events = 0
					for {
						_, err := r.Next()
						if errors.Is(err, io.EOF) {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						events++
					}
					if r.WarningCount() != 0 {
						b.Fatalf("warnings: %+v", r.Warnings())
					}
					lines = r.Lines()
				}
				// The machine is shared: wall-clock MB/s drops when other
				// processes run, so also report MB per second of CPU time
				// used by this process (GC included).
				if cpu := cpuTime() - cpuBefore; cpu > 0 {
					b.ReportMetric(float64(len(in.data))*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
				}
				b.ReportMetric(float64(events)/float64(lines)*100, "%wanted")
				b.ReportMetric(float64(lines), "lines")
			})
		}
	}
}

// cpuTime is the user+system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
