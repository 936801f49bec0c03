package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
	"github.com/fsmove/fsmove/detector"
)

// sarifShape lists, for each SARIF 2.1.0 object fsmove writes, the
// properties the schema allows (every definition has additionalProperties
// false; only the ones we may use are listed) and those it requires.
// Taken from the OASIS schema, sarif-schema-2.1.0.json.
var sarifShape = map[string]struct{ allowed, required []string }{
	"log":                 {[]string{"$schema", "version", "runs"}, []string{"version", "runs"}},
	"run":                 {[]string{"tool", "originalUriBaseIds", "columnKind", "invocations", "results"}, []string{"tool"}},
	"invocation":          {[]string{"executionSuccessful", "toolExecutionNotifications", "properties"}, []string{"executionSuccessful"}},
	"notification":        {[]string{"level", "message"}, []string{"message"}},
	"tool":                {[]string{"driver"}, []string{"driver"}},
	"toolComponent":       {[]string{"name", "version", "informationUri", "rules"}, []string{"name"}},
	"reportingDescriptor": {[]string{"id", "name", "shortDescription", "fullDescription", "defaultConfiguration"}, []string{"id"}},
	"configuration":       {[]string{"level"}, nil},
	"message":             {[]string{"text"}, []string{"text"}},
	"result":              {[]string{"ruleId", "ruleIndex", "level", "message", "locations", "relatedLocations", "partialFingerprints", "fixes", "properties"}, []string{"message"}},
	"location":            {[]string{"id", "physicalLocation", "message"}, nil},
	"physicalLocation":    {[]string{"artifactLocation", "region"}, []string{"artifactLocation"}},
	"artifactLocation":    {[]string{"uri", "uriBaseId"}, []string{"uri"}},
	"region":              {[]string{"startLine", "startColumn", "endLine", "endColumn"}, nil},
	"fix":                 {[]string{"description", "artifactChanges"}, []string{"artifactChanges"}},
	"artifactChange":      {[]string{"artifactLocation", "replacements"}, []string{"artifactLocation", "replacements"}},
	"replacement":         {[]string{"deletedRegion", "insertedContent"}, []string{"deletedRegion"}},
	"artifactContent":     {[]string{"text"}, nil},
}

// checkObject checks one object against its shape and returns it.
func checkObject(t *testing.T, where, kind string, v any) map[string]any {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: %s is %T, not an object", where, kind, v)
	}
	shape := sarifShape[kind]
	for k := range obj {
		if !strings.Contains(" "+strings.Join(shape.allowed, " ")+" ", " "+k+" ") {
			t.Errorf("%s: %s has property %q the schema does not allow", where, kind, k)
		}
	}
	for _, k := range shape.required {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s: %s lacks required property %q", where, kind, k)
		}
	}
	return obj
}

