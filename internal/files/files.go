// Package files answers questions about files by path.
package files

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
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
