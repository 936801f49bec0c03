package detector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/catalog"
)

// sarifShape lists, for each SARIF 2.1.0 object fsmove writes, the
// properties the schema allows (every definition has additionalProperties
// false; only the ones we may use are listed) and those it requires.
// Taken from the OASIS schema, sarif-schema-2.1.0.json.
var sarifShape = map[string]struct{ allowed, required []string }{
	"log":                 {[]string{"$schema", "version", "runs"}, []string{"version", "runs"}},
	"run":                 {[]string{"tool", "invocations", "results"}, []string{"tool"}},
	"invocation":          {[]string{"executionSuccessful", "toolExecutionNotifications", "properties"}, []string{"executionSuccessful"}},
	"notification":        {[]string{"level", "message"}, []string{"message"}},
	"tool":                {[]string{"driver"}, []string{"driver"}},
	"toolComponent":       {[]string{"name", "version", "informationUri", "rules"}, []string{"name"}},
	"reportingDescriptor": {[]string{"id", "name", "shortDescription", "fullDescription", "defaultConfiguration"}, []string{"id"}},
	"configuration":       {[]string{"level"}, nil},
	"message":             {[]string{"text"}, []string{"text"}},
	"result":              {[]string{"ruleId", "ruleIndex", "level", "message", "locations", "relatedLocations", "partialFingerprints", "properties"}, []string{"message"}},
	"location":            {[]string{"id", "physicalLocation", "message"}, nil},
	"physicalLocation":    {[]string{"artifactLocation", "region"}, []string{"artifactLocation"}},
	"artifactLocation":    {[]string{"uri", "uriBaseId"}, []string{"uri"}},
	"region":              {[]string{"startLine"}, []string{"startLine"}},
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
	if err := rep.WriteSARIF(&buf); err != nil {
		t.Fatal(err)
	}
	results := checkSARIF(t, buf.Bytes())
	// One result per reported finding, or per group of them; located at
	// the consumer (the service, for MN), or at a group's shared resource.
	groups := GroupFindings(rep.Findings)
	inGroup := groupIndex(groups, len(rep.Findings))
	var at []*catalog.Resource
	for i, f := range rep.Findings {
		switch gi := inGroup[i]; {
		case !f.Reported():
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

func TestSARIFSourceRoot(t *testing.T) {
	g := newFake()
	g.add("File[/etc/x]", "/code/modules/m/manifests/init.pp", 3)
	g.add("Exec[use]", "/code/modules/m/manifests/my use.pp", 5)
	rep := Detect(result(p("/etc/x", a("File[/etc/x]", "p", 1), a("Exec[use]", "c", 2))), g, Options{})
	var abs, rel bytes.Buffer
	rep.WriteSARIF(&abs)
	rep.SourceRoot = "/code/modules/m/"
	rep.WriteSARIF(&rel)
	checkSARIF(t, abs.Bytes())
	checkSARIF(t, rel.Bytes())
	if !strings.Contains(abs.String(), `"uri": "file:///code/modules/m/manifests/my%20use.pp"`) {
		t.Errorf("absolute URI missing:\n%s", abs.String())
	}
	if !strings.Contains(rel.String(), `"uri": "manifests/my%20use.pp",`) || !strings.Contains(rel.String(), `"uriBaseId": "%SRCROOT%"`) {
		t.Errorf("relative URI missing:\n%s", rel.String())
	}
}
