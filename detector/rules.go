package detector

import (
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/fstrace/interp"
	"github.com/fsmove/fsmove/internal/words"
)

// This file holds the relation rules: how one block's access to a path is
// read (a use), and when two uses of one path by two resources make the
// first one's resource a must-precede (<) or must-notify (⇝) of the
// second's. Each rule is one function with the reason it exists; doc.go
// lists them.

// Relation says how a consumer depends on a producer on one path.
type Relation uint8

const (
	// Consumes: the consumer read (or looked up) the path after the producer
	// made it, and had not made it itself: generate-use, configure-use.
	Consumes Relation = iota
	// Modifies: the consumer read the path and then wrote it back
	// (file_line, ini_setting, augeas, sed -i): its edit needs the file,
	// and is lost when the producer writes later.
	Modifies
	// Overwrites: the consumer replaced the content the producer wrote
	// without reading it first (a File replacing a package's conffile, two
	// resources writing one file): the other order keeps the other content.
	Overwrites
	// Expunges: the consumer removed what the producer made.
	Expunges
	// Missing: the consumer looked the path up before the producer made it
	// and failed (ENOENT), and Puppet reported the consumer failed: the
	// fault happened in this run.
	Missing
	// Rewrites: the resource wrote the path again in the second apply of
	// one catalog (NI, fsmove run --idempotence).
	Rewrites
	// Missed: the consumer looked the path up before the producer made it
	// and did not find it, and Puppet reported no failure: it went on
	// without it in this run (an onlyif or unless test, a maintainer
	// script's check, a search), and in the other order it finds it.
	Missed
	// Names: the consumer is an Exec with refreshonly that did not run in
	// this run and names the path in its command (rule 26, command.go):
	// it runs only when notified, and then works on the path.
	Names
)

var relationNames = [...]string{"consumes", "modifies", "overwrites", "expunges", "missing", "rewrites", "missed", "names"}

func (r Relation) String() string {
	if int(r) < len(relationNames) {
		return relationNames[r]
	}
	return "unknown"
}

// use is one block's access to one path, read with the Puppet rules.
type use struct {
	role *blockRole
	acc  *interp.Access
	// produced: the block made or changed the path, or (a File on its own
	// path) inspected it to enforce its state.
	produced bool
	prodBy   interp.Evidence
	// replaces: a production replaced the content or made the name (not
	// only a metadata change or an append, and not a File finding its own
	// path already right); replBy is the first such.
	replaces bool
	replBy   interp.Evidence
	// needs: the block depended on the path as it found it: it read it
	// before writing it (or without writing it), or removed it.
	needs   bool
	needBy  interp.Evidence
	needEff fstrace.Effect // Consumed or Expunged
	// modifies: needs, then produced (read-modify-write).
	modifies bool
	// consumed: the block read the path at any time (for notifications).
	consumed bool
	consBy   interp.Evidence
	// What the effects were about (interp.Access): metaOnly: the block
	// changed only the path's metadata (chmod, chown, utime, xattrs);
	// noExec: a mode change of it left no execute bit; probeOnly: it only
	// looked at the path's metadata or existence (stat, access); executed:
	// it ran it; ownContent: it wrote the path's content itself.
	metaOnly, noExec, probeOnly, executed, ownContent bool
	// named: not a traced access but an Exec's command naming the path
	// (rule 26, namedUse).
	named bool
	// guarded: the block made the path only after looking it up and not
	// finding it (or it is an Exec's creates): it makes the path only when
	// it is missing.
	guarded bool
	// unchanged: a File found its own path as it manages it and changed
	// nothing; it produces the path only as what it enforces (rule 22).
	unchanged bool
}

