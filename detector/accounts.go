package detector

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// The accounts a resource names, against the account databases (rule 6).
// Every owner lookup reads /etc/passwd and /etc/group, so a pair that meets
// only there is held back: whom a lookup looked for is not in the trace.
// But a resource's parameters say whom it names (a File's owner and group,
// an Exec's user), and a name that was not on the node before the apply,
// that no User or Group of the catalog manages (Puppet autorequires those)
// and that only one other resource can have made (a Package whose
// maintainer script ran adduser) was made by that one: in the other order
// Puppet cannot find the account and the resource fails. That pair is the
// classic forgotten require => Package, and it is not held back. fsmove run
// saves the accounts as they were before the apply (runner.AccountsFile);
// without them, every such pair stays held back.

// Accounts are the user and group names on the node before the apply.
type Accounts struct {
	users, groups map[string]bool
}

// AccountsScript prints what ParseAccounts reads: one "user NAME" line per
// entry of /etc/passwd and one "group NAME" line per entry of /etc/group.
const AccountsScript = `sed 's/:.*//; s/^/user /' /etc/passwd && sed 's/:.*//; s/^/group /' /etc/group`

// ParseAccounts reads what AccountsScript prints. Lines it cannot read are
// skipped and counted.
func ParseAccounts(r io.Reader) (*Accounts, int, error) {
	a := &Accounts{users: map[string]bool{}, groups: map[string]bool{}}
	bad := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		kind, name, ok := strings.Cut(line, " ")
		switch {
		case !ok || name == "" || strings.ContainsAny(name, " \t:"):
			bad++
		case kind == "user":
			a.users[name] = true
		case kind == "group":
			a.groups[name] = true
		default:
			bad++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, bad, fmt.Errorf("the accounts before the apply: %w", err)
	}
	return a, bad, nil
}

// accountKind says which database an account name is looked up in.
type accountKind uint8

const (
	userAccount accountKind = iota
	groupAccount
)

// accountDatabaseKind returns which names path is the database of:
// /etc/passwd holds the users, /etc/group the groups.
func accountDatabaseKind(path string) (accountKind, bool) {
	switch path {
	case "/etc/passwd":
		return userAccount, true
	case "/etc/group":
		return groupAccount, true
	}
	return 0, false
}

// accountParams are the parameters that name an account, by kind: the
// owner and group of a File (and of what manages files: Concat_file,
// Vcsrepo, Archive), a User's primary group and other groups. A user
// parameter is a system account only for the core types that run something
// as it (userParamTypes); elsewhere it may be anything (Mysql_grant's user
// is a database account).
var accountParams = [...][]string{
	userAccount:  {"owner"},
	groupAccount: {"group", "gid", "groups"},
}

// userParamTypes are the types whose user parameter names a system account.
var userParamTypes = []string{catalog.TypeExec, "Cron", "Ssh_authorized_key"}

// namedAccounts returns the names of kind that r's parameters give (not
// numeric ids, which need no lookup).
func namedAccounts(r *catalog.Resource, kind accountKind) []string {
	params := accountParams[kind]
	if kind == userAccount && slices.ContainsFunc(userParamTypes, r.Is) {
		params = append(slices.Clip(params), "user")
	}
	var names []string
	for _, p := range params {
		for _, n := range r.StringsParam(p) {
			if n != "" && !allDigits(n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// accountCheck knows which accounts existed before the apply and which the
// catalog manages: what rule 6 needs to tell a lookup of a name that some
// resource made in this run from any other.
type accountCheck struct {
	before  *Accounts
	managed [2]map[string]bool // by accountKind
}

// newAccountCheck reads the catalog's User and Group resources from g. A
// User manages its own group too: Debian's useradd makes a group of the
// user's name (USERGROUPS_ENAB). It returns nil when the accounts before
// the apply are unknown, or g cannot list the catalog's resources.
func newAccountCheck(g Graph, before *Accounts) *accountCheck {
	rg, ok := g.(ResourceGraph)
	if before == nil || !ok {
		return nil
	}
	ac := &accountCheck{before: before, managed: [2]map[string]bool{{}, {}}}
	for _, r := range rg.Resources() {
		switch {
		case r.Is(catalog.TypeUser):
			ac.managed[userAccount][r.Namevar()] = true
			ac.managed[groupAccount][r.Namevar()] = true
		case r.Is(catalog.TypeGroup):
			ac.managed[groupAccount][r.Namevar()] = true
		}
	}
	return ac
}

// madeAccount returns an account that f's consumer names and f's producer
// made on a path of f: the name was not there before the apply, no User or
// Group manages it, and no other resource but Users and Groups wrote that
// database before the consumer read it. "" when there is none.
func (ac *accountCheck) madeAccount(f *Finding) string {
	if ac == nil || managesAccounts(f.Producer) {
		return ""
	}
	for _, pc := range f.Paths {
		kind, ok := accountDatabaseKind(pc.Path)
		if !ok || pc.Producer != f.Producer || pc.Consumer != f.Consumer || pc.otherWriters {
			continue
		}
		existed := ac.before.users
		if kind == groupAccount {
			existed = ac.before.groups
		}
		for _, name := range namedAccounts(f.Consumer, kind) {
			if !existed[name] && !ac.managed[kind][name] {
				return name
			}
		}
	}
	return ""
}

// accountWriter is a resource that wrote an account database (Users and
// Groups aside), with its first write.
type accountWriter struct {
	res   *catalog.Resource
	first int64 // trace line
}

// accountDatabaseWriters returns the resources, Users and Groups aside, that
// wrote path when it is an account database (/etc/passwd, /etc/group), each
// with its first write: what tells whether another resource than a pair's
// producer can have made an account the consumer found (otherWriter).
// Once per path, not per pair: every owner lookup reads the databases, so
// they have many uses; few resources write them.
func accountDatabaseWriters(path string, uses []use) []accountWriter {
	if _, ok := accountDatabaseKind(path); !ok {
		return nil
	}
	var writers []accountWriter
	for i := range uses {
		r := uses[i].role.res
		if uses[i].produced && !managesAccounts(r) {
			writers = append(writers, accountWriter{r, uses[i].prodBy.Line})
		}
	}
	return writers
}

// otherWriter reports whether a writer of an account database other than
// x wrote it before y first read it: only such a one can have made an
// account y found there. A resource that wrote it after y read it did not
// make what y found (resources apply one at a time).
func otherWriter(writers []accountWriter, x, y *use) bool {
	for _, w := range writers {
		if w.res != x.role.res && w.res != y.role.res && w.first < y.consBy.Line {
			return true
		}
	}
	return false
}

// managesAccounts reports whether r is a User or a Group: it writes the
// account databases for the names it manages, which Puppet's autorequires
// order.
func managesAccounts(r *catalog.Resource) bool {
	return r.Is(catalog.TypeUser) || r.Is(catalog.TypeGroup)
}

// accountNote ends the fix of a pair that rule 6 does not hold back.
func accountNote(f *Finding, name string) string {
	return "; " + PuppetRef(f.Consumer) + " names the account " + name + ", which " + PuppetRef(f.Producer) +
		" made in this run (it was not there before, and no User or Group manages it): in the other order Puppet cannot find it"
}
