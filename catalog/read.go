package catalog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
)

// ReadFile reads a catalog from a file, or from standard input for "-" (see
// Read).
func ReadFile(path string) (*Catalog, error) {
	if path == "-" {
		c, err := Read(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("standard input: %w", err)
		}
		return c, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Read decodes a Puppet 5–8 catalog: the output of `puppet catalog find`
// (its leading "Notice: Compiled catalog …" line and any other line before
// the JSON are skipped), the client cache written by `puppet apply
// --catalog_cache_terminus json`, or either wrapped as
// {"document_type":"Catalog","data":{…}}.
//
// Resources are decoded one at a time, so memory holds the resources, not a
// tree of the whole document. Broken JSON gives an error naming the field
// (e.g. "resources[12].line") and the byte offset in the whole input,
// counted as encoding/json counts it: the bytes read when the fault was seen,
// so usually one past the offending byte.
func Read(r io.Reader) (*Catalog, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	skipped, err := skipPreamble(br)
	if err != nil {
		return nil, err
	}
	rec := &recorder{r: br}
	p := &parser{dec: json.NewDecoder(rec), rec: rec, base: skipped, cat: &Catalog{}}
	if err := p.top(); err != nil {
		return nil, err
	}
	c := p.cat
	if !p.sawResources {
		return nil, errors.New("catalog: not a Puppet catalog: no \"resources\" field")
	}
	c.buildIndex()
	p.resolveEdges()
	return c, nil
}

// skipPreamble skips a UTF-8 byte order mark and every line that does not
// start with '{' (Puppet's "Notice: Compiled catalog …", warnings). It
// returns the number of bytes skipped.
func skipPreamble(br *bufio.Reader) (int64, error) {
	var n int64
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
		n += 3
	}
	for {
		// Skip blanks, then look at the first byte of the line.
		b, err := br.Peek(1)
		if err == io.EOF {
			return n, errors.New("catalog: empty input: no JSON object found")
		}
		if err != nil {
			return n, fmt.Errorf("catalog: %w", err)
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.Discard(1)
			n++
			continue
		case '{':
			return n, nil
		}
		line, err := br.ReadSlice('\n')
		n += int64(len(line))
		for err == bufio.ErrBufferFull { // a very long non-JSON line
			line, err = br.ReadSlice('\n')
			n += int64(len(line))
		}
		if err == io.EOF {
			return n, errors.New("catalog: no JSON object found")
		}
		if err != nil {
			return n, fmt.Errorf("catalog: %w", err)
		}
	}
}

// recorder keeps the bytes the JSON decoder has read since the start of the
// value being decoded, so that an error can be located exactly: the
// decoder's own offsets are relative to values, not to the input.
type recorder struct {
	r    io.Reader
	buf  []byte // input bytes [base, base+len(buf))
	base int64
}

func (rc *recorder) Read(p []byte) (int, error) {
	n, err := rc.r.Read(p)
	rc.buf = append(rc.buf, p[:n]...)
	return n, err
}

// forget drops the bytes before the decoder offset off.
func (rc *recorder) forget(off int64) {
	if off <= rc.base {
		return
	}
	drop := off - rc.base
	if drop > int64(len(rc.buf)) {
		drop = int64(len(rc.buf))
	}
	rc.buf = append(rc.buf[:0], rc.buf[drop:]...)
	rc.base += drop
}

// from returns the recorded bytes from decoder offset off on.
func (rc *recorder) from(off int64) []byte {
	if off < rc.base || off-rc.base > int64(len(rc.buf)) {
		return nil
	}
	return rc.buf[off-rc.base:]
}

// rawResource is one element of "resources" as Puppet writes it.
type rawResource struct {
	Type       any            `json:"type"`  // a string; anything else skips the resource
	Title      any            `json:"title"` // a string; a number is tolerated
	File       string         `json:"file"`
	Line       int            `json:"line"`
	Exported   bool           `json:"exported"`
	Parameters map[string]any `json:"parameters"`
}

type rawEdge struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

type parser struct {
	dec  *json.Decoder
	rec  *recorder
	base int64 // bytes skipped before the JSON
	cat  *Catalog

	sawResources bool
	edges        []rawEdge
}

// offset is the input offset of the decoder's position.
func (p *parser) offset() int64 { return p.base + p.dec.InputOffset() }

// top parses the top-level object.
func (p *parser) top() error {
	tok, err := p.token("catalog")
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("catalog: expected a JSON object at byte offset %d", p.offset())
	}
	return p.object(0)
}

// object parses the members of a catalog object whose '{' was read; depth
// counts "data" wrappers.
func (p *parser) object(depth int) error {
	for p.dec.More() {
		tok, err := p.token("catalog")
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("catalog: expected a field name at byte offset %d", p.offset())
		}
		switch key {
		case "resources":
			err = p.array(key, p.resource)
		case "edges":
			err = p.array(key, p.edge)
		case "data":
			err = p.wrapped(depth)
		case "name":
			err = p.scalar(key, &p.cat.Name)
		case "environment":
			err = p.scalar(key, &p.cat.Environment)
		case "version":
			err = p.scalar(key, &p.cat.Version)
		case "catalog_uuid":
			err = p.scalar(key, &p.cat.UUID)
		case "classes":
			var v any
			err = p.value(key, &v)
			p.cat.Classes = append(p.cat.Classes, stringList(v)...)
		default:
			var skip json.RawMessage
			err = p.value(key, &skip)
		}
		if err != nil {
			return err
		}
	}
	_, err := p.token("catalog") // the closing '}'
	return err
}

