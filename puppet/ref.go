package puppet

import (
	"strings"

	"github.com/fsmove/fsmove/catalog"
)

// A resource reference is Type[title]. In references Puppet capitalises every
// segment of the type name ("Apache::Vhost[default]", "File[/etc/x]"), so a
// type name matches [A-Z][A-Za-z0-9_]*(::[A-Za-z0-9_]+)*. The title is free
// text: it may hold "[", "]", "{", "}", ":", "/" and spaces, but is never
// empty (Puppet refuses empty titles). A reference found here is one
// catalog.ParseRef reads.

// SourceRef returns the reference of the resource named by a log source, the
// part of an evaltrace line between "Info: " and the message: the last
// Type[title] segment of the containment path.
//
//	/Stage[main]/Foo::Bar/Foo::Baz[x y]/File[/etc/x]  →  File[/etc/x]
//	Stage[main]                                       →  Stage[main]
//	/Stage[main]/Main/Notify[a [b]]                   →  Notify[a [b]]
//
// The containment path is ["/"] segment ("/" segment)*, each segment a class
// name (Main, Foo::Bar) or a reference (Stage[main], Foo::Baz[x y]). Titles
// may contain "/" and brackets, so the segments cannot be found by splitting;
// instead SourceRef parses the grammar: walking left to right it records every
// position where a segment can start, given some way of reading what precedes
// it as whole segments (a title ends at a "]" followed by "/" or by the end).
// The answer is the rightmost segment start from which a reference runs to
// the very end. When a title itself looks like ".../Type[x]" both readings
// are grammatical; the rightmost one wins because resources inside defined
// types ("/Apache::Vhost[x]/File[/etc/y]") are common and titles ending in
// "]/Type[x]" are not.
//
// It runs in time linear in len(source) and allocates nothing for sources
// up to 1023 bytes.
func SourceRef(source string) (string, bool) {
	s := strings.TrimPrefix(source, "/")
	// starts is a bit set over positions 0..len(s): a segment may start there.
	var small [16]uint64
	starts := small[:]
	if need := len(s)/64 + 1; need > len(small) {
		starts = make([]uint64, need)
	}
	set := func(i int) { starts[i/64] |= 1 << (i % 64) }
	isSet := func(i int) bool { return starts[i/64]&(1<<(i%64)) != 0 }

	set(0)
	last := -1
	titlesFrom := -1 // the "[" of the first reference segment reached, or -1
	for p := 0; p < len(s); p++ {
		if !isSet(p) {
			continue
		}
		n := typeNameLen(s[p:])
		if n == 0 {
			continue
		}
		q := p + n
		if q == len(s) {
			continue // a class name ends the path: not a resource
		}
		switch s[q] {
		case '/':
			set(q + 1) // a class segment: the next segment follows the slash
		case '[':
			// The title (not empty) runs to some "]" that ends the
			// segment: the last byte, or a "]" followed by "/" (then a
			// segment starts after the slash).
			if s[len(s)-1] == ']' && len(s)-2 > q {
				last = p
			}
			// Every later reference segment has its "[" further right, so
			// the segment starts its titles could end at are a subset of
			// those of the first one: marking them once keeps the walk
			// linear in len(source).
			if titlesFrom < 0 {
				titlesFrom = q
				for r := q + 2; r+1 < len(s); r++ {
					k := strings.Index(s[r:], "]/")
					if k < 0 {
						break
					}
					r += k
					set(r + 2)
				}
			}
		}
	}
	if last < 0 {
		return "", false
	}
	return s[last:], true
}

// typeNameLen returns the length of the type or class name at the start of
// s, [A-Z][A-Za-z0-9_]*(::[A-Za-z0-9_]+)*, or 0 when s does not start with
// one. Puppet writes names capitalised in log sources, and requiring it is
// what tells a segment from the inside of a title.
func typeNameLen(s string) int {
	if len(s) == 0 || s[0] < 'A' || s[0] > 'Z' {
		return 0
	}
	return catalog.TypeNameLen(s)
}
