package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// The bad-input suite (issue 11): every way a user can hand fsmove broken,
// partial or mismatched input. No case may exit 0 without findings unless
// it is a complete, clean analysis (the controls) or --allow-incomplete was
// given; none may panic or hang. Cases that need Docker are in the
// end-to-end suite (TestE2EBadRunInput).

// badInput is one case: args for run(), files made in a temporary directory
// (names in args are relative to it; "{dir}" is replaced by it), standard
// input, and what must come out.
type badInput struct {
	name  string
	args  []string
	files func(t *testing.T, dir string)
	stdin string // a file in dir to use as standard input ("" none)
	exit  int
	// stderr and report, when set, must match what fsmove printed.
	stderr string
	report string
	// clean marks the controls: a complete analysis without findings,
	// the only input that may exit 0.
	clean bool
}

// Inputs taken from the analyze cases: fig1 has one MOR, clean_class_require
// none; both traces end with Puppet's exit.
var (
	fig1Dir  = filepath.Join("..", "..", "testdata", "analyze", "fig1_mor_file_exec")
	cleanDir = filepath.Join("..", "..", "testdata", "analyze", "clean_class_require")
)

func readCase(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// write returns a files func that writes name with the given content.
func write(name string, content func(t *testing.T) []byte) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), content(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// both combines files funcs.
func both(fs ...func(t *testing.T, dir string)) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		for _, f := range fs {
			f(t, dir)
		}
	}
}

func copyCase(dir, name, as string) func(t *testing.T, d string) {
	return write(as, func(t *testing.T) []byte { return readCase(t, dir, name) })
}

// traceEdit writes trace.log from a case's trace changed by edit.
func traceEdit(dir string, edit func(lines []string) []string) func(t *testing.T, d string) {
	return write("trace.log", func(t *testing.T) []byte {
		lines := strings.SplitAfter(string(readCase(t, dir, "trace.log")), "\n")
		return []byte(strings.Join(edit(lines), ""))
	})
}

// withoutLines drops the lines that contain any of subs.
func withoutLines(subs ...string) func([]string) []string {
	return func(lines []string) []string {
		var out []string
	next:
		for _, l := range lines {
			for _, s := range subs {
				if strings.Contains(l, s) {
					continue next
				}
			}
			out = append(out, l)
		}
		return out
	}
}

// upTo keeps the lines before the first one that contains sub, and n more.
func upTo(sub string, n int) func([]string) []string {
	return func(lines []string) []string {
		for i, l := range lines {
			if strings.Contains(l, sub) {
				return lines[:min(i+n, len(lines))]
			}
		}
		return lines
	}
}

// quoted matches a strace string argument.
var quoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// cutStrings does what strace -s 32 does to every string longer than 32 bytes.
func cutStrings(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = quoted.ReplaceAllStringFunc(l, func(q string) string {
			if len(q) > 34 {
				return q[:33] + `"...`
			}
			return q
		})
	}
	return out
}

