package fstrace

// The textual syntax of FStrace programs, close to the paper's Fig. 6. It is
// for tests and debugging: Print shows a lowered program to a person, Parse
// reads hand-written programs (testdata/*.fst) back into statements.
//
//	# a comment
//	begin "File[/etc/app.conf]" pid 100 @40 writev
//	  100 hpath AT_FDCWD "/etc/app.conf" produced @41 openat
//	  100 newfd 3 = AT_FDCWD "/etc/app.conf" cloexec @41 openat
//	  100 delfd 3 @42 close
//	end "File[/etc/app.conf]" pid 100 @43 writev
//
// One statement per line: the pid, the op, its operands, its flags, and an
// optional evidence suffix "@line syscall". Operands by op:
//
//	nop | exec | exit
//	newfd FD = DIR "path"        (newfd FD = anon … for a pipe or socket)
//	delfd FD | delfd FD..FD2
//	dupfd FD2 = FD
//	hpath DIR "path" EFFECT      (and hpathsym)
//	link DIR "old" DIR2 "new"    (and rename; bind DIR "source" DIR2 "target")
//	symlink "target" DIR2 "linkpath"
//	newproc CHILD
//	setcwd DIR "path"
//	writepid FD PID              (the number PID written to FD: a cgroup move)
//
// and, like begin and end, without a leading pid:
//
//	fail "block" "message" [pid N]
//
// DIR is AT_FDCWD or an fd number; EFFECT is consumed, produced, expunged,
// missing (a failed lookup) or none; flags are cloexec, files, fs, thread, exchange, anon, makedir, keeps, meta, noexec, probe, runs, roots
// (bits=N for bits without a name). Strings are Go-quoted, so block names
// may hold spaces, brackets and colons. In "begin NAME [pid N]" and "end
// [NAME] [pid N]" the pid defaults to 0, and an end without a name closes
// the innermost open block. Statements are indented by block depth; fields
// an op does not use are not written (they are zero in lowered programs).

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// opNames are the keywords of the ops, by Op.
var opNames = [...]string{
	OpNop:      "nop",
	OpNewFd:    "newfd",
	OpDelFd:    "delfd",
	OpDupFd:    "dupfd",
	OpHpath:    "hpath",
	OpHpathSym: "hpathsym",
	OpLink:     "link",
	OpSymlink:  "symlink",
	OpRename:   "rename",
	OpNewProc:  "newproc",
	OpSetCwd:   "setcwd",
	OpExec:     "exec",
	OpExit:     "exit",
	OpBegin:    "begin",
	OpEnd:      "end",
	OpFail:     "fail",
	OpWritePid: "writepid",
	OpBind:     "bind",
}

// String returns the op's keyword in the textual syntax.
func (op Op) String() string {
	if int(op) < len(opNames) {
		return opNames[op]
	}
	return "op(" + strconv.Itoa(int(op)) + ")"
}

// flagNames are the words of the statement flags, by bit.
var flagNames = []struct {
	bit  uint32
	name string
}{
	{FdCloexec, "cloexec"},
	{ShareFiles, "files"},
	{ShareFS, "fs"},
	{ShareThread, "thread"},
	{RenameExchange, "exchange"},
	{FdAnon, "anon"},
	{MakeDir, "makedir"},
	{Keeps, "keeps"},
	{Meta, "meta"},
	{NoExec, "noexec"},
	{Probe, "probe"},
	{Runs, "runs"},
	{Roots, "roots"},
	{Lists, "lists"},
}

// ---------------------------------------------------------------- printing

// Print writes the program stmts in the textual syntax, one statement per
// line. Statements outside any block appear at top level.
func Print(w io.Writer, stmts []Statement) error {
	bw := bufio.NewWriter(w)
	var line []byte
	depth := 0
	for i := range stmts {
		s := &stmts[i]
		if int(s.Op) >= len(opNames) {
			return fmt.Errorf("fstrace: statement %d: unknown op %d", i, s.Op)
		}
		if s.Op == OpEnd && depth > 0 {
			depth--
		}
		line = appendStatement(line[:0], s, depth)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
		if s.Op == OpBegin {
			depth++
		}
	}
	return bw.Flush()
}

