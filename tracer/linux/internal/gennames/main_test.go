package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/fsmove/fsmove/internal/testenv"
)

// committed is the generated file this program writes.
var committed = filepath.Join("..", "..", "names_gen.go")

// TestCommittedFileIsGenerated: regenerating from the installed headers
// gives the committed file byte for byte.
func TestCommittedFileIsGenerated(t *testing.T) {
	got, err := Generate("/usr/include")
	if errors.Is(err, ErrHeadersMissing) {
		testenv.Missing(t, "cannot regenerate: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		first := func(b []byte) string { return string(bytes.SplitN(b, []byte("\n"), 2)[0]) }
		t.Fatalf("names_gen.go is not what the headers give: run go generate in tracer/linux.\ncommitted: %s\nheaders:   %s", first(want), first(got))
	}
}

// TestMessagesNameErrnos: every text belongs to an errno of the table (a
// misspelt name would silently lose its text).
func TestMessagesNameErrnos(t *testing.T) {
	got, err := Generate("/usr/include")
	if errors.Is(err, ErrHeadersMissing) {
		testenv.Missing(t, "cannot regenerate: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for name := range messages {
		if !regexp.MustCompile(`\{"` + name + `", \d+, "`).Match(got) {
			t.Errorf("%s has a text but no header names it", name)
		}
	}
}

// TestScanAliasesAndErrors: an alias takes the number of the name it
// equals; an alias of an unknown name is an error, not a zero.
func TestScanAliasesAndErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "errno.h")
	os.WriteFile(file, []byte("#define\tEAGAIN\t11\t/* Try again */\n#define EWOULDBLOCK EAGAIN\n"), 0o644)
	list, err := scan(file, errnoDefine, map[string]int{})
	if err != nil || len(list) != 2 || list[1] != (name{"EWOULDBLOCK", 11}) {
		t.Errorf("scan = %v, %v", list, err)
	}
	os.WriteFile(file, []byte("#define EWOULDBLOCK EAGAIN\n"), 0o644)
	if _, err := scan(file, errnoDefine, map[string]int{}); err == nil {
		t.Error("an alias of an undefined name scanned")
	}
	if _, err := Generate(dir); !errors.Is(err, ErrHeadersMissing) {
		t.Errorf("Generate without headers: %v", err)
	}
}