// readUse applies the rules that turn a raw access into a use.
func readUse(role *blockRole, a *interp.Access, path string) use {
	u := use{role: role, acc: a,
		produced: a.Produced, prodBy: a.ProducedBy,
		consumed: a.Consumed, consBy: a.ConsumedBy,
		metaOnly:  a.Produced && !a.ContentProduced,
		noExec:    a.NoExec,
		probeOnly: a.Consumed && !a.ContentConsumed,
		executed:  a.Executed, ownContent: a.ContentProduced,
		guarded: a.Produced && (a.Missing && a.MissingBy.Line < a.ProducedBy.Line || role.checks(path))}
	u.replaces, u.replBy = a.Replaced, a.ReplacedBy

	switch {
	case role.ownsPath(path):
		// A File inspects its own path (stat, checksum) before it replaces
		// it: that is enforcing, not needing. When the File manages what is
		// in the path (content, source, purge: catalog.EnforcesContent),
		// or that the path itself exists (ensure), it counts as producing
		// it even when it found it right: on another node it would make
		// it. A File that only manages metadata changed nothing when it
		// found the path so, and what it would change is metadata (rule
		// 12); nor does a File ensure its recursed descendants exist.
		if a.Consumed && !a.Produced && (role.enforces || role.ensures && path == role.ownPath) {
			u.produced, u.prodBy, u.unchanged = true, a.ConsumedBy, true
		}
	case role.checks(path):
		// An Exec's creates only checks whether the path exists: whoever
		// made it, the check is met (rule 8). A symlink File's target may
		// dangle: the link is right either way.
	case a.Consumed && (!a.Produced || a.ConsumedBy.Line < a.ProducedBy.Line):
		// Read before (or without) writing: the prior state mattered.
		u.needs, u.needBy, u.needEff = true, a.ConsumedBy, fstrace.Consumed
		u.modifies = a.Produced
	}
	if !u.needs && a.Expunged {
		u.needs, u.needBy, u.needEff = true, a.ExpungedBy, fstrace.Expunged
	}
	return u
}

// precedes decides x < y on one path: x made the path and then y needed
// it, or y overwrote it. The direction is the trace's: the producer's
// effect comes first. ok is false when the two uses are unrelated.
func precedes(x, y *use, path string, isDir bool) (Relation, interp.Evidence, fstrace.Effect, bool) {
	if !x.produced {
		return 0, interp.Evidence{}, 0, false
	}
	if y.needs && y.needBy.Line > x.prodBy.Line {
		switch {
		case y.needEff == fstrace.Expunged:
			return Expunges, y.needBy, fstrace.Expunged, true
		case y.modifies:
			return Modifies, y.needBy, fstrace.Consumed, true
		}
		return Consumes, y.needBy, fstrace.Consumed, true
	}
	// Two resources that only ensure one directory commute (rule 9): a
	// second mkdir finds it made. For files, a later write replaces the
	// first one's content; appends and metadata changes keep it (two
	// daemons logging to one file, chmod after a write).
	if !isDir && x.replaces && y.replaces && y.replBy.Line > x.replBy.Line {
		return Overwrites, y.replBy, fstrace.Produced, true
	}
	if setsMetadataOfMade(x, y, path, isDir) {
		return Modifies, y.prodBy, fstrace.Produced, true
	}
	return 0, interp.Evidence{}, 0, false
}

// setsMetadataOfMade reports whether y is a File that set only the mode or
// owner of a file x made only because it was missing (an Exec's creates, a
// lookup that failed first, a package's file), after x made it: its own
// path, not one it recursed into (rule 18).
// The file did not exist before x, so in the other order the File finds
// none: with no ensure it does nothing, with one it makes an empty file,
// which x then finds and leaves (or, a package's file, replaces with its
// own mode). Either way the mode and owner the run ended with are not set.
func setsMetadataOfMade(x, y *use, path string, isDir bool) bool {
	return !isDir && x.guarded && x.replaces && y.metaOnly && path == y.role.ownPath && y.prodBy.Line > x.replBy.Line
}

// observed decides x < y on one path from what y did without it (rule 5):
// y looked the path up and did not find it (ENOENT, ENOTDIR), and x made
// the path later. When Puppet logged an error for y, the fault happened in
// this run (Missing). Otherwise y went on without the path (Missed, rule
// 19): a test in its onlyif or unless, a maintainer script's check, a
// program searching for it; in the other order it finds the path and does
// something else. Not when y made the path itself afterwards (its own
// check before its own work), nor for an Exec's creates (rule 8: whoever
// made the path, the check is met). Other failed calls have no effect.
func observed(x, y *use, path string) (Relation, interp.Evidence, fstrace.Effect, bool) {
	if !y.acc.Missing || !x.produced || x.prodBy.Line < y.acc.MissingBy.Line {
		return 0, interp.Evidence{}, 0, false
	}
	switch {
	case y.role.failure != "":
		return Missing, y.acc.MissingBy, fstrace.Missing, true
	case !y.produced && !y.role.checks(path):
		return Missed, y.acc.MissingBy, fstrace.Missing, true
	}
	return 0, interp.Evidence{}, 0, false
}

// notifies decides x ⇝ y on one path: y is a Service that read what x
// made, before or after (a daemon reading its configuration at start keeps
// it; one that read it before the change runs stale), or an Exec that runs
// only when notified (refreshonly) and read it: a later change of x's
// alone leaves its work stale, as it does a daemon. A directory counts
// when x is the File that manages it and really changed it (created it,
// or changed its owner or mode): the daemon keeps the old inode or lacks
// permission until restarted (paper Table 1). A directory that some other
// resource happened to create is not the service's configuration.
func notifies(x, y *use, path string, isDir bool) bool {
	if !y.role.notifiable || !y.consumed || !x.produced {
		return false
	}
	if isDir {
		return x.role.ownsPath(path) && x.acc.Produced
	}
	return true
}