// appendStatement appends one statement, without a newline.
func appendStatement(b []byte, s *Statement, depth int) []byte {
	for range depth {
		b = append(b, "  "...)
	}
	if s.Op == OpBegin || s.Op == OpEnd || s.Op == OpFail {
		b = append(b, opNames[s.Op]...)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, s.Block)
		if s.Op == OpFail {
			b = append(b, ' ')
			b = strconv.AppendQuote(b, s.Path)
		}
		if s.Pid != 0 {
			b = append(b, " pid "...)
			b = strconv.AppendInt(b, int64(s.Pid), 10)
		}
		b = appendFlags(b, s.Flags)
		return appendEvidence(b, s)
	}
	b = strconv.AppendInt(b, int64(s.Pid), 10)
	b = append(b, ' ')
	b = append(b, opNames[s.Op]...)
	switch s.Op {
	case OpNewFd:
		b = appendFd(b, s.Fd)
		b = append(b, " ="...)
		if s.Flags&FdAnon == 0 || s.Dir != 0 || s.Path != "" {
			b = appendDirPath(b, s.Dir, s.Path)
		}
	case OpDelFd:
		b = appendFd(b, s.Fd)
		if s.Fd2 != s.Fd {
			b = append(b, ".."...)
			b = strconv.AppendInt(b, int64(s.Fd2), 10)
		}
	case OpDupFd:
		b = appendFd(b, s.Fd2)
		b = append(b, " ="...)
		b = appendFd(b, s.Fd)
	case OpHpath, OpHpathSym:
		b = appendDirPath(b, s.Dir, s.Path)
		b = append(b, ' ')
		b = append(b, s.Effect.String()...)
	case OpLink, OpRename, OpBind:
		b = appendDirPath(b, s.Dir, s.Path)
		b = appendDirPath(b, s.Dir2, s.Path2)
	case OpSymlink:
		b = append(b, ' ')
		b = strconv.AppendQuote(b, s.Path)
		b = appendDirPath(b, s.Dir2, s.Path2)
	case OpNewProc:
		b = appendFd(b, s.Child)
	case OpSetCwd:
		b = appendDirPath(b, s.Dir, s.Path)
	case OpWritePid:
		b = appendFd(b, s.Fd)
		b = appendFd(b, s.Child)
	}
	b = appendFlags(b, s.Flags)
	return appendEvidence(b, s)
}

func appendFd(b []byte, fd int32) []byte {
	b = append(b, ' ')
	return strconv.AppendInt(b, int64(fd), 10)
}

func appendDirPath(b []byte, dir int32, path string) []byte {
	if dir == AtFdcwd {
		b = append(b, " AT_FDCWD"...)
	} else {
		b = appendFd(b, dir)
	}
	b = append(b, ' ')
	return strconv.AppendQuote(b, path)
}

func appendFlags(b []byte, flags uint32) []byte {
	for _, f := range flagNames {
		if flags&f.bit != 0 {
			b = append(b, ' ')
			b = append(b, f.name...)
			flags &^= f.bit
		}
	}
	if flags != 0 {
		b = append(b, " bits="...)
		b = strconv.AppendUint(b, uint64(flags), 10)
	}
	return b
}

func appendEvidence(b []byte, s *Statement) []byte {
	if s.Line == 0 && s.Syscall == "" {
		return b
	}
	b = append(b, " @"...)
	b = strconv.AppendInt(b, s.Line, 10)
	if s.Syscall == "" {
		return b
	}
	b = append(b, ' ')
	if isIdent(s.Syscall) {
		return append(b, s.Syscall...)
	}
	return strconv.AppendQuote(b, s.Syscall)
}

// isIdent reports whether s lexes as one Ident token (and is no keyword
// that would read differently).
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// ----------------------------------------------------------------- parsing

// The grammar reads one line at a time (so a program of any length parses
// in bounded memory, and the line number of an error is the file's).

var fstLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `#[^\n]*`},
	{Name: "String", Pattern: `"(\\.|[^"\\\n])*"`},
	{Name: "Int", Pattern: `-?[0-9]+`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Punct", Pattern: `\.\.|[@=]`},
	{Name: "Space", Pattern: `[ \t\r]+`},
})

