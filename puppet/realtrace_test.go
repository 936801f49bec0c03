package puppet

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/internal/testenv"
)

// TestRealTraces runs Marker over every console write of the real Puppet 7
// traces in testdata/runs: each "Starting to evaluate" line must be a Begin
// whose counter follows the previous one, each Begin must be closed by the
// End of the same resource, and every resource block must name a resource
// of the run's catalog (or a whit, schedule or filebucket).
func TestRealTraces(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/runs/*/trace.log.zst")
	if len(dirs) == 0 {
		testenv.Missing(t, "no real traces in testdata/runs")
	}
	counter := regexp.MustCompile(`\((\d+) of (\d+)\)`) // test only: the checker, not the code under test
	for _, path := range dirs {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			refs := catalogRefs(t, filepath.Join(dir, "catalog.json"))
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			zr, err := zstd.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			sc := bufio.NewScanner(zr)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			var m Marker
			open, next, total, lineNo := "", 1, 0, 0
			for sc.Scan() {
				lineNo++
				line := sc.Text()
				if !strings.Contains(line, " write(1, ") && !strings.Contains(line, " writev(1, ") {
					continue
				}
				data := stringsOf(t, line[strings.IndexByte(line, '('):])
				begins, ends := 0, 0
				for op, ref := range m.marks(data) {
					switch op {
					case fstrace.OpBegin:
						begins++
						if open != "" {
							t.Fatalf("line %d: %s begins inside %s", lineNo, ref, open)
						}
						open = ref
						c := counter.FindStringSubmatch(data)
						if c == nil {
							t.Fatalf("line %d: begin without counter: %q", lineNo, data)
						}
						if n, _ := strconv.Atoi(c[1]); n != next {
							t.Fatalf("line %d: begin %d, want %d (a marker was missed)", lineNo, n, next)
						}
						total, _ = strconv.Atoi(c[2])
						next++
						r, _ := catalog.ParseRef(ref)
						if !r.Is(catalog.TypeStage) && !r.Is(catalog.TypeClass) && !r.Is(catalog.TypeSchedule) && !r.Is(catalog.TypeFilebucket) && !refs[ref] {
							t.Errorf("line %d: block %s is not in the catalog", lineNo, ref)
						}
					case fstrace.OpEnd:
						ends++
						if ref != open {
							t.Fatalf("line %d: %s ends while %q is open", lineNo, ref, open)
						}
						open = ""
					}
				}
				// No evaltrace line may go unrecognised.
				if begins != strings.Count(data, ": Starting to evaluate the resource") ||
					ends != strings.Count(data, ": Evaluated in ") {
					t.Fatalf("line %d: %d begins and %d ends recognised in %q", lineNo, begins, ends, data)
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if open != "" || total == 0 || next != total+1 {
				t.Errorf("%d of %d begins seen, %q left open", next-1, total, open)
			}
		})
	}
}

// catalogRefs returns the references of a catalog's resources.
func catalogRefs(t *testing.T, path string) map[string]bool {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Resources []struct{ Type, Title string }
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	refs := map[string]bool{}
	for _, r := range c.Resources {
		refs[r.Type+"["+r.Title+"]"] = true
	}
	return refs
}
