// Package files answers questions about files by path.
package files

import "os"

// Exists reports whether p names something that can be stat'ed (a
// dangling symlink, or a path that cannot be read, does not exist here).
func Exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