// fileAfterListing decides x ⇝ y on a directory from its listing (rule
// 20): y is a Service that read the directory as an include directory (it
// listed it, then read files in it: a daemon reading its conf.d at start,
// a glob of *.conf; listingIndex.includes), and x made or replaced a file
// in it, last at made, after y's last listing. The daemon runs with the
// files it found, without x's: a restart makes it read it. A file the
// daemon read after x wrote it relates them on its own path.
func fileAfterListing(y *use, made interp.Evidence) bool {
	return y.acc.Listed && y.acc.LastListedBy.Line < made.Line && !y.acc.EntryMade
}

// The path rules of holds.go's table: each says why one path's relation,
// which precedes, observed or notifies found, is no fault after all, or ""
// when it is one. Each reason is a general fact, rules 12-15 and 22-25 of
// doc.go. The references are made only for a reason given: most relations
// have none, and these run for every one.

// metadataForRoot (rule 12): root reads, writes and removes whatever the
// mode and owner say; only a file whose every execute bit is gone stops it
// running it (or finding it runnable).
func metadataForRoot(r pathRelation) string {
	x, y := r.x, r.y
	if !x.metaOnly || !y.role.root || r.rel == Overwrites || x.noExec && (y.executed || y.probeOnly) {
		return ""
	}
	if y.executed || y.probeOnly {
		return PuppetRef(x.role.res) + " only changes the metadata of " + r.path + ", and " + PuppetRef(y.role.res) + " runs as root: the file stays executable, which is all root needs to run it"
	}
	return PuppetRef(x.role.res) + " only changes the metadata of " + r.path + ", and " + PuppetRef(y.role.res) + " runs as root, which reads, writes and removes it whatever its mode and owner"
}

// madeWhenMissing (rule 13): an ensure-present producer (mkdir -p, a
// creates guard, a default written only when there is none) finds the
// other's path in the other order and leaves it. Not a Package: dpkg looks
// a file up before it unpacks it, but what it finds there does not make it
// leave: it replaces a file that is not a conffile, and keeps a conffile
// only as one changed locally (its own beside it as .dpkg-dist, asked about
// at the next upgrade), and its maintainer scripts (ucf) may rewrite it. A
// File replacing a package's file is the fault authors fix with require =>
// Package.
func madeWhenMissing(r pathRelation) string {
	if r.rel != Overwrites || !r.x.guarded || r.x.role.isPackage {
		return ""
	}
	return PuppetRef(r.x.role.res) + " makes " + r.path + " only when it is missing (it looked for it first): in the other order it finds " + PuppetRef(r.y.role.res) + "'s and leaves it"
}

// foundAsManaged (rule 22): a File that found its path as it manages it
// changed nothing in this run, so in the other order the consumer finds
// the path as it did here. Only what the File enforces would differ:
// content it manages that the consumer then edited (the File would
// replace the edit), or a path the consumer removed (the File would make
// it again).
func foundAsManaged(r pathRelation) string {
	if !r.x.unchanged || !(r.rel == Consumes || r.rel == Modifies && !r.x.role.enforces) {
		return ""
	}
	return PuppetRef(r.x.role.res) + " found " + r.path + " as it manages it and changed nothing in this run: in the other order " + PuppetRef(r.y.role.res) + " finds it the same"
}

// otherNames (rule 14): one entry added to /etc/hosts, /etc/services…
// changes only the lookups of that entry's names.
func otherNames(r pathRelation) string {
	if r.rel == Overwrites || r.rel == Expunges || !isNameServiceDatabase(r.path) {
		return ""
	}
	names := catalog.EntryNames(r.x.role.res)
	if len(names) == 0 || catalog.Mentions(r.y.role.res, names) {
		return ""
	}
	if r.rel == Names || catalog.Mentions(r.y.role.res, []string{r.path}) {
		return "" // it names the database itself: it works on the whole file (cp, grep), not one name's lookup
	}
	return PuppetRef(r.x.role.res) + " adds the entry " + strings.Join(names, " ") + " to " + r.path + ", which " + PuppetRef(r.y.role.res) + " reads only to look up other names"
}

