package linux

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Mount is one line of /proc/<pid>/mountinfo, the fields fsmove reads.
type Mount struct {
	Dir    string // the mount point
	FSType string // cgroup, cgroup2, tmpfs, …
	Super  string // the superblock's options (a v1 cgroup's controllers, name=systemd)
}

// Mounts reads the mounts of this process's mount namespace.
func Mounts() ([]Mount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseMountinfo(f)
}

// ParseMountinfo reads a mountinfo file: "36 25 0:33 / /sys/fs/cgroup/memory
// rw,relatime shared:5 - cgroup cgroup rw,memory" gives the mount point
// (its octal escapes undone: \040 is a space), the type after the "-" and
// the superblock options. Lines it cannot read are skipped.
func ParseMountinfo(r io.Reader) ([]Mount, error) {
	var ms []Mount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+3 >= len(fields) {
			continue
		}
		ms = append(ms, Mount{Dir: unescape(fields[4]), FSType: fields[sep+1], Super: fields[sep+3]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mountinfo: %w", err)
	}
	return ms, nil
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
