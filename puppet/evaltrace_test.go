package puppet

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace"
)

const (
	green = "\x1b[0;32m"
	reset = "\x1b[0m"
)

func TestMark(t *testing.T) {
	tests := []struct {
		name string
		data string
		op   fstrace.Op
		ref  string
	}{
		// The real lines of fsmove-notes §1.4 and puppet-notes (strace 6.1,
		// Puppet 7.23, Ruby 3.1), as the strace parser decodes them: the
		// iov_base strings concatenated, \33 turned into ESC.
		{"notes begin", green + "Info: /Stage[main]/Main/Exec[use-conf]: Starting to evaluate the resource (6 of 15)" + reset + "\n",
			fstrace.OpBegin, "Exec[use-conf]"},
		{"notes end", green + "Info: /Stage[main]/Main/Exec[use-conf]: Evaluated in 0.04 seconds" + reset + "\n",
			fstrace.OpEnd, "Exec[use-conf]"},
		{"notes class whit", green + "Info: Class[Main]: Starting to evaluate the resource (4 of 15)" + reset + "\n",
			fstrace.OpBegin, "Class[Main]"},
		{"notes stage whit", green + "Info: Stage[main]: Evaluated in 0.00 seconds" + reset + "\n",
			fstrace.OpEnd, "Stage[main]"},
		{"settings whit", green + "Info: Class[Settings]: Starting to evaluate the resource (1 of 15)" + reset + "\n",
			fstrace.OpBegin, "Class[Settings]"},
		{"schedule", green + "Info: /Schedule[puppet]: Starting to evaluate the resource (8 of 15)" + reset + "\n",
			fstrace.OpBegin, "Schedule[puppet]"},
		{"filebucket", green + "Info: /Filebucket[puppet]: Evaluated in 0.00 seconds" + reset + "\n",
			fstrace.OpEnd, "Filebucket[puppet]"},
		// Puppet 8.10 on Ruby 3.3 (Debian 13, strace 6.13, fsmove's eBPF
		// tracer alike): the same lines, one writev each.
		{"puppet 8 begin", green + "Info: /Stage[main]/Mor_exec_reads_file/Exec[read-conf]: Starting to evaluate the resource (8 of 17)" + reset + "\n",
			fstrace.OpBegin, "Exec[read-conf]"},
		{"puppet 8 end", green + "Info: /Stage[main]/Mor_exec_reads_file/Exec[read-conf]: Evaluated in 0.09 seconds" + reset + "\n",
			fstrace.OpEnd, "Exec[read-conf]"},
		{"notes applied", "\x1b[mNotice: Applied catalog in 0.07 seconds" + reset + "\n", fstrace.OpNop, ""},
		// The short reset Puppet's console destination may write.
		{"short reset", green + "Info: /Stage[main]/Main/File[/a]: Evaluated in 1.20 seconds\x1b[m\n", fstrace.OpEnd, "File[/a]"},
		// write(1, "…\n", N) of older Rubies is the same bytes in one string.
		{"no newline", green + "Info: /Stage[main]/Main/File[/a]: Starting to evaluate the resource (1 of 2)" + reset,
			fstrace.OpBegin, "File[/a]"},
		{"crlf", "Info: /Stage[main]/Main/File[/a]: Starting to evaluate the resource (1 of 2)\r\n", fstrace.OpBegin, "File[/a]"},

		// Without colour, without the counter (Puppet < 5).
		{"plain begin", "Info: /Stage[main]/Main/File[/etc/x]: Starting to evaluate the resource (3 of 9)\n", fstrace.OpBegin, "File[/etc/x]"},
		{"plain end", "Info: /Stage[main]/Main/File[/etc/x]: Evaluated in 12 seconds\n", fstrace.OpEnd, "File[/etc/x]"},
		{"old puppet", green + "Info: /Stage[main]/Main/File[/etc/x]: Starting to evaluate the resource" + reset + "\n", fstrace.OpBegin, "File[/etc/x]"},
		{"still escaped", `\33[0;32mInfo: /Stage[main]/Main/File[/etc/x]: Evaluated in 0.01 seconds\33[0m`, fstrace.OpEnd, "File[/etc/x]"},

		// The last Type[title] segment of the containment path.
		{"defined type", "Info: /Stage[main]/Foo::Bar/Foo::Baz[x y]/File[/etc/x]: Starting to evaluate the resource (1 of 2)\n", fstrace.OpBegin, "File[/etc/x]"},
		{"nested types", "Info: /Stage[main]/Apache/Apache::Vhost[default]/Concat[/etc/apache2/sites-available/15-default.conf]/File[/etc/apache2/sites-available/15-default.conf]: Evaluated in 0.02 seconds\n",
			fstrace.OpEnd, "File[/etc/apache2/sites-available/15-default.conf]"},
		{"brackets in title", "Info: /Stage[main]/Main/Notify[a [b]]: Starting to evaluate the resource (1 of 2)\n", fstrace.OpBegin, "Notify[a [b]]"},
		{"unbalanced title", "Info: /Stage[main]/Main/Notify[a [b]: Starting to evaluate the resource (1 of 2)\n", fstrace.OpBegin, "Notify[a [b]"},
		{"braces colons", "Info: /Stage[main]/Main/Exec[echo {a: b} > /tmp/x]: Evaluated in 0.10 seconds\n", fstrace.OpEnd, "Exec[echo {a: b} > /tmp/x]"},
		{"title with type-like part", "Info: /Stage[main]/Main/File[/a/Foo[b]]: Evaluated in 0.10 seconds\n", fstrace.OpEnd, "File[/a/Foo[b]]"},
		{"title with slash-bracket", "Info: /Stage[main]/Main/Exec[x]/y]: Evaluated in 0.10 seconds\n", fstrace.OpEnd, "Exec[x]/y]"},
		{"title holds begin phrase", "Info: /Stage[main]/Main/Notify[x: Starting to evaluate the resource]: Evaluated in 0.10 seconds\n",
			fstrace.OpEnd, "Notify[x: Starting to evaluate the resource]"},
		{"title holds end phrase", "Info: /Stage[main]/Main/Notify[x: Evaluated in 1 seconds]: Starting to evaluate the resource (2 of 3)\n",
			fstrace.OpBegin, "Notify[x: Evaluated in 1 seconds]"},
		{"lower-case class segment", "Info: /Stage[main]/Main/Foo::bar_baz2/File[/x]: Evaluated in 0.10 seconds\n", fstrace.OpEnd, "File[/x]"},
		{"digit after colons", "Info: /Stage[main]/Foo::2x/Foo::2x::Bar[q]: Evaluated in 0.10 seconds\n", fstrace.OpEnd, "Foo::2x::Bar[q]"},

		// Several lines in one write: the last marker wins.
		{"end then begin", green + "Info: /Stage[main]/Main/File[/a]: Evaluated in 0.01 seconds" + reset + "\n" +
			green + "Info: /Stage[main]/Main/File[/b]: Starting to evaluate the resource (2 of 3)" + reset + "\n", fstrace.OpBegin, "File[/b]"},
		{"begin then end", "Info: /Stage[main]/Main/File[/a]: Starting to evaluate the resource (1 of 3)\nInfo: /Stage[main]/Main/File[/a]: Evaluated in 0.01 seconds\n",
			fstrace.OpEnd, "File[/a]"},
		{"marker then debug", "Info: /Stage[main]/Main/File[/a]: Starting to evaluate the resource (1 of 3)\n\x1b[0;36mDebug: /Stage[main]/Main/File[/a]: Autorequiring File[/]\x1b[0m\n",
			fstrace.OpBegin, "File[/a]"},

		// Cut by strace -s: the counter, the phrase, or the source.
		{"cut in counter", green + "Info: /Stage[main]/Main/File[/a]: Starting to evaluate the resource (12 of 1", fstrace.OpBegin, "File[/a]"},
		{"cut after phrase", green + "Info: /Stage[main]/Main/File[/a]: Starting to evaluate the resource (", fstrace.OpBegin, "File[/a]"},
		{"cut in phrase", green + "Info: /Stage[main]/Main/File[/a]: Starting to evaluate the re", fstrace.OpBegin, "File[/a]"},
		{"cut in phrase, writev newline", green + "Info: /Stage[main]/Main/File[/a]: Starting to ev\n", fstrace.OpBegin, "File[/a]"},
		{"cut too early", green + "Info: /Stage[main]/Main/File[/a]: Starting t", fstrace.OpNop, ""},
		{"cut in seconds", "Info: /Stage[main]/Main/File[/a]: Evaluated in 0.0", fstrace.OpEnd, "File[/a]"},
		{"cut in unit", "Info: /Stage[main]/Main/File[/a]: Evaluated in 0.04 sec", fstrace.OpEnd, "File[/a]"},
		{"cut in source", green + "Info: /Stage[main]/Main/File[/very/long/pa", fstrace.OpNop, ""},
		{"cut in end phrase", "Info: /Stage[main]/Main/File[/a]: Evaluated i", fstrace.OpNop, ""},

		// Not markers.
		{"empty", "", fstrace.OpNop, ""},
		{"newline", "\n", fstrace.OpNop, ""},
		{"debug", "\x1b[0;36mDebug: /Stage[main]/Main/File[/a]: Starting to evaluate the resource (1 of 2)\x1b[0m\n", fstrace.OpNop, ""},
		{"notice", "\x1b[mNotice: /Stage[main]/Main/File[/a]/ensure: defined content as '{sha256}ab'\x1b[0m\n", fstrace.OpNop, ""},
		{"info other", green + "Info: Applying configuration version '1700000000'" + reset + "\n", fstrace.OpNop, ""},
		{"info refresh", green + "Info: /Stage[main]/Main/File[/a]: Scheduling refresh of Service[x]" + reset + "\n", fstrace.OpNop, ""},
		{"class as last segment", "Info: /Stage[main]/Main: Starting to evaluate the resource (1 of 2)\n", fstrace.OpNop, ""},
		{"lower-case type", "Info: /Main/file[/a]: Starting to evaluate the resource (1 of 2)\n", fstrace.OpNop, ""},
		{"no source", "Info: : Starting to evaluate the resource (1 of 2)\n", fstrace.OpNop, ""},
		{"bad counter", "Info: /Stage[main]/Main/File[/a]: Starting to evaluate the resource now\n", fstrace.OpNop, ""},
		{"bad counter 2", "Info: /Stage[main]/Main/File[/a]: Starting to evaluate the resource (1 of 2))\n", fstrace.OpNop, ""},
		{"bad counter 3", "Info: /Stage[main]/Main/File[/a]: Starting to evaluate the resource (1 on 2)\n", fstrace.OpNop, ""},
		{"bad seconds", "Info: /Stage[main]/Main/File[/a]: Evaluated in no time\n", fstrace.OpNop, ""},
		{"seconds then junk", "Info: /Stage[main]/Main/File[/a]: Evaluated in 0.1 seconds!\n", fstrace.OpNop, ""},
		{"not at line start", "x Info: /Stage[main]/Main/File[/a]: Evaluated in 0.1 seconds\n", fstrace.OpNop, ""},
		{"program output", "Starting to evaluate the resource\n", fstrace.OpNop, ""},
	}
	var m Marker
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, ref := lastMark(m, tt.data)
			if op != tt.op || ref != tt.ref {
				t.Errorf("Mark(%q) = %v, %q; want %v, %q", tt.data, op, ref, tt.op, tt.ref)
			}
		})
	}
}

