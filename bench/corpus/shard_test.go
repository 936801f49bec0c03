package corpus

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestShard: the n shares are disjoint, cover the corpus, keep its order,
// and do not depend on the order of its lines.
func TestShard(t *testing.T) {
	var text strings.Builder
	for i := range 40 {
		fmt.Fprintf(&text, "puppetlabs-m%d\n", i)
	}
	entries, err := Parse(strings.NewReader(text.String()), "/")
	if err != nil {
		t.Fatal(err)
	}
	reversed := slices.Clone(entries)
	slices.Reverse(reversed)
	for _, n := range []int{1, 3, 7} {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			share := Shard(entries, i, n)
			if n == 3 && (len(share) < 5 || len(share) > 25) {
				t.Errorf("share %d/3 has %d of 40 entries", i, len(share))
			}
			for j, e := range share {
				seen[e.Key]++
				if j > 0 && share[j-1].Line > e.Line {
					t.Errorf("share %d/%d out of corpus order", i, n)
				}
			}
			var keys, again []string
			for _, e := range share {
				keys = append(keys, e.Key)
			}
			for _, e := range Shard(reversed, i, n) {
				again = append(again, e.Key)
			}
			slices.Sort(keys)
			slices.Sort(again)
			if !slices.Equal(keys, again) {
				t.Errorf("share %d/%d depends on the lines' order", i, n)
			}
		}
		for _, e := range entries {
			if seen[e.Key] != 1 {
				t.Errorf("n=%d: %s is in %d shares", n, e.Key, seen[e.Key])
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	if i, n, err := ParseShard("2/4"); i != 2 || n != 4 || err != nil {
		t.Errorf("2/4: %d %d %v", i, n, err)
	}
	for _, bad := range []string{"", "2", "0/4", "5/4", "1/0", "a/b", "-1/2", "1/2/3"} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
