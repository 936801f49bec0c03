package detector

import (
	"path"
	"strings"
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
)

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
	// does not give, is taken to be any directory.
	Paths     []string
	Kind      modelKind
	Behaviour string // the behaviour, in one sentence
	Evidence  string // upstream source lines or manual page, with a link, and what was measured
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
}

// modelsFor returns the models in force for opts.
func modelsFor(opts Options) []programModel {
	if opts.NoModels {
		return nil
	}
	return programModels
}

// modelHold says why a model holds back the order relation x < y on p,
// naming the model, or "" when none does. An observed fault is never held.
func modelHold(models []programModel, x, y *use, rel Relation, p string, isDir bool) string {
	if rel != Consumes && rel != Missed {
		return ""
	}
	for i := range models {
		m := &models[i]
		switch {
		case m.Kind == emptyAsAbsent && m.emptyAsAbsent(x, y, rel, p, isDir):
			return m.reason() + "; " + PuppetRef(x.role.res) + " made " + x.role.ownPath + " empty, so in the other order " +
				PuppetRef(y.role.res) + " does the same without it"
		case m.Kind == makesDirWhenMissing && m.makesDirWhenMissing(x, y, rel, p, isDir):
			return m.reason() + "; in the other order " + PuppetRef(y.role.res) + "'s program makes " + p +
				", and " + PuppetRef(x.role.res) + " then sets its owner and mode"
		}
	}
	return ""
}

// reason is how a finding that m holds back begins its reason.
func (m *programModel) reason() string {
	return "program model " + m.Name + " (" + m.Package + " " + m.Version + "): " + m.Behaviour
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