// wrapped parses "data": an object is the catalog of a
// {"document_type":"Catalog","data":{…}} wrapper; anything else is skipped.
func (p *parser) wrapped(depth int) error {
	if depth > 2 {
		var skip json.RawMessage
		return p.value("data", &skip)
	}
	tok, err := p.token("data")
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return p.object(depth + 1)
	case json.Delim('['):
		return p.skipRest("data")
	}
	return nil
}

// skipRest skips the rest of an array or object whose opening was read.
func (p *parser) skipRest(field string) error {
	for depth := 1; depth > 0; {
		tok, err := p.token(field)
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// array parses an array field element by element; null is an empty array.
func (p *parser) array(field string, elem func(i int) error) error {
	tok, err := p.token(field)
	if err != nil {
		return err
	}
	if tok == nil {
		if field == "resources" {
			p.sawResources = true
		}
		return nil
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("catalog: field %q: expected an array at byte offset %d", field, p.offset())
	}
	if field == "resources" {
		p.sawResources = true
	}
	for i := 0; p.dec.More(); i++ {
		if err := elem(i); err != nil {
			return err
		}
	}
	_, err = p.token(field) // the closing ']'
	return err
}

func (p *parser) resource(i int) error {
	var raw rawResource
	if err := p.value(fmt.Sprintf("resources[%d]", i), &raw); err != nil {
		return err
	}
	typ, _ := raw.Type.(string)
	title := scalarText(raw.Title)
	if typ == "" || title == "" {
		p.cat.Skipped++
		p.cat.Warnings = append(p.cat.Warnings,
			fmt.Sprintf("resources[%d]: no type or title (type %q, title %q): skipped", i, typ, title))
		return nil
	}
	p.cat.Resources = append(p.cat.Resources, &Resource{
		ID:       len(p.cat.Resources),
		Type:     typ,
		Title:    title,
		File:     raw.File,
		Line:     raw.Line,
		Exported: raw.Exported,
		Params:   raw.Parameters,
	})
	return nil
}

func (p *parser) edge(i int) error {
	var e rawEdge
	if err := p.value(fmt.Sprintf("edges[%d]", i), &e); err != nil {
		return err
	}
	p.edges = append(p.edges, e)
	return nil
}

// resolveEdges turns the containment edges into resource pairs.
func (p *parser) resolveEdges() {
	c := p.cat
	for i, e := range p.edges {
		src, ok1 := c.Lookup(e.Source)
		dst, ok2 := c.Lookup(e.Target)
		if !ok1 || !ok2 {
			c.Warnings = append(c.Warnings,
				fmt.Sprintf("edges[%d]: %s -> %s: unknown resource: skipped", i, e.Source, e.Target))
			continue
		}
		c.Edges = append(c.Edges, Edge{src, dst})
	}
}

// scalar decodes a string, number or boolean into s (as text); other values
// are skipped.
func (p *parser) scalar(field string, s *string) error {
	var v any
	if err := p.value(field, &v); err != nil {
		return err
	}
	*s = scalarText(v)
	return nil
}

// scalarText gives a string, number or boolean as text, anything else as "".
func scalarText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// token reads a delimiter or a field name.
func (p *parser) token(field string) (json.Token, error) {
	tok, err := p.dec.Token()
	if err == io.EOF {
		return nil, fmt.Errorf("catalog: field %q: unexpected end of input at byte offset %d", field, p.offset())
	}
	if err != nil {
		return nil, p.describe(field, err, p.offset())
	}
	return tok, nil
}

// value decodes one JSON value into v. On error it decodes the recorded
// bytes of the value again with a fresh decoder, whose offsets then count
// from the value's start, to name the exact byte offset.
func (p *parser) value(field string, v any) error {
	start := p.dec.InputOffset()
	p.rec.forget(start)
	err := p.dec.Decode(v)
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("catalog: field %q: unexpected end of input at byte offset %d", field, p.offset())
	}
	// The bytes between the previous token and the value may hold a ',' or
	// ':' and blanks; skip them so the fresh decoder starts at the value.
	data := p.rec.from(start)
	lead := 0
	for lead < len(data) {
		switch data[lead] {
		case ' ', '\t', '\r', '\n', ',', ':':
			lead++
			continue
		}
		break
	}
	at := p.base + start + int64(lead)
	if lead <= len(data) {
		again := json.NewDecoder(bytes.NewReader(data[lead:]))
		if err2 := again.Decode(v); err2 != nil && errorOffset(err2) >= 0 {
			return p.describe(field, err2, at+errorOffset(err2))
		}
	}
	return p.describe(field, err, at)
}

// errorOffset returns the offset carried by a decoding error, or -1.
func errorOffset(err error) int64 {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Offset
	case errors.As(err, &te):
		return te.Offset
	}
	return -1
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// describe words a decoding error with the field and the input offset.
func (p *parser) describe(field string, err error, at int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("catalog: field %q: JSON syntax error at byte offset %d: %v", field, at, se)
	case errors.As(err, &te):
		name := field
		if te.Field != "" {
			name = field + "." + te.Field
		}
		return fmt.Errorf("catalog: field %q: %s value where %s was expected, at byte offset %d",
			name, te.Value, jsonKind(te.Type), at)
	}
	return fmt.Errorf("catalog: field %q at byte offset %d: %w", field, at, err)
}
