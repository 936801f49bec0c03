package fstrace

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// allFlags are the statement flags with names, and one bit without.
var allFlags = []uint32{FdCloexec, ShareFiles, ShareFS, ShareThread, RenameExchange, FdAnon, MakeDir, Keeps, Meta, NoExec, Probe, Runs, Roots, Lists, 1 << 20}

// generatedProgram builds statements covering every Op with every flag,
// awkward paths and names, and every evidence shape. Only the fields each
// Op uses are set (see the contract in lower.go).
func generatedProgram() []Statement {
	r := rand.New(rand.NewPCG(1, 2))
	paths := []string{"/etc/app.conf", "", ".", "../rel/a b", "/srv/with \"quotes\"", "/tmp/tab\tnew\nline",
		"/ütf-8/ß", "/bad\xffutf8", "/etc/[x]{y}:z", `C:\back\slash`, "#not-a-comment"}
	blocks := []string{"File[/etc/app.conf]", "Exec[use conf: /etc/x]", "Notify[a [b]]", "Class[Main]", "", "Foo::Bar[{x}]"}
	syscalls := []string{"", "openat", "clone3", "???", "with space", "begin"}
	dirs := []int32{AtFdcwd, 0, 3, -1, math.MaxInt32, math.MinInt32}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	pickDir := func() int32 { return dirs[r.IntN(len(dirs))] }
	fd := func() int32 { return int32(r.IntN(1 << 16)) }

	var prog []Statement
	flagSets := append([]uint32{0}, allFlags...)
	var all uint32
	for _, f := range allFlags {
		all |= f
	}
	flagSets = append(flagSets, all, FdCloexec|FdAnon)
	for op := OpNop; op <= OpFail; op++ {
		for _, flags := range flagSets {
			s := Statement{Op: op, Flags: flags, Pid: int32(r.IntN(70000)), Syscall: pick(syscalls)}
			if r.IntN(4) > 0 {
				s.Line = r.Int64N(1 << 40)
			}
			switch op {
			case OpNewFd:
				s.Fd = fd()
				if flags&FdAnon == 0 || r.IntN(2) == 0 {
					s.Dir, s.Path = pickDir(), pick(paths)
				}
			case OpDelFd:
				s.Fd = fd()
				s.Fd2 = s.Fd
				if r.IntN(2) == 0 {
					s.Fd2 = math.MaxInt32
				}
			case OpDupFd:
				s.Fd, s.Fd2 = fd(), fd()
			case OpHpath, OpHpathSym:
				s.Dir, s.Path = pickDir(), pick(paths)
				s.Effect = Effect(r.IntN(5))
			case OpLink, OpRename:
				s.Dir, s.Path, s.Dir2, s.Path2 = pickDir(), pick(paths), pickDir(), pick(paths)
			case OpSymlink:
				s.Path, s.Dir2, s.Path2 = pick(paths), pickDir(), pick(paths)
			case OpNewProc:
				s.Child = int32(r.IntN(1 << 22))
			case OpSetCwd:
				s.Dir, s.Path = pickDir(), pick(paths)
			case OpBegin, OpEnd, OpFail:
				s.Block = pick(blocks)
				if r.IntN(3) == 0 {
					s.Pid = 0
				}
				if op == OpFail {
					s.Path = pick(paths)
				}
			}
			prog = append(prog, s)
		}
	}
	return prog
}