const red = "\x1b[1;31m" // Puppet's err colour (hred)

func TestMarkErrors(t *testing.T) {
	long := "Error: /Stage[main]/Main/Exec[xy]: Could not evaluate: " + strings.Repeat("é", 200) // byte 300 is inside an "é"
	tests := []struct {
		name, data string
		op         fstrace.Op
		ref, msg   string
	}{
		{"coloured returns", red + "Error: /Stage[main]/Main/Exec[use-conf]/returns: change from 'notrun' to ['0'] failed: Could not find command '/usr/local/bin/x'" + reset + "\n",
			fstrace.OpFail, "Exec[use-conf]", "Error: /Stage[main]/Main/Exec[use-conf]/returns: change from 'notrun' to ['0'] failed: Could not find command '/usr/local/bin/x'"},
		{"plain evaluate", "Error: /Stage[main]/Foo/File[/etc/x]: Could not evaluate: No such file or directory @ rb_sysopen - /etc/x\n",
			fstrace.OpFail, "File[/etc/x]", "Error: /Stage[main]/Foo/File[/etc/x]: Could not evaluate: No such file or directory @ rb_sysopen - /etc/x"},
		{"refresh", red + "Error: /Stage[main]/Main/Exec[x]: Failed to call refresh: 'false' returned 1 instead of one of [0]" + reset,
			fstrace.OpFail, "Exec[x]", "Error: /Stage[main]/Main/Exec[x]: Failed to call refresh: 'false' returned 1 instead of one of [0]"},
		{"escaped colour", `\33[1;31mError: /Stage[main]/Main/Package[nginx]/ensure: change from 'purged' to 'present' failed: boom\33[0m`,
			fstrace.OpFail, "Package[nginx]", "Error: /Stage[main]/Main/Package[nginx]/ensure: change from 'purged' to 'present' failed: boom"},
		{"title with slash and bracket", "Error: /Stage[main]/Main/File[/a/Foo[b]]/content: change from '{sha256}1' to '{sha256}2' failed: x\n",
			fstrace.OpFail, "File[/a/Foo[b]]", "Error: /Stage[main]/Main/File[/a/Foo[b]]/content: change from '{sha256}1' to '{sha256}2' failed: x"},
		{"title with ]/", "Error: /Stage[main]/Main/Exec[x]/y]/returns: change from 'notrun' to ['0'] failed: z\n",
			fstrace.OpFail, "Exec[x]/y]", "Error: /Stage[main]/Main/Exec[x]/y]/returns: change from 'notrun' to ['0'] failed: z"},
		{"title with colon-space", "Error: /Stage[main]/Main/Exec[echo {a: b} > /tmp/x]: Could not evaluate: c: d\n",
			fstrace.OpFail, "Exec[echo {a: b} > /tmp/x]", "Error: /Stage[main]/Main/Exec[echo {a: b} > /tmp/x]: Could not evaluate: c: d"},
		{"message names another resource", "Error: /Stage[main]/Main/Exec[y]: Could not evaluate: dependency File[/x] of Exec[y]: gone\n",
			fstrace.OpFail, "Exec[y]", "Error: /Stage[main]/Main/Exec[y]: Could not evaluate: dependency File[/x] of Exec[y]: gone"},
		{"defined type", "Error: /Stage[main]/Apache/Apache::Vhost[default]/File[/etc/apache2/sites-available/d.conf]/ensure: change from 'absent' to 'file' failed: x\n",
			fstrace.OpFail, "File[/etc/apache2/sites-available/d.conf]", "Error: /Stage[main]/Apache/Apache::Vhost[default]/File[/etc/apache2/sites-available/d.conf]/ensure: change from 'absent' to 'file' failed: x"},
		{"class", "Error: Class[Foo]: Could not evaluate: x\n", fstrace.OpFail, "Class[Foo]", "Error: Class[Foo]: Could not evaluate: x"},
		{"cut by strace -s", "Error: /Stage[main]/Main/Exec[x]/returns: change from 'notrun' to ['0'] fai",
			fstrace.OpFail, "Exec[x]", "Error: /Stage[main]/Main/Exec[x]/returns: change from 'notrun' to ['0'] fai"},
		{"after other lines", "Notice: /Stage[main]/Main/Exec[x]/returns: output\n" + red + "Error: /Stage[main]/Main/Exec[x]/returns: change from 'notrun' to ['0'] failed: 'false' returned 1" + reset + "\n",
			fstrace.OpFail, "Exec[x]", "Error: /Stage[main]/Main/Exec[x]/returns: change from 'notrun' to ['0'] failed: 'false' returned 1"},
		{"bounded", long + "\n", fstrace.OpFail, "Exec[xy]", long[:299]},

		// Not failures.
		{"no source", red + "Error: Could not find command '/usr/local/bin/x'" + reset + "\n", fstrace.OpNop, "", ""},
		{"no source with colon", "Error: Failed to apply catalog: Parameter x failed on Exec[y]: z\n", fstrace.OpNop, "", ""},
		{"warning skipping", "\x1b[1;33mWarning: /Stage[main]/Main/Exec[x]: Skipping because of failed dependencies\x1b[0m\n", fstrace.OpNop, "", ""},
		{"error skipping", "Error: /Stage[main]/Main/Exec[x]: Skipping because of failed dependencies\n", fstrace.OpNop, "", ""},
		{"notice dependency", "Notice: /Stage[main]/Main/Exec[x]: Dependency Exec[y] has failures: true\n", fstrace.OpNop, "", ""},
		{"class segment only", "Error: /Stage[main]/Main: boom\n", fstrace.OpNop, "", ""},
		{"cut in source", "Error: /Stage[main]/Main/Exec[x", fstrace.OpNop, "", ""},
		{"no message", "Error: /Stage[main]/Main/Exec[x]\n", fstrace.OpNop, "", ""},
		{"not at line start", "x Error: /Stage[main]/Main/Exec[x]: boom\n", fstrace.OpNop, "", ""},
		{"debug", "Debug: /Stage[main]/Main/Exec[x]: Error: boom\n", fstrace.OpNop, "", ""},
		{"upper-case property", "Error: /Stage[main]/Main/Exec[x]/Returns: boom\n", fstrace.OpNop, "", ""},
	}
	var m Marker
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, ref, msg, _ := m.NextMark(tt.data)
			if op != tt.op || ref != tt.ref || msg != tt.msg {
				t.Errorf("NextMark(%q) = %v, %q, %q; want %v, %q, %q", tt.data, op, ref, msg, tt.op, tt.ref, tt.msg)
			}
			// Marks yields only the evaltrace markers.
			for o := range m.marks(tt.data) {
				t.Errorf("Marks yielded %v", o)
			}
		})
	}
}

