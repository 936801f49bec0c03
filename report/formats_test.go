package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"mime"
	"strings"
	"testing"
)

// TestFormats: every row of the table has a distinct name and a media
// type, is found by its name, and writes the golden report as what its
// media type says; the writers get the text's colour and the page's
// inputs through Inputs.
func TestFormats(t *testing.T) {
	rep := goldenReport(t)
	seen := map[string]bool{}
	for _, f := range Formats {
		if f.Name == "" || seen[f.Name] {
			t.Errorf("format %q: empty or twice in the table", f.Name)
		}
		seen[f.Name] = true
		if got, ok := FormatNamed(f.Name); !ok || got.Name != f.Name {
			t.Errorf("FormatNamed(%q) = %q, %v", f.Name, got.Name, ok)
		}
		media, _, err := mime.ParseMediaType(f.ContentType)
		if err != nil {
			t.Errorf("%s: content type %q: %v", f.Name, f.ContentType, err)
			continue
		}
		var buf bytes.Buffer
		if err := f.Write(&buf, rep, Inputs{}); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		out := buf.Bytes()
		switch {
		case media == "application/json" || strings.HasSuffix(media, "+json"):
			if !json.Valid(out) {
				t.Errorf("%s (%s) is not JSON", f.Name, media)
			}
		case media == "application/xml":
			if err := xml.Unmarshal(out, new(struct{})); err != nil {
				t.Errorf("%s (%s) is not XML: %v", f.Name, media, err)
			}
		case media == "text/html":
			if !bytes.HasPrefix(out, []byte("<!DOCTYPE html>")) {
				t.Errorf("%s (%s) is not an HTML page: %.40q", f.Name, media, out)
			}
		case media == "text/plain":
			if bytes.Contains(out, []byte("\x1b[")) {
				t.Errorf("%s without colour has colour codes", f.Name)
			}
		default:
			t.Errorf("%s: no check for %s", f.Name, media)
		}
	}
	if _, ok := FormatNamed("pdf"); ok {
		t.Error("FormatNamed found a format the table does not have")
	}
	if got := strings.Join(FormatNames(), ","); got != "text,json,sarif,junit,codequality,html" {
		t.Errorf("FormatNames() = %s", got)
	}

	// What Inputs carries reaches the writer.
	text, _ := FormatNamed("text")
	var color bytes.Buffer
	if err := text.Write(&color, rep, Inputs{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(color.Bytes(), []byte("\x1b[")) {
		t.Error("text with Inputs.Color has no colour")
	}
	page, _ := FormatNamed("html")
	var withInputs bytes.Buffer
	built := false
	err := page.Write(&withInputs, rep, Inputs{HTML: func() HTMLInputs { built = true; return HTMLInputs{ExitStatus: 3} }})
	if err != nil || !built || !strings.Contains(withInputs.String(), "the run failed") {
		t.Errorf("the page's inputs: built %v, err %v, exit status 3 not shown", built, err)
	}
}