// astLine is one line: a block marker or a statement, then evidence.
type astLine struct {
	Block    *astBlock    `parser:"(  @@"`
	Fail     *astFail     `parser:" | @@"`
	Stmt     *astStmt     `parser:" | @@ )"`
	Evidence *astEvidence `parser:"@@?"`
}

type astBlock struct {
	Pos   lexer.Position
	Kind  string    `parser:"@('begin' | 'end')"`
	Name  *astToken `parser:"@@?"`
	Pid   *astToken `parser:"('pid' @@)?"`
	Flags []astFlag `parser:"@@*"`
}

type astFail struct {
	Name    astToken  `parser:"'fail' @@"`
	Message astToken  `parser:"@@"`
	Pid     *astToken `parser:"('pid' @@)?"`
	Flags   []astFlag `parser:"@@*"`
}

type astStmt struct {
	Pos      lexer.Position
	Pid      astToken     `parser:"@@"`
	NewFd    *astNewFd    `parser:"(  'newfd' @@"`
	DelFd    *astDelFd    `parser:" | 'delfd' @@"`
	DupFd    *astDupFd    `parser:" | 'dupfd' @@"`
	Hpath    *astPath     `parser:" | 'hpath' @@"`
	HpathSym *astPath     `parser:" | 'hpathsym' @@"`
	Link     *astTwoNames `parser:" | 'link' @@"`
	Symlink  *astSymlink  `parser:" | 'symlink' @@"`
	Rename   *astTwoNames `parser:" | 'rename' @@"`
	Bind     *astTwoNames `parser:" | 'bind' @@"`
	NewProc  *astToken    `parser:" | 'newproc' @@"`
	SetCwd   *astDirPath  `parser:" | 'setcwd' @@"`
	WritePid *astWritePid `parser:" | 'writepid' @@"`
	Bare     string       `parser:" | @('nop' | 'exec' | 'exit') )"`
	Flags    []astFlag    `parser:"@@*"`
}

// astToken is one token with its position, converted after parsing so that
// errors (an fd out of range, a bad escape) point at it.
type astToken struct {
	Pos  lexer.Position
	Text string `parser:"@(Int | String | 'AT_FDCWD')"`
}

type astDirPath struct {
	Dir  astToken `parser:"@@"`
	Path astToken `parser:"@@"`
}

type astNewFd struct {
	Fd   astToken    `parser:"@@ '='"`
	Name *astDirPath `parser:"@@?"`
}

type astDelFd struct {
	Fd   astToken  `parser:"@@"`
	Last *astToken `parser:"('..' @@)?"`
}

type astWritePid struct {
	Fd  astToken `parser:"@@"`
	Pid astToken `parser:"@@"`
}

type astDupFd struct {
	New astToken `parser:"@@ '='"`
	Old astToken `parser:"@@"`
}

type astPath struct {
	Name   astDirPath `parser:"@@"`
	Effect astIdent   `parser:"@@"`
}

type astTwoNames struct {
	Old astDirPath `parser:"@@"`
	New astDirPath `parser:"@@"`
}

type astSymlink struct {
	Target astToken   `parser:"@@"`
	Link   astDirPath `parser:"@@"`
}

type astFlag struct {
	Pos  lexer.Position
	Name string    `parser:"@Ident"`
	Bits *astToken `parser:"('=' @@)?"`
}

type astEvidence struct {
	Line    astToken  `parser:"'@' @@"`
	Syscall *astIdent `parser:"@@?"`
}

// astIdent is an identifier (an effect) or, after "@line", a syscall name,
// which may be quoted when it is not an identifier.
type astIdent struct {
	Pos  lexer.Position
	Text string `parser:"@(Ident | String)"`
}

var lineParser = sync.OnceValues(func() (*participle.Parser[astLine], error) {
	return participle.Build[astLine](
		participle.Lexer(fstLexer),
		participle.Elide("Comment", "Space"),
	)
})

// SyntaxError is an error in a textual program, at Line:Column of Name.
type SyntaxError struct {
	Name         string
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Name, e.Line, e.Column, e.Msg)
}

