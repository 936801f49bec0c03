package detector

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccountsScript runs AccountsScript's commands on a passwd and a group
// file written here, and reads what they print with ParseAccounts.
func TestAccountsScript(t *testing.T) {
	dir := t.TempDir()
	passwd := "root:x:0:0:root:/root:/bin/bash\nuuidd:x:100:101::/run/uuidd:/usr/sbin/nologin\n"
	group := "root:x:0:\nadm:x:4:\nuuidd:x:101:\n"
	for name, data := range map[string]string{"passwd": passwd, "group": group} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := strings.ReplaceAll(AccountsScript, "/etc/", dir+"/")
	out, err := exec.Command("/bin/sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	a, bad, err := ParseAccounts(strings.NewReader(string(out)))
	if err != nil || bad != 0 {
		t.Fatalf("ParseAccounts(%q): %d bad, %v", out, bad, err)
	}
	if len(a.users) != 2 || !a.users["uuidd"] || !a.users["root"] || len(a.groups) != 3 || !a.groups["adm"] {
		t.Errorf("users %v, groups %v from %q", a.users, a.groups, out)
	}
}

// FuzzParseAccounts: any listing is read without a panic; every name read
// is a whole word, and every line not read is counted.
func FuzzParseAccounts(f *testing.F) {
	f.Add("user root\ngroup root\n")
	f.Add("user a b\nnobody\n\ngroup \nuser x:y\nwho me\n")
	f.Fuzz(func(t *testing.T, listing string) {
		a, bad, err := ParseAccounts(strings.NewReader(listing))
		if err != nil {
			return // a line longer than the scanner takes
		}
		lines := strings.Count(listing, "\n") + 1
		if bad < 0 || bad > lines || len(a.users)+len(a.groups)+bad > lines {
			t.Fatalf("%d users, %d groups, %d bad of %d lines", len(a.users), len(a.groups), bad, lines)
		}
		for _, names := range []map[string]bool{a.users, a.groups} {
			for n := range names {
				if n == "" || strings.ContainsAny(n, " \t:\n") {
					t.Fatalf("name %q", n)
				}
			}
		}
	})
}
