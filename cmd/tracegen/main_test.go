package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1024", 1024, true}, {"64K", 64 << 10, true}, {"64m", 64 << 20, true}, {"1G", 1 << 30, true},
		{"", 0, false}, {"G", 0, false}, {"-1M", 0, false}, {"0", 0, false}, {"1T", 1 << 40, true}, {"2P", 0, false}, {"99999999999G", 0, false}, {"1.5GiB", 3 << 29, true},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	trace, cat, conf := filepath.Join(dir, "t.log"), filepath.Join(dir, "c.json"), filepath.Join(dir, "k.json")
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-size", "256K", "-blocks", "20", "-processes", "30", "-o", trace, "-catalog", cat, "-conflicts", conf}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	fi, err := os.Stat(trace)
	if err != nil || fi.Size() < 240<<10 || fi.Size() > 270<<10 {
		t.Errorf("trace: %v, %v", fi, err)
	}
	for _, name := range []string{cat, conf} {
		data, err := os.ReadFile(name)
		if err != nil || !json.Valid(data) {
			t.Errorf("%s: %v, valid=%v", name, err, json.Valid(data))
		}
	}
	// Standard output by default.
	stdout.Reset()
	if code := run(&stdout, &stderr, []string{"-size", "64K", "-blocks", "4", "-processes", "10"}); code != 0 || stdout.Len() < 60<<10 {
		t.Errorf("exit %d, %d bytes on stdout", code, stdout.Len())
	}
	for _, args := range [][]string{{"-size", "x"}, {"extra"}, {"-nope"}} {
		if code := run(&stdout, &stderr, args); code != 2 {
			t.Errorf("run(%q) = %d, want 2", args, code)
		}
	}
}