func TestPrintParseRoundTrip(t *testing.T) {
	prog := generatedProgram()
	text := printed(t, prog)
	back, err := Parse("generated", strings.NewReader(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if len(back) != len(prog) {
		t.Fatalf("parsed %d statements, printed %d", len(back), len(prog))
	}
	for i := range prog {
		if back[i] != prog[i] {
			t.Fatalf("statement %d changed:\nprinted %+v\nparsed  %+v\ntext: %s",
				i, prog[i], back[i], strings.Split(text, "\n")[i])
		}
	}
	// The program really covers every op keyword and every flag word.
	for op := OpNop; op <= OpFail; op++ {
		if !strings.Contains(text, " "+op.String()) && !strings.Contains(text, op.String()+" ") {
			t.Errorf("op %s never printed", op)
		}
	}
	for _, f := range flagNames {
		if !strings.Contains(text, " "+f.name) {
			t.Errorf("flag %s never printed", f.name)
		}
	}
	if !strings.Contains(text, " bits=1048576") {
		t.Errorf("an unnamed flag bit is not printed as bits=N")
	}
}

func TestPrintLayout(t *testing.T) {
	prog := []Statement{
		{Op: OpSetCwd, Pid: 100, Dir: AtFdcwd, Path: "/root", Syscall: "getcwd", Line: 3},
		{Op: OpBegin, Pid: 100, Block: "File[/etc/a b]", Syscall: "writev", Line: 4},
		{Op: OpHpath, Pid: 100, Dir: AtFdcwd, Path: "/etc/a b", Effect: Produced, Syscall: "openat", Line: 5},
		{Op: OpNewFd, Pid: 100, Dir: AtFdcwd, Path: "/etc/a b", Fd: 3, Flags: FdCloexec, Syscall: "openat", Line: 5},
		{Op: OpNewFd, Pid: 100, Fd: 4, Flags: FdAnon},
		{Op: OpDelFd, Pid: 100, Fd: 3, Fd2: 3, Line: 6},
		{Op: OpDupFd, Pid: 100, Fd: 4, Fd2: 1, Syscall: "dup2", Line: 7},
		{Op: OpHpath, Pid: 100, Dir: AtFdcwd, Path: "/usr/local/bin/x", Effect: Missing, Syscall: "execve", Line: 8},
		{Op: OpEnd, Block: "File[/etc/a b]"},
		{Op: OpFail, Pid: 100, Block: "File[/etc/a b]", Path: "Error: /Stage[main]/Main/File[/etc/a b]: Could not evaluate: \"x\"", Syscall: "write", Line: 9},
	}
	want := `100 setcwd AT_FDCWD "/root" @3 getcwd
begin "File[/etc/a b]" pid 100 @4 writev
  100 hpath AT_FDCWD "/etc/a b" produced @5 openat
  100 newfd 3 = AT_FDCWD "/etc/a b" cloexec @5 openat
  100 newfd 4 = anon
  100 delfd 3 @6
  100 dupfd 1 = 4 @7 dup2
  100 hpath AT_FDCWD "/usr/local/bin/x" missing @8 execve
end "File[/etc/a b]"
fail "File[/etc/a b]" "Error: /Stage[main]/Main/File[/etc/a b]: Could not evaluate: \"x\"" pid 100 @9 write
`
	if got := printed(t, prog); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if err := Print(&bytes.Buffer{}, []Statement{{Op: Op(200)}}); err == nil {
		t.Error("Print accepted an unknown op")
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		text       string
		line, col  int
		msgContain string
	}{
		{"100 hpath AT_FDCWD \"/x\" bogus\n", 1, 25, "unknown effect"},
		{"# comment\n\n100 hpath AT_FDCWD \"/x\\q\" consumed\n", 3, 20, "bad string"},
		{"100 nop\n100 hpath AT_FDCWD 5 consumed\n", 2, 20, "quoted string"},
		{"100 newfd 99999999999 = anon\n", 1, 11, "out of range"},
		{"100 newfd 9 = anon ~\n", 1, 20, ""},
		{"100 newfd 9 = anon sticky\n", 1, 20, "unknown flag sticky"},
		{"100 frobnicate 3\n", 1, 5, ""},
		{"end\n", 1, 1, "end outside any block"},
		{"begin pid 3\n", 1, 1, "block name"},
		{"100 delfd 3 bits=x\n", 1, 18, ""},
		{"100 delfd 3 bits=99999999999\n", 1, 18, "2^32"},
		{"100 exec @\n", 1, 11, ""},
		{"\"100\" exec\n", 1, 1, "expected a number"},
		{"100 hpath AT_FDCWD \"/x\" gone\n", 1, 25, "missing or none"},
		{"fail \"Exec[x]\"\n", 1, 15, ""},
		{"fail \"Exec[x]\" 3\n", 1, 16, "quoted string"},
		{"fail 3 \"msg\"\n", 1, 6, "quoted string"},
	}
	for _, tc := range cases {
		_, err := Parse("prog.fst", strings.NewReader(tc.text))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v is not a SyntaxError", tc.text, err)
			continue
		}
		if se.Name != "prog.fst" || se.Line != tc.line || se.Column != tc.col || !strings.Contains(se.Msg, tc.msgContain) {
			t.Errorf("%q: got %v, want prog.fst:%d:%d: …%s…", tc.text, err, tc.line, tc.col, tc.msgContain)
		}
		if !strings.HasPrefix(err.Error(), "prog.fst:") {
			t.Errorf("%q: error %q does not start with name:line:column", tc.text, err)
		}
	}
}

func TestParseEndClosesInnermost(t *testing.T) {
	text := `begin "A"
begin "B"
end
end
begin "C"
end "A"
`
	stmts := mustParse(t, "nest", text)
	var ends []string
	for _, s := range stmts {
		if s.Op == OpEnd {
			ends = append(ends, s.Block)
		}
	}
	if strings.Join(ends, ",") != "B,A,A" {
		t.Errorf("ends named %v, want B,A,A", ends)
	}
}

func TestParsePaperFig6(t *testing.T) {
	f, err := os.Open("testdata/paper-fig6.fst")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stmts, err := Parse("testdata/paper-fig6.fst", f)
	if err != nil {
		t.Fatal(err)
	}
	// Which block each statement is in, and what it does to /etc/app.conf.
	block := ""
	var blocks []string
	effects := map[string][]string{} // block → "op effect pid" on /etc/app.conf
	for _, s := range stmts {
		switch s.Op {
		case OpBegin:
			block = s.Block
			blocks = append(blocks, s.Block)
		case OpEnd:
			if s.Block != block {
				t.Errorf("end %q closes block %q", s.Block, block)
			}
			block = ""
		case OpHpath, OpHpathSym:
			if s.Path == "/etc/app.conf" {
				effects[block] = append(effects[block], s.Op.String()+" "+s.Effect.String())
			}
		case OpRename:
			if s.Path2 == "/etc/app.conf" {
				effects[block] = append(effects[block], "rename-onto")
			}
		}
	}
	if strings.Join(blocks, "|") != "File[/etc/app.conf]|Exec[use conf: /etc/app.conf]" {
		t.Errorf("blocks %q", blocks)
	}
	if got := strings.Join(effects["File[/etc/app.conf]"], ","); got != "rename-onto" {
		t.Errorf("File block on /etc/app.conf: %s", got)
	}
	if got := strings.Join(effects["Exec[use conf: /etc/app.conf]"], ","); got != "hpath consumed" {
		t.Errorf("Exec block on /etc/app.conf: %s", got)
	}
	if len(effects[""]) != 0 {
		t.Errorf("start-up touched /etc/app.conf: %v", effects[""])
	}
	last := stmts[len(stmts)-1]
	if last.Op != OpEnd || last.Pid != 100 || last.Line != 53 || last.Syscall != "writev" {
		t.Errorf("last statement %+v", last)
	}
	// And it survives Print.
	if back := mustParse(t, "printed", printed(t, stmts)); !sameStatements(back, stmts) {
		t.Error("print/parse changed the program")
	}
}

func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("testdata/paper-fig6.fst"); err == nil {
		f.Add(string(b))
	}
	var buf bytes.Buffer
	if err := Print(&buf, generatedProgram()[:40]); err == nil {
		f.Add(buf.String())
	}
	f.Add("100 delfd 3..10 cloexec bits=7 @9 close_range\n")
	f.Add("end\n")
	f.Add("fail \"Exec[x y]\" \"Error: boom\" pid 7 @3 writev\n100 hpathsym 3 \"a/b\" missing @4 lstat\n")
	f.Fuzz(func(t *testing.T, text string) {
		stmts, err := Parse("fuzz", strings.NewReader(text))
		if err != nil {
			return
		}
		// What parses prints, and what prints parses back the same.
		var out bytes.Buffer
		if err := Print(&out, stmts); err != nil {
			t.Fatalf("Print: %v", err)
		}
		back, err := Parse("printed", &out)
		if err != nil {
			t.Fatalf("reparse: %v\n%s", err, out.String())
		}
		if !sameStatements(stmts, back) {
			t.Fatalf("print/parse changed the statements:\n%s", out.String())
		}
	})
}

// BenchmarkPrint and BenchmarkParse measure the textual syntax (a debugging
// aid, not on the analysis path) in MB/s of program text.
func BenchmarkPrint(b *testing.B) {
	prog := generatedProgram()
	var buf bytes.Buffer
	if err := Print(&buf, prog); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Print(&buf, prog); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	var buf bytes.Buffer
	if err := Print(&buf, generatedProgram()); err != nil {
		b.Fatal(err)
	}
	text := buf.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("bench", strings.NewReader(text)); err != nil {
			b.Fatal(err)
		}
	}
}
