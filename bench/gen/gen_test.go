package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/fstrace"
	"github.com/fsmove/fsmove/puppet"
)

func generate(t *testing.T, p Params) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Generate(&buf, p); err != nil {
		t.Fatalf("Generate(%+v): %v", p, err)
	}
	return buf.Bytes()
}

func TestDeterministic(t *testing.T) {
	p := Params{Size: 2 << 20, Blocks: 40, Seed: 7}
	a, b := generate(t, p), generate(t, p)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same Params differ")
	}
	p.Seed = 8
	if c := generate(t, p); bytes.Equal(a, c) {
		t.Fatal("another seed gave the same trace")
	}

	var c1, c2 bytes.Buffer
	if err := GenerateCatalog(&c1, Params{Blocks: 40, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	// The catalog does not depend on Size.
	if err := GenerateCatalog(&c2, Params{Blocks: 40, Seed: 7, Size: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(c1.Bytes()) != sha256.Sum256(c2.Bytes()) {
		t.Fatal("catalog depends on Size or is not deterministic")
	}
}

func TestSize(t *testing.T) {
	for _, p := range []Params{
		{Size: 1 << 20, Blocks: 20, Seed: 1},
		{Size: 8 << 20, Seed: 2},
		{Size: 32 << 20, Blocks: 1000, Processes: 3000, Seed: 3},
		{Size: 3 << 20, Blocks: 50, StringLimit: 32, Seed: 4},
	} {
		n := int64(len(generate(t, p)))
		if diff := float64(n-p.Size) / float64(p.Size); diff > 0.05 || diff < -0.05 {
			t.Errorf("%+v: %d bytes, %.1f%% off the target", p, n, 100*diff)
		}
	}
}

func TestBadParams(t *testing.T) {
	for _, p := range []Params{{Size: -1}, {Blocks: -3}, {Blocks: 1 << 30}} {
		if err := Generate(&bytes.Buffer{}, p); err == nil {
			t.Errorf("Generate(%+v) accepted", p)
		}
		if err := GenerateCatalog(&bytes.Buffer{}, p); err == nil {
			t.Errorf("GenerateCatalog(%+v) accepted", p)
		}
	}
}

// shapeChecker is a tiny checker of strace -f line shapes, independent of
// the real parser: a pid, spaces, then a call "name(…" that ends in
// " <unfinished ...>" or has a return part, a "<... name resumed>" with a
// return part, or a "+++"/"---" notice. A return part is ")", spaces (up to
// column 40, or one), "= " and a value. It also checks that each pid's unfinished call is
// resumed before the pid does anything else, and that an exited pid is
// silent afterwards. It returns the first problem or "".
type shapeChecker struct {
	pending map[string]string // pid → name of its unfinished call
	exited  map[string]bool
	pids    map[string]bool
}

func newShapeChecker() *shapeChecker {
	return &shapeChecker{pending: map[string]string{}, exited: map[string]bool{}, pids: map[string]bool{}}
}

func (c *shapeChecker) check(line string) string {
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(line) || line[i] != ' ' {
		return "no pid"
	}
	pid := line[:i]
	c.pids[pid] = true
	for i < len(line) && line[i] == ' ' {
		i++
	}
	rest := line[i:]
	if c.exited[pid] {
		return "pid " + pid + " acts after its exit"
	}
	switch {
	case strings.HasPrefix(rest, "+++ "):
		if !strings.HasSuffix(rest, " +++") {
			return "bad exit notice"
		}
		if c.pending[pid] != "" {
			return "exit with an unfinished call"
		}
		c.exited[pid] = true
		return ""
	case strings.HasPrefix(rest, "--- "):
		if !strings.HasSuffix(rest, " ---") {
			return "bad signal notice"
		}
		return ""
	case strings.HasPrefix(rest, "<... "):
		name, after, _ := strings.Cut(rest[len("<... "):], " ")
		if !strings.HasPrefix(after, "resumed>") {
			return "bad resumed"
		}
		if c.pending[pid] != name {
			return "resumed " + name + " but pending is " + strconv.Quote(c.pending[pid])
		}
		delete(c.pending, pid)
		if returnPart(rest) < 0 {
			return "resumed without a return"
		}
		return ""
	}
	if c.pending[pid] != "" {
		return "new call while " + c.pending[pid] + " is unfinished"
	}
	j := 0
	for j < len(rest) && (rest[j] >= 'a' && rest[j] <= 'z' || rest[j] >= '0' && rest[j] <= '9' || rest[j] == '_') {
		j++
	}
	if j == 0 || j >= len(rest) || rest[j] != '(' {
		return "no syscall name"
	}
	if strings.HasSuffix(rest, " <unfinished ...>") {
		c.pending[pid] = rest[:j]
		return ""
	}
	k := returnPart(rest)
	if k < 0 {
		return "no return value"
	}
	ret := rest[k:]
	// strace pads short calls so that "=" is at column 40.
	if col := i + k - 2; col < 40 || col > 40 && rest[k-4] == ' ' {
		return "= at column " + strconv.Itoa(col)
	}
	if ret == "" || !(ret[0] == '-' || ret[0] == '?' || ret[0] >= '0' && ret[0] <= '9') {
		return "bad return value"
	}
	return ""
}

// returnPart returns where the return value starts in a call line: after
// the last ")" + spaces + "= ", or -1. Short calls are padded so that "="
// falls at column 40 of the line.
func returnPart(rest string) int {
	k := strings.LastIndex(rest, "= ")
	for k >= 0 {
		j := k
		for j > 0 && rest[j-1] == ' ' {
			j--
		}
		if j < k && j > 0 && rest[j-1] == ')' {
			return k + 2
		}
		k = strings.LastIndex(rest[:k], "= ")
	}
	return -1
}

func TestLineShapes(t *testing.T) {
	p := Params{Size: 6 << 20, Blocks: 80, Processes: 400, Seed: 11}
	data := generate(t, p)
	c := newShapeChecker()
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	bad := 0
	for n, line := range lines {
		if why := c.check(line); why != "" {
			bad++
			if bad <= 5 {
				t.Errorf("line %d: %s: %q", n+1, why, line)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d malformed lines of %d", bad, len(lines))
	}
	// Threads and daemons may be left with nothing pending at the end;
	// children must all have exited, except the daemons.
	for pid, name := range c.pending {
		t.Errorf("pid %s left %s unfinished at the end", pid, name)
	}
	if len(c.pids) < p.Processes {
		t.Errorf("%d pids, want at least %d", len(c.pids), p.Processes)
	}
	// The checker must be able to fail.
	for _, bad := range []string{"openat(AT_FDCWD, \"/x\", O_RDONLY) = 3", "12 openat(AT_FDCWD", "12 Openat() = 0", "12 close(3) = x", "12 close(3)= 0", "12    close(3) = 0"} {
		if newShapeChecker().check(bad) == "" {
			t.Errorf("checker accepted %q", bad)
		}
	}
}

// iovText extracts and decodes the iov_base strings of a writev(1, …) line
// (just enough of strace's escapes for the generated lines).
func iovText(t *testing.T, line string) (string, bool) {
	const head = "writev(1, [{iov_base="
	i := strings.Index(line, head)
	if i < 0 {
		return "", false
	}
	s := line[i+len(head):]
	var out []byte
	for {
		if s == "" || s[0] != '"' {
			t.Fatalf("no string in %q", line)
		}
		s = s[1:]
		for s[0] != '"' {
			if s[0] != '\\' {
				out = append(out, s[0])
				s = s[1:]
				continue
			}
			switch c := s[1]; {
			case c == 'n':
				out, s = append(out, '\n'), s[2:]
			case c >= '0' && c <= '7':
				v, k := 0, 1
				for k < 4 && s[k] >= '0' && s[k] <= '7' {
					v = v*8 + int(s[k]-'0')
					k++
				}
				out, s = append(out, byte(v)), s[k:]
			default:
				out, s = append(out, c), s[2:]
			}
		}
		s = strings.TrimPrefix(s[1:], "...")
		k := strings.Index(s, "{iov_base=")
		if k < 0 {
			return string(out), true
		}
		s = s[k+len("{iov_base="):]
	}
}

// blockTrace reads a generated trace back: the markers, and per block the
// paths produced (written, created, renamed onto, mkdir'ed) and used.
type blockTrace struct {
	order    []string                   // block references in the order they begin
	produced map[string]map[string]bool // path → blocks producing it
	used     map[string]map[string]bool // path → blocks reading, stat-ing or removing it
}

func readBlocks(t *testing.T, data []byte) *blockTrace {
	bt := &blockTrace{produced: map[string]map[string]bool{}, used: map[string]map[string]bool{}}
	add := func(m map[string]map[string]bool, path, block string) {
		if block == "" {
			block = "(none)"
		}
		if m[path] == nil {
			m[path] = map[string]bool{}
		}
		m[path][block] = true
	}
	var marker puppet.Marker
	open := ""
	for _, line := range strings.Split(string(data), "\n") {
		if text, ok := iovText(t, line); ok {
			switch op, ref := lastMark(marker, text); op {
			case fstrace.OpBegin:
				if open != "" {
					t.Fatalf("%s begins inside %s", ref, open)
				}
				open = ref
				bt.order = append(bt.order, ref)
			case fstrace.OpEnd:
				if ref != open {
					t.Fatalf("%s ends while %q is open", ref, open)
				}
				open = ""
			}
			continue
		}
		// The first one or two quoted arguments.
		q := strings.Split(line, `"`)
		if len(q) < 3 {
			continue
		}
		first := q[1]
		switch {
		case strings.Contains(line, " openat(") && (strings.Contains(line, "O_WRONLY") || strings.Contains(line, "O_RDWR")) && !strings.Contains(line, "= -1"),
			strings.Contains(line, " mkdir("):
			add(bt.produced, first, open)
		case strings.Contains(line, " rename(") && len(q) >= 5:
			add(bt.used, first, open)
			add(bt.produced, q[3], open)
		case strings.Contains(line, " unlink("),
			strings.Contains(line, " openat("), strings.Contains(line, " newfstatat(AT_FDCWD"),
			strings.Contains(line, " statx("), strings.Contains(line, " access("), strings.Contains(line, " readlink("):
			if strings.HasPrefix(first, "/") {
				add(bt.used, first, open)
			}
		}
	}
	if open != "" {
		t.Fatalf("%s never ends", open)
	}
	return bt
}

func TestBlocksAndConflicts(t *testing.T) {
	p := Params{Size: 8 << 20, Blocks: 120, Conflicts: 8, Seed: 5}
	data := generate(t, p)
	bt := readBlocks(t, data)

	// Every resource is a block, in plan order, after the whits.
	pl := newPlan(mustDefaults(t, p))
	var resources []string
	for _, ref := range bt.order {
		if r, _ := catalog.ParseRef(ref); r.Is(catalog.TypeFile) || r.Is(catalog.TypeExec) || r.Is(catalog.TypePackage) || r.Is(catalog.TypeService) {
			resources = append(resources, ref)
		}
	}
	// Some Begin lines are cut by -s 300 (long Exec titles) and still count.
	cut := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "Starting to evaluate the resource (") && strings.Contains(line, `"...`) {
			cut++
		}
	}
	if cut == 0 {
		t.Errorf("no Begin line cut inside its counter")
	}
	if len(resources) != p.Blocks {
		t.Fatalf("%d resource blocks, want %d", len(resources), p.Blocks)
	}
	for i, ref := range resources {
		if want := pl.resources[i].ref(); ref != want {
			t.Fatalf("block %d is %s, want %s", i, ref, want)
		}
	}
	for _, whit := range []string{"Stage[main]", "Class[Settings]", "Class[Main]", "Class[Gen::Mod0]", "Schedule[daily]", "Filebucket[puppet]"} {
		found := false
		for _, ref := range bt.order {
			found = found || ref == whit
		}
		if !found {
			t.Errorf("no %s block", whit)
		}
	}

	// The paths one block produces and another uses are exactly the
	// planned conflicts.
	type pair struct{ producer, other, path string }
	var got []pair
	for path, producers := range bt.produced {
		for prod := range producers {
			for other := range bt.used[path] {
				if other != prod {
					got = append(got, pair{prod, other, path})
				}
			}
			for other := range producers {
				if other != prod {
					got = append(got, pair{prod, other, path})
				}
			}
		}
	}
	cs, err := Conflicts(p)
	if err != nil {
		t.Fatal(err)
	}
	var want []pair
	for _, c := range cs {
		want = append(want, pair{c.Producer, c.Consumer, c.Path})
	}
	sortPairs := func(ps []pair) {
		sort.Slice(ps, func(i, j int) bool { return fmt.Sprint(ps[i]) < fmt.Sprint(ps[j]) })
	}
	sortPairs(got)
	sortPairs(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cross-block paths:\n got %v\nwant %v", got, want)
	}
	if len(cs) != p.Conflicts {
		t.Errorf("%d conflicts planned, want %d", len(cs), p.Conflicts)
	}
	// The shapes cover ordered and unordered pairs, notified or not.
	var ordered, unordered, notified, mn int
	for _, c := range cs {
		switch {
		case c.Notified:
			notified++
		case c.Ordered:
			ordered++
			if c.ConsumerIsService {
				mn++
			}
		default:
			unordered++
		}
	}
	if ordered == 0 || unordered == 0 || notified == 0 || mn == 0 {
		t.Errorf("conflict mix: %d ordered, %d unordered, %d notified, %d services not notified", ordered, unordered, notified, mn)
	}
}

func mustDefaults(t *testing.T, p Params) Params {
	p, err := p.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCatalog(t *testing.T) {
	p := Params{Blocks: 200, Conflicts: 6, Seed: 9}
	var buf bytes.Buffer
	if err := GenerateCatalog(&buf, p); err != nil {
		t.Fatal(err)
	}
	var c catalogJSON
	if err := json.Unmarshal(buf.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	byRef := map[string]*resourceJSON{}
	for i := range c.Resources {
		r := &c.Resources[i]
		ref := r.Type + "[" + r.Title + "]"
		if byRef[ref] != nil {
			t.Errorf("duplicate resource %s", ref)
		}
		byRef[ref] = r
	}
	pl := newPlan(mustDefaults(t, p))
	if want := p.Blocks + 3 + pl.classes; len(c.Resources) != want {
		t.Errorf("%d resources, want %d", len(c.Resources), want)
	}
	// Every resource is contained, every edge names resources.
	contained := map[string]int{}
	for _, e := range c.Edges {
		if byRef[e.Source] == nil || byRef[e.Target] == nil {
			t.Errorf("edge %s -> %s names a missing resource", e.Source, e.Target)
		}
		contained[e.Target]++
	}
	for ref := range byRef {
		if n := contained[ref]; ref != "Stage[main]" && n != 1 {
			t.Errorf("%s contained %d times", ref, n)
		}
	}
	// Relationship parameters name resources of the catalog.
	related := func(from *resourceJSON, param, to string) bool {
		switch v := from.Parameters[param].(type) {
		case string:
			return v == to
		case []any:
			for _, x := range v {
				if x == to {
					return true
				}
			}
		}
		return false
	}
	for ref, r := range byRef {
		for _, param := range []string{"require", "before", "notify", "subscribe"} {
			var targets []string
			switch v := r.Parameters[param].(type) {
			case string:
				targets = []string{v}
			case []any:
				for _, x := range v {
					targets = append(targets, x.(string))
				}
			}
			for _, to := range targets {
				if byRef[to] == nil {
					t.Errorf("%s %s => %s: no such resource", ref, param, to)
				}
			}
		}
	}
	// The conflicts' ordering is what Conflicts says.
	cs, err := Conflicts(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, cf := range cs {
		prod, cons := byRef[cf.Producer], byRef[cf.Consumer]
		if prod == nil || cons == nil {
			t.Fatalf("conflict %+v names a missing resource", cf)
		}
		req := related(cons, "require", cf.Producer)
		notify := related(prod, "notify", cf.Consumer)
		any := req || notify || related(prod, "before", cf.Consumer) || related(cons, "subscribe", cf.Producer) ||
			related(prod, "require", cf.Consumer) || related(cons, "before", cf.Producer)
		if any != cf.Ordered || notify != cf.Notified {
			t.Errorf("conflict %+v: catalog has require=%v notify=%v any=%v", cf, req, notify, any)
		}
		// No relationship at all touches a conflict's resources but these.
		for _, r := range []*resourceJSON{prod, cons} {
			for _, param := range []string{"require", "before", "notify", "subscribe"} {
				if v, ok := r.Parameters[param]; ok && !(r == cons && param == "require" && req) && !(r == prod && param == "notify" && notify) {
					t.Errorf("%s[%s] has %s => %v", r.Type, r.Title, param, v)
				}
			}
		}
	}
}

func TestAppendQuoted(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"plain /etc/x", 300, `"plain /etc/x"`},
		{"a\"b\\c\n\t", 300, `"a\"b\\c\n\t"`},
		{"\x1b[0m", 300, `"\33[0m"`},
		{"\x1b1", 300, `"\0331"`},
		{"\x00\x01x", 300, `"\0\1x"`},
		{"caf\u00e9", 300, `"caf\303\251"`},
		{"abcdef", 4, `"abcd"...`},
		{"", 4, `""`},
	}
	for _, tt := range tests {
		if got := string(appendQuoted(nil, tt.in, tt.limit)); got != tt.want {
			t.Errorf("appendQuoted(%q, %d) = %s, want %s", tt.in, tt.limit, got, tt.want)
		}
	}
}

func TestPathsAndProcesses(t *testing.T) {
	for _, p := range []Params{
		{Size: 16 << 20, Paths: 5000, Blocks: 100, Processes: 400, Seed: 1},
		{Size: 16 << 20, Paths: 20000, Blocks: 50, Processes: 10, Seed: 2}, // fewer processes than the resources need
	} {
		data := generate(t, p)
		paths, pids := map[string]bool{}, map[string]bool{}
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			pid, _, _ := strings.Cut(line, " ")
			pids[pid] = true
			q := strings.Split(line, `"`)
			for i := 1; i < len(q); i += 2 {
				if strings.HasPrefix(q[i], "/") {
					paths[q[i]] = true
				}
			}
		}
		if n := len(paths); n < p.Paths*85/100 || n > p.Paths*115/100 {
			t.Errorf("%+v: %d distinct paths", p, n)
		}
		// Puppet, three threads, and each resource's children.
		need := 4
		for _, r := range newPlan(mustDefaults(t, p)).resources {
			need += minChildren[r.kind]
		}
		if want := max(need, p.Processes); len(pids) != want {
			t.Errorf("%+v: %d pids, want %d", p, len(pids), want)
		}
	}
}

func TestSmallParams(t *testing.T) {
	for _, p := range []Params{
		{Size: 1, Blocks: 1, Paths: 1, Processes: 1},
		{Size: 1000, Blocks: 2, Conflicts: 3},
		{Size: 64 << 10, Blocks: 4, Conflicts: 10, StringLimit: 1},
		{Size: 64 << 10, Blocks: 9, Conflicts: -1},
	} {
		data := generate(t, p)
		c := newShapeChecker()
		for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if why := c.check(line); why != "" {
				t.Fatalf("%+v: line %d: %s: %q", p, n+1, why, line)
			}
		}
		// With a tiny -s the markers are cut before the resource's name and
		// no block is recognised; otherwise every resource is a block.
		bt := readBlocks(t, data)
		if p.StringLimit == 0 && len(bt.order) < p.Blocks || p.StringLimit == 1 && len(bt.order) != 0 {
			t.Errorf("%+v: %d blocks", p, len(bt.order))
		}
		cs, err := Conflicts(p)
		if err != nil {
			t.Fatal(err)
		}
		if p.Conflicts < 0 && len(cs) != 0 || len(cs) > p.Blocks/2 {
			t.Errorf("%+v: %d conflicts", p, len(cs))
		}
		var buf bytes.Buffer
		if err := GenerateCatalog(&buf, p); err != nil || !json.Valid(buf.Bytes()) {
			t.Errorf("%+v: catalog: %v", p, err)
		}
	}
}

// lastMark is the last marker of a write (the block open after it), or OpNop.
func lastMark(m puppet.Marker, data string) (fstrace.Op, string) {
	op, name := fstrace.OpNop, ""
	for data != "" {
		o, n, _, rest := m.NextMark(data)
		if o == fstrace.OpNop {
			break
		}
		if o != fstrace.OpFail { // a failure report opens and closes nothing
			op, name = o, n
		}
		data = rest
	}
	return op, name
}