// otherNamesRun (rule 14) at the notify stage: a notifiable resource
// that runs and ends (a refreshonly Exec) looked up only the names it
// looked up then, so an entry of another name changes nothing it did. A
// Service that read the file at start keeps its MN: which names a daemon
// looks up later is its configuration's, beyond the trace and the catalog.
func otherNamesRun(r pathRelation) string {
	if r.y.role.isService {
		return ""
	}
	return otherNames(r)
}

// onlyLookedUp (rule 15): a service needs a restart only for what it read,
// not for a path it only looked up.
func onlyLookedUp(r pathRelation) string {
	switch {
	case !r.y.probeOnly:
		return ""
	case r.isDir:
		return PuppetRef(r.y.role.res) + " only looked the directory " + r.path + " up: it neither listed it nor made or removed entries in it, so a change of it is not something it keeps"
	}
	return PuppetRef(r.y.role.res) + " only looked " + r.path + " up (stat, access): it did not read what " + PuppetRef(r.x.role.res) + " changed"
}

// execDirOwnerMode (rule 25): an Exec keeps nothing running: once the
// directory exists, all its File can change later is its owner and mode,
// which do not make stale what the Exec made (a daemon keeps the old inode
// or loses permission; a finished command does not).
func execDirOwnerMode(r pathRelation) string {
	if !r.isDir || r.y.role.isService || !r.x.role.onlyEnsuresDir(r.path) {
		return ""
	}
	c := PuppetRef(r.y.role.res)
	return c + " runs and ends, and " + PuppetRef(r.x.role.res) + " manages only that " + r.path +
		" exists, its owner and mode: no later change of those makes what " + c + " did there stale"
}

// dirReadOnly (rule 15): a File that manages only that a directory exists,
// and its owner and mode, changes nothing a daemon that only read the
// directory keeps: the entries it read are other resources' (which notify
// it themselves), and a new owner or mode of the directory matters at its
// next start, not to the open daemon.
func dirReadOnly(r pathRelation) string {
	if !r.isDir || !r.x.role.onlyEnsuresDir(r.path) || !readsDirOnly(r.x, r.y) {
		return ""
	}
	return PuppetRef(r.y.role.res) + " only read the directory " + r.path + " (it made no name in it), and " + PuppetRef(r.x.role.res) +
		" manages only that it exists, its owner and mode: what the daemon read there is other resources', and a new owner or mode does not change what it keeps"
}

// removedAfterReadHold (rule 15): a file the service read and then removed
// (a flag for its start, which the unit deletes once used) was a message
// to that start: nothing of it is left for the running daemon to keep, and
// writing it again is a message to its next start.
func removedAfterReadHold(r pathRelation) string {
	if r.isDir || !removedAfterRead(r.x, r.y) {
		return ""
	}
	return PuppetRef(r.y.role.res) + " removed " + r.path + " after reading what " + PuppetRef(r.x.role.res) +
		" wrote: a message to its start, used up there, not configuration the running daemon keeps"
}

// runsOnce (rule 23): an Exec guarded by creates runs until its path
// exists: it acted in this run, and Puppet will not run it again, so no
// later change of it can leave the consumer stale, and in this run the
// consumer read it after it was made. (A consumer that read before keeps
// the MN: it runs stale now.)
func runsOnce(r pathRelation) string {
	if !r.x.role.runsOnce() || r.y.consBy.Line <= r.x.prodBy.Line {
		return ""
	}
	return PuppetRef(r.x.role.res) + " runs only while its creates path is missing, and " + PuppetRef(r.y.role.res) + " read " + r.path +
		" after it made it: Puppet will not run it again, so there is no later change to be notified of"
}

// ownState (rule 15): a daemon's own file (a log, a pid file) that another
// changed in place is state it sees as it is. A producer that replaced the
// file leaves the daemon writing to the old inode (a log recreated under
// it, paper Table 1): that one still notifies.
func ownState(r pathRelation) string {
	if r.isDir || !r.y.ownContent || r.x.replaces {
		return ""
	}
	return PuppetRef(r.y.role.res) + " writes " + r.path + " itself, and " + PuppetRef(r.x.role.res) + " changed it in place: it is the daemon's own state, which it sees as it is, not configuration it read once"
}

