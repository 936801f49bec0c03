// Package corpus reads and writes the module lists that "fsmove bench" runs
// (docs/DESIGN.md, "fsmove bench"): one module a line,
//
//	MODULE [class=NAME] [module=NAME] [version=V] [timeout=DUR] [deps=PKG,...] [param.KEY=VALUE]...   # comment
//
// MODULE is what "fsmove run" takes: deb:puppet-module-…, a module directory
// (relative paths are relative to the corpus file) or AUTHOR-NAME[@VERSION].
// class= picks the class to include (default: the module's name); module=
// names the module a Debian package installs when the package name does not
// say it (puppet-module-nova installs "nova", puppet-module-heini-wait-for
// installs "wait_for"); version= records the module's version for the
// results (the Debian corpus writes the package's); timeout= replaces the
// bench's --timeout for this module (a Go duration: 20m); deps= are Debian
// packages the module needs but does not depend on, installed untraced
// before the apply (a setup step, as "fsmove run --setup" would);
// param.KEY=VALUE are class parameters as in "fsmove run --param"
// (param.CLASS::KEY=VALUE for a class the entry class includes). Fields are separated by blanks, so values cannot
// contain blanks. A # starts a comment at the start of a line or after a
// blank.
package corpus

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsmove/fsmove/puppet/runner"
)

// Entry is one module of a corpus.
type Entry struct {
	// Line is the entry's line in the corpus file (1-based), 0 when made in code.
	Line int
	// Spec is the module spec as written.
	Spec string
	// Module is the parsed spec (with module= applied).
	Module runner.ModuleSpec
	// Class is the class to include, "" for the module's name.
	Class string
	// Version is the module's version when known: the Debian package's
	// (version=, written by the Debian corpus), or the Forge version asked for.
	Version string
	Params  []runner.Param
	// Timeout, when not 0, bounds this module's runs instead of the
	// bench's --timeout.
	Timeout time.Duration
	// Deps are Debian packages installed before the apply, untraced.
	Deps []string
	// Key names the entry's run directory: unique within a corpus and safe
	// as a file name.
	Key string
}

// RunnerEntry returns the runner entry point (site.pp) of the module.
func (e Entry) RunnerEntry() runner.Entry {
	re := runner.Entry{Class: e.Class, Params: e.Params}
	if len(e.Deps) > 0 {
		re.Setup = []runner.SetupStep{{Command: DepsCommand(e.Deps)}}
	}
	return re
}

// DepsCommand installs Debian packages in the container (the package lists
// are there: the module's own package was installed just before).
func DepsCommand(pkgs []string) string {
	return "apt-get install -y --no-install-recommends " + strings.Join(pkgs, " ")
}

// RunFlags are the entry's class, parameters, dependencies and timeout as
// fsmove run's flags, for the harnesses that run a corpus's modules with
// the fsmove binary (bench/recall, bench/fixrate).
func (e Entry) RunFlags() []string {
	var args []string
	if e.Class != "" {
		args = append(args, "--class", e.Class)
	}
	for _, p := range e.Params {
		args = append(args, "--param", p.Key+"="+p.Value)
	}
	if len(e.Deps) > 0 {
		args = append(args, "--setup", DepsCommand(e.Deps))
	}
	if e.Timeout > 0 {
		args = append(args, "--timeout", e.Timeout.String())
	}
	return args
}

// ParseFile reads a corpus file; relative module directories are taken
// relative to the file's directory.
func ParseFile(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := Parse(f, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return entries, nil
}

// Parse reads a corpus; baseDir resolves relative module directories.
func Parse(r io.Reader, baseDir string) ([]Entry, error) {
	var entries []Entry
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		fields := strings.Fields(stripComment(sc.Text()))
		if len(fields) == 0 {
			continue
		}
		e, err := parseEntry(fields, baseDir)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
		e.Line = lineNo
		if prev, dup := seen[e.Key]; dup {
			return nil, fmt.Errorf("line %d: %s is already in the corpus (line %d)", lineNo, e.Spec, prev)
		}
		seen[e.Key] = lineNo
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return entries, nil
}

// stripComment cuts a # comment: at the start of the line or after a blank
// (a # inside a value such as param.x=a#b stays).
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}

func parseEntry(fields []string, baseDir string) (Entry, error) {
	e := Entry{Spec: fields[0]}
	var module string
	for _, f := range fields[1:] {
		key, value, ok := strings.Cut(f, "=")
		if !ok || value == "" {
			return Entry{}, fmt.Errorf("%q: want class=NAME, module=NAME, version=V, timeout=DUR, deps=PKG,... or param.KEY=VALUE", f)
		}
		switch {
		case key == "class":
			e.Class = value
		case key == "module":
			module = value
		case key == "version":
			e.Version = value
		case key == "timeout":
			d, err := time.ParseDuration(value)
			if err != nil || d <= 0 {
				return Entry{}, fmt.Errorf("timeout=%s: want a positive duration such as 20m", value)
			}
			e.Timeout = d
		case key == "deps":
			for _, p := range strings.Split(value, ",") {
				if !validPackageName(p) {
					return Entry{}, fmt.Errorf("deps=%s: %q is not a Debian package name", value, p)
				}
				e.Deps = append(e.Deps, p)
			}
		case strings.HasPrefix(key, "param."):
			p, err := runner.ParseParam(strings.TrimPrefix(key, "param.") + "=" + value)
			if err != nil {
				return Entry{}, err
			}
			e.Params = append(e.Params, p)
		default:
			return Entry{}, fmt.Errorf("unknown field %q (want class=, module=, version=, timeout=, deps= or param.KEY=)", key)
		}
	}
	spec, err := parseSpec(e.Spec, module, baseDir)
	if err != nil {
		return Entry{}, err
	}
	e.Module = spec
	if e.Version == "" {
		e.Version = spec.Version
	}
	if _, err := e.RunnerEntry().SitePP(spec.Name); err != nil {
		return Entry{}, err
	}
	e.Key = keyFor(spec, e.Class)
	return e, nil
}

