package interp

import (
	"testing"

	"github.com/fsmove/fsmove/fstrace"
)

// Replaced tells a production that replaced the content (create, truncate,
// rename onto) from one that kept it (a metadata change, an append: the
// Keeps flag), with the first replacing evidence.
func TestReplacedAndKeptProductions(t *testing.T) {
	keep := func(path, syscall string) fstrace.Statement {
		return ev(fstrace.Statement{Op: fstrace.OpHpath, Pid: puppet, Dir: fstrace.AtFdcwd, Path: path,
			Effect: fstrace.Produced, Flags: fstrace.Keeps, Syscall: syscall})
	}
	_, res := run(
		begin(puppet, "File[/etc/a]"),
		keep("/etc/a", "chmod"),
		end(puppet, "File[/etc/a]"),
		begin(puppet, "Exec[log]"),
		keep("/var/log/app.log", "openat"),
		end(puppet, "Exec[log]"),
		begin(puppet, "Exec[write]"),
		keep("/etc/b", "chmod"),
		hp(puppet, fstrace.Produced, "/etc/b"),
		end(puppet, "Exec[write]"),
	)
	for _, c := range []struct {
		path     string
		replaced bool
	}{{"/etc/a", false}, {"/var/log/app.log", false}, {"/etc/b", true}} {
		var acc *Access
		for i := range res.Paths {
			if res.Paths[i].Path == c.path {
				acc = &res.Paths[i].Accesses[0]
			}
		}
		if acc == nil || !acc.Produced {
			t.Fatalf("%s: no production: %+v", c.path, acc)
		}
		if acc.Replaced != c.replaced {
			t.Errorf("%s: replaced %v, want %v", c.path, acc.Replaced, c.replaced)
		}
		if c.path == "/etc/b" && (acc.ProducedBy.Syscall() != "chmod" || acc.ReplacedBy.Syscall() != "test" || acc.ReplacedBy.Line <= acc.ProducedBy.Line) {
			t.Errorf("/etc/b evidence: produced %+v, replaced %+v", acc.ProducedBy, acc.ReplacedBy)
		}
	}
}