// A failure inside a block's write, between its Begin and End, comes in
// order.
func TestNextMarkFailBetweenMarkers(t *testing.T) {
	data := green + "Info: /Stage[main]/Main/Exec[x]: Starting to evaluate the resource (1 of 2)" + reset + "\n" +
		red + "Error: /Stage[main]/Main/Exec[x]/returns: change from 'notrun' to ['0'] failed: boom" + reset + "\n" +
		green + "Info: /Stage[main]/Main/Exec[x]: Evaluated in 0.01 seconds" + reset + "\n"
	var got []string
	for rest := data; rest != ""; {
		var op fstrace.Op
		var name, msg string
		op, name, msg, rest = (Marker{}).NextMark(rest)
		if op == fstrace.OpNop {
			break
		}
		got = append(got, op.String()+" "+name+" "+msg)
	}
	want := []string{"begin Exec[x] ", "fail Exec[x] Error: /Stage[main]/Main/Exec[x]/returns: change from 'notrun' to ['0'] failed: boom", "end Exec[x] "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestMarks(t *testing.T) {
	data := "Info: /Stage[main]/Main/File[/a]: Evaluated in 0.01 seconds\n" +
		"\x1b[0;36mDebug: noise\x1b[0m\n" +
		"Info: Class[Main]: Starting to evaluate the resource (2 of 3)\n" +
		"Info: Class[Main]: Evaluated in 0.00 seconds"
	type mark struct {
		op  fstrace.Op
		ref string
	}
	want := []mark{{fstrace.OpEnd, "File[/a]"}, {fstrace.OpBegin, "Class[Main]"}, {fstrace.OpEnd, "Class[Main]"}}
	var got []mark
	for op, ref := range (Marker{}).marks(data) {
		got = append(got, mark{op, ref})
	}
	if len(got) != len(want) {
		t.Fatalf("Marks = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mark %d = %v, want %v", i, got[i], want[i])
		}
	}
	// Stopping early must be honoured.
	n := 0
	for range (Marker{}).marks(data) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("break after the first mark ran %d iterations", n)
	}
}

