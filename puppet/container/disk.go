package container

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Disk measures what a container has written to its own filesystem: the
// bytes its writable layer holds on the host's disk, which nothing else
// bounds (the storage drivers here have no quota: overlay2 has one only on
// XFS with project quotas). fsmove run stops a module that writes more
// than its budget (runner's disk.go).
type Disk struct {
	c *Container
	// upper is the overlay2 upper directory, when this host can read it;
	// "" to ask the engine (ContainerInspect with sizes: slower, and
	// remote engines too).
	upper string
}

// Disk returns the container's disk measure. The upper directory is
// looked up once: it does not change while the container lives.
func (c *Container) Disk(ctx context.Context) (*Disk, error) {
	info, err := c.engine.cli.ContainerInspect(ctx, c.ID)
	if err != nil {
		return nil, fmt.Errorf("inspect container %s: %w", c.ShortID(), err)
	}
	d := &Disk{c: c}
	if info.GraphDriver.Name == "overlay2" {
		if upper := info.GraphDriver.Data["UpperDir"]; upper != "" {
			if st, err := os.Stat(upper); err == nil && st.IsDir() {
				d.upper = upper
			}
		}
	}
	return d, nil
}

// Written is the bytes the container's writable layer takes on disk: the
// blocks of its files (a sparse file counts what it holds), each inode
// once.
func (d *Disk) Written(ctx context.Context) (int64, error) {
	if d.upper == "" {
		info, _, err := d.c.engine.cli.ContainerInspectWithRaw(ctx, d.c.ID, true)
		if err != nil {
			return 0, err
		}
		if info.SizeRw == nil {
			return 0, fmt.Errorf("the engine does not say the size of container %s", d.c.ShortID())
		}
		return *info.SizeRw, nil
	}
	return blocksUnder(d.upper)
}

// blocksUnder sums the disk blocks of everything under dir, counting each
// inode once (hard links); entries that vanish while it walks are skipped.
func blocksUnder(dir string) (int64, error) {
	var total int64
	seen := map[uint64]bool{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		info, err := e.Info()
		if err != nil {
			return nil // removed since the directory was read
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			total += info.Size()
			return nil
		}
		if st.Nlink > 1 && !e.IsDir() {
			if seen[st.Ino] {
				return nil
			}
			seen[st.Ino] = true
		}
		total += st.Blocks * 512
		return nil
	})
	return total, err
}
