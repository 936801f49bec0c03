package strace

import (
	"os"
	"testing"
)

func TestDumpFile(t *testing.T) {
	path := os.Getenv("DUMP")
	if path == "" {
		t.Skip()
	}
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	evs := readAll(t, r)
	t.Logf("events %d lines %d malformed %d warnings %d", len(evs), r.Lines(), r.Malformed(), r.WarningCount())
	for _, w := range r.Warnings() {
		t.Logf("%d %s: %s", w.Line, w.Message, w.Text)
	}
}
