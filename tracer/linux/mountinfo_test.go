package linux

import (
	"strings"
	"testing"
)

func TestParseMountinfo(t *testing.T) {
	ms, err := ParseMountinfo(strings.NewReader(`36 25 0:33 / /sys/fs/cgroup/memory rw,relatime shared:5 - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
short line
22 1 254:0 / / rw,relatime - ext4 /dev/vda rw,errors=remount-ro
104 22 0:8 / /tmp/with\040space\0 rw - tmpfs tmpfs rw
`))
	if err != nil || len(ms) != 4 {
		t.Fatalf("%d mounts, %v", len(ms), err)
	}
	if m := ms[0]; m.Dir != "/sys/fs/cgroup/memory" || m.FSType != "cgroup" || m.Super != "rw,memory" {
		t.Errorf("first mount %+v", m)
	}
	if m := ms[2]; m.Dir != "/" || m.FSType != "ext4" {
		t.Errorf("third mount %+v", m)
	}
	if m := ms[3]; m.Dir != `/tmp/with space\0` {
		t.Errorf("escapes: %q, want a space, and a short escape kept", m.Dir)
	}
}