func gzipped(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func zstded(t *testing.T, data []byte) []byte {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return enc.EncodeAll(data, nil)
}

// badInputs are the analyze (and Docker-free run) cases.
func badInputs() []badInput {
	fig1Trace := copyCase(fig1Dir, "trace.log", "trace.log")
	fig1Cat := copyCase(fig1Dir, "catalog.json", "catalog.json")
	cleanCat := copyCase(cleanDir, "catalog.json", "catalog.json")
	otherCat := copyCase(filepath.Join("..", "..", "testdata", "analyze", "fig2_mn_package_service"), "catalog.json", "catalog.json")
	fig1 := both(fig1Trace, fig1Cat)
	catalogText := func(text string) func(t *testing.T, d string) {
		return write("catalog.json", func(*testing.T) []byte { return []byte(text) })
	}
	traceText := func(text string) func(t *testing.T, d string) {
		return write("trace.log", func(*testing.T) []byte { return []byte(text) })
	}
	const (
		noBlock    = "no Puppet resource block recognised"
		noEvaltr   = "evaltrace lines are missing"
		endsEarly  = "the trace ends early"
		neverExits = "never exits"
		mismatch   = "the catalog does not match this trace"
	)
	a := func(more ...string) []string { return append([]string{"analyze"}, more...) }
	return []badInput{
		// Controls: complete analyses.
		{name: "control: clean trace and its catalog", args: a("trace.log", "catalog.json"),
			files: both(copyCase(cleanDir, "trace.log", "trace.log"), cleanCat), exit: exitOK, clean: true},
		{name: "control: a fault", args: a("trace.log", "catalog.json"), files: fig1, exit: exitFindings},

		// Traces that hold nothing.
		{name: "empty trace", args: a("trace.log", "catalog.json"), files: both(traceText(""), fig1Cat), exit: exitIncomplete, report: noBlock},
		{name: "only blank lines", args: a("trace.log", "catalog.json"), files: both(traceText("\n\n\n"), fig1Cat), exit: exitIncomplete, report: noBlock},
		{name: "random bytes", args: a("trace.log", "catalog.json"),
			files: both(write("trace.log", func(*testing.T) []byte {
				b := make([]byte, 4096)
				x := uint32(2463534242)
				for i := range b {
					x ^= x << 13
					x ^= x >> 17
					x ^= x << 5
					b[i] = byte(x)
				}
				return b
			}), fig1Cat), exit: exitIncomplete, report: "not strace output"},
		{name: "NUL bytes", args: a("trace.log", "catalog.json"), files: both(traceText(strings.Repeat("\x00", 1000)), fig1Cat), exit: exitIncomplete, report: noBlock},
		{name: "a catalog given as the trace", args: a("catalog.json", "catalog.json"), files: fig1Cat, exit: exitIncomplete, report: noBlock},
		{name: "only process exits", args: a("trace.log", "catalog.json"), files: both(traceText("1 +++ exited with 0 +++\n"), fig1Cat), exit: exitIncomplete, report: noBlock},
		{name: "/dev/null as the trace", args: a("/dev/null", "catalog.json"), files: fig1Cat, exit: exitIncomplete, report: noBlock},

		// Traces captured the wrong way.
		{name: "puppet without --evaltrace", args: a("trace.log", "catalog.json"),
			files: both(traceEdit(fig1Dir, withoutLines("Starting to evaluate", "Evaluated in")), fig1Cat), exit: exitIncomplete, report: noEvaltr},
		{name: "strace -s 32", args: a("trace.log", "catalog.json"),
			files: both(traceEdit(fig1Dir, cutStrings), fig1Cat), exit: exitIncomplete, report: "its -s is too small"},
		{name: "strace without writes traced", args: a("trace.log", "catalog.json"),
			files: both(traceEdit(fig1Dir, withoutLines("writev(", "write(")), fig1Cat), exit: exitIncomplete, report: noEvaltr},

		// Traces cut short.
		{name: "cut while Puppet ran", args: a("trace.log", "catalog.json"),
			files: both(traceEdit(fig1Dir, upTo("Applied catalog", 0)), fig1Cat), exit: exitFindings, report: neverExits},
		{name: "cut before the fault, while Puppet ran", args: a("trace.log", "catalog.json"),
			files: both(traceEdit(fig1Dir, upTo("Exec[use-conf]: Starting", 0)), fig1Cat), exit: exitIncomplete, report: neverExits},
		{name: "cut inside a block", args: a("trace.log", "catalog.json"),
			files: both(traceEdit(fig1Dir, upTo("Exec[use-conf]: Starting", 1)), fig1Cat), exit: exitIncomplete, report: "ends inside 1 resource block"},
		{name: "last line cut", args: a("trace.log", "catalog.json"),
			files: both(write("trace.log", func(t *testing.T) []byte {
				d := readCase(t, cleanDir, "trace.log")
				return d[:len(d)-8]
			}), cleanCat), exit: exitIncomplete, report: "last line is cut"},
		{name: "gzip cut short", args: a("trace.log.gz", "catalog.json"),
			files: both(write("trace.log.gz", func(t *testing.T) []byte {
				z := gzipped(t, readCase(t, cleanDir, "trace.log"))
				return z[:len(z)/2]
			}), cleanCat), exit: exitIncomplete, report: endsEarly},
		{name: "gzip without its trailer, fault kept", args: a("trace.log.gz", "catalog.json"),
			files: both(write("trace.log.gz", func(t *testing.T) []byte {
				z := gzipped(t, readCase(t, fig1Dir, "trace.log"))
				return z[:len(z)-12]
			}), fig1Cat), exit: exitFindings, report: endsEarly},
		{name: "zstd cut short", args: a("trace.log.zst", "catalog.json"),
			files: both(write("trace.log.zst", func(t *testing.T) []byte {
				z := zstded(t, readCase(t, cleanDir, "trace.log"))
				return z[:len(z)/2]
			}), cleanCat), exit: exitIncomplete, report: endsEarly},
		{name: "gzip magic only", args: a("trace.log.gz", "catalog.json"),
			files: both(write("trace.log.gz", func(*testing.T) []byte { return []byte{0x1f, 0x8b} }), cleanCat), exit: exitUsage},
		{name: "zstd magic then garbage", args: a("trace.log.zst", "catalog.json"),
			files: both(write("trace.log.zst", func(*testing.T) []byte { return []byte{0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3, 4, 5} }), cleanCat), exit: exitIncomplete},

		// Catalogs that are wrong.
		{name: "another run's catalog", args: a("trace.log", "catalog.json"), files: both(fig1Trace, otherCat), exit: exitIncomplete, report: mismatch},
		{name: "a catalog that shares a resource with the trace's", args: a("trace.log", "catalog.json"),
			files: both(copyCase(cleanDir, "trace.log", "trace.log"), fig1Cat), exit: exitFindings},
		{name: "empty catalog object", args: a("trace.log", "catalog.json"), files: both(fig1Trace, catalogText("{}")), exit: exitUsage, stderr: "not a Puppet catalog"},
		{name: "catalog without resources", args: a("trace.log", "catalog.json"), files: both(fig1Trace, catalogText(`{"resources": [], "edges": []}`)), exit: exitIncomplete, report: mismatch},
		{name: "empty catalog file", args: a("trace.log", "catalog.json"), files: both(fig1Trace, catalogText("")), exit: exitUsage, stderr: "catalog"},
		{name: "catalog of random text", args: a("trace.log", "catalog.json"), files: both(fig1Trace, catalogText("not json at all\n")), exit: exitUsage, stderr: "catalog"},
		{name: "catalog cut short", args: a("trace.log", "catalog.json"),
			files: both(fig1Trace, write("catalog.json", func(t *testing.T) []byte {
				c := readCase(t, fig1Dir, "catalog.json")
				return c[:len(c)/2]
			})), exit: exitUsage, stderr: "catalog"},
		{name: "catalog is an array", args: a("trace.log", "catalog.json"), files: both(fig1Trace, catalogText("[1, 2]")), exit: exitUsage, stderr: "catalog"},
		{name: "catalog entries without a title are counted", args: a("--format", "json", "trace.log", "catalog.json"),
			files: both(fig1Trace, write("catalog.json", func(t *testing.T) []byte {
				c := string(readCase(t, fig1Dir, "catalog.json"))
				return []byte(strings.Replace(c, `"resources": [`, `"resources": [{"type": "File", "exported": false},`, 1))
			})), exit: exitFindings, report: `"catalog entries skipped or edges unresolved"`},

		// Files that are not there.
		{name: "missing trace", args: a("nope.log", "catalog.json"), files: fig1Cat, exit: exitUsage, stderr: "nope.log"},
		{name: "missing catalog", args: a("trace.log", "nope.json"), files: fig1Trace, exit: exitUsage, stderr: "nope.json"},
		{name: "empty directory as the trace", args: a("empty", "catalog.json"),
			files: both(fig1Cat, func(t *testing.T, d string) { os.Mkdir(filepath.Join(d, "empty"), 0o755) }), exit: exitUsage},
		{name: "unreadable -o directory", args: a("-o", "no/such/dir/report.txt", "trace.log", "catalog.json"), files: fig1, exit: exitUsage, stderr: "no/such/dir"},
		{name: "missing --waivers", args: a("--waivers", "nope.txt", "trace.log", "catalog.json"), files: fig1, exit: exitUsage, stderr: "nope.txt"},
		{name: "relative --filter", args: a("--filter", "var/cache", "trace.log", "catalog.json"), files: fig1, exit: exitUsage, stderr: "absolute"},
		{name: "-o names a directory", args: a("-o", ".", "trace.log", "catalog.json"), files: fig1, exit: exitUsage, stderr: "a directory"},
		{name: "missing --filter-file", args: a("--filter-file", "nope.txt", "trace.log", "catalog.json"), files: fig1, exit: exitUsage, stderr: "nope.txt"},

		// Standard input.
		{name: "trace from stdin", args: a("-", "catalog.json"), files: fig1, stdin: "trace.log", exit: exitFindings},
		{name: "catalog from stdin", args: a("trace.log", "-"), files: fig1, stdin: "catalog.json", exit: exitFindings},
		{name: "empty stdin trace", args: a("-", "catalog.json"), files: both(fig1Cat, traceText("")), stdin: "trace.log", exit: exitIncomplete, report: noBlock},
		{name: "both from stdin", args: a("-", "-"), files: fig1, stdin: "trace.log", exit: exitUsage, stderr: "cannot both"},

		// Malformed lines: counted, the rest analyzed; --strict stops.
		{name: "malformed lines are counted", args: a("--format", "json", "trace.log", "catalog.json"),
			files: both(traceEdit(fig1Dir, func(l []string) []string {
				return append([]string{"4242  garbage(((\n", "this is not strace\n"}, l...)
			}), fig1Cat), exit: exitFindings, report: `"malformed trace lines, skipped"`},
		{name: "malformed line with --strict", args: a("--strict", "trace.log", "catalog.json"),
			files: both(traceEdit(fig1Dir, func(l []string) []string { return append([]string{"this is not strace\n"}, l...) }), fig1Cat),
			exit:  exitUsage},
		{name: "a 1 MB line", args: a("trace.log", "catalog.json"),
			files: both(traceEdit(cleanDir, func(l []string) []string {
				return append([]string{"4242  write(1, \"" + strings.Repeat("x", 1<<20) + "\", 1048576) = 1048576\n"}, l...)
			}), cleanCat), exit: exitOK, clean: true},

		// --allow-incomplete: exit 0 with the reason still in the report.
		{name: "--allow-incomplete on an empty trace", args: a("--allow-incomplete", "--format", "json", "trace.log", "catalog.json"),
			files: both(traceText(""), fig1Cat), exit: exitOK, report: `"complete": false`, clean: true},

		// FStrace programs.
		{name: "FStrace program without blocks", args: a("--fstrace", "p.fst", "catalog.json"),
			files: both(fig1Cat, write("p.fst", func(*testing.T) []byte { return []byte("sys 1 open AT_FDCWD \"/x\" 3\n") })), exit: exitUsage},
		{name: "malformed FStrace program", args: a("--fstrace", "p.fst", "catalog.json"),
			files: both(fig1Cat, write("p.fst", func(*testing.T) []byte { return []byte("begin(((\n") })), exit: exitUsage},

		// Usage errors.
		{name: "analyze without arguments", args: a(), exit: exitUsage},
		{name: "analyze with one argument", args: a("trace.log"), files: fig1Trace, exit: exitUsage},
		{name: "analyze with three arguments", args: a("trace.log", "catalog.json", "x"), files: fig1, exit: exitUsage},
		{name: "unknown --format", args: a("--format", "xml", "trace.log", "catalog.json"), files: fig1, exit: exitUsage, stderr: "xml"},
		{name: "unknown --color", args: a("--color", "sometimes", "trace.log", "catalog.json"), files: fig1, exit: exitUsage},
		{name: "unknown flag", args: a("--frobnicate", "trace.log", "catalog.json"), files: fig1, exit: exitUsage},
		{name: "unknown command", args: []string{"analyse"}, exit: exitUsage, stderr: "unknown command"},
		{name: "image inspect does not exist", args: []string{"image", "inspect"}, exit: exitUsage, stderr: "unknown subcommand"},
		{name: "lower of a missing trace", args: []string{"lower", "nope.log"}, exit: exitUsage},

		// fsmove run: flags and paths checked before anything starts
		// (no Docker needed: each fails first).
		{name: "run without a module", args: []string{"run"}, exit: exitUsage},
		{name: "run with two modules", args: []string{"run", "a", "b"}, exit: exitUsage},
		{name: "run of a missing module directory", args: []string{"run", "./no-such-module"}, exit: exitUsage},
		{name: "run with an unknown tracer", args: []string{"run", "--tracer", "dtrace", "-e", "notice(1)"}, exit: exitUsage, stderr: "dtrace"},
		{name: "run with an unknown init", args: []string{"run", "--init", "upstart", "-e", "notice(1)"}, exit: exitUsage, stderr: "upstart"},
		{name: "run with a directory as --manifest", args: []string{"run", "--manifest", "{dir}"}, exit: exitUsage},
		{name: "run with a missing --modulepath", args: []string{"run", "--modulepath", "nope", "-e", "notice(1)"}, exit: exitUsage},
		{name: "run with a bad --param", args: []string{"run", "--param", "novalue", "./x"}, exit: exitUsage},
		{name: "run with a missing --setup-file", args: []string{"run", "--setup-file", "nope.sh", "-e", "notice(1)"}, exit: exitUsage},
		{name: "run with an unknown --format", args: []string{"run", "--format", "xml", "-e", "notice(1)"}, exit: exitUsage},
	}
}

func TestBadInput(t *testing.T) {
	cases := badInputs()
	if len(cases) < 40 {
		t.Fatalf("%d cases; the suite promises at least 40", len(cases))
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.files != nil {
				c.files(t, dir)
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "{dir}", dir)
			}
			code, stdout, stderr := runIn(t, wd, dir, c.stdin, args)
			t.Logf("exit %d", code)
			if code != c.exit {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.exit, cut(stdout), cut(stderr))
			}
			if code == exitOK && !c.clean {
				t.Errorf("exit 0 on bad input")
			}
			if c.stderr != "" && !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, cut(stderr))
			}
			if c.report != "" && !strings.Contains(stdout, c.report) {
				t.Errorf("report lacks %q:\n%s", c.report, cut(stdout))
			}
			if code == exitUsage && c.report != "" && c.args[0] == "analyze" && !slices.Contains(c.args, "--format") {
				// An incomplete text report says so in its summary.
				if !strings.Contains(stdout, "INCOMPLETE") {
					t.Errorf("an incomplete analysis whose text report does not say INCOMPLETE:\n%s", cut(stdout))
				}
			}
			if strings.Contains(stdout+stderr, "panic") || strings.Contains(stdout+stderr, "goroutine ") {
				t.Errorf("a panic reached the user:\n%s", cut(stderr))
			}
		})
	}
}

