package corpus

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is share i (1-based) of n of entries, in corpus order: the entries
// whose key hashes (FNV-1a) to i-1 modulo n. Keys are unique within a
// corpus, so the n shares are disjoint and cover it; the share depends only
// on the keys, so every machine given the same corpus and n runs the same
// share, whatever the order of the lines.
func Shard(entries []Entry, i, n int) []Entry {
	var out []Entry
	for _, e := range entries {
		h := fnv.New32a()
		h.Write([]byte(e.Key))
		if int(h.Sum32()%uint32(n)) == i-1 {
			out = append(out, e)
		}
	}
	return out
}

// ParseShard reads a shard as --shard gives it, I/N with 1 <= I <= N.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, errI := strconv.Atoi(a)
	n, errN := strconv.Atoi(b)
	if !ok || errI != nil || errN != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("%q: want I/N with 1 <= I <= N (the 2nd of 4 shares: 2/4)", s)
	}
	return i, n, nil
}