func TestMarkDoesNotKeepData(t *testing.T) {
	buf := []byte("Info: /Stage[main]/Main/File[/etc/x]: Evaluated in 0.01 seconds\n")
	_, ref := lastMark(Marker{}, string(buf))
	for i := range buf {
		buf[i] = 'Z'
	}
	if ref != "File[/etc/x]" {
		t.Errorf("ref changed with the caller's buffer: %q", ref)
	}
}

func TestSourceRef(t *testing.T) {
	tests := []struct {
		source, ref string
		ok          bool
	}{
		{"/Stage[main]/Foo::Bar/Foo::Baz[x y]/File[/etc/x]", "File[/etc/x]", true},
		{"Stage[main]", "Stage[main]", true},
		{"Class[Main]", "Class[Main]", true},
		{"/Stage[main]/Main/Notify[a [b]]", "Notify[a [b]]", true},
		{"/Stage[main]/Main/File[/a/b]", "File[/a/b]", true},
		{"/Stage[main]/Main/File[/a/Foo[b]]", "File[/a/Foo[b]]", true},
		// Both readings are grammatical; the shorter last segment wins.
		{"/Stage[main]/Main/Foo[a]/Bar[b]", "Bar[b]", true},
		{"/Stage[main]/Main/Notify[]]", "Notify[]]", true},
		{"/Stage[main]/Main/Notify[]", "Stage[main]/Main/Notify[]", true}, // titles are not empty: the Stage title reading
		{"/Stage[main]/Main/Notify[]/File[x]", "File[x]", true},
		{"/Stage[]/File[x]", "Stage[]/File[x]", true},
		{"/Stage[main]/Main/Notify[{x: [1, 2]}]", "Notify[{x: [1, 2]}]", true},
		{"/Stage[main]/Main/Exec[a/B[c]", "Exec[a/B[c]", true},
		{"/Stage[main]/A::B::C/A::B::D[/x/]/File[/x/]", "File[/x/]", true},
		{"/Schedule[daily]", "Schedule[daily]", true},
		{"", "", false},
		{"/", "", false},
		{"/Stage[main]/Main", "", false},
		{"/Stage[main]/Main/", "", false},
		{"/Stage[main]/Main/File[/a", "", false},
		{"/Stage[main]/Main/file[/a]", "Stage[main]/Main/file[/a]", true}, // one long Stage title is the only reading
		{"/stage[main]/Main/file[/a]", "", false},
		{"/Main/Foo::[a]", "", false},
		{"/Main/::Foo[a]", "", false},
		{"/Stage[main]/Main/Foo::[a]", "Stage[main]/Main/Foo::[a]", true}, // the Stage title reading
		{"File[x]]", "File[x]]", true},
		{strings.Repeat("/Stage[main]", 200) + "/File[x]", "File[x]", true}, // longer than the stack bit set
	}
	for _, tt := range tests {
		ref, ok := SourceRef(tt.source)
		if ref != tt.ref || ok != tt.ok {
			t.Errorf("SourceRef(%q) = %q, %v; want %q, %v", tt.source, ref, ok, tt.ref, tt.ok)
		}
	}
}

