package detector

import (
	"path"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// Program models: reviewed facts about single Debian programs, each
// naming the program, one behaviour, its evidence and the version checked.
// The rules of rules.go are facts about Linux, dpkg, systemd and Puppet;
// some pairs are related only by what one program makes of what it reads,
// which no general rule can say. A model holds such a relation back (never
// an observed fault), and the held finding's reason names it;
// Options.NoModels (fsmove --no-models) turns them all off. Each model has
// a fixture where it holds a finding back and a near miss where it must
// not (docs/DESIGN.md, "Program models").
//
// A model is a row of programModels: adding one is a row, and a kind only
// when no kind says its behaviour.

// modelKind is the shape of a model's behaviour, which says when it holds.
type modelKind int

const (
	// emptyAsAbsent: the programs read an empty file among Paths as no
	// file. It holds an order relation whose producer is a File that made
	// its own path an empty file (ensure file or present, no content,
	// source or target) at one of Paths, or made such a file in a
	// directory of Paths, and whose consumer read the path only through
	// one of Programs: in the other order the program finds no file, and
	// does the same.
	emptyAsAbsent modelKind = iota + 1
	// makesDirWhenMissing: the programs make a directory among Paths
	// themselves when they find it missing, and use it only to keep their
	// own files in it. It holds an order relation whose producer is the
	// File of that directory managing only its existence, owner and mode
	// (onlyEnsuresDir), and whose consumer used the directory only through
	// one of Programs: in the other order the program makes it, and the
	// File then finds it and sets its owner and mode.
	makesDirWhenMissing
	// startClients: the programs are clients that a service's unit runs at
	// each start (ExecStartPost) and that exit; the daemon keeps nothing
	// of what they read. It holds a notify relation whose consumer is the
	// Service of one of Units that read the path only through one of
	// Programs, at any path (Paths is empty): a restart would only run the
	// clients again, and the next start runs them on what is there then.
	startClients
	// helperWhenPresent: the Callers run one of Programs, a helper, only
	// when it is installed, to tidy what only it could have made. It holds
	// an order relation whose consumer read the path only through
	// Programs, or looked up or ran one of Programs itself only through
	// Programs and Callers: in the other order the helper is missing, the
	// caller skips it, and nothing is left behind either way.
	helperWhenPresent
	// readForCache: a command of Commands run with Subcommand (and options
	// only) reads Paths only to rebuild a cache of them, which every later
	// run checks against them and rebuilds when stale: what the run makes
	// does not depend on them. It holds an order relation whose consumer is
	// an Exec running such a command and used the path only through
	// Programs (those the command runs).
	readForCache
)

// stage is the hold stage at which a model of kind k acts: a kind about a
// restart (startClients) at the notify stage, the others, about what the
// other order makes, at the order stage.
func (k modelKind) stage() holdStage {
	if k == startClients {
		return holdsNotify
	}
	return holdsOrder
}

// programModel is one reviewed fact about one Debian program.
type programModel struct {
	Name    string // how a held finding names it
	Package string // the Debian package that ships Programs
	Version string // the package version the evidence was checked against
	// Programs are the executables it is about, as execve names them; a
	// name ending in "/" stands for every program in that directory.
	Programs []string
	// Paths are the files it is about; a name ending in "/" stands for
	// the files directly in that directory, and one starting "~/" for
	// any path ending in that name: the program's $HOME, which the trace
	// does not give, is taken to be any directory. Empty only for a kind
	// that is about whatever the programs read (startClients).
	Paths []string
	Kind  modelKind
	// Callers (helperWhenPresent) run one of Programs only when it is
	// there. Commands and Subcommand (readForCache): the Exec's command
	// runs one of Commands, and Subcommand is its one word that is not an
	// option. Units (startClients): the Service's name, the unit's own or
	// one of its aliases, without ".service": another unit that runs the
	// same clients at its start may make what its daemon needs with them.
	Callers    []string
	Commands   []string
	Subcommand string
	Units      []string
	Behaviour  string // the behaviour, in one sentence
	Evidence   string // upstream source lines or manual page, with a link, and what was measured
}

// programModels are the models in force (unless Options.NoModels).
var programModels = []programModel{
	{
		Name:    "apt-empty-config",
		Package: "apt",
		Version: "2.6.1 (Debian 12) and 3.0.4 (Debian 13)",
		Programs: []string{"/usr/bin/apt", "/usr/bin/apt-get", "/usr/bin/apt-cache", "/usr/bin/apt-config",
			"/usr/bin/apt-mark", "/usr/lib/apt/"},
		Paths: []string{"/etc/apt/preferences", "/etc/apt/preferences.d/", "/etc/apt/apt.conf",
			"/etc/apt/apt.conf.d/", "/etc/apt/sources.list", "/etc/apt/sources.list.d/"},
		Kind:      emptyAsAbsent,
		Behaviour: "apt reads an empty file among its configuration parts (preferences, apt.conf, sources lists) as no file: no pin, no option, no source",
		Evidence: "apt-pkg/policy.cc ReadPinFile (a missing file returns at once; each stanza pkgTagFile finds is a pin, and an empty file has none), " +
			"apt-pkg/contrib/configuration.cc ReadConfigFile and apt-pkg/sourcelist.cc (one item per line or stanza): " +
			"https://salsa.debian.org/apt-team/apt/-/blob/2.6.1/apt-pkg/policy.cc; " +
			"measured on Debian 12 and 13 (fsmove's images): apt-cache policy and apt-config dump print the same with empty " +
			"/etc/apt/preferences, preferences.d, apt.conf.d and sources.list.d parts as without them",
	},
	{
		Name:     "gitolite-ssh-dir",
		Package:  "gitolite3",
		Version:  "3.6.12-1 (Debian 12) and 3.6.12-4 (Debian 13)",
		Programs: []string{"/usr/share/gitolite3/triggers/post-compile/ssh-authkeys"},
		Paths:    []string{"~/.ssh"},
		Kind:     makesDirWhenMissing,
		Behaviour: "gitolite's ssh-authkeys trigger makes ~/.ssh (mode 0700) when it is missing, before it writes " +
			"authorized_keys in it",
		Evidence: "src/triggers/post-compile/ssh-authkeys, sub sanity: `_mkdir( $akdir, 0700 ) if not -d $akdir;` with " +
			"`$akdir = \"$ENV{HOME}/.ssh\"`, and src/lib/Gitolite/Common.pm _mkdir (mkpath, then chmod): " +
			"https://github.com/sitaramc/gitolite/blob/v3.6.12/src/triggers/post-compile/ssh-authkeys; " +
			"measured on Debian 12 (fsmove's image, testdata/modules/near_models in the other order): gitolite setup without ~/.ssh makes it " +
			"0700, owned by the gitolite user, and writes authorized_keys in it",
	},
	{
		Name:      "apt-key-gpgconf",
		Package:   "apt",
		Version:   "2.6.1 (Debian 12; Debian 13's apt 3.0 has no apt-key)",
		Programs:  []string{"/usr/bin/gpgconf", "/usr/bin/gpg-connect-agent"},
		Callers:   []string{"/usr/bin/apt-key"},
		Kind:      helperWhenPresent,
		Behaviour: "apt-key's cleanup runs gnupg's `gpgconf --kill all` on its own temporary GNUPGHOME only when gpgconf is installed, and then removes that directory: without gnupg no agent could have started there, and nothing is left either way",
		Evidence: "cmdline/apt-key.in cleanup_gpg_home: `if command_available 'gpgconf'; then GNUPGHOME=\"${GPGHOMEDIR}\" gpgconf --kill all >/dev/null 2>&1 || true; fi; rm -rf \"$GPGHOMEDIR\"`: " +
			"https://github.com/Debian/apt/blob/2.6.1/cmdline/apt-key.in; measured on Debian 12 (fsmove's image, puppetlabs-apt's run and " +
			"testdata/modules/near_models_apt): apt-get update after gnupg's install runs gpgconf, and gpgconf gpg-connect-agent, only from apt-key's cleanup",
	},
	{
		Name:    "apt-update-caches",
		Package: "apt",
		Version: "2.6.1 (Debian 12) and 3.0.4 (Debian 13)",
		Programs: []string{"/usr/bin/apt-get", "/usr/bin/apt", "/usr/bin/apt-config", "/usr/bin/apt-key",
			"/usr/lib/apt/"},
		Paths:      []string{"/var/lib/dpkg/status", "/var/cache/apt/pkgcache.bin", "/var/cache/apt/srcpkgcache.bin"},
		Commands:   []string{"/usr/bin/apt-get", "/usr/bin/apt"},
		Subcommand: "update",
		Kind:       readForCache,
		Behaviour:  "apt-get update fetches the index files its sources name, whatever is installed; dpkg's status goes only into apt's binary caches, which every apt run checks against the status and the lists and rebuilds when stale (the programs are those an update runs: its methods, apt-key and apt-config)",
		Evidence: "apt-private/private-update.cc DoUpdate (BuildSourceList, ListUpdate of the sources' indexes, then the caches built) and " +
			"apt-pkg/pkgcachegen.cc CheckValidity (a cache is used only when every index file, dpkg's status among them, matches it): " +
			"https://github.com/Debian/apt/blob/2.6.1/apt-private/private-update.cc; measured on Debian 12 and 13 (fsmove's images, " +
			"puppetlabs-apt's run and testdata/modules/near_models_apt): apt-get update after gnupg's install reads dpkg's status only " +
			"through apt's programs, and writes only the lists and the caches",
	},
	{
		Name:    "mariadb-debian-start",
		Package: "mariadb-server",
		Version: "1:10.11.19-0+deb12u1 (Debian 12) and 1:11.8.9+ds-0+deb13u1 (Debian 13)",
		Programs: []string{"/etc/mysql/debian-start", "/usr/bin/mysql_upgrade", "/usr/bin/mariadb-upgrade",
			"/usr/bin/mysql", "/usr/bin/mariadb", "/usr/bin/mysqlcheck", "/usr/bin/mariadb-check"},
		Units: []string{"mariadb", "mysql", "mysqld"},
		Kind:  startClients,
		Behaviour: "mariadb.service's ExecStartPost runs /etc/mysql/debian-start at each start, whose clients " +
			"(mysql_upgrade --version-check and a mysql query, with /etc/mysql/debian.cnf's credentials) run in the " +
			"background and exit: the server keeps nothing of what they read",
		Evidence: "the unit's `ExecStartPost=!/etc/mysql/debian-start` and its aliases (`Alias=mysql.service`, " +
			"`Alias=mysqld.service`); debian/additions/debian-start " +
			"(`MYUPGRADE=\"/usr/bin/mysql_upgrade --defaults-extra-file=/etc/mysql/debian.cnf --version-check --silent\"`, " +
			"then `( upgrade_system_tables_if_necessary; check_root_accounts; ) >&2 &`) and debian-start.inc.sh " +
			"(each function one client run): https://github.com/MariaDB/server/blob/10.11/debian/additions/debian-start; " +
			"measured in fsmove's images: the server (mariadbd) opens neither debian.cnf nor /etc/services and the clients both " +
			"(Debian 12, michaeltchapman-galera's run), debian.cnf only the clients (Debian 12 and 13, testdata/modules/near_models_mariadb)",
	},
}

// modelsFor returns the models in force for opts.
func modelsFor(opts Options) []programModel {
	if opts.NoModels {
		return nil
	}
	return programModels
}

// modelHold says why a model of the stage holds back the relation x < y
// (holdsOrder) or x ⇝ y (holdsNotify) on p, naming the model, or "" when
// none does. An observed fault is never held.
func modelHold(models []programModel, stage holdStage, x, y *use, rel Relation, p string, isDir bool) string {
	if rel != Consumes && rel != Missed && rel != Modifies {
		return ""
	}
	for i := range models {
		m := &models[i]
		if m.Kind.stage() != stage {
			continue
		}
		switch {
		case m.Kind == emptyAsAbsent && m.emptyAsAbsent(x, y, rel, p, isDir):
			return m.reason() + "; " + PuppetRef(x.role.res) + " made " + x.role.ownPath + " empty, so in the other order " +
				PuppetRef(y.role.res) + " does the same without it"
		case m.Kind == makesDirWhenMissing && m.makesDirWhenMissing(x, y, rel, p, isDir):
			return m.reason() + "; in the other order " + PuppetRef(y.role.res) + "'s program makes " + p +
				", and " + PuppetRef(x.role.res) + " then sets its owner and mode"
		case m.Kind == helperWhenPresent && m.helperWhenPresent(y, rel, p):
			return m.reason() + "; " + PuppetRef(y.role.res) + " used " + p + " only through them, so in the other order it skips the helper and ends the same"
		case m.Kind == readForCache && m.readForCache(y, rel, p):
			return m.reason() + "; " + PuppetRef(y.role.res) + " runs " + m.Subcommand + " and used " + p + " only through them, so in the other order it makes the same"
		case m.Kind == startClients && m.startClients(y, rel):
			return m.reason() + "; " + PuppetRef(y.role.res) + " read " + p + " only through them, so a restart after " +
				PuppetRef(x.role.res) + " changes nothing the daemon keeps"
		}
	}
	return ""
}

// reason is how a finding that m holds back begins its reason.
func (m *programModel) reason() string {
	return "program model " + m.Name + " (" + m.Package + " " + m.Version + "): " + m.Behaviour
}

// helperWhenPresent: y neither made nor removed p, and read it (or
// looked for it before it was made) only through m's programs, or p is one
// of them and y read it only through them and m's callers.
func (m *programModel) helperWhenPresent(y *use, rel Relation, p string) bool {
	if rel == Modifies || y.acc.Produced || y.acc.Expunged {
		return false
	}
	covers := m.coversProgram
	if m.coversProgram(p) {
		covers = func(prog string) bool { return m.coversProgram(prog) || slices.Contains(m.Callers, prog) }
	}
	if rel == Missed {
		return covers(y.acc.MissingBy.Program())
	}
	return y.acc.ReadOnlyBy(covers)
}

// readForCache: p is one of m's paths, y is an Exec whose command runs one
// of m's commands with m's subcommand, and y read p (and wrote it, when it
// modified it) only through m's programs, and did not remove it but to
// write it again.
func (m *programModel) readForCache(y *use, rel Relation, p string) bool {
	if !m.coversPath(p) || y.role.res == nil || !y.role.res.IsExec() || !m.runsSubcommand(y.role.res) {
		return false
	}
	// A rebuilt cache replaces the old one (apt unlinks it, then renames
	// the new one in): removed and made again by the programs is a rewrite.
	if y.acc.Produced && (rel != Modifies || !m.coversProgram(y.acc.ProducedBy.Program())) || y.acc.Expunged && !y.acc.Produced {
		return false
	}
	if rel == Missed {
		return m.coversProgram(y.acc.MissingBy.Program())
	}
	return y.acc.ReadOnlyBy(m.coversProgram)
}

// runsSubcommand reports whether the Exec's command is one of m's commands
// (by its path or its name) with m's subcommand and options only: "apt-get
// -q update", not "apt-get update && apt-get install x". An option -o or -c
// takes the next word as its value.
func (m *programModel) runsSubcommand(r *catalog.Resource) bool {
	line, argv := r.ExecCommand()
	if argv == nil {
		argv = strings.Fields(line)
	}
	if len(argv) < 2 || !slices.ContainsFunc(m.Commands, func(q string) bool { return argv[0] == q || path.Base(q) == argv[0] }) {
		return false
	}
	sub := 0
	for i := 1; i < len(argv); i++ {
		switch w := argv[i]; {
		case w == "-o" || w == "-c" || w == "--option" || w == "--config-file":
			i++
		case strings.HasPrefix(w, "-"):
		case w == m.Subcommand:
			sub++
		default:
			return false
		}
	}
	return sub == 1
}

// makesDirWhenMissing: x is the File of directory p, one of m's paths,
// and manages only that it exists, its owner and mode; y used p, found
// there, only through m's programs, and neither made, changed nor removed
// it itself.
func (m *programModel) makesDirWhenMissing(x, y *use, rel Relation, p string, isDir bool) bool {
	if rel != Consumes || !isDir || !x.role.ensures || !x.role.onlyEnsuresDir(p) || !m.coversPath(p) {
		return false
	}
	if y.acc.Produced || y.acc.Expunged || y.acc.Missing {
		return false
	}
	return y.acc.ReadOnlyBy(m.coversProgram)
}

// emptyAsAbsent: x is a File that made its own path, an empty file, at
// one of m's paths; p is that path or its directory; y read p (or looked
// for it before it was made: rel Missed) only through one of m's programs.
func (m *programModel) emptyAsAbsent(x, y *use, rel Relation, p string, isDir bool) bool {
	own := x.role.ownPath
	if own == "" || x.role.recurse || !x.role.makesEmpty || !m.coversPath(own) {
		return false
	}
	switch {
	case p == own && !isDir:
		// The File made the path: not one it found there (rule 22).
		if x.unchanged || !x.acc.Replaced {
			return false
		}
	case isDir && p == path.Dir(own):
		// The directory gained the File's entry; a listing of it by
		// one of the programs finds one file more, which is empty.
		if !x.acc.EntryMade && !x.acc.Produced {
			return false
		}
	default:
		return false
	}
	if y.acc.Produced || y.acc.Expunged {
		return false
	}
	if y.acc.Consumed && !y.acc.ReadOnlyBy(m.coversProgram) {
		return false
	}
	if rel == Missed {
		return m.coversProgram(y.acc.MissingBy.Program())
	}
	return y.acc.Consumed
}

// startClients: y is the Service of one of m's units that read the path,
// every read through one of m's programs, and neither made, changed nor
// removed it.
func (m *programModel) startClients(y *use, rel Relation) bool {
	if rel != Consumes || !y.role.isService || !slices.Contains(m.Units, strings.TrimSuffix(y.role.res.Namevar(), ".service")) {
		return false
	}
	if y.acc.Produced || y.acc.Expunged {
		return false
	}
	return y.acc.ReadOnlyBy(m.coversProgram)
}

func (m *programModel) coversPath(p string) bool {
	for _, q := range m.Paths {
		switch {
		case p == q, strings.HasSuffix(q, "/") && path.Dir(p)+"/" == q:
			return true
		case strings.HasPrefix(q, "~/") && strings.HasSuffix(p, q[1:]) && len(p) > len(q):
			return true
		}
	}
	return false
}

func (m *programModel) coversProgram(prog string) bool {
	for _, q := range m.Programs {
		if prog == q || strings.HasSuffix(q, "/") && strings.HasPrefix(prog, q) {
			return true
		}
	}
	return false
}
