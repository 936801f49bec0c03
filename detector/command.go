package detector

import (
	"path"
	"slices"
	"strings"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace/interp"
)

// Rule 26: a refreshonly Exec that nothing refreshed in this run did not
// run, so the trace shows nothing it reads; Puppet will run it only when a
// resource that notifies it changes. Its command is the one record of what
// it works on: each absolute path its arguments name is read as the
// Exec's (Names), so that a resource that changed such a path and does not
// notify it is an MN: the change never reaches what the Exec makes (a
// staged file copied into place, a map compiled from its source). The
// program itself is not an argument: running it is not reading input
// that a later change makes stale.

// namedPaths are, by path, the refreshonly Execs that did not run and
// name the path in their command: the role index (a block's, or one
// added for an Exec without a block) and the access they stand for.
type namedPaths map[string][]namedUse

type namedUse struct {
	role int
	acc  *interp.Access
}

// indexNamedPaths finds rule 26's Execs in g's catalog and returns the
// paths their commands name that the trace holds, with roles grown by one
// entry for each such Exec without a block of its own. An Exec ran when
// one of its blocks executed a program: a refreshonly Exec checks
// refreshonly first and runs nothing, not even its unless or onlyif,
// when no refresh came.
func indexNamedPaths(g Graph, res *interp.Result, roles *[]blockRole) namedPaths {
	rg, ok := g.(ResourceGraph)
	if !ok {
		return nil
	}
	want := map[string][]*catalog.Resource{}
	for _, r := range rg.Resources() {
		if !r.IsExec() || !refreshOnly(r) {
			continue
		}
		for _, p := range commandPaths(r.ExecCommand()) {
			if !slices.Contains(want[p], r) {
				want[p] = append(want[p], r)
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	var found []int // indexes in res.Paths
	for i := range res.Paths {
		if want[res.Paths[i].Path] != nil {
			found = append(found, i)
		}
	}
	if len(found) == 0 {
		return nil
	}
	ran := map[*catalog.Resource]bool{}
	blockOf := map[*catalog.Resource]int{}
	for i := range *roles {
		if r := (*roles)[i].res; r != nil && (*roles)[i].via == "" {
			if _, seen := blockOf[r]; !seen {
				blockOf[r] = i
			}
		}
	}
	for i := range res.Paths {
		for _, a := range res.Paths[i].Accesses {
			if a.Executed && a.Block >= 0 && int(a.Block) < len(*roles) {
				if r := (*roles)[a.Block].res; r != nil {
					ran[r] = true
				}
			}
		}
	}
	named := namedPaths{}
	for _, i := range found {
		p := res.Paths[i].Path
		for _, r := range want[p] {
			if ran[r] {
				continue
			}
			k, ok := blockOf[r]
			if !ok {
				k = len(*roles)
				*roles = append(*roles, roleOf(r))
				blockOf[r] = k
			}
			named[p] = append(named[p], namedUse{k, &interp.Access{Block: interp.BlockID(k), Consumed: true}})
		}
	}
	return named
}

// use is the Exec's named read of the path: consumed, so that it asks
// for a notifier; not needed, since it did not run before or after
// anything.
func (n namedUse) use(roles []blockRole) use {
	return use{role: &roles[n.role], acc: n.acc, consumed: true, named: true}
}

// commandPaths returns the absolute paths that an Exec's command names as
// arguments (catalog.Resource.ExecCommand): a line split as sh splits it
// into words (quotes join, blanks and the operators ; | & < > ( )
// separate; an option's =value is its value), or Puppet's array form,
// argv. A word where sh expects a program
// (the first, one after ; | & or an opening parenthesis) is left out, and
// the script of sh -c is split again; words with shell expansions ($,
// globs, ~, backquotes) are left out, since the run does not say what they
// expand to.
func commandPaths(line string, argv []string) []string {
	words := shellWords(line)
	for i, w := range argv {
		words = append(words, word{w, i == 0})
	}
	var paths []string
	add := func(p string) {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	for i, w := range words {
		if i > 0 && words[i-1].text == "-c" {
			for _, p := range commandPaths(w.text, nil) {
				add(p)
			}
			continue
		}
		if w.program {
			continue
		}
		s := w.text
		if j := strings.IndexByte(s, '='); j >= 0 && strings.HasPrefix(s, "-") {
			s = s[j+1:]
		}
		if !strings.HasPrefix(s, "/") || strings.ContainsAny(s, "$*?[]{}~`") {
			continue
		}
		if p := path.Clean(s); p != "/" {
			add(p)
		}
	}
	return paths
}

// word is one word of a command line; program: sh would run it.
type word struct {
	text    string
	program bool
}

// shellWords splits a command line into words the way sh does for plain
// text: blanks separate, quotes join, a backslash escapes, and the
// operators ; | & < > ( ) end a word. It needs no more: it looks for path
// arguments, not for what the shell runs.
func shellWords(s string) []word {
	var words []word
	var cur strings.Builder
	inWord, program := false, true
	end := func() {
		if inWord {
			words = append(words, word{cur.String(), program})
			cur.Reset()
			inWord, program = false, false
		}
	}
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			end()
		case c == '<' || c == '>':
			end()
		case strings.IndexByte(";|&(", c) >= 0:
			end()
			program = true
		case c == ')':
			end()
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words
}