// FuzzMark checks that no input panics and that every marker found is a
// well-formed reference taken from the data.
func FuzzMark(f *testing.F) {
	f.Add(green + "Info: /Stage[main]/Main/Exec[use-conf]: Starting to evaluate the resource (6 of 15)" + reset + "\n")
	f.Add("Info: /Stage[main]/Main/Notify[a [b]]: Evaluated in 0.04 seconds\n")
	f.Add("Info: Class[Main]: Starting to evaluate the resource (4 of 15)")
	f.Add("Info: /Stage[main]/Main/File[/a]: Starting to ev")
	f.Add(`\33[0;32mInfo: /A[b]/C[/d/E[f]]: Evaluated in 1 seconds\33[0m`)
	f.Add(red + "Error: /Stage[main]/Main/Exec[x]/returns: change from 'notrun' to ['0'] failed: y: z" + reset + "\n")
	f.Fuzz(func(t *testing.T, data string) {
		var m Marker
		for rest := data; rest != ""; {
			var op fstrace.Op
			var name, msg string
			op, name, msg, rest = m.NextMark(rest)
			if op == fstrace.OpNop {
				break
			}
			if _, err := catalog.ParseRef(name); err != nil || !strings.Contains(data, name) {
				t.Fatalf("%v: name %q is not a reference from the data", op, name)
			}
			if (op == fstrace.OpFail) != (msg != "") || len(msg) > maxFailMessage || !strings.Contains(data, msg) ||
				(op == fstrace.OpFail && !strings.HasPrefix(msg, errorPrefix)) {
				t.Fatalf("%v %q: message %q", op, name, msg)
			}
		}
		op, ref := lastMark(m, data)
		switch op {
		case fstrace.OpNop:
			if ref != "" {
				t.Fatalf("OpNop with name %q", ref)
			}
		case fstrace.OpBegin, fstrace.OpEnd:
			if _, err := catalog.ParseRef(ref); err != nil {
				t.Fatalf("name %q is not a reference: %v", ref, err)
			}
			if !strings.Contains(data, ref) {
				t.Fatalf("name %q is not in the data", ref)
			}
		default:
			t.Fatalf("unexpected op %v", op)
		}
		// Mark returns the last of Marks.
		lastOp, lastRef := fstrace.OpNop, ""
		for o, r := range m.marks(data) {
			lastOp, lastRef = o, r
		}
		if lastOp != op || lastRef != ref {
			t.Fatalf("Mark = %v %q, last of Marks = %v %q", op, ref, lastOp, lastRef)
		}
	})
}

