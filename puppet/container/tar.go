package container

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Archive builds, in memory, the tar stream that CopyIn sends: files and
// whole directory trees placed under chosen names. Parent directories are
// added automatically, so an archive unpacked at "/" can create /fsmove/….
// Entries belong to root and carry a fixed time, so that the same inputs
// give the same bytes.
type Archive struct {
	buf  bytes.Buffer
	tw   *tar.Writer
	dirs map[string]bool
	err  error
}

// archiveTime is the modification time of every entry.
var archiveTime = time.Unix(0, 0).UTC()

// NewArchive starts an empty archive.
func NewArchive() *Archive {
	a := &Archive{dirs: map[string]bool{}}
	a.tw = tar.NewWriter(&a.buf)
	return a
}

// cleanName checks and normalises an entry name: relative, slash-separated,
// no "..".
func cleanName(name string) (string, error) {
	n := path.Clean(strings.TrimPrefix(filepath.ToSlash(name), "/"))
	if n == "." || n == ".." || strings.HasPrefix(n, "../") {
		return "", fmt.Errorf("bad archive entry name %q", name)
	}
	return n, nil
}

// addParents writes directory entries for every missing parent of name.
func (a *Archive) addParents(name string) {
	dir := path.Dir(name)
	if dir == "." || a.dirs[dir] {
		return
	}
	a.addParents(dir)
	a.writeHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: archiveTime})
	a.dirs[dir] = true
}

func (a *Archive) writeHeader(h *tar.Header) {
	if a.err == nil {
		a.err = a.tw.WriteHeader(h)
	}
}

// AddFile adds one regular file with the given permission bits.
func (a *Archive) AddFile(name string, data []byte, mode fs.FileMode) {
	n, err := cleanName(name)
	if err != nil {
		a.fail(err)
		return
	}
	a.addParents(n)
	a.writeHeader(&tar.Header{Typeflag: tar.TypeReg, Name: n, Mode: int64(mode.Perm()), Size: int64(len(data)), ModTime: archiveTime})
	if a.err == nil {
		_, a.err = a.tw.Write(data)
	}
}

// AddDir adds the tree at srcDir under the name dest: directories, regular
// files and symbolic links (copied as links, never followed). Other kinds
// (sockets, devices) and version-control directories are skipped.
func (a *Archive) AddDir(srcDir, dest string) { a.AddDirExcept(srcDir, dest, nil) }

// SkipFunc says whether AddDirExcept leaves out the entry at rel, its path
// below the source directory with slashes; a directory left out is left out
// whole.
type SkipFunc func(rel string, isDir bool) bool

// AddDirExcept is AddDir without what skip (nil: nothing more) says.
func (a *Archive) AddDirExcept(srcDir, dest string, skip SkipFunc) {
	destName, err := cleanName(dest)
	if err != nil {
		a.fail(err)
		return
	}
	a.addParents(destName)
	walkErr := filepath.WalkDir(srcDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(srcDir, p)
		if err != nil {
			return err
		}
		name := destName
		if rel != "." {
			name = destName + "/" + filepath.ToSlash(rel)
			if skip != nil && skip(filepath.ToSlash(rel), d.IsDir()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if d.Name() == ".git" && rel != "." {
				return filepath.SkipDir
			}
			a.writeHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: int64(info.Mode().Perm()), ModTime: archiveTime})
			a.dirs[name] = true
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			a.writeHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: target, Mode: 0o777, ModTime: archiveTime})
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			a.writeHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(info.Mode().Perm()), Size: int64(len(data)), ModTime: archiveTime})
			if a.err == nil {
				_, a.err = a.tw.Write(data)
			}
		}
		return a.err
	})
	if walkErr != nil {
		a.fail(fmt.Errorf("archive %s: %w", srcDir, walkErr))
	}
}

func (a *Archive) fail(err error) {
	if a.err == nil {
		a.err = err
	}
}

// Bytes finishes the archive and returns it, or the first error met while
// adding entries.
func (a *Archive) Bytes() ([]byte, error) {
	if a.err != nil {
		return nil, a.err
	}
	if err := a.tw.Close(); err != nil {
		return nil, err
	}
	return a.buf.Bytes(), nil
}

// Budget bounds what Extract writes: module code in the container decides
// what is there, and a sparse file of a terabyte costs it nothing. Sizes are
// checked from the tar headers, before anything is written.
type Budget struct {
	// PerFile is the most one file may hold, Total the most all files of
	// every Extract with this budget may hold together.
	PerFile, Total int64
	// Cut: a file over budget is copied up to what the budget allows and
	// cut there (a trace, whose beginning is worth analyzing); otherwise
	// it is not copied at all.
	Cut bool
	// Used is what the files written so far hold.
	Used int64
	// Over says, one line each, what was cut or left out.
	Over []string
}

// ErrTampered says that what fsmove copies out of the container is not a
// regular file or a directory: the container made it a link or a device.
var ErrTampered = errors.New("the container tampered with it")

// Extract writes the one regular file of a tar stream (what CopyOut of a
// file returns) into destDir within budget and returns its name ("" when
// the budget left it out). Anything else at the top of the stream — a
// directory, which could hold any number of entries, a link, a device — is
// ErrTampered: fsmove copies out files one by one, by name, and the
// container made that name something else. A name that would leave destDir
// is refused. Only the file's header is read when it is over budget (a
// sparse terabyte would take hours to read).
func Extract(r io.Reader, destDir string, budget *Budget) (string, error) {
	tr := tar.NewReader(r)
	h, err := tr.Next()
	if err != nil {
		return "", fmt.Errorf("read archive: %w", err)
	}
	name, err := cleanName(h.Name)
	if err != nil {
		return "", err
	}
	if h.Typeflag != tar.TypeReg {
		return "", fmt.Errorf("%s is %s, not a regular file: %w", name, typeName(h), ErrTampered)
	}
	size := budget.allow(name, h.Size)
	if size < 0 {
		return "", nil
	}
	if err := writeEntry(destDir, name, tr, size); err != nil {
		return "", err
	}
	return name, nil
}

