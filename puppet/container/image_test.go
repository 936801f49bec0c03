package container

import (
	"strings"
	"testing"
)

func TestDockerfile(t *testing.T) {
	df := Dockerfile(ImageOptions{})
	for _, want := range []string{
		"FROM debian:bookworm\n",
		"LABEL fsmove=1 ",
		"COPY policy-rc.d /usr/sbin/policy-rc.d\n",
		"apt-get install -y --no-install-recommends puppet-agent strace procps ca-certificates",
	} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q:\n%s", want, df)
		}
	}
	if strings.Contains(df, "rm -rf /var/lib/apt/lists") {
		t.Error("Dockerfile drops the package lists that Package resources need")
	}
	if !strings.HasPrefix(Dockerfile(ImageOptions{Suite: "trixie"}), "FROM debian:trixie\n") {
		t.Error("suite not used")
	}
}

func TestDebootstrapArgs(t *testing.T) {
	got := strings.Join(DebootstrapArgs(ImageOptions{Mirror: "http://127.0.0.1:3142/debian", Packages: []string{"puppet-agent", "strace"}}, "/tmp/r"), " ")
	want := "--variant=minbase --include=puppet-agent,strace bookworm /tmp/r http://127.0.0.1:3142/debian"
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestReadJSONMessages(t *testing.T) {
	var log strings.Builder
	ok := `{"stream":"Step 1/3 : FROM debian:bookworm\n"}{"status":"Downloading"}`
	if err := readJSONMessages(strings.NewReader(ok), &log); err != nil {
		t.Fatal(err)
	}
	if log.String() != "Step 1/3 : FROM debian:bookworm\nDownloading\n" {
		t.Errorf("log = %q", log.String())
	}
	bad := `{"stream":"x"}{"errorDetail":{"message":"The command returned a non-zero code: 100"},"error":"The command returned a non-zero code: 100"}`
	err := readJSONMessages(strings.NewReader(bad), nil)
	if err == nil || !strings.Contains(err.Error(), "non-zero code: 100") {
		t.Errorf("err = %v", err)
	}
	if err := readJSONMessages(strings.NewReader(`{"stream":`), nil); err == nil {
		t.Error("truncated stream accepted")
	}
}

func TestTailBuffer(t *testing.T) {
	var tb tailBuffer
	for i := 0; i < 5000; i++ {
		tb.Write([]byte("line of debootstrap output\n"))
	}
	tb.Write([]byte("E: the last error\n"))
	s := tb.String()
	if len(s) > tailBytes || !strings.HasSuffix(s, "E: the last error\n") || !strings.HasPrefix(s, "line") {
		t.Errorf("tail of %d bytes: %q…", len(s), s[:40])
	}
}

func TestRecipe(t *testing.T) {
	base := ImageOptions{}.Recipe()
	if base != (ImageOptions{Mirror: "http://127.0.0.2:3142/debian"}).Recipe() {
		t.Error("the mirror changed the recipe")
	}
	if base == (ImageOptions{Suite: "trixie"}).Recipe() || base == (ImageOptions{Packages: []string{"puppet-agent"}}).Recipe() {
		t.Error("suite or packages did not change the recipe")
	}
	if !strings.Contains(Dockerfile(ImageOptions{}), RecipeLabel+"="+base) {
		t.Error("the Dockerfile does not label the image with its recipe")
	}
}

func TestMountsUnder(t *testing.T) {
	info := `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
101 22 0:5 / /tmp/fsmove-rootfs-1/rootfs/proc rw - proc proc rw
102 22 0:6 / /tmp/fsmove-rootfs-1/rootfs/sys rw - sysfs sysfs rw
103 102 0:7 / /tmp/fsmove-rootfs-1/rootfs/sys/fs/cgroup rw - tmpfs tmpfs rw
104 22 0:8 / /tmp/fsmove-rootfs-1/with\040space rw - tmpfs tmpfs rw
105 22 0:9 / /tmp/fsmove-rootfs-10/rootfs/proc rw - proc proc rw
106 22 0:9 / /tmp/fsmove-rootfs-1 rw - tmpfs tmpfs rw
`
	got := strings.Join(MountsUnder(info, "/tmp/fsmove-rootfs-1/"), "\n")
	want := strings.Join([]string{
		"/tmp/fsmove-rootfs-1/rootfs/sys/fs/cgroup",
		"/tmp/fsmove-rootfs-1/rootfs/proc",
		"/tmp/fsmove-rootfs-1/rootfs/sys",
		"/tmp/fsmove-rootfs-1/with space",
	}, "\n")
	if got != want {
		t.Errorf("MountsUnder:\n%s\nwant (deepest first, escapes undone, the dir itself and its namesakes left out):\n%s", got, want)
	}
}

// TestDockerfileKeepsModuleDebs: the registry build fills ModuleDebsDir
// after the packages are installed and before apt's cache is cleaned, and
// the script names no suite of its own.
func TestDockerfileKeepsModuleDebs(t *testing.T) {
	for _, suite := range []string{"bookworm", "trixie"} {
		df := Dockerfile(ImageOptions{Suite: suite})
		install, keep, clean := strings.Index(df, "apt-get install -y"), strings.Index(df, moduleDebsRun()), strings.Index(df, "apt-get clean")
		if install < 0 || keep < install || clean < keep {
			t.Errorf("%s: want install, then %q, then apt-get clean:\n%s", suite, moduleDebsRun(), df)
		}
	}
	if strings.Contains(moduleDebsScript, "bookworm") || !strings.Contains(moduleDebsScript, ModuleDebsDir) {
		t.Error("the script must take the suite's packages, whatever the suite, into " + ModuleDebsDir)
	}
}