func BenchmarkMark(b *testing.B) {
	inputs := []struct{ name, data string }{
		{"begin", green + "Info: /Stage[main]/Apache/Apache::Vhost[default]/Concat[/etc/apache2/sites-available/15-default.conf]/File[/etc/apache2/sites-available/15-default.conf]: Starting to evaluate the resource (6 of 15)" + reset + "\n"},
		{"debug", "\x1b[0;36mDebug: /Stage[main]/Main/File[/etc/x]: Autorequiring File[/etc]\x1b[0m\n"},
		{"error", red + "Error: /Stage[main]/Main/Exec[use-conf]/returns: change from 'notrun' to ['0'] failed: Could not find command '/usr/local/bin/x'" + reset + "\n"},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			var m Marker
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				m.NextMark(in.data)
			}
		})
	}
}

// FuzzSourceRef checks that a found reference is a whole last segment of the
// source: a suffix that starts at the beginning or after a "/", and parses
// as a reference.
func FuzzSourceRef(f *testing.F) {
	f.Add("/Stage[main]/Foo::Bar/Foo::Baz[x y]/File[/etc/x]")
	f.Add("/Stage[main]/Main/Notify[a [b]]")
	f.Add("Class[Main]")
	f.Add("/A[b]/C[/d/E[f]]/G[]")
	f.Fuzz(func(t *testing.T, source string) {
		ref, ok := SourceRef(source)
		if !ok {
			if ref != "" {
				t.Fatalf("not ok but ref %q", ref)
			}
			return
		}
		if !strings.HasSuffix(source, ref) {
			t.Fatalf("%q is not a suffix of %q", ref, source)
		}
		if start := len(source) - len(ref); start > 0 && source[start-1] != '/' {
			t.Fatalf("%q does not start a segment of %q", ref, source)
		}
		if _, err := catalog.ParseRef(ref); err != nil {
			t.Fatalf("%q does not parse: %v", ref, err)
		}
	})
}

