package analyze

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecondApplySkipped: a resource the second apply skipped (a
// dependency failed there) was not checked for NI, which makes the
// analysis incomplete; a second apply that skipped nothing does not.
func TestSecondApplySkipped(t *testing.T) {
	report, err := os.ReadFile(filepath.Join("..", "..", "testdata", "runs", "ni_not_idempotent", "second", "last_run_report.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, report string
		want         string
	}{
		{"as-is", string(report), ""},
		{"skipped", strings.Replace(string(report), "skipped: false", "skipped: true", 1),
			"1 resource(s) the second apply skipped for a failed dependency were not checked for NI: Exec[stamp]"},
	} {
		path := filepath.Join(dir, c.name+".yaml")
		if err := os.WriteFile(path, []byte(c.report), 0o644); err != nil {
			t.Fatal(err)
		}
		_, incomplete, err := readIdempotence(context.Background(), Input{SecondReport: path}, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(incomplete, "\n"); got != c.want {
			t.Errorf("%s: incomplete %q, want %q", c.name, got, c.want)
		}
	}
}
