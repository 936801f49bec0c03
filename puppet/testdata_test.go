package puppet

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

// stringsOf decodes the string arguments of a write(1, …) or writev(1, …)
// strace line and returns their concatenation, as a strace parser would hand
// it to Mark. Enough of strace's escapes for the fixture: \n \" \\ and octal.
func stringsOf(t *testing.T, line string) string {
	t.Helper()
	var out []byte
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		for i++; i < len(line) && line[i] != '"'; i++ {
			if line[i] != '\\' {
				out = append(out, line[i])
				continue
			}
			i++
			switch c := line[i]; {
			case c == 'n':
				out = append(out, '\n')
			case c >= '0' && c <= '7':
				v := 0
				for k := 0; k < 3 && i < len(line) && line[i] >= '0' && line[i] <= '7'; k++ {
					v = v*8 + int(line[i]-'0')
					i++
				}
				i--
				out = append(out, byte(v))
			default:
				out = append(out, c)
			}
		}
		if i >= len(line) {
			t.Fatalf("unterminated string in %q", line)
		}
	}
	return string(out)
}

// TestFixtureLines checks testdata/evaltrace/lines.strace, strace -f -s 300
// lines of Puppet console writes, against lines.want.
func TestFixtureLines(t *testing.T) {
	read := func(name string) []string {
		f, err := os.Open("../testdata/evaltrace/" + name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var lines []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		return lines
	}
	trace, want := read("lines.strace"), read("lines.want")
	if len(trace) != len(want) || len(trace) == 0 {
		t.Fatalf("%d trace lines, %d expectations", len(trace), len(want))
	}
	var m Marker
	for i, line := range trace {
		data := stringsOf(t, line)
		op, ref := lastMark(m, data)
		got := "nop"
		switch op {
		case fstrace.OpBegin:
			got = "begin " + ref
		case fstrace.OpEnd:
			got = "end " + ref
		}
		if got != want[i] {
			t.Errorf("line %d: got %q, want %q\n%s", i+1, got, want[i], line)
		}
	}
	// The fixture holds lines cut by -s 300.
	cut := 0
	for _, line := range trace {
		if strings.Contains(line, `"...`) {
			cut++
		}
	}
	if cut < 5 {
		t.Errorf("only %d cut lines in the fixture", cut)
	}
}