// slowSourceRef is the grammar of SourceRef written the obvious way, for
// comparison: every segment start, every "]" that may end a title.
func slowSourceRef(source string) (string, bool) {
	s := strings.TrimPrefix(source, "/")
	start := make([]bool, len(s)+1)
	start[0] = true
	last := -1
	for p := 0; p < len(s); p++ {
		if !start[p] {
			continue
		}
		n := typeNameLen(s[p:])
		if n == 0 || p+n == len(s) {
			continue
		}
		q := p + n
		switch s[q] {
		case '/':
			start[q+1] = true
		case '[':
			for r := q + 2; r < len(s); r++ { // a title is not empty
				if s[r] != ']' {
					continue
				}
				if r == len(s)-1 {
					last = p
				} else if s[r+1] == '/' {
					start[r+2] = true
				}
			}
		}
	}
	if last < 0 {
		return "", false
	}
	return s[last:], true
}

func TestSourceRefMatchesGrammar(t *testing.T) {
	const alphabet = "/[]Ab:x"
	state := uint64(1)
	for i := 0; i < 300000; i++ {
		n := 1 + i%24
		b := make([]byte, n)
		for j := range b {
			state = state*6364136223846793005 + 1442695040888963407
			b[j] = alphabet[(state>>33)%uint64(len(alphabet))]
		}
		src := string(b)
		got, gok := SourceRef(src)
		want, wok := slowSourceRef(src)
		if got != want || gok != wok {
			t.Fatalf("SourceRef(%q) = %q, %v; the grammar says %q, %v", src, got, gok, want, wok)
		}
	}
}

func BenchmarkSourceRefPathological(b *testing.B) {
	src := strings.Repeat("/A[]", 20000) + "/B[x]"
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		SourceRef(src)
	}
}

// lastMark is the last marker of a write (the block open after it), or OpNop.
func lastMark(m Marker, data string) (fstrace.Op, string) {
	op, name := fstrace.OpNop, ""
	for o, n := range m.marks(data) {
		op, name = o, n
	}
	return op, name
}

// TestCutMark: data cut by the tracer may have held a marker when its last
// line is an info line, or the start of one; a cut debug line may not.
func TestCutMark(t *testing.T) {
	for data, want := range map[string]bool{
		"\x1b[0;32mInfo: /Stage[main]/Main/F":  true,
		"Info: /Stage[main]/Main/File[/etc/x":  true,
		"\x1b[0;32mInf":                        true,
		"\x1b[0;3":                             true,
		"Debug: Executing: '/usr/bin/systemc":  false,
		"Info: x\nDebug: Loading facts from ":  true,
		"\x1b[0;32mInfo: /Stage[main]/Main/\n": true,
		"Debug: x\nInfo: /Stage[main]/Main/E":  true,
		"":                                     false,
		"Notice: Compiled catalog for fsmove":  false,
	} {
		if got := (Marker{}).CutMark(data); got != want {
			t.Errorf("CutMark(%q) = %v, want %v", data, got, want)
		}
	}
}