// maxEntries bounds the entries ExtractFiles reads from one stream (about
// 50 MB of tar headers). It is well above what a module may plant before a
// wanted name: the hostile module's test makes a graph a directory of
// 20,000 files, which sorts before the last graph.
const maxEntries = 100000

// ExtractFiles writes the regular files of a tar stream (what CopyOut of a
// directory returns) that want names, each to destDir under the name want
// gives it (a relative path), within budget, and returns the names of want
// it wrote. Other entries are skipped, unread; the stream is read no
// further once every wanted name was seen (the engine's stream is in the
// lexical order of names: a large file named after the wanted ones is not
// read at all). A wanted name that the stream holds as something else than
// a regular file is ErrTampered, as is a stream of more than maxEntries
// entries: the others are still written. It is for fsmove's own
// directories in the container (the compile run's, the apply's), whose
// files one request brings out instead of one request each.
func ExtractFiles(r io.Reader, destDir string, want map[string]string, budget *Budget) (map[string]bool, error) {
	tr := tar.NewReader(r)
	wrote := map[string]bool{}
	var tampered error
	seen := 0
	for n := 0; ; n++ {
		if seen == len(want) {
			return wrote, tampered
		}
		h, err := tr.Next()
		if err == io.EOF {
			return wrote, tampered
		}
		if err != nil {
			return wrote, fmt.Errorf("read archive: %w", err)
		}
		if n == maxEntries {
			return wrote, fmt.Errorf("over %d entries: %w", maxEntries, ErrTampered)
		}
		name, err := cleanName(h.Name)
		if err != nil {
			return wrote, err
		}
		dest, ok := want[name]
		if !ok {
			continue
		}
		seen++
		if h.Typeflag != tar.TypeReg {
			tampered = errors.Join(tampered, fmt.Errorf("%s is %s, not a regular file: %w", name, typeName(h), ErrTampered))
			continue
		}
		rel, err := cleanName(dest)
		if err != nil {
			return wrote, err
		}
		size := budget.allow(name, h.Size)
		if size < 0 {
			continue
		}
		if err := writeEntry(destDir, rel, tr, size); err != nil {
			// Unlike a trace's beginning (Extract), part of a catalog
			// or a graph is worth nothing, and would be read as whole.
			os.Remove(filepath.Join(destDir, filepath.FromSlash(rel)))
			return wrote, err
		}
		wrote[name] = true
	}
}

// allow says how many bytes of a file of size bytes may be written (-1:
// none, the file is left out) and records it.
func (b *Budget) allow(name string, size int64) int64 {
	room := min(b.PerFile, b.Total-b.Used)
	if size <= room {
		b.Used += size
		return size
	}
	limit := fmt.Sprintf("the budget of one file, %s", FormatBytes(b.PerFile))
	if b.Total-b.Used < b.PerFile {
		limit = fmt.Sprintf("what is left of the budget of all files, %s of %s", FormatBytes(max(room, 0)), FormatBytes(b.Total))
	}
	if !b.Cut || room <= 0 {
		b.Over = append(b.Over, fmt.Sprintf("%s (%s) was not copied: it is over %s", name, FormatBytes(size), limit))
		return -1
	}
	b.Over = append(b.Over, fmt.Sprintf("%s (%s) was cut at %s: it is over %s", name, FormatBytes(size), FormatBytes(room), limit))
	b.Used += room
	return room
}

// typeName says what kind of tar entry h is, for people.
func typeName(h *tar.Header) string {
	switch h.Typeflag {
	case tar.TypeDir:
		return "a directory"
	case tar.TypeSymlink:
		return "a symbolic link to " + h.Linkname
	case tar.TypeLink:
		return "a hard link to " + h.Linkname
	case tar.TypeChar, tar.TypeBlock:
		return "a device"
	case tar.TypeFifo:
		return "a named pipe"
	}
	return fmt.Sprintf("of tar type %q", h.Typeflag)
}

// writeEntry writes the first size bytes of r to the file rel (a clean
// relative name) under destDir, making its directories.
func writeEntry(destDir, rel string, r io.Reader, size int64) error {
	target := filepath.Join(destDir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, io.LimitReader(r, size)); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", target, err)
	}
	return f.Close()
}

// ExtractManifests writes the Puppet manifests (*.pp regular files) of a
// tar stream — what CopyOut of a module's manifests directory returns —
// under destDir within budget, and returns how many it wrote. Everything
// else is skipped: directories are made as the files need them, and links,
// devices and other files are not followed or written. The copy is only
// for reports to show a dependency's source lines; what the module under
// test left there decides nothing.
func ExtractManifests(r io.Reader, destDir string, budget *Budget) (int, error) {
	tr := tar.NewReader(r)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("read archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasSuffix(h.Name, ".pp") {
			continue
		}
		name, err := cleanName(h.Name)
		if err != nil {
			return n, err
		}
		size := budget.allow(name, h.Size)
		if size < 0 {
			continue
		}
		if err := writeEntry(destDir, name, tr, size); err != nil {
			return n, err
		}
		n++
	}
}