func checkSARIF(t *testing.T, data []byte) (results []map[string]any) {
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	log := checkObject(t, "log", "log", doc)
	if log["version"] != "2.1.0" {
		t.Errorf("version %v", log["version"])
	}
	runs := log["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	run := checkObject(t, "run", "run", runs[0])
	tool := checkObject(t, "tool", "tool", run["tool"])
	if bases, ok := run["originalUriBaseIds"]; ok {
		for id, b := range bases.(map[string]any) {
			base := checkObject(t, "originalUriBaseIds."+id, "artifactLocation", b)
			if uri, _ := base["uri"].(string); !strings.HasPrefix(uri, "file:///") || !strings.HasSuffix(uri, "/") {
				t.Errorf("base %s: uri %q is not an absolute directory URI", id, uri)
			}
		}
	}
	driver := checkObject(t, "driver", "toolComponent", tool["driver"])
	if driver["name"] != "fsmove" {
		t.Errorf("driver name %v", driver["name"])
	}
	var ruleIDs []string
	for i, r := range driver["rules"].([]any) {
		rule := checkObject(t, fmt.Sprint("rule ", i), "reportingDescriptor", r)
		ruleIDs = append(ruleIDs, rule["id"].(string))
		checkObject(t, "rule", "message", rule["shortDescription"])
		checkObject(t, "rule", "message", rule["fullDescription"])
		cfg := checkObject(t, "rule", "configuration", rule["defaultConfiguration"])
		if cfg["level"] != "error" {
			t.Errorf("level %v", cfg["level"])
		}
	}
	if strings.Join(ruleIDs, ",") != "MOR,MN" {
		t.Errorf("rules %v", ruleIDs)
	}
	checkLoc := func(where string, v any) {
		loc := checkObject(t, where, "location", v)
		pl := checkObject(t, where, "physicalLocation", loc["physicalLocation"])
		checkObject(t, where, "artifactLocation", pl["artifactLocation"])
		if reg, ok := pl["region"]; ok {
			if line := checkObject(t, where, "region", reg)["startLine"].(float64); line < 1 {
				t.Errorf("%s: startLine %v < 1", where, line)
			}
		}
		if m, ok := loc["message"]; ok {
			checkObject(t, where, "message", m)
		}
	}
	for i, v := range asList(run["invocations"]) {
		inv := checkObject(t, fmt.Sprint("invocation ", i), "invocation", v)
		if _, ok := inv["executionSuccessful"].(bool); !ok {
			t.Errorf("invocation %d: executionSuccessful %v is not a boolean", i, inv["executionSuccessful"])
		}
		for j, n := range asList(inv["toolExecutionNotifications"]) {
			where := fmt.Sprint("notification ", j)
			note := checkObject(t, where, "notification", n)
			checkObject(t, where, "message", note["message"])
			if lv := note["level"]; lv != "error" && lv != "warning" && lv != "note" && lv != "none" {
				t.Errorf("%s: level %v", where, lv)
			}
		}
	}
	for i, r := range run["results"].([]any) {
		where := fmt.Sprint("result ", i)
		res := checkObject(t, where, "result", r)
		checkObject(t, where, "message", res["message"])
		idx := int(res["ruleIndex"].(float64))
		if idx < 0 || idx >= len(ruleIDs) || ruleIDs[idx] != res["ruleId"] {
			t.Errorf("%s: ruleIndex %d does not match ruleId %v", where, idx, res["ruleId"])
		}
		if lv := res["level"]; lv != "error" && lv != "warning" && lv != "note" && lv != "none" {
			t.Errorf("%s: level %v", where, lv)
		}
		for _, l := range asList(res["locations"]) {
			checkLoc(where, l)
		}
		for _, l := range asList(res["relatedLocations"]) {
			checkLoc(where, l)
		}
		for _, f := range asList(res["fixes"]) {
			fix := checkObject(t, where, "fix", f)
			checkObject(t, where, "message", fix["description"])
			for _, c := range asList(fix["artifactChanges"]) {
				change := checkObject(t, where, "artifactChange", c)
				checkObject(t, where, "artifactLocation", change["artifactLocation"])
				for _, r := range asList(change["replacements"]) {
					rep := checkObject(t, where, "replacement", r)
					reg := checkObject(t, where, "region", rep["deletedRegion"])
					for _, k := range []string{"startLine", "startColumn", "endLine", "endColumn"} {
						if n, _ := reg[k].(float64); n < 1 {
							t.Errorf("%s: a fix's region has %s %v", where, k, reg[k])
						}
					}
					checkObject(t, where, "artifactContent", rep["insertedContent"])
				}
			}
		}
		if ck := run["columnKind"]; ck != nil && ck != "utf16CodeUnits" && ck != "unicodeCodePoints" {
			t.Errorf("run: columnKind %v", ck)
		}
		results = append(results, res)
	}
	return results
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func TestSARIFShape(t *testing.T) {
	rep := goldenReport(t)
	var buf bytes.Buffer
	if err := SARIF(&buf, rep); err != nil {
		t.Fatal(err)
	}
	results := checkSARIF(t, buf.Bytes())
	// One result per reported finding, or per group of them; located
	// where the fix goes: at the consumer for MOR, at the producer for MN,
	// at a group's shared resource.
	groups := detector.GroupFindings(rep.Findings)
	inGroup := groupIndex(groups, len(rep.Findings))
	var at []*catalog.Resource
	for i, f := range rep.Findings {
		switch gi := inGroup[i]; {
		case !f.Reported():
		case gi < 0 && f.Kind == detector.MN:
			at = append(at, f.Producer)
		case gi < 0:
			at = append(at, f.Consumer)
		case groups[gi].Members[0] == i:
			at = append(at, groups[gi].Resource)
		}
	}
	if len(results) != len(at) || len(groups) == 0 || len(results) == rep.Faults() {
		t.Fatalf("%d results for %d faults in %d groups", len(results), rep.Faults(), len(groups))
	}
	for i, r := range at {
		locs := asList(results[i]["locations"])
		if r.File == "" {
			if len(locs) != 0 {
				t.Errorf("result %d: a location for a resource without file", i)
			}
			continue
		}
		pl := locs[0].(map[string]any)["physicalLocation"].(map[string]any)
		uri := pl["artifactLocation"].(map[string]any)["uri"].(string)
		if !strings.HasSuffix(strings.ReplaceAll(uri, "%20", " "), r.File) {
			t.Errorf("result %d: uri %s, %s at %s", i, uri, r.Ref(), r.File)
		}
		if line := pl["region"].(map[string]any)["startLine"].(float64); int(line) != r.Line {
			t.Errorf("result %d: line %v, %s at %d", i, line, r.Ref(), r.Line)
		}
	}
}

// TestSARIFBasePath: with a base path, the module's manifests in a
// subfolder of the repository are relative to SRCROOT, which
// originalUriBaseIds locates; the messages name them relative too; an MN
// result is at the producer, with the service related; a file outside the
// base stays absolute.
func TestSARIFBasePath(t *testing.T) {
	g := newFake()
	g.Add("File[/etc/x]", "/repo/site/profile/manifests/init.pp", 3)
	g.Add("Exec[use]", "/repo/site/profile/manifests/my use.pp", 5)
	g.Add("Service[x]", "/usr/share/puppet/modules/x/manifests/init.pp", 9)
	rep := detector.Detect(result(
		p("/etc/x", a("File[/etc/x]", "p", 1), a("Exec[use]", "c", 2), a("Service[x]", "c", 3))), g, detector.Options{})
	if rep.Faults() != 2 {
		t.Fatalf("%d faults, want an MOR and an MN", rep.Faults())
	}
	var abs, rel bytes.Buffer
	SARIF(&abs, rep)
	rep.BasePath = "/repo/"
	SARIF(&rel, rep)
	checkSARIF(t, abs.Bytes())
	results := checkSARIF(t, rel.Bytes())
	if !strings.Contains(abs.String(), `"uri": "file:///repo/site/profile/manifests/my%20use.pp"`) || strings.Contains(abs.String(), "originalUriBaseIds") {
		t.Errorf("without a base path, absolute URIs and no base:\n%s", abs.String())
	}
	var doc struct {
		Runs []struct {
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
		}
	}
	if err := json.Unmarshal(rel.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Runs[0].OriginalURIBaseIDs["SRCROOT"].URI; got != "file:///repo/" {
		t.Errorf("SRCROOT is %q, want file:///repo/", got)
	}
	uriOf := func(loc any) (uri, base string) {
		al := loc.(map[string]any)["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)
		base, _ = al["uriBaseId"].(string)
		return al["uri"].(string), base
	}
	for _, res := range results {
		msg := res["message"].(map[string]any)["text"].(string)
		if strings.Contains(msg, "/repo/") {
			t.Errorf("message names an absolute path under the base: %s", msg)
		}
		uri, base := uriOf(asList(res["locations"])[0])
		related, relatedBase := uriOf(asList(res["relatedLocations"])[0])
		switch res["ruleId"] {
		case "MOR":
			if uri != "site/profile/manifests/my%20use.pp" || base != "SRCROOT" || related != "site/profile/manifests/init.pp" || relatedBase != "SRCROOT" {
				t.Errorf("MOR at %s (%s), related %s (%s); want the Exec, the File related, under SRCROOT", uri, base, related, relatedBase)
			}
		case "MN":
			// At the producer, where notify goes; the service, outside
			// the base, stays absolute.
			if uri != "site/profile/manifests/init.pp" || base != "SRCROOT" ||
				related != "file:///usr/share/puppet/modules/x/manifests/init.pp" || relatedBase != "" {
				t.Errorf("MN at %s (%s), related %s (%s); want the File under SRCROOT, the Service absolute", uri, base, related, relatedBase)
			}
			if !strings.Contains(msg, "(site/profile/manifests/init.pp:3)") {
				t.Errorf("MN message lacks the fix's relative position: %s", msg)
			}
		}
	}
}