// refreshedTogether says why x need not notify y (rule 24), or "" when it
// must: x is an Exec that runs only when notified (refreshonly), it
// precedes y, and every resource that notifies x notifies y too. Puppet
// runs x again only for a refresh, and each refresh that runs x runs y
// after it: y never keeps what an older run of x made. Needs the graph to
// list x's notifiers (NotifierGraph); without it nothing is held.
func refreshedTogether(g Graph, x, y *catalog.Resource) string {
	ng, ok := g.(NotifierGraph)
	if !ok || x == nil || y == nil || !x.IsExec() || !refreshOnly(x) || !g.Ordered(x, y) {
		return ""
	}
	notifiers := ng.Notifiers(x)
	if len(notifiers) == 0 {
		return ""
	}
	for _, n := range notifiers {
		if n != y && !g.Notifies(n, y) {
			return ""
		}
	}
	who := PuppetRef(notifiers[0])
	if len(notifiers) > 1 {
		who += " and " + words.Count(len(notifiers)-1, "other")
	}
	return PuppetRef(x) + " runs only when notified, and every resource that notifies it (" + who + ") notifies " +
		PuppetRef(y) + " too, which it precedes: each refresh that runs it runs " + PuppetRef(y) + " after it"
}

// removedAfterRead reports whether the service y read what x produced and
// then removed it, without writing it itself.
func removedAfterRead(x, y *use) bool {
	return y.acc.Expunged && !y.produced && y.consumed &&
		x.prodBy.Line < y.consBy.Line && y.consBy.Line < y.acc.ExpungedBy.Line
}

// readsDirOnly reports whether the service y only read a directory that x
// produced: it made no name in it (a daemon writing its log or pid file
// there needs the owner and mode x sets), did not change it itself, and did
// not look for it in vain before x made it (then it runs without it).
func readsDirOnly(x, y *use) bool {
	missedIt := y.acc.Missing && y.acc.MissingBy.Line < x.prodBy.Line
	return !y.acc.EntryMade && !y.produced && !missedIt && !x.acc.Expunged
}

// nameServiceDatabases are the files the C library's name service reads
// one entry at a time (hosts, services, protocols, networks, rpc, ethers).
var nameServiceDatabases = map[string]bool{
	"/etc/hosts": true, "/etc/services": true, "/etc/protocols": true,
	"/etc/networks": true, "/etc/rpc": true, "/etc/ethers": true,
}

func isNameServiceDatabase(path string) bool { return nameServiceDatabases[path] }

// accountDatabases are the files every owner lookup, apt, adduser and
// Puppet's User/Group providers read and write. A pair that meets only on
// them is held back (rule 6): User and Group order is Puppet's
// autorequire business, and every File with an owner reads them.
var accountDatabases = map[string]bool{
	"passwd": true, "group": true, "shadow": true, "gshadow": true,
	"subuid": true, "subgid": true,
}

// isAccountDatabase reports whether path is one of /etc's account
// databases, their backups (passwd-), their shadow-utils temporaries and
// locks (passwd+, passwd.lock, passwd.1234, .pwd.lock), nsswitch.conf or
// login.defs.
func isAccountDatabase(path string) bool {
	name, ok := strings.CutPrefix(path, "/etc/")
	if !ok || strings.Contains(name, "/") {
		return false
	}
	switch name {
	case "nsswitch.conf", "login.defs", ".pwd.lock":
		return true
	}
	base := name
	if i := strings.IndexAny(name, "-+."); i > 0 {
		base = name[:i]
		rest := name[i:]
		switch {
		case rest == "-", rest == "+", rest == ".lock", rest == ".edit":
		case rest[0] == '.' && allDigits(rest[1:]):
		default:
			return false
		}
	}
	return accountDatabases[base]
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isRubyTempfile reports whether path is a Ruby Tempfile or Dir.mktmpdir
// name in a temporary directory: PREFIXYYYYMMDD-PID-RANDOM[SUFFIX]
// (Ruby's Dir::Tmpname). Puppet makes them for its own work and the garbage
// collector unlinks them in whichever block runs next, so they relate
// nothing (rule 7). Everything below such a directory is one too.
func isRubyTempfile(path string) bool {
	var rest string
	switch {
	case strings.HasPrefix(path, "/tmp/"):
		rest = path[len("/tmp/"):]
	case strings.HasPrefix(path, "/var/tmp/"):
		rest = path[len("/var/tmp/"):]
	default:
		return false
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	// Find YYYYMMDD-PID-RAND anywhere after the prefix.
	for i := 0; i+8 < len(rest); i++ {
		if !allDigits(rest[i:i+8]) || (i > 0 && isDigit(rest[i-1])) || rest[i+8] != '-' {
			continue
		}
		j := i + 9
		k := j
		for k < len(rest) && isDigit(rest[k]) {
			k++
		}
		if k == j || k >= len(rest) || rest[k] != '-' {
			continue
		}
		k++
		n := 0
		for k < len(rest) && (isDigit(rest[k]) || (rest[k] >= 'a' && rest[k] <= 'z')) {
			k++
			n++
		}
		if n > 0 {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
