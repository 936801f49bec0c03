// Package files answers questions about files by path, and replaces one
// whole.
package files

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
)

// Exists reports whether p names something that can be stat'ed (a
// dangling symlink, or a path that cannot be read, does not exist here).
func Exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// SHA256 is the hex SHA-256 of the file p's bytes.
func SHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Replace writes data to path through a temporary file beside it
// (."NAME-*") and a rename, with mode perm: a reader, or a failure, never
// leaves half a file at path.
func Replace(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