// TestMayMark: data that holds a marker, a failure report or a cut start
// of one may mark as strace prints it, in any of its string forms; debug
// lines and binary data do not.
func TestMayMark(t *testing.T) {
	marking := []string{
		green + "Info: /Stage[main]/Main/Exec[use-conf]: Starting to evaluate the resource (6 of 15)" + reset + "\n",
		"Debug: x\n" + green + "Info: /Stage[main]/Main/File[/caf\u00e9]: Evaluated in 0.04 seconds" + reset + "\n",
		"\x1b[1;31mError: /Stage[main]/Main/Exec[x \"q\"]/returns: change from 'notrun' to ['0'] failed: \\x" + reset + "\n",
	}
	for _, data := range marking {
		for _, printed := range []string{quoteAsStrace(data, false), quoteAsStrace(data, true)} {
			if !(Marker{}).MayMark([]byte(printed)) {
				t.Errorf("MayMark(%s) = false", printed)
			}
		}
	}
	for cut, want := range map[string]bool{
		quoteAsStrace("\x1b[0;3", false) + "...":                                true,
		quoteAsStrace("Debug: Executing: '/usr/bin/systemc", false) + "...":     false,
		quoteAsStrace("Debug: x\nInf", false) + "...":                           true,
		quoteAsStrace("\x00\x01\n\x1b\x02\x03\xff", false) + "...":              true,
		quoteAsStrace("\x00\x01\n7\x1b\x02\x03\xff", false) + "...":             false,
		quoteAsStrace("Debug: Executing: '/usr/bin/systemctl'\n", false):        false,
		quoteAsStrace("\x00\x01ustar  \x00root\xff\xfe Notice: x", false):       false,
		quoteAsStrace(green+"Notice: Applied catalog in 0.07 seconds\n", false): false,
	} {
		if got := (Marker{}).MayMark([]byte(cut)); got != want {
			t.Errorf("MayMark(%s) = %v, want %v", cut, got, want)
		}
	}
}

// quoteAsStrace prints data as strace prints a string argument: printable
// ASCII as it is, C escapes, other bytes in octal, or every byte in hex
// (strace -xx).
func quoteAsStrace(data string, hex bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case hex:
			fmt.Fprintf(&b, `\x%02x`, c)
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < ' ' || c > '~':
			fmt.Fprintf(&b, `\%o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestMayMarkCoversCutMark: whatever data a write holds, when Marker finds
// a marker or a cut one in it, MayMark says yes to its printed form, cut
// or whole.
func TestMayMarkCoversCutMark(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"\x1b", "\x1b[0;32m", "\x1b[0m", "\n", "\r\n", "Info: ", "Inf", "Error: ", "Debug: ",
		"/Stage[main]/Main/File[/a]", ": Starting to", ": Evaluated in 0.1 seconds", "\\33[", "\x00", "\xff", "7", "x", " "}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.IntN(8); n >= 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		data := b.String()
		cut := rng.IntN(2) == 0
		printed := quoteAsStrace(data, false)
		if cut {
			printed += "..."
		}
		op, _, _, _ := Marker{}.NextMark(data)
		if (op != fstrace.OpNop || cut && (Marker{}).CutMark(data)) && !(Marker{}).MayMark([]byte(printed)) {
			t.Fatalf("MayMark(%s) = false; the data marks (%v) or is a cut mark", printed, op)
		}
	}
}

// TestMarkerProgram: Puppet is the program named puppet, wherever the shell
// found it; a program whose name only ends in puppet is not.
func TestMarkerProgram(t *testing.T) {
	for path, want := range map[string]bool{
		"/usr/bin/puppet": true, "/opt/puppetlabs/bin/puppet": true, "puppet": true,
		"/usr/bin/notpuppet": false, "/usr/bin/puppetserver": false, "/usr/bin/ruby": false,
	} {
		if got := (Marker{}).MarkerProgram(path); got != want {
			t.Errorf("MarkerProgram(%q) = %v, want %v", path, got, want)
		}
	}
}