// Parse reads a program in the textual syntax. name is used in errors,
// which have the form name:line:column: message.
func Parse(name string, r io.Reader) ([]Statement, error) {
	p, err := lineParser()
	if err != nil {
		return nil, fmt.Errorf("fstrace: grammar: %w", err)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	var (
		stmts []Statement
		open  []string // names of the open blocks, innermost last
	)
	for lineNo := 1; sc.Scan(); lineNo++ {
		text := sc.Text()
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		ast, err := p.ParseString(name, text)
		if err != nil {
			return nil, lineError(name, lineNo, err)
		}
		c := converter{name: name, line: lineNo}
		s := c.statement(ast, open)
		if c.err != nil {
			return nil, c.err
		}
		switch s.Op {
		case OpBegin:
			open = append(open, s.Block)
		case OpEnd:
			open = closeBlock(open, s.Block)
		}
		stmts = append(stmts, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return stmts, nil
}

// closeBlock removes the innermost open block named name, if any.
func closeBlock(open []string, name string) []string {
	for i := len(open) - 1; i >= 0; i-- {
		if open[i] == name {
			return append(open[:i], open[i+1:]...)
		}
	}
	return open
}

// lineError turns a participle error on one line into a SyntaxError.
func lineError(name string, lineNo int, err error) error {
	var pe interface {
		Message() string
		Position() lexer.Position
	}
	if errors.As(err, &pe) {
		return &SyntaxError{Name: name, Line: lineNo, Column: pe.Position().Column, Msg: pe.Message()}
	}
	return &SyntaxError{Name: name, Line: lineNo, Column: 1, Msg: err.Error()}
}

// converter turns one parsed line into a Statement, keeping the first error.
type converter struct {
	name string
	line int
	err  error
}

func (c *converter) fail(pos lexer.Position, format string, args ...any) {
	if c.err == nil {
		c.err = &SyntaxError{Name: c.name, Line: c.line, Column: pos.Column, Msg: fmt.Sprintf(format, args...)}
	}
}

func (c *converter) statement(l *astLine, open []string) Statement {
	var s Statement
	switch {
	case l.Block != nil:
		s = c.block(l.Block, open)
	case l.Fail != nil:
		s = c.failure(l.Fail)
	default:
		s = c.stmt(l.Stmt)
	}
	if ev := l.Evidence; ev != nil {
		s.Line = c.int(ev.Line, 64)
		if ev.Syscall != nil {
			s.Syscall = c.text(ev.Syscall.Pos, ev.Syscall.Text)
		}
	}
	return s
}

func (c *converter) block(b *astBlock, open []string) Statement {
	s := Statement{Op: OpBegin}
	if b.Kind == "end" {
		s.Op = OpEnd
	}
	switch {
	case b.Name != nil:
		s.Block = c.str(*b.Name)
	case s.Op == OpEnd && len(open) > 0:
		s.Block = open[len(open)-1]
	case s.Op == OpEnd:
		c.fail(b.Pos, "end outside any block")
	default:
		c.fail(b.Pos, "begin needs a block name")
	}
	if b.Pid != nil {
		s.Pid = int32(c.int(*b.Pid, 32))
	}
	s.Flags = c.flags(b.Flags)
	return s
}

func (c *converter) failure(f *astFail) Statement {
	s := Statement{Op: OpFail, Block: c.str(f.Name), Path: c.str(f.Message)}
	if f.Pid != nil {
		s.Pid = int32(c.int(*f.Pid, 32))
	}
	s.Flags = c.flags(f.Flags)
	return s
}

func (c *converter) stmt(a *astStmt) Statement {
	s := Statement{Pid: int32(c.int(a.Pid, 32))}
	switch {
	case a.NewFd != nil:
		s.Op = OpNewFd
		s.Fd = int32(c.int(a.NewFd.Fd, 32))
		if a.NewFd.Name != nil {
			s.Dir, s.Path = c.dirPath(*a.NewFd.Name)
		}
	case a.DelFd != nil:
		s.Op = OpDelFd
		s.Fd = int32(c.int(a.DelFd.Fd, 32))
		s.Fd2 = s.Fd
		if a.DelFd.Last != nil {
			s.Fd2 = int32(c.int(*a.DelFd.Last, 32))
		}
	case a.DupFd != nil:
		s.Op = OpDupFd
		s.Fd2 = int32(c.int(a.DupFd.New, 32))
		s.Fd = int32(c.int(a.DupFd.Old, 32))
	case a.Hpath != nil, a.HpathSym != nil:
		p := a.Hpath
		s.Op = OpHpath
		if p == nil {
			p = a.HpathSym
			s.Op = OpHpathSym
		}
		s.Dir, s.Path = c.dirPath(p.Name)
		s.Effect = c.effect(p.Effect)
	case a.Link != nil, a.Rename != nil, a.Bind != nil:
		n := a.Link
		s.Op = OpLink
		switch {
		case a.Rename != nil:
			n, s.Op = a.Rename, OpRename
		case a.Bind != nil:
			n, s.Op = a.Bind, OpBind
		}
		s.Dir, s.Path = c.dirPath(n.Old)
		s.Dir2, s.Path2 = c.dirPath(n.New)
	case a.Symlink != nil:
		s.Op = OpSymlink
		s.Path = c.str(a.Symlink.Target)
		s.Dir2, s.Path2 = c.dirPath(a.Symlink.Link)
	case a.NewProc != nil:
		s.Op = OpNewProc
		s.Child = int32(c.int(*a.NewProc, 32))
	case a.WritePid != nil:
		s.Op = OpWritePid
		s.Fd = int32(c.int(a.WritePid.Fd, 32))
		s.Child = int32(c.int(a.WritePid.Pid, 32))
	case a.SetCwd != nil:
		s.Op = OpSetCwd
		s.Dir, s.Path = c.dirPath(*a.SetCwd)
	default:
		switch a.Bare {
		case "exec":
			s.Op = OpExec
		case "exit":
			s.Op = OpExit
		default:
			s.Op = OpNop
		}
	}
	s.Flags = c.flags(a.Flags)
	return s
}

// int converts an Int token to a number of the given bit size.
func (c *converter) int(t astToken, bits int) int64 {
	if t.Text == "" || t.Text[0] == '"' || t.Text == "AT_FDCWD" {
		c.fail(t.Pos, "expected a number, found %s", t.Text)
		return 0
	}
	v, err := strconv.ParseInt(t.Text, 10, bits)
	if err != nil {
		c.fail(t.Pos, "number %s out of range", t.Text)
	}
	return v
}

// str converts a String token (Go quoting) to its value.
func (c *converter) str(t astToken) string {
	if t.Text == "" || t.Text[0] != '"' {
		c.fail(t.Pos, "expected a quoted string, found %s", t.Text)
		return ""
	}
	return c.text(t.Pos, t.Text)
}

// text unquotes a string token, or returns an identifier as it is.
func (c *converter) text(pos lexer.Position, tok string) string {
	if tok == "" || tok[0] != '"' {
		return tok
	}
	v, err := strconv.Unquote(tok)
	if err != nil {
		c.fail(pos, "bad string %s: %v", tok, err)
	}
	return v
}

func (c *converter) dirPath(d astDirPath) (int32, string) {
	dir := AtFdcwd
	if d.Dir.Text != "AT_FDCWD" {
		dir = int32(c.int(d.Dir, 32))
	}
	return dir, c.str(d.Path)
}

func (c *converter) effect(t astIdent) Effect {
	for _, e := range [...]Effect{NoEffect, Consumed, Produced, Expunged, Missing} {
		if t.Text == e.String() {
			return e
		}
	}
	c.fail(t.Pos, "unknown effect %s (want consumed, produced, expunged, missing or none)", t.Text)
	return NoEffect
}

func (c *converter) flags(fs []astFlag) uint32 {
	var set uint32
next:
	for _, f := range fs {
		if f.Bits != nil {
			if f.Name != "bits" {
				c.fail(f.Pos, "unknown flag %s=", f.Name)
				continue
			}
			v, err := strconv.ParseUint(f.Bits.Text, 10, 32)
			if err != nil {
				c.fail(f.Bits.Pos, "bits=%s: want a number below 2^32", f.Bits.Text)
			}
			set |= uint32(v)
			continue
		}
		for _, n := range flagNames {
			if f.Name == n.name {
				set |= n.bit
				continue next
			}
		}
		c.fail(f.Pos, "unknown flag %s", f.Name)
	}
	return set
}
