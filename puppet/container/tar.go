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
func (a *Archive) AddDir(srcDir, dest string) {
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

// Extract unpacks a tar stream (as CopyOut returns it) into destDir and
// returns the relative names of the regular files written. Only
// directories and regular files are written; links and other kinds are
// skipped, and names that would leave destDir are refused.
func Extract(r io.Reader, destDir string) ([]string, error) {
	var files []string
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return files, fmt.Errorf("read archive: %w", err)
		}
		name, err := cleanName(h.Name)
		if err != nil {
			return files, err
		}
		target := filepath.Join(destDir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return files, err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return files, err
			}
			if err := writeFile(target, tr); err != nil {
				return files, err
			}
			files = append(files, name)
		}
	}
}

func writeFile(target string, r io.Reader) error {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", target, err)
	}
	return f.Close()
}