// parseSpec parses a module spec; with module= (the module directory a
// Debian package installs, when its name does not say it) the spec is
// built here.
func parseSpec(raw, module, baseDir string) (runner.ModuleSpec, error) {
	if pkg, ok := strings.CutPrefix(raw, "deb:"); ok {
		spec, err := runner.ParseModuleSpec(raw)
		if module == "" && err == nil {
			return spec, nil
		}
		if module == "" {
			// puppet-module-NAME: the module is NAME.
			rest, ok := strings.CutPrefix(pkg, "puppet-module-")
			if !ok || rest == "" || strings.Contains(rest, "-") {
				return runner.ModuleSpec{}, err
			}
			module = rest
		}
		if !validModuleName(module) {
			return runner.ModuleSpec{}, fmt.Errorf("module=%s: not a module name (lower-case letters, digits, _)", module)
		}
		return runner.ModuleSpec{Raw: raw, Kind: runner.SourceDeb, Name: module, Author: spec.Author, Package: pkg}, nil
	}
	if module != "" {
		return runner.ModuleSpec{}, fmt.Errorf("module= is only for deb: specs")
	}
	path := raw
	if !filepath.IsAbs(path) && looksLikeDir(raw) {
		path = filepath.Join(baseDir, raw)
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		spec, err := runner.ParseModuleSpec(path)
		if err != nil {
			return spec, err
		}
		spec.Raw = raw
		return spec, nil
	}
	return runner.ParseModuleSpec(raw)
}

// looksLikeDir reports whether a spec is meant as a directory: it has a
// slash other than the one of AUTHOR/NAME, or starts with . or /.
func looksLikeDir(s string) bool {
	return strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || strings.Count(s, "/") > 1 || strings.HasSuffix(s, "/")
}

// validPackageName: Debian policy 5.6.1 (lower-case letters, digits, + - .;
// at least two characters, starting with a letter or digit). It also keeps
// the setup command free of shell syntax.
func validPackageName(s string) bool {
	if len(s) < 2 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func validModuleName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// keyFor names an entry's run directory: the package for deb:, the module's
// name for a directory, AUTHOR-NAME[@VERSION] for the Forge; "+CLASS" when a
// class other than the module's own is applied. Characters outside
// [A-Za-z0-9._@+-] become '_'.
func keyFor(spec runner.ModuleSpec, class string) string {
	var key string
	switch spec.Kind {
	case runner.SourceDeb:
		key = spec.Package
	case runner.SourceDir:
		key = spec.Name
	default:
		key = spec.Author + "-" + spec.Name
		if spec.Version != "" {
			key += "@" + spec.Version
		}
	}
	if class != "" && class != spec.Name {
		key += "+" + class
	}
	b := []byte(key)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._@+-", c) >= 0) {
			b[i] = '_'
		}
	}
	return string(b)
}

// Format writes entries back as corpus lines, with a header comment.
func Format(w io.Writer, header []string, entries []Entry) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		fmt.Fprintf(bw, "# %s\n", h)
	}
	for _, e := range entries {
		bw.WriteString(e.Spec)
		if e.Class != "" {
			fmt.Fprintf(bw, " class=%s", e.Class)
		}
		if e.Module.Kind == runner.SourceDeb {
			if spec, err := runner.ParseModuleSpec(e.Spec); err != nil || spec.Name != e.Module.Name {
				fmt.Fprintf(bw, " module=%s", e.Module.Name)
			}
		}
		if e.Version != "" && e.Version != e.Module.Version {
			fmt.Fprintf(bw, " version=%s", e.Version)
		}
		if e.Timeout > 0 {
			fmt.Fprintf(bw, " timeout=%s", e.Timeout)
		}
		if len(e.Deps) > 0 {
			fmt.Fprintf(bw, " deps=%s", strings.Join(e.Deps, ","))
		}
		for _, p := range e.Params {
			fmt.Fprintf(bw, " param.%s=%s", p.Key, p.Value)
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Override lays params over entries: each entry of params (a corpus line
// with the class, parameters, timeout and dependencies a module needs)
// replaces those of the entry with the same spec. It returns the specs of
// params that name no entry (a module the corpus no longer has), for a
// warning.
func Override(entries, params []Entry) (unused []string) {
	bySpec := map[string]int{}
	for i, e := range entries {
		bySpec[e.Spec] = i
	}
	for _, p := range params {
		i, ok := bySpec[p.Spec]
		if !ok {
			unused = append(unused, p.Spec)
			continue
		}
		e := &entries[i]
		e.Class, e.Params, e.Timeout, e.Deps = p.Class, p.Params, p.Timeout, p.Deps
		e.Key = keyFor(e.Module, e.Class)
	}
	return unused
}

// ReadHeader returns the comment lines at the top of a corpus file (without
// "# "), which Format writes back.
func ReadHeader(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var header []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "#")
		if !ok {
			break
		}
		header = append(header, strings.TrimPrefix(line, " "))
	}
	return header, sc.Err()
}
