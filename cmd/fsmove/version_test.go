package main

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestDescribeBuild: the Makefile's version wins; else Go's module
// version; else the commit, marked when the checkout was modified; never
// a made-up "dev".
func TestDescribeBuild(t *testing.T) {
	stamped := func(main string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/fsmove/fsmove", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	rev := "61dd3469b18bc03f66f02a0ef63eb1c29a87d5fa"
	for _, c := range []struct {
		name     string
		ldflags  string
		bi       *debug.BuildInfo
		version  string
		revision string
		modified bool
	}{
		{"make build", "v1.2.0-3-g61dd346-dirty", stamped("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "v1.2.0-3-g61dd346-dirty", "61dd3469b18b", true},
		{"go install @version", "", stamped("v1.2.0"), "v1.2.0", "", false},
		{"go build in a checkout", "", stamped("v0.0.0-20261126200433-61dd3469b18b+dirty", "vcs.revision", rev, "vcs.modified", "true"), "v0.0.0-20261126200433-61dd3469b18b+dirty", "61dd3469b18b", true},
		{"devel with a commit", "", stamped("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "61dd3469b18b-dirty", "61dd3469b18b", true},
		{"devel, clean commit", "", stamped("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "61dd3469b18b", "61dd3469b18b", false},
		{"nothing stamped", "", stamped("(devel)"), "unknown", "", false},
		{"no build information", "", nil, "unknown", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := describeBuild(c.ldflags, c.bi)
			if b.version != c.version || b.revision != c.revision || b.modified != c.modified {
				t.Errorf("got %+v, want version %q revision %q modified %v", b, c.version, c.revision, c.modified)
			}
		})
	}
}

// TestVersionCommand: --version prints one line, "fsmove version" adds
// Go's version and the platform.
func TestVersionCommand(t *testing.T) {
	var short, long, stderr bytes.Buffer
	if code := run(&short, &stderr, []string{"--version"}); code != exitOK {
		t.Fatalf("--version: exit %d: %s", code, stderr.String())
	}
	if code := run(&long, &stderr, []string{"version"}); code != exitOK {
		t.Fatalf("version: exit %d: %s", code, stderr.String())
	}
	want := "fsmove " + buildVersion() + "\n"
	if short.String() != want {
		t.Errorf("--version printed %q, want %q", short.String(), want)
	}
	if !strings.HasPrefix(long.String(), want) || !strings.Contains(long.String(), runtime.Version()) ||
		!strings.Contains(long.String(), runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("version printed %q", long.String())
	}
}