// runIn calls run() in dir with stdin from a file, recovering a panic (a
// failure, not a crash of the suite) and failing a case that hangs.
func runIn(t *testing.T, wd, dir, stdin string, args []string) (code int, stdout, stderr string) {
	t.Helper()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	// Relative testdata paths in the cases were made from wd.
	if stdin != "" {
		f, err := os.Open(filepath.Join(dir, stdin))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		old := os.Stdin
		os.Stdin = f
		defer func() { os.Stdin = old }()
	}
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				errOut.WriteString(fmt.Sprintf("panic: %v", p))
				done <- -1
			}
		}()
		done <- run(&out, &errOut, args)
	}()
	select {
	case code = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("fsmove %s: no exit after 60 s", strings.Join(args, " "))
	}
	return code, out.String(), errOut.String()
}

func cut(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// TestBadInputJSONSaysIncomplete: an incomplete analysis is visible in
// JSON, not only in the exit status.
func TestBadInputJSONSaysIncomplete(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "trace.log"), nil, 0o644)
	cat := filepath.Join(fig1Dir, "catalog.json")
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"analyze", "--format", "json", filepath.Join(dir, "trace.log"), cat}); code != exitIncomplete {
		t.Fatalf("exit %d, want %d", code, exitIncomplete)
	}
	var rep struct {
		Complete   *bool    `json:"complete"`
		Incomplete []string `json:"incomplete"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Complete == nil || *rep.Complete || len(rep.Incomplete) == 0 {
		t.Errorf("complete %v, incomplete %q", rep.Complete, rep.Incomplete)
	}
}
